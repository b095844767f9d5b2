import torch


class SoftClamp(torch.autograd.Function):
    """x clamped to [-1, 1] in the forward pass; a smooth gradient in the backward pass."""

    @staticmethod
    def forward(ctx, x, sharpness=4.0):
        ctx.save_for_backward(x)
        ctx.sharpness = sharpness
        return x.clamp(-1.0, 1.0)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        k = ctx.sharpness
        # 1 inside the interval, falling off as 1 / (1 + k * distance**2) outside it
        distance = (x.abs() - 1).clamp(min=0)
        return grad_output / (1 + k * distance ** 2), None


x = torch.tensor([-3.0, -1.0, -0.5, 0.0, 0.5, 2.0], requires_grad=True)
y = SoftClamp.apply(x, 2.0)
print(y)
print(y.grad_fn.name(), y.requires_grad)
y.sum().backward()
print(x.grad)


def numeric_grad(f, x, eps=1e-6):
    grads = []
    for i in range(x.numel()):
        up, down = x.clone(), x.clone()
        up[i] += eps
        down[i] -= eps
        grads.append(((f(up) - f(down)) / (2 * eps)).item())
    return torch.tensor(grads, dtype=x.dtype)


inside = torch.tensor([-0.9, -0.2, 0.3, 0.7], dtype=torch.float64, requires_grad=True)
SoftClamp.apply(inside).sum().backward()
by_hand = numeric_grad(lambda t: SoftClamp.apply(t).sum(), inside.detach())
print("inside the interval the gradient is exact:", torch.allclose(inside.grad, by_hand))

outside = torch.tensor([1.5], dtype=torch.float64, requires_grad=True)
SoftClamp.apply(outside).sum().backward()
print(f"outside it is a surrogate: {outside.grad.item():.4f} (the true slope is 0)")
print(torch.autograd.gradcheck(lambda t: SoftClamp.apply(t) * 2, (inside,)))
