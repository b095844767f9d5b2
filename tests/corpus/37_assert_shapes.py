import torch

def batched_dot(a, b):
    assert a.shape == b.shape, f"shapes differ: {tuple(a.shape)} vs {tuple(b.shape)}"
    assert a.dim() == 2
    return (a * b).sum(dim=1)

a = torch.arange(6, dtype=torch.float32).reshape(2, 3)
print(batched_dot(a, a))
try:
    batched_dot(a, a.T)
except AssertionError as e:
    print("AssertionError:", e)
