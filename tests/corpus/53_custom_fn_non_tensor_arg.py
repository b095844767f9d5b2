import torch


class ScaledPower(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, power, scale=1.0):
        ctx.power = power
        ctx.scale = scale
        ctx.save_for_backward(x)
        print("needs_input_grad:", ctx.needs_input_grad)
        return scale * x ** power

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        grad_x = grad_output * ctx.scale * ctx.power * x ** (ctx.power - 1)
        return grad_x, None, None


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = ScaledPower.apply(x, 3, 0.5)
print(y)
print("ctx kept:", y.grad_fn.power, y.grad_fn.scale)
print(len(y.grad_fn.next_functions), "edge for", 3, "arguments")
y.sum().backward()
print(x.grad)

frozen = torch.tensor([1.0, 2.0])
out = ScaledPower.apply(frozen, 2)
print(out, out.requires_grad, out.grad_fn)

with torch.no_grad():
    out = ScaledPower.apply(x, 2)
print(out.requires_grad)
print(type(y.grad_fn).__name__, type(y.grad_fn))
