import torch.nn as nn

class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(1, 1)
        self.b = nn.Sequential(nn.Linear(1, 1), nn.Tanh())

    def forward(self, x):
        return self.b(self.a(x))

m = Tiny()
print(m.training, m.b[0].training)
m.eval()
print(m.training, all(not sub.training for sub in m.modules()))
m.train()
print([sub.training for sub in m.modules()])
print(len(list(m.modules())), len(list(m.children())))
