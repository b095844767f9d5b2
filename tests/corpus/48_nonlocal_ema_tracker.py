import torch

def ema_tracker(alpha):
    value = None
    def update(x):
        nonlocal value
        value = x if value is None else alpha * value + (1 - alpha) * x
        return value
    return update

track = ema_tracker(0.8)
w = torch.tensor(5.0, requires_grad=True)
for i in range(6):
    loss = (w - 1) ** 2
    loss.backward()
    with torch.no_grad():
        w -= 0.2 * w.grad
    w.grad = None
    print(i, f"{loss.item():.4f}", f"{track(loss.item()):.4f}")
