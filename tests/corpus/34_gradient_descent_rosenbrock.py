import torch

def rosenbrock(p, a=1.0, b=100.0):
    x, y = p[0], p[1]
    return (a - x) ** 2 + b * (y - x ** 2) ** 2

p = torch.tensor([-1.0, 1.5], requires_grad=True)
opt = torch.optim.Adam([p], lr=0.05)
for step in range(1, 301):
    opt.zero_grad()
    loss = rosenbrock(p)
    loss.backward()
    opt.step()
    if step % 100 == 0:
        print(f"{step}: f={loss.item():.5f} p=({p[0].item():.4f}, {p[1].item():.4f})")
