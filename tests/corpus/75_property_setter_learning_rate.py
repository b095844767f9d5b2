import torch


class Schedule:
    """A learning rate that refuses bad values, through a property with a setter."""

    created = 0

    def __init__(self, lr):
        self._lr = None
        self.history = []
        self.lr = lr
        Schedule.created += 1

    @property
    def lr(self):
        return self._lr

    @lr.setter
    def lr(self, value):
        if value <= 0:
            raise ValueError(f"lr must be positive, not {value}")
        self._lr = float(value)
        self.history.append(self._lr)

    @classmethod
    def constant(cls, lr):
        return cls(lr)

    def decay(self, factor):
        self.lr = self.lr * factor


w = torch.tensor([4.0], requires_grad=True)
sched = Schedule.constant(0.5)
for epoch in range(4):
    loss = (w ** 2).sum()
    loss.backward()
    with torch.no_grad():
        w -= sched.lr * w.grad
    w.grad = None
    print(f"epoch {epoch}: lr={sched.lr:.3f} w={w.item():.4f}")
    sched.decay(0.5)
print(sched.history, Schedule.created)
try:
    sched.lr = -1
except ValueError as e:
    print("ValueError:", e)
print(sched.lr)
