import torch

xs = torch.arange(10, dtype=torch.float32)
ys = xs * 2 + 1
w = torch.tensor(0.0, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)
batch = 5
for epoch in range(3):
    for i, start in enumerate(range(0, len(xs), batch)):
        xb, yb = xs[start:start + batch], ys[start:start + batch]
        loss = ((w * xb + b - yb) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= 0.01 * w.grad
            b -= 0.01 * b.grad
            w.grad.zero_()
            b.grad.zero_()
    print(epoch, i, round(w.item(), 4), round(b.item(), 4))
for a, c in zip([1, 2, 3], "abc"):
    print(a, c, end=" ")
print()
