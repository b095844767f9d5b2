import torch

x1, x2 = torch.tensor(2.0), torch.tensor(0.0)
w1 = torch.tensor(-3.0, requires_grad=True)
w2 = torch.tensor(1.0, requires_grad=True)
b = torch.tensor(6.8813735870195432, requires_grad=True)
n = x1 * w1 + x2 * w2 + b
o = torch.tanh(n)
o.backward()
print(f"o={o.item():.4f}")
for name, t in [("w1", w1), ("w2", w2), ("b", b)]:
    print(name, round(t.grad.item(), 4))
print("by hand:", round((1 - o.item() ** 2) * x1.item(), 4))
