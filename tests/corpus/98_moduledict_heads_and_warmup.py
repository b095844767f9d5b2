import torch
import torch.nn as nn

torch.manual_seed(0)


class MultiHead(nn.Module):
    """One shared body, one small head per task, kept in an nn.ModuleDict by name."""

    def __init__(self, tasks):
        super().__init__()
        self.body = nn.Linear(3, 4)
        self.heads = nn.ModuleDict({name: nn.Linear(4, n) for name, n in tasks.items()})

    def forward(self, x, task):
        return self.heads[task](torch.relu(self.body(x)))


model = MultiHead({"colour": 3, "size": 1})
print(model)
print(list(model.heads.keys()), "size" in model.heads, len(model.heads))
x = torch.randn(2, 3)
for task in model.heads:
    print(task, model(x, task).shape)
model.heads["shape"] = nn.Linear(4, 2)
del model.heads["size"]
print([name for name, _ in model.heads.items()], [type(m).__name__ for m in model.heads.values()])
print(sum(p.numel() for p in model.parameters()))
try:
    model.heads["bad"] = 3
except TypeError as e:
    print("TypeError:", e)

opt = torch.optim.SGD(model.parameters(), lr=1.0)
warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=3)
decay = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
sched = torch.optim.lr_scheduler.SequentialLR(opt, schedulers=[warm, decay], milestones=[3])
lrs = []
for step in range(7):
    lrs.append(round(opt.param_groups[0]["lr"], 4))
    opt.step()
    sched.step()
print(lrs, sched.get_last_lr())
print(sorted(k for k in sched.state_dict()))
torch.cuda.empty_cache()
try:
    torch.cuda.synchronize()
except AssertionError as e:
    print("AssertionError:", e)
