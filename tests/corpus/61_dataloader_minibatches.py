# Mini-batch training with a Dataset of my own and a DataLoader, as most training loops are written
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, TensorDataset, random_split

torch.manual_seed(11)


class NoisyLine(Dataset):
    """Points on y = 3x - 1 with a little noise."""

    def __init__(self, n):
        self.x = torch.linspace(-1, 1, n).unsqueeze(1)
        self.y = 3 * self.x - 1 + 0.1 * torch.randn(n, 1)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


data = NoisyLine(24)
print("samples:", len(data), "first:", data[0])
train_set, val_set = random_split(data, [0.75, 0.25])
print("split:", len(train_set), len(val_set), sorted(val_set.indices))

train_loader = DataLoader(train_set, batch_size=5, shuffle=True)
val_loader = DataLoader(val_set, batch_size=6)
print("batches per epoch:", len(train_loader), len(val_loader))

model = nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.2)
loss_fn = nn.MSELoss()

for epoch in range(4):
    total = 0.0
    for xb, yb in train_loader:
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item() * len(xb)
    with torch.no_grad():
        val = sum(loss_fn(model(xb), yb).item() for xb, yb in val_loader)
    print(f"epoch {epoch}: train {total / len(train_set):.4f}  val {val:.4f}")

print("weight", model.weight.item(), "bias", model.bias.item())

xb, yb = next(iter(train_loader))
print("one batch:", xb.shape, yb.shape, xb.requires_grad)

pairs = TensorDataset(torch.arange(6.0), torch.tensor([0, 1, 0, 1, 0, 1]))
for feats, labels in DataLoader(pairs, batch_size=4, drop_last=True):
    print(feats, labels)
print(torch.rand(2))
