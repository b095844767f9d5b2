# Cross-entropy written by hand with one-hot targets, checked against F.cross_entropy
import torch
import torch.nn.functional as F

torch.manual_seed(8)
logits = torch.randn(4, 3, requires_grad=True)
labels = torch.tensor([2, 0, 1, 2])
targets = F.one_hot(labels, num_classes=3).float()
print(targets)

log_probs = logits - logits.exp().sum(dim=1, keepdim=True).log()
by_hand = -(targets * log_probs).sum(dim=1).mean()
builtin = F.cross_entropy(logits, labels)
print(f"by hand {by_hand.item():.6f}, builtin {builtin.item():.6f}")

by_hand.backward()
grad_by_hand = logits.grad.clone()
logits.grad = None
builtin.backward()
print(torch.allclose(grad_by_hand, logits.grad, atol=1e-6))
print("softmax - one_hot, over the batch size:")
print((logits.softmax(dim=1) - targets) / 4)
print(F.one_hot(torch.arange(3)).sum(0), F.one_hot(labels).shape)
try:
    F.one_hot(torch.tensor([0, 5]), num_classes=3)
except RuntimeError as err:
    print("RuntimeError:", err)
