# Checking what kind of object each thing is, the way people debug a model
import torch
import torch.nn as nn


class TinyRegressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(3, 4)
        self.act = nn.Tanh()
        self.out = nn.Linear(4, 1)

    def forward(self, x):
        return self.out(self.act(self.hidden(x)))


model = TinyRegressor()
print(type(model).__name__, model.__class__.__name__)
for name, child in model.named_children():
    print(f"{name:>6}: {type(child)}")

x = torch.randn(5, 3)
pred = model(x)
loss = pred.pow(2).mean()
print("loss grad_fn:", type(loss.grad_fn).__name__)

# walk the graph by class name, as one does when a gradient goes missing
seen = []
stack = [loss.grad_fn]
while stack:
    fn = stack.pop()
    if fn is None or type(fn).__name__ in seen:
        continue
    seen.append(type(fn).__name__)
    stack.extend(f for f, _ in fn.next_functions)
print(sorted(seen))

print(type(x) is torch.Tensor, type(model.hidden.weight), isinstance(model.out.bias, torch.Tensor))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3)
print(type(opt), type(sched).__name__, torch.optim.SGD, nn.MSELoss)
print(type(0.5) == float, type(3).__name__, type(None), type([]), type(print), type(TinyRegressor))


def describe(obj):
    kind = type(obj).__name__
    if isinstance(obj, torch.Tensor):
        return f"{kind} of shape {tuple(obj.shape)}"
    return kind


print([describe(v) for v in (x, 2, "a", model, loss.grad_fn)])
print(describe.__name__, (lambda t: t).__name__, torch.relu.__name__, torch.__name__)

# the legacy type names some tutorials still print
w = model.hidden.weight
print(w.type(), w.type(torch.float64).grad_fn.name(), w.type("torch.DoubleTensor").dtype)
print(torch.arange(3).type(), (x > 0).type(), x.type(torch.float32) is x)
try:
    x.type("torch.HalfFloat")
except ValueError as err:
    print("ValueError:", err)
