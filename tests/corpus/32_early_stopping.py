import torch

w = torch.tensor([0.0, 0.0], requires_grad=True)
x = torch.tensor([[1.0, 2.0], [3.0, 1.0], [0.5, 0.5]])
y = torch.tensor([5.0, 5.0, 1.5])
opt = torch.optim.SGD([w], lr=0.02)
best, patience, bad = float("inf"), 3, 0
for epoch in range(1000):
    opt.zero_grad()
    loss = ((x @ w - y) ** 2).mean()
    loss.backward()
    opt.step()
    if loss.item() < best - 1e-5:
        best, bad = loss.item(), 0
    else:
        bad += 1
        if bad >= patience:
            print("stopped at", epoch)
            break
print(round(best, 5), [round(v, 3) for v in w.tolist()])
