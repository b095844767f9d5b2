import torch
import torch.nn as nn

torch.manual_seed(3)


class TwoPart(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(3, 3)
        self.head = nn.Linear(3, 1)

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))


model = TwoPart()
decay, no_decay = [], []
for name, p in model.named_parameters():
    (no_decay if name.endswith("bias") else decay).append(p)

optimizer = torch.optim.SGD([
    {"params": decay, "weight_decay": 0.01},
    {"params": no_decay, "weight_decay": 0.0, "lr": 0.05},
], lr=0.1, momentum=0.9)

for i, group in enumerate(optimizer.param_groups):
    sizes = [tuple(p.shape) for p in group["params"]]
    print(f"group {i}: lr={group['lr']} weight_decay={group['weight_decay']} "
          f"momentum={group['momentum']} params={sizes}")

x = torch.randn(10, 3)
y = x.sum(dim=1, keepdim=True)
for step in range(20):
    optimizer.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
print(f"final loss {loss.item():.4f}")

# lower every group's learning rate by hand, as a schedule would
for group in optimizer.param_groups:
    group["lr"] *= 0.5
print([g["lr"] for g in optimizer.param_groups])
state = optimizer.state_dict()
print(sorted(state.keys()), len(state["state"]), state["param_groups"][1]["params"])
print(optimizer.state[model.head.bias]["momentum_buffer"].shape)
