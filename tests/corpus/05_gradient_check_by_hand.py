import torch

def f(x):
    return (x.sin() * x.exp()).sum()

x = torch.tensor([0.3, -0.7, 1.1], dtype=torch.float64, requires_grad=True)
f(x).backward()
eps = 1e-6
numeric = []
for i in range(3):
    e = torch.zeros(3, dtype=torch.float64)
    e[i] = eps
    with torch.no_grad():
        numeric.append(((f(x + e) - f(x - e)) / (2 * eps)).item())
numeric = torch.tensor(numeric, dtype=torch.float64)
print(x.grad)
print(numeric)
print("close:", (x.grad - numeric).abs().max().item() < 1e-6)
analytic = (x.cos() + x.sin()) * x.exp()
print(((x.grad - analytic.detach()).abs() < 1e-12).sum().item() == 3)
