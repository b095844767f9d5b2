import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(12)
x = torch.randn(30, 2)
y = (x[:, 0] > x[:, 1]).long()
full = TensorDataset(x, y)
train_set, test_set = random_split(full, [24, 6], generator=torch.Generator().manual_seed(42))
print(len(train_set), len(test_set), test_set.indices)

model = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Dropout(p=0.25), nn.Linear(8, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.3)
loss_fn = nn.CrossEntropyLoss()


def evaluate(loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for xb, yb in loader:
            correct += (model(xb).argmax(1) == yb).sum().item()
            total += len(yb)
    model.train()
    return correct / total


train_loader = DataLoader(train_set, batch_size=8, shuffle=True)
test_loader = DataLoader(test_set, batch_size=3)
print("before training:", evaluate(test_loader))
for epoch in range(3):
    for xb, yb in train_loader:
        opt.zero_grad()
        loss_fn(model(xb), yb).backward()
        opt.step()
    print(f"epoch {epoch}: test accuracy {evaluate(test_loader):.2f}, training mode {model.training}")

model.eval()
a = model(x[:2])
b = model(x[:2])
print("eval mode is deterministic:", torch.equal(a, b))
model.train()
print("train mode drops units:", not torch.equal(model[2](torch.ones(8)), torch.ones(8)))
