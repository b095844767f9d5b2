# Saving the best weights during training and restoring them afterwards (in memory).
# The layer before BatchNorm has no bias: BatchNorm subtracts the mean, so a bias there gets
# only rounding noise as its gradient (and Adam would turn that noise into full-size steps).
import torch
import torch.nn as nn

torch.manual_seed(5)
net = nn.Sequential(nn.Linear(2, 3, bias=False), nn.BatchNorm1d(3), nn.Tanh(), nn.Linear(3, 1))
print(list(net.state_dict().keys()))
print([name for name, _ in net.named_buffers()])

x = torch.randn(16, 2)
y = (x[:, :1] * 2 - x[:, 1:]).tanh()
opt = torch.optim.Adam(net.parameters(), lr=0.05)
best, best_loss = None, float("inf")
for step in range(12):
    opt.zero_grad()
    loss = nn.functional.mse_loss(net(x), y)
    loss.backward()
    opt.step()
    if loss.item() < best_loss:
        best_loss = loss.item()
        best = {k: v.clone() for k, v in net.state_dict().items()}
print(f"best loss {best_loss:.5f}")
print("running mean now:", net[1].running_mean)

result = net.load_state_dict(best)
print(result)
print("restored running mean:", net[1].running_mean, net[1].num_batches_tracked)
net.eval()
with torch.no_grad():
    print(net(x[:3]))
print(sum(b.numel() for b in net.buffers()), len(list(net.parameters())))
