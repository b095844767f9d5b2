import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
for p in model.parameters():
    nn.init.constant_(p, 0.3)
opt = torch.optim.Adam([
    {"params": model[0].parameters(), "lr": 0.01},
    {"params": model[2].parameters()},
], lr=0.1)
x = torch.tensor([[1.0, -1.0], [0.5, 2.0]])
y = torch.tensor([[1.0], [0.0]])
for step in range(30):
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
for i, group in enumerate(opt.param_groups):
    print(i, group["lr"], len(group["params"]), group["betas"])
print(round(loss.item(), 5))
for g in opt.param_groups:
    g["lr"] *= 0.5
print([g["lr"] for g in opt.param_groups])
