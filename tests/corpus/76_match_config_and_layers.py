import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def make_optimizer(params, config):
    # one config dict per optimizer, the way people read settings from a file
    match config:
        case {"name": "sgd", "lr": lr, **extra}:
            return torch.optim.SGD(params, lr=lr, **extra)
        case {"name": "adam", "lr": float(lr)}:
            return torch.optim.Adam(params, lr=lr)
        case {"name": name}:
            raise ValueError(f"unknown optimizer {name!r}")
        case _:
            raise TypeError("a config needs a name")


def describe(module):
    match module:
        case nn.Linear(in_features=i, out_features=o, bias=None):
            return f"Linear {i}->{o} without bias"
        case nn.Linear(in_features=i, out_features=o):
            return f"Linear {i}->{o}"
        case nn.ReLU() | nn.Tanh():
            return type(module).__name__
        case nn.Sequential():
            return "Sequential of " + ", ".join(describe(m) for m in module)
        case _:
            return "something else"


class Point:
    __match_args__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y


def loss_for(target, prediction):
    match target:
        case Point(x, y):
            return (prediction[0] - x) ** 2 + (prediction[1] - y) ** 2
        case [x, y]:
            return F.mse_loss(prediction, torch.tensor([x, y]), reduction="sum")
        case torch.Tensor(shape=(2,)):
            return ((prediction - target) ** 2).sum()


model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2, bias=False))
print(describe(model))

for config in [{"name": "sgd", "lr": 0.1, "momentum": 0.9}, {"name": "adam", "lr": 0.01},
               {"name": "rmsprop"}, {"lr": 0.1}]:
    try:
        opt = make_optimizer(model.parameters(), config)
        print(type(opt).__name__, opt.defaults["lr"])
    except (ValueError, TypeError) as e:
        print(f"{type(e).__name__}: {e}")

opt = make_optimizer(model.parameters(), {"name": "sgd", "lr": 0.05})
x = torch.tensor([0.5, -1.0, 2.0])
for step, target in enumerate([Point(1.0, 0.0), [0.5, 0.5], torch.tensor([0.0, 1.0])]):
    opt.zero_grad()
    loss = loss_for(target, model(x))
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.5f}, grad_fn {type(loss.grad_fn).__name__}")

match model[2].weight.grad:
    case None:
        print("no gradient")
    case torch.Tensor(shape=(rows, cols)) as g if g.abs().max() > 0:
        print(f"gradient {rows}x{cols}, largest {g.abs().max().item():.5f}")
