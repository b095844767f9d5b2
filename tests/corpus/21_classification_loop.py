import torch
import torch.nn as nn

class Classifier(nn.Module):
    def __init__(self, n_features, n_classes):
        super().__init__()
        self.fc = nn.Linear(n_features, n_classes)

    def forward(self, x):
        return self.fc(x)

    @torch.no_grad()
    def predict(self, x):
        return self(x).argmax(dim=1)

clf = Classifier(2, 3)
for p in clf.parameters():
    nn.init.zeros_(p)
X = torch.tensor([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0], [1.0, 0.2], [0.1, 1.0], [-0.8, -1.2]])
y = torch.tensor([0, 1, 2, 0, 1, 2])
loss_fn = nn.CrossEntropyLoss()
opt = torch.optim.SGD(clf.parameters(), lr=0.5)
for epoch in range(50):
    opt.zero_grad()
    loss = loss_fn(clf(X), y)
    loss.backward()
    opt.step()
    if epoch in (0, 49):
        acc = (clf.predict(X) == y).float().mean().item()
        print(f"epoch {epoch} loss {loss.item():.4f} acc {acc:.2f}")
print(clf.predict(torch.tensor([[2.0, 0.0]])))
