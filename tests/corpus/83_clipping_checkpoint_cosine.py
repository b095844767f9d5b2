import torch
import torch.nn as nn

torch.manual_seed(4)

x = torch.randn(16, 3)
true_w = torch.tensor([[2.0], [-1.0], [0.5]])
y = x @ true_w + 0.3

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.2)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10, eta_min=0.01)
loss_fn = nn.MSELoss()

best = {"loss": float("inf"), "epoch": -1, "state": None}
for epoch in range(10):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    optimizer.step()
    lr = scheduler.get_last_lr()[0]
    scheduler.step()
    if loss.item() < best["loss"]:
        best["loss"] = loss.item()
        best["epoch"] = epoch
        best["state"] = {k: v.clone() for k, v in model.state_dict().items()}
    print(f"{epoch}: loss={loss.item():.4f} grad norm={norm.item():.3f} lr={lr:.4f}")

print(f"best epoch {best['epoch']} with loss {best['loss']:.4f}")
with torch.no_grad():
    model.weight.fill_(0.0)
print("after wiping:", model.weight)
model.load_state_dict(best["state"])
print("restored:", model.weight)
print(list(best["state"].keys()), best["state"]["bias"].shape)
