import torch
import torch.nn as nn

layer = nn.Linear(3, 1)
with torch.no_grad():
    layer.weight.copy_(torch.tensor([[1.0, -1.0, 0.5]]))
    layer.bias.fill_(0.25)
batches = [torch.tensor([[1.0, 2.0, 3.0]]), torch.tensor([[0.0, 1.0, 0.0]])]
for accumulate in (False, True):
    layer.zero_grad()
    for b in batches:
        if not accumulate:
            layer.zero_grad()
        layer(b).sum().backward()
    print("accumulate" if accumulate else "reset", layer.weight.grad, layer.bias.grad)
