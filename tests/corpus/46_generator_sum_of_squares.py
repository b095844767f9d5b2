import torch

params = [torch.tensor([1.0, 2.0], requires_grad=True), torch.tensor([[3.0]], requires_grad=True)]
penalty = sum((p ** 2).sum() for p in params)
penalty.backward()
print(penalty, [p.grad for p in params])
print(max(p.numel() for p in params), min(len(p.shape) for p in params))
