import torch
import torch.nn as nn

torch.manual_seed(0)


class Schedule:
    __match_args__ = ("kind", "steps")

    def __init__(self, kind, steps, **options):
        self.kind = kind
        self.steps = steps
        self.options = options


def init_layer(layer):
    match layer:
        case nn.Linear(out_features=1):
            nn.init.zeros_(layer.weight)
            return "zeros for the output layer"
        case nn.Linear(in_features=n) if n > 2:
            nn.init.constant_(layer.weight, 1.0 / n)
            return f"1/{n} everywhere"
        case nn.Linear():
            nn.init.ones_(layer.weight)
            return "ones"
        case nn.ReLU() | nn.Sigmoid():
            return "nothing to initialise"
        case _:
            return f"left alone: {type(layer).__name__}"


def make_scheduler(optimizer, schedule):
    match schedule:
        case Schedule("step", n, options={"gamma": g}):
            return torch.optim.lr_scheduler.StepLR(optimizer, step_size=n, gamma=g)
        case Schedule("exp", _, options={"gamma": g}):
            return torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=g)
        case Schedule(kind, _):
            raise ValueError(f"no schedule called {kind!r}")


model = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 3), nn.Linear(3, 1), nn.Dropout())
for i, layer in enumerate(model):
    print(i, init_layer(layer))
print(model[2].weight[0])

opt = torch.optim.SGD(model.parameters(), lr=1.0)
for schedule in [Schedule("step", 2, gamma=0.1), Schedule("exp", 0, gamma=0.5),
                 Schedule("cyclic", 3)]:
    try:
        sched = make_scheduler(opt, schedule)
    except ValueError as e:
        print("ValueError:", e)
        continue
    lrs = []
    for _ in range(4):
        lrs.append(round(sched.get_last_lr()[0], 4))
        opt.step()
        sched.step()
    print(type(sched).__name__, lrs)
    for group in opt.param_groups:
        group["lr"] = 1.0
        group["initial_lr"] = 1.0
