import torch

w = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
target = torch.zeros(3)
lam = 0.1
for step in range(3):
    data_loss = ((w - target) ** 2).sum()
    reg = lam * (w ** 2).sum()
    total = data_loss + reg
    total.backward()
    print(step, f"{data_loss.item():.4f} + {reg.item():.4f}", w.grad)
    with torch.no_grad():
        w.sub_(0.1 * w.grad)
    w.grad.zero_()
