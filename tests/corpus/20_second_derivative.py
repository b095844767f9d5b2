import torch

x = torch.tensor(1.5, requires_grad=True)
y = x ** 4 - 2 * x ** 2
dy, = torch.autograd.grad(y, x, create_graph=True)
d2y, = torch.autograd.grad(dy, x)
print(f"f'={dy.item():.4f} f''={d2y.item():.4f}")
print(4 * 1.5 ** 3 - 4 * 1.5, 12 * 1.5 ** 2 - 4)
