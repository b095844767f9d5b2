import torch
import torch.nn as nn

torch.manual_seed(3)


class Residual(nn.Sequential):
    """A Sequential whose output is added to its input."""

    def forward(self, x):
        return x + super().forward(x)


class Stack(nn.ModuleList):
    def __init__(self, width, depth):
        super().__init__([Residual(nn.Linear(width, width), nn.ReLU()) for _ in range(depth)])
        self.width = width

    def forward(self, x):
        for i, block in enumerate(self):
            x = block(x)
            print(f"block {i}: mean {x.mean().item():.4f}")
        return x

    def extra_repr(self):
        return f"width={self.width}"


model = Stack(3, 2)
print(model)
print(len(model), isinstance(model, nn.ModuleList), isinstance(model[0], nn.Sequential))
print([n for n, _ in model.named_parameters()])
x = torch.randn(2, 3)
out = model(x)
print(out)
out.pow(2).sum().backward()
print(model[1][0].bias.grad)
print(model[0][0].weight.grad.shape)
model.append(Residual(nn.Tanh()))
print(len(model), model[-1])
