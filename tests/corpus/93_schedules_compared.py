# how the common learning-rate schedules move the lr, step by step
import torch

model = torch.nn.Linear(2, 1)


def run(make, steps=7):
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    sched = make(opt)
    lrs = []
    for _ in range(steps):
        lrs.append(round(opt.param_groups[0]["lr"], 6))
        opt.step()
        sched.step()
    return type(sched).__name__, lrs


print(run(lambda o: torch.optim.lr_scheduler.MultiStepLR(o, milestones=[2, 4, 4], gamma=0.5)))
print(run(lambda o: torch.optim.lr_scheduler.LinearLR(o, start_factor=0.25, total_iters=4)))
print(run(lambda o: torch.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=3)))
print(run(lambda o: torch.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.9)))
opt = torch.optim.SGD(model.parameters(), lr=0.5)
s = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[3, 1], gamma=0.1)
print(s.milestones, s.gamma, s.last_epoch, s.get_last_lr())
for bad in [dict(start_factor=0), dict(end_factor=2.0)]:
    try:
        torch.optim.lr_scheduler.LinearLR(opt, **bad)
    except ValueError as e:
        print(e)
try:
    torch.optim.lr_scheduler.MultiplicativeLR(opt, 3)
except TypeError as e:
    print(e)
l = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=2)
print(sorted(k for k in l.state_dict() if not k.startswith("_")))
