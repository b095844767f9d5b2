import torch
from torch.autograd.function import once_differentiable


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        print("inside backward, grad mode is", torch.is_grad_enabled())
        return 2 * x * grad_output


x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
y = Square.apply(x)
y.sum().backward()
print(x.grad)

x.grad = None
y = Square.apply(x)
loss = (y * y).sum()
(g,) = torch.autograd.grad(loss, x, create_graph=True)
print(g)
try:
    g.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
