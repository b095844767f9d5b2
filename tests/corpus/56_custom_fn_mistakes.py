import torch


class ForgotAGradient(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, factor):
        ctx.factor = factor
        return x * factor

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.factor


class GradForANumber(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, factor):
        return x * factor

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 2, grad_output


class WrongShape(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.sum()

    @staticmethod
    def backward(ctx, grad_output):
        return torch.ones(5) * grad_output


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
for fn, args in [(ForgotAGradient, (x, 2.0)), (GradForANumber, (x, 2.0)), (WrongShape, (x,))]:
    out = fn.apply(*args)
    try:
        out.sum().backward()
        print(fn, "worked")
    except RuntimeError as e:
        print("RuntimeError:", e)
print(x.grad)


class Fine(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, factor):
        ctx.factor = factor
        return x * factor

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.factor, None


Fine.apply(x, 4.0).sum().backward()
print(x.grad)
