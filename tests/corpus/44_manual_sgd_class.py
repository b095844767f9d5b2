import torch

class ManualSGD:
    def __init__(self, params, lr):
        self.params = list(params)
        self.lr = lr

    def step(self):
        with torch.no_grad():
            for p in self.params:
                if p.grad is not None:
                    p -= self.lr * p.grad

    def zero_grad(self):
        for p in self.params:
            p.grad = None

w = torch.tensor([1.0, 1.0], requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)
opt = ManualSGD([w, b], lr=0.1)
x = torch.tensor([[1.0, 2.0], [2.0, 3.0]])
y = torch.tensor([1.0, 2.0])
for i in range(5):
    opt.zero_grad()
    loss = ((x @ w + b - y) ** 2).mean()
    loss.backward()
    opt.step()
    print(i, round(loss.item(), 4))
