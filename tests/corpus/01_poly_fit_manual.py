import torch
import math

xs = torch.linspace(-math.pi, math.pi, 200, dtype=torch.float64)
ys = torch.sin(xs)
a = torch.tensor(0.1, dtype=torch.float64, requires_grad=True)
b = torch.tensor(-0.2, dtype=torch.float64, requires_grad=True)
c = torch.tensor(0.3, dtype=torch.float64, requires_grad=True)
d = torch.tensor(0.05, dtype=torch.float64, requires_grad=True)
lr = 1e-6
for step in range(500):
    pred = a + b * xs + c * xs ** 2 + d * xs ** 3
    loss = (pred - ys).pow(2).sum()
    if step % 100 == 99:
        print(step, round(loss.item(), 6))
    loss.backward()
    with torch.no_grad():
        for p in (a, b, c, d):
            p -= lr * p.grad
            p.grad = None
print(f"y = {a.item():.5f} + {b.item():.5f} x + {c.item():.5f} x^2 + {d.item():.5f} x^3")
