import torch
import torch.nn.functional as F

logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 0.3]], requires_grad=True)
target = torch.tensor([0, 2])
loss = F.cross_entropy(logits, target)
loss.backward()
print(f"loss {loss.item():.6f}")
print(logits.grad)
probs = F.softmax(logits.detach(), dim=1)
manual = probs.clone()
manual[0, 0] -= 1
manual[1, 2] -= 1
print(((manual / 2 - logits.grad).abs().max() < 1e-6).item())
