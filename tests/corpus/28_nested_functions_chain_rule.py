import torch

def compose(*fns):
    def composed(x):
        for fn in reversed(fns):
            x = fn(x)
        return x
    return composed

square = lambda t: t * t
shift = lambda t: t + 1
h = compose(torch.sin, square, shift)
x = torch.tensor(0.5, requires_grad=True)
y = h(x)
y.backward()
print(round(y.item(), 6), round(x.grad.item(), 6))
import math
print(round(math.cos(2.25) * 2 * 1.5, 6))
