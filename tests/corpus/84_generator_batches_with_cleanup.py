import torch

torch.manual_seed(2)
features = torch.randn(20, 2)
targets = features @ torch.tensor([1.5, -2.0]) + 0.5


def batches(x, y, size, log):
    """Yields minibatches in order; says when the pass is over, or cut short."""
    served = 0
    try:
        for start in range(0, len(x), size):
            served += 1
            yield x[start:start + size], y[start:start + size]
    finally:
        log.append(f"served {served} batch{'es' if served != 1 else ''}")


class Average:
    def __init__(self):
        self.total = 0.0
        self.count = 0

    def add(self, value, n=1):
        self.total += value * n
        self.count += n

    @property
    def value(self):
        return self.total / max(self.count, 1)


w = torch.zeros(2, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
log = []
for epoch in range(3):
    avg = Average()
    for i, (xb, yb) in enumerate(batches(features, targets, 6, log)):
        loss = ((xb @ w + b - yb) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= 0.1 * w.grad
            b -= 0.1 * b.grad
        w.grad.zero_()
        b.grad.zero_()
        avg.add(loss.item(), len(xb))
        if epoch == 2 and i == 1:
            break  # the generator is dropped here: its finally block runs
    print(f"epoch {epoch}: mean loss {avg.value:.4f} over {avg.count} samples")
print(log)
print(w, b)

first = next(batches(features, targets, 4, log))
print(first[0].shape, log[-1])
