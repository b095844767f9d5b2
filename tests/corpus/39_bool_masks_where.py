import torch

x = torch.tensor([-2.0, -0.5, 0.0, 0.5, 2.0], requires_grad=True)
mask = x > 0
y = torch.where(mask, x ** 2, -x)
y.sum().backward()
print(mask, y)
print(x.grad)
print(x[mask], (x.detach() * mask).sum().item(), mask.sum().item())
