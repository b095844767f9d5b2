import torch

x = torch.ones(3, requires_grad=True)
attempts = ["x += 1", "x.add_(1)", "x.data += 1"]
try:
    x += 1
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    x.add_(1)
except RuntimeError as e:
    print("again:", isinstance(e, RuntimeError))
x.data += 1
print(x)
with torch.no_grad():
    x += 1
print(x, x.requires_grad, x.is_leaf)
print(len(attempts))
