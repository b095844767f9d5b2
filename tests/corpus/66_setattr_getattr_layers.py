# Layers made in a loop with setattr and found again with getattr, as configurable models often are
import torch
import torch.nn as nn


class Tower(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.depth = len(sizes) - 1
        for i in range(self.depth):
            setattr(self, f"layer{i}", nn.Linear(sizes[i], sizes[i + 1]))

    def forward(self, x):
        for i in range(self.depth):
            x = torch.tanh(getattr(self, f"layer{i}")(x))
        return x


torch.manual_seed(4)
t = Tower([3, 4, 2])
print(t)
print(hasattr(t, "layer1"), hasattr(t, "layer9"), getattr(t, "missing", "default"))
print(t(torch.ones(1, 3)))
x = torch.ones(2, requires_grad=True)
print(getattr(x, "grad"), hasattr(x, "grad_fn"), hasattr(x, "shape"))
setattr(x, "grad", torch.zeros(2))
print(x.grad)
for name in ["weight", "bias"]:
    print(name, getattr(t.layer0, name).shape)
try:
    getattr(t, "nothing")
except AttributeError as e:
    print("AttributeError", e)
delattr(t, "depth")
print(hasattr(t, "depth"))
