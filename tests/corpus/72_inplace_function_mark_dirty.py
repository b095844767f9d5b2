import torch


class ScaleInPlace(torch.autograd.Function):
    """Multiplies its input by a constant in place, the way an in-place layer would."""

    @staticmethod
    def forward(ctx, x, factor):
        ctx.factor = factor
        x.mul_(factor)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.factor, None


class ClampInPlace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lo, hi):
        inside = (x >= lo) & (x <= hi)
        x.clamp_(lo, hi)
        ctx.mark_dirty(x)
        ctx.save_for_backward(inside)
        return x

    @staticmethod
    def backward(ctx, grad):
        inside, = ctx.saved_tensors
        return grad * inside, None, None


w = torch.tensor([0.5, -1.5, 2.0], requires_grad=True)
h = w * 2
print("version before:", h._version)
out = ScaleInPlace.apply(h, 3.0)
print(out is h, h, h._version)
print(h.grad_fn.name(), h.grad_fn.next_functions[0][0].name(), h.is_leaf)
c = ClampInPlace.apply(h, -2.0, 4.0)
print(c, c.grad_fn.name())
c.sum().backward()
print(w.grad)

try:
    ScaleInPlace.apply(w, 2.0)
except RuntimeError as e:
    print("RuntimeError:", e)
print("w after the refused call:", w)

with torch.no_grad():
    t = torch.ones(2)
    r = ScaleInPlace.apply(t, 5.0)
print(r is t, t, t.requires_grad, t._version)

s = w.detach() * 1
s.requires_grad_()
u = s + 0
kept = u * u
ScaleInPlace.apply(u, 2.0)
try:
    kept.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(";")[0])
