import torch

def f(v):
    return torch.stack([v[0] * v[1], v[0] + v[1] ** 2, v.exp().sum()])

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = f(x)
rows = []
for i in range(y.shape[0]):
    g, = torch.autograd.grad(y[i], x, retain_graph=True)
    rows.append(g)
J = torch.stack(rows)
print(J)
