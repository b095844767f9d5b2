import torch
import torch.nn as nn

pred = torch.tensor([0.2, 0.8, 1.5], requires_grad=True)
target = torch.tensor([0.0, 1.0, 1.0])
losses = {"mse": nn.MSELoss(), "mse_sum": nn.MSELoss(reduction="sum")}
for name, fn in losses.items():
    pred.grad = None
    value = fn(pred, target)
    value.backward()
    print(f"{name:8s} {value.item():.5f} {pred.grad}")
