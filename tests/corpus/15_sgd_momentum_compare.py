import torch

def run(momentum):
    w = torch.tensor([5.0], requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1, momentum=momentum)
    history = []
    for _ in range(20):
        opt.zero_grad()
        loss = (w - 1.0) ** 2
        loss.sum().backward()
        opt.step()
        history.append(round(w.item(), 4))
    return history

for m in (0.0, 0.9):
    h = run(m)
    print(f"momentum={m}: {h[:3]} ... {h[-1]}")
