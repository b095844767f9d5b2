import torch.nn as nn

class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.act = nn.ReLU()

    def forward(self, x):
        return x + self.act(self.fc(x))

class Net(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.inp = nn.Linear(3, width)
        self.blocks = nn.Sequential(*[Block(width) for _ in range(depth)])
        self.out = nn.Linear(width, 1)

    def forward(self, x):
        return self.out(self.blocks(self.inp(x)))

net = Net(4, 2)
total = 0
for name, p in net.named_parameters():
    total += p.numel()
    print(f"{name:20s} {str(tuple(p.shape)):10s} {p.numel()}")
print("total", total)
print(net)
print([name for name, _ in net.named_children()])
