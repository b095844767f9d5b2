import torch

x = torch.tensor(10.0, requires_grad=True)
lr = 0.2
steps = 0
while True:
    loss = (x - 3) ** 2
    if loss.item() < 1e-6:
        break
    loss.backward()
    with torch.no_grad():
        x -= lr * x.grad
    x.grad.zero_()
    steps += 1
    if steps > 500:
        print("did not converge")
        break
print(steps, round(x.item(), 4))
