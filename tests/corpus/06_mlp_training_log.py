import torch
import torch.nn as nn
import torch.nn.functional as F

class MLP(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])])

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.layers) - 1:
                x = torch.tanh(x)
        return x

def init_constant(m):
    if isinstance(m, nn.Linear):
        nn.init.constant_(m.weight, 0.1)
        nn.init.zeros_(m.bias)

net = MLP([2, 4, 1])
net.apply(init_constant)
X = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
Y = torch.tensor([[0.0], [1.0], [1.0], [0.0]])
opt = torch.optim.Adam(net.parameters(), lr=0.05)
for step in range(101):
    opt.zero_grad()
    loss = F.mse_loss(net(X), Y)
    loss.backward()
    opt.step()
    if step % 25 == 0:
        print("step %3d  loss %.5f" % (step, loss.item()))
print(net)
print(sum(p.numel() for p in net.parameters()), "parameters")
