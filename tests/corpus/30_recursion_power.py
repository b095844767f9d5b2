import torch

def power(x, n):
    if n == 0:
        return torch.ones_like(x)
    half = power(x, n // 2)
    return half * half if n % 2 == 0 else half * half * x

x = torch.tensor(1.1, requires_grad=True)
y = power(x, 13)
y.backward()
print(round(y.item(), 5), round(x.grad.item(), 5), round(13 * 1.1 ** 12, 5))
