import torch.nn as nn

counts = {}

def count(module):
    name = str(module).split("(")[0]
    counts[name] = counts.get(name, 0) + 1

net = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Sequential(nn.Linear(2, 2), nn.ReLU()))
net.apply(count)
print(sorted(counts.items()))
