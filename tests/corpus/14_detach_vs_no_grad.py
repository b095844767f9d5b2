import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 3
c = b.detach()
d = c * a
d.sum().backward()
print(a.grad, c.requires_grad, d.grad_fn.name())
a.grad = None
with torch.no_grad():
    e = a * 3
f = e * a
f.sum().backward()
print(a.grad, e.requires_grad, e.grad_fn)
