import torch
import torch.nn as nn

class Swish(nn.Module):
    def __init__(self, beta=1.0):
        super().__init__()
        self.beta = beta

    def forward(self, x):
        return x * torch.sigmoid(self.beta * x)

    def extra_repr(self):
        return f"beta={self.beta}"

act = Swish(2.0)
x = torch.tensor([-1.0, 0.0, 1.0, 2.0], requires_grad=True)
y = act(x)
y.sum().backward()
print(y)
print(x.grad)
print(act)
