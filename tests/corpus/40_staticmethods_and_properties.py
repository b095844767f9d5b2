import torch

class Schedule:
    def __init__(self, base, decay):
        self.base = base
        self.decay = decay
        self.step_count = 0

    @property
    def lr(self):
        return self.base * self.decay ** self.step_count

    def step(self):
        self.step_count += 1

    @staticmethod
    def describe(lr):
        return f"lr={lr:.5f}"

    @classmethod
    def constant(cls, base):
        return cls(base, 1.0)

s = Schedule(0.1, 0.5)
w = torch.tensor(4.0, requires_grad=True)
for i in range(4):
    loss = w ** 2
    loss.backward()
    with torch.no_grad():
        w -= s.lr * w.grad
    w.grad = None
    print(i, Schedule.describe(s.lr), round(w.item(), 5))
    s.step()
print(Schedule.constant(0.3).lr)
