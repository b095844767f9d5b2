import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.sigmoid()
print(b._version)
c = b * 2
b.mul_(1.0)
print(b._version)
try:
    b.sum().backward()
    print("backward through sigmoid after in-place")
except RuntimeError as e:
    print("error:", str(e)[:60])
