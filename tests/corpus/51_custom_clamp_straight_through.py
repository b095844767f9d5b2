import torch


class StraightThroughClamp(torch.autograd.Function):
    """Clamp forward, but let the gradient pass as if nothing was clamped."""

    @staticmethod
    def forward(ctx, x, low, high):
        return x.clamp(low, high)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None, None


x = torch.tensor([-2.0, -0.5, 0.25, 1.5, 3.0], requires_grad=True)
y = StraightThroughClamp.apply(x, -1.0, 1.0)
print(y)
print(y.grad_fn.name(), y.requires_grad, y.is_leaf)
(y * torch.arange(1.0, 6.0)).sum().backward()
print("straight-through grad:", x.grad)

x.grad = None
torch.clamp(x, -1.0, 1.0).mul(torch.arange(1.0, 6.0)).sum().backward()
print("clamp's own grad:     ", x.grad)
