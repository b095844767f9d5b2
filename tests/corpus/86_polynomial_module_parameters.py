import math

import torch


class Cubic(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.zeros(()))
        self.b = torch.nn.Parameter(torch.zeros(()))
        self.c = torch.nn.Parameter(torch.zeros(()))
        self.d = torch.nn.Parameter(torch.zeros(()))

    def forward(self, x):
        return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3

    def string(self):
        return (f"y = {self.a.item():.3f} + {self.b.item():.3f} x + {self.c.item():.3f} x^2 + "
                f"{self.d.item():.3f} x^3")


x = torch.linspace(-1, 1, 50)
y = 0.5 - x + 2 * x ** 3

model = Cubic()
print([name for name, _ in model.named_parameters()])
print(model.a)
criterion = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
for t in range(300):
    loss = criterion(model(x), y)
    if t % 100 == 99:
        print(t, round(loss.item(), 4))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(model.string())
print(f"error at x=0.5: {abs(model(torch.tensor(0.5)).item() - (0.5 - 0.5 + 2 * 0.125)):.4f}")
print(math.isclose(model.d.item(), 2.0, abs_tol=0.3))
