import torch


class MaxWithIndex(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        index = x.argmax()
        value = x[index]
        ctx.mark_non_differentiable(index)
        ctx.save_for_backward(index)
        ctx.size = x.shape[0]
        return value, index

    @staticmethod
    def backward(ctx, grad_value, grad_index):
        (index,) = ctx.saved_tensors
        print("gradient for the index:", grad_index)
        grad = torch.zeros(ctx.size)
        grad[index] = grad_value
        return grad


scores = torch.tensor([0.2, 1.7, -0.3, 0.9], requires_grad=True)
best, where = MaxWithIndex.apply(scores)
print(best, where)
print(best.requires_grad, where.requires_grad, where.grad_fn)
(best * 3).backward()
print(scores.grad)


class Halves(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x[:2] * 1.0, x[2:] * 1.0

    @staticmethod
    def backward(ctx, g_first, g_second):
        print("second half got:", g_second)
        parts = [g_first, torch.zeros(2) if g_second is None else g_second]
        return torch.cat(parts)


v = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
first, second = Halves.apply(v)
print(first.grad_fn is second.grad_fn)
first.sum().backward()
print(v.grad)
