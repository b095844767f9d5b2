import torch


class MyExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = x.exp()
        ctx.save_for_backward(result)  # the output itself: d/dx exp(x) = exp(x)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


x = torch.tensor([0.0, 0.5, 1.0], requires_grad=True)
y = MyExp.apply(x)
print(y)
(dy,) = torch.autograd.grad(y.sum(), x, create_graph=True)
print("first derivative:", dy)
print("built by", dy.grad_fn.name())
(d2y,) = torch.autograd.grad(dy.sum(), x)
print("second derivative:", d2y)
print("matches exp:", torch.allclose(d2y, x.detach().exp()))

z = MyExp.apply(x)
z.sum().backward()
try:
    z.sum().backward()
except RuntimeError as e:
    print("second backward:", str(e)[:60])

w = MyExp.apply(x)
with torch.no_grad():
    w.add_(1)
try:
    w.sum().backward()
except RuntimeError as e:
    print("after an in-place change:", str(e)[:110])
