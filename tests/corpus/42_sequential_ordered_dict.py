import torch
import torch.nn as nn
from collections import OrderedDict

model = nn.Sequential(OrderedDict([
    ("hidden", nn.Linear(2, 3)),
    ("act", nn.Sigmoid()),
    ("out", nn.Linear(3, 1)),
]))
for name, p in model.named_parameters():
    nn.init.constant_(p, 0.2 if "weight" in name else 0.0)
x = torch.tensor([[1.0, 2.0]])
y = model(x)
y.backward()
print(model)
print(y, model.hidden.weight.grad)
