import torch
import torch.nn as nn


class Evaluating:
    """Puts a model in eval mode and turns autograd off, then puts both back."""

    def __init__(self, model):
        self.model = model

    def __enter__(self):
        self.was_training = self.model.training
        self.model.eval()
        self.grad_was = torch.is_grad_enabled()
        torch.set_grad_enabled(False)
        return self.model

    def __exit__(self, kind, exc, tb):
        torch.set_grad_enabled(self.grad_was)
        self.model.train(self.was_training)
        return False


class CountErrors:
    def __init__(self):
        self.errors = []

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if kind is None:
            return False
        self.errors.append(f"{kind.__name__}: {exc}")
        return issubclass(kind, RuntimeError)


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5), nn.Linear(3, 1))
x = torch.ones(2, 3)
with Evaluating(model) as m:
    out = m(x)
    print(m is model, model.training, torch.is_grad_enabled(), out.requires_grad)
print(model.training, torch.is_grad_enabled())
print(out)

log = CountErrors()
for shape in [(3, 1), (2, 2), (3, 4)]:
    with log:
        w = torch.ones(*shape)
        print("product", (x @ w).shape)
print(log.errors)

try:
    with log:
        raise ValueError("not a RuntimeError, so it goes on")
except ValueError as e:
    print("caught outside:", e)
print(len(log.errors))


def first_positive(values):
    for v in values:
        with CountErrors() as c:
            if v > 0:
                return v
    return None


print(first_positive([-1, 0, 4, 5]))
