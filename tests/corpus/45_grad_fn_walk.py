import torch

a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
c = (a * b + a).exp()

def walk(fn, depth=0):
    if fn is None:
        return
    print("  " * depth + fn.name())
    for child, _ in fn.next_functions:
        walk(child, depth + 1)

walk(c.grad_fn)
