import torch
import torch.nn as nn

torch.manual_seed(5)


class AutoEncoder(nn.Module):
    def __init__(self, size=6, code=2):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(size, 4), nn.ReLU(), nn.Linear(4, code))
        self.decoder = nn.Sequential(nn.Linear(code, 4), nn.ReLU(), nn.Linear(4, size))

    def forward(self, x):
        return self.decoder(self.encoder(x))


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)
        nn.init.zeros_(m.bias)


model = AutoEncoder()
model.apply(init_weights)

trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(f"{trainable} trainable parameters")
for name, p in model.named_parameters():
    print(f"  {name:<18} {str(tuple(p.shape)):<8} mean {p.mean().item():+.3f}")

data = torch.rand(12, 6)
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
for step in range(1, 31):
    optimizer.zero_grad(set_to_none=True)
    loss = nn.functional.mse_loss(model(data), data)
    loss.backward()
    optimizer.step()
    if step % 10 == 0:
        print(f"step {step}: reconstruction error {loss.item():.4f}")

with torch.no_grad():
    codes = model.encoder(data[:3])
print(codes.shape, codes.requires_grad)
print(model.decoder[0].bias.grad is None, model.encoder[2].weight.grad.shape)
