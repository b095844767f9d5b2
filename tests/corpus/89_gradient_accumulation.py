import torch
import torch.nn as nn

torch.manual_seed(8)
x = torch.randn(8, 4)
y = torch.randn(8, 1)

model = nn.Linear(4, 1)
loss_fn = nn.MSELoss()

# the gradient of the whole batch at once
model.zero_grad()
loss_fn(model(x), y).backward()
full = [p.grad.clone() for p in model.parameters()]

# the same gradient from 4 micro-batches: each loss scaled by its share of the batch
model.zero_grad()
micro = 2
for chunk_x, chunk_y in zip(x.split(micro), y.split(micro)):
    loss = loss_fn(model(chunk_x), chunk_y) * (len(chunk_x) / len(x))
    loss.backward()  # .grad adds up across the backward calls
accumulated = [p.grad.clone() for p in model.parameters()]

for (name, _), a, b in zip(model.named_parameters(), full, accumulated):
    same = torch.allclose(a, b, atol=1e-6)
    print(f"{name}: same gradient {same}, difference below 1e-6: {(a - b).abs().max().item() < 1e-6}")

# forgetting zero_grad doubles the gradient
loss_fn(model(x), y).backward()
print(torch.allclose(model.bias.grad, accumulated[1] + full[1], atol=1e-6))

opt = torch.optim.SGD(model.parameters(), lr=0.1)
steps = 0
for epoch in range(2):
    for i, (cx, cy) in enumerate(zip(x.split(micro), y.split(micro))):
        (loss_fn(model(cx), cy) / 2).backward()
        if (i + 1) % 2 == 0:
            opt.step()
            opt.zero_grad()
            steps += 1
print("optimizer steps:", steps, "grad after the last step:", model.weight.grad)
