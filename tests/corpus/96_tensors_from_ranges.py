# tensors made from ranges and deques, as torch.tensor takes any sequence
from collections import deque

import torch

print(torch.tensor(range(3)), torch.tensor([range(2), range(2)]), torch.tensor(range(0)))
print(torch.tensor(range(3), dtype=torch.float32), torch.tensor(deque([1.5, 2.0])))
print(torch.FloatTensor(range(3)), torch.Tensor(deque([1, 2])), torch.LongTensor(range(2, 5)))
x = torch.tensor(range(1, 6), dtype=torch.float32, requires_grad=True)
(x ** 2).sum().backward()
print(x.grad)
try:
    torch.tensor([range(2), range(3)])
except ValueError as e:
    print(e)
