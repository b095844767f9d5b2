import torch
import torch.nn as nn
import torch.optim as optim

class LinearRegression(nn.Module):
    def __init__(self, n_in):
        super(LinearRegression, self).__init__()
        self.linear = nn.Linear(n_in, 1)

    def forward(self, x):
        return self.linear(x)

model = LinearRegression(2)
with torch.no_grad():
    model.linear.weight.fill_(0.0)
    model.linear.bias.fill_(0.0)
X = torch.tensor([[1.0, 2.0], [2.0, 1.0], [3.0, 4.0], [4.0, 3.0]])
y = X @ torch.tensor([[2.0], [-1.0]]) + 0.5
criterion = nn.MSELoss()
optimizer = optim.SGD(model.parameters(), lr=0.02)
losses = []
for epoch in range(200):
    optimizer.zero_grad()
    loss = criterion(model(X), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
print(len(losses), f"{losses[0]:.4f} -> {losses[-1]:.6f}")
for name, p in model.named_parameters():
    print(name, p.data)
