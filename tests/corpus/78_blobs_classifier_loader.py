import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(7)


def make_blobs(n, spread=0.6):
    # two gaussian clouds, around (1, 1) and (-1, -0.5)
    first = torch.tensor([1.0, 1.0]) + spread * torch.randn(n, 2)
    second = torch.tensor([-1.0, -0.5]) + spread * torch.randn(n, 2)
    points = torch.cat([first, second])
    labels = torch.cat([torch.zeros(n, dtype=torch.long), torch.ones(n, dtype=torch.long)])
    return points, labels


class BlobNet(nn.Module):
    def __init__(self, hidden=4):
        super().__init__()
        self.hidden = nn.Sequential(nn.Linear(2, hidden), nn.ReLU())
        self.out = nn.Linear(hidden, 2)

    def forward(self, x):
        return self.out(self.hidden(x))


points, labels = make_blobs(24)
loader = DataLoader(TensorDataset(points, labels), batch_size=8, shuffle=True,
                    generator=torch.Generator().manual_seed(0))
print(f"{len(loader.dataset)} points in {len(loader)} batches of {loader.batch_size}")

model = BlobNet()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.5)
loss_fn = nn.CrossEntropyLoss()

print(model)
history = []
for epoch in range(6):
    model.train()
    running = 0.0
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        running += loss.item() * len(xb)
    scheduler.step()
    history.append(running / len(loader.dataset))
    model.eval()
    with torch.no_grad():
        correct = (model(points).argmax(dim=1) == labels).sum().item()
    print(f"epoch {epoch + 1}: loss {history[-1]:.3f}, {correct}/{len(labels)} right, "
          f"next lr {scheduler.get_last_lr()[0]:.3f}")

print("loss went down every epoch:", all(a > b for a, b in zip(history, history[1:])))
with torch.no_grad():
    guess = model(torch.tensor([[2.0, 2.0], [-2.0, -1.0]])).argmax(dim=1)
print("guesses for two new points:", guess.tolist())
