import torch

class ClampInPlace(torch.autograd.Function):
    """Clamps its input in place (it saves memory), passing the gradient only where the value was kept."""

    @staticmethod
    def forward(ctx, x, low, high):
        kept = (x >= low) & (x <= high)
        x.clamp_(low, high)
        ctx.mark_dirty(x)
        ctx.save_for_backward(kept)
        return x

    @staticmethod
    def backward(ctx, grad):
        (kept,) = ctx.saved_tensors
        return grad * kept, None, None


w = torch.tensor([[-2.0, 0.5, 3.0], [1.0, -0.5, 2.5]], requires_grad=True)
h = w * 2
row = h[0]
out = ClampInPlace.apply(row, -1.0, 1.0)
print(out is row, out)
print(h)
print(h.grad_fn.name(), row.grad_fn.name())
print([fn.name() if fn is not None else None for fn, _ in h.grad_fn.next_functions])
h.sum().backward()
print(w.grad)
try:
    ClampInPlace.apply(w[1], 0.0, 1.0)
except RuntimeError as e:
    print("RuntimeError:", e)
