import torch
import torch.nn as nn

class Cubic(nn.Module):
    def __init__(self):
        super().__init__()
        self.coeffs = nn.Parameter(torch.tensor([0.0, 0.5, 0.0, -0.1]))

    def forward(self, x):
        powers = torch.stack([x ** k for k in range(4)], dim=1)
        return powers @ self.coeffs

    def describe(self):
        terms = [f"{c:+.4f} x^{k}" for k, c in enumerate(self.coeffs.tolist())]
        return " ".join(terms)

x = torch.linspace(-2, 2, 50)
y = 0.5 * x - 0.2 * x ** 3 + 0.1
model = Cubic()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loss_fn = nn.MSELoss()
for epoch in range(300):
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    if epoch % 60 == 0:
        print(f"epoch {epoch:3d} loss {loss.item():.6f}")
print(model.describe())
print(model)
