import torch

# a hand-written mini-batch generator feeding a linear fit
def minibatches(xs, ys, size):
    n = xs.shape[0]
    for start in range(0, n, size):
        end = min(start + size, n)
        yield xs[start:end], ys[start:end]


xs = torch.linspace(-1, 1, 10).unsqueeze(1)
ys = 3 * xs - 0.5
w = torch.zeros(1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)

for epoch in range(3):
    total = 0.0
    for i, (xb, yb) in enumerate(minibatches(xs, ys, 4)):
        loss = ((xb * w + b - yb) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= 0.2 * w.grad
            b -= 0.2 * b.grad
        w.grad = None
        b.grad = None
        total += loss.item()
        if epoch == 0:
            print(f"  batch {i}: {xb.shape[0]} rows, loss {loss.item():.4f}")
    print(f"epoch {epoch}: total {total:.4f} w={w.item():.4f} b={b.item():.4f}")

sizes = [len(xb) for xb, _ in minibatches(xs, ys, 3)]
print(sizes, sum(sizes))
gen = minibatches(xs, ys, 5)
first_x, first_y = next(gen)
print(first_x.flatten(), type(gen).__name__)
