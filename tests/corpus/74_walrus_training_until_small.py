import torch
import torch.nn as nn

# train until the loss is small, the loop condition doing the work
torch.manual_seed(1)
model = nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
xs = torch.tensor([[0.0], [1.0], [2.0]])
ys = 2 * xs + 1


def step():
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(xs), ys)
    loss.backward()
    opt.step()
    return loss.item()


steps = 0
while (loss := step()) > 1e-3 and steps < 200:
    steps += 1
    if steps % 25 == 0:
        print(f"step {steps}: {loss:.5f}")
print(f"stopped after {steps} steps at {loss:.6f}")
print([round(p.item(), 3) for p in model.parameters()])

big = [name for name, p in model.named_parameters() if (n := p.abs().max().item()) > 0.5]
print(big, round(n, 3))
print(issubclass(type(model), nn.Module), isinstance(opt, torch.optim.Optimizer))
print(issubclass(nn.Linear, (nn.ReLU, nn.Module)), issubclass(bool, int))
