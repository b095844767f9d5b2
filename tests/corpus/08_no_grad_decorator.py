import torch

@torch.no_grad()
def evaluate(w, xs):
    return [(w * x).sum().item() for x in xs]

def train_step(w, x, target, lr=0.1):
    loss = ((w * x).sum() - target) ** 2
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
    w.grad = None
    return loss.item()

w = torch.tensor([0.5, -0.5], requires_grad=True)
data = [(torch.tensor([1.0, 2.0]), 3.0), (torch.tensor([2.0, 0.0]), 2.0)]
for epoch in range(5):
    total = 0.0
    for x, t in data:
        total += train_step(w, x, t, lr=0.05)
    print(epoch, round(total, 5))
print(evaluate(w, [d[0] for d in data]))
print(torch.is_grad_enabled())
