import torch

w = torch.tensor(0.0, requires_grad=True)
data = [(1.0, 2.1), (2.0, 3.9), (3.0, 6.2), (4.0, 7.8)]
running = None
for epoch in range(40):
    epoch_loss = 0.0
    for x, y in data:
        loss = (w * x - y) ** 2
        loss.backward()
        with torch.no_grad():
            w -= 0.01 * w.grad
        w.grad = None
        epoch_loss += loss.item()
    running = epoch_loss if running is None else 0.9 * running + 0.1 * epoch_loss
    if (epoch + 1) % 10 == 0:
        print(f"epoch {epoch + 1:2d}  loss {epoch_loss:8.4f}  avg {running:8.4f}  w {w.item():.4f}")
