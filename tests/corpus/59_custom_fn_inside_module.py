import torch
import torch.nn as nn


class LeakyStep(torch.autograd.Function):
    """A hard step forward; a leaky surrogate slope backward."""

    @staticmethod
    def forward(ctx, x, slope):
        ctx.save_for_backward(x)
        ctx.slope = slope
        return (x > 0).float()

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        surrogate = torch.where(x.abs() < 1, torch.ones_like(x), torch.full_like(x, ctx.slope))
        return grad_output * surrogate, None


class StepNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        return LeakyStep.apply(self.fc(x), 0.1).sum(dim=1)


torch.manual_seed(0)
net = StepNet()
with torch.no_grad():
    net.fc.weight.copy_(torch.tensor([[0.5, -0.4, 0.3], [-0.2, 0.6, 0.1]]))
    net.fc.bias.zero_()
x = torch.tensor([[1.0, 2.0, -1.0], [0.5, -0.5, 2.0]])
target = torch.tensor([1.0, 2.0])
opt = torch.optim.SGD(net.parameters(), lr=0.5)
for step in range(3):
    opt.zero_grad()
    out = net(x)
    loss = ((out - target) ** 2).mean()
    loss.backward()
    print(step, out, round(loss.item(), 4), out.grad_fn.name())
    print(net.fc.weight.grad)
    opt.step()
