import torch
import torch.nn as nn

# a Linear layer with a fixed output scale, built on nn.Linear itself
class ScaledLinear(nn.Linear):
    def __init__(self, in_features, out_features, scale=0.5, bias=True):
        super().__init__(in_features, out_features, bias=bias)
        self.scale = scale

    def reset_parameters(self):
        # deterministic start, so the numbers below are easy to follow
        with torch.no_grad():
            self.weight.fill_(0.1)
            if self.bias is not None:
                self.bias.zero_()

    def forward(self, x):
        return super().forward(x) * self.scale

    def extra_repr(self):
        return super().extra_repr() + f", scale={self.scale}"


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = ScaledLinear(3, 4, scale=2.0)
        self.out = ScaledLinear(4, 1, bias=False)

    def forward(self, x):
        return self.out(torch.tanh(self.hidden(x)))


net = TinyNet()
print(net)
print([name for name, _ in net.named_parameters()])
print(list(net.state_dict().keys()))
print(isinstance(net.hidden, nn.Linear), type(net.hidden).__name__)

x = torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 0.0]])
y = net(x)
print(y)
print(y.grad_fn.name(), y.grad_fn.next_functions[0][0].name())
y.sum().backward()
print(net.hidden.weight.grad)
print(net.out.weight.grad)
print(sum(p.numel() for p in net.parameters()))
