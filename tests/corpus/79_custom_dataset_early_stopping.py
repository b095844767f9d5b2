import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


class LineDataset(Dataset):
    """y = 3x - 1 with a little noise, one sample per index."""

    def __init__(self, n):
        self.x = torch.linspace(-1, 1, n).unsqueeze(1)
        self.y = 3 * self.x - 1 + 0.05 * torch.randn(n, 1)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


train = LineDataset(20)
valid = LineDataset(6)
x0, y0 = train[0]
print(len(train), x0, y0.shape)

model = nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
loss_fn = nn.MSELoss()
loader = DataLoader(train, batch_size=5)

best, patience, bad_epochs = float("inf"), 2, 0
for epoch in range(40):
    for xb, yb in loader:
        opt.zero_grad()
        loss_fn(model(xb), yb).backward()
        opt.step()
    with torch.no_grad():
        val = loss_fn(model(valid.x), valid.y).item()
    if val < best - 1e-4:
        best, bad_epochs = val, 0
    else:
        bad_epochs += 1
    if epoch % 5 == 0:
        print(f"epoch {epoch:2d} validation {val:.4f}")
    if bad_epochs > patience:
        print(f"stopping after epoch {epoch}: no better than {best:.4f} for {bad_epochs} epochs")
        break
else:
    print("ran every epoch")

w, b = model.weight.item(), model.bias.item()
print(f"learned y = {w:.2f}x {'+' if b >= 0 else '-'} {abs(b):.2f}")
