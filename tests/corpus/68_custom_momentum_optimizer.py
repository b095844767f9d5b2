import torch
from torch.optim import Optimizer


class HeavyBall(Optimizer):
    """Plain momentum written by hand on torch's Optimizer base."""

    def __init__(self, params, lr=0.05, momentum=0.8):
        if lr <= 0:
            raise ValueError(f"lr must be positive, got {lr}")
        super().__init__(params, dict(lr=lr, momentum=momentum))

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if "velocity" not in state:
                    state["velocity"] = torch.zeros_like(p)
                    state["steps"] = 0
                v = state["velocity"]
                v.mul_(group["momentum"]).add_(p.grad)
                p.add_(v, alpha=-group["lr"])
                state["steps"] += 1
        return loss


w = torch.tensor([2.0, -1.0], requires_grad=True)
b = torch.tensor(0.5, requires_grad=True)
opt = HeavyBall([{"params": [w]}, {"params": [b], "lr": 0.1}])
print(opt)
xs = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
ys = torch.tensor([1.0, 2.0, 3.0])


def closure():
    opt.zero_grad()
    loss = ((xs @ w + b - ys) ** 2).mean()
    loss.backward()
    return loss


for it in range(6):
    loss = opt.step(closure)
    print(f"step {it}: loss={loss.item():.5f} w=[{w[0].item():.4f}, {w[1].item():.4f}] b={b.item():.4f}")

print(opt.state[w]["steps"], opt.state[b]["velocity"])
print([g["lr"] for g in opt.param_groups])
print(opt.state_dict()["param_groups"])
print(w.requires_grad, w.grad_fn, torch.is_grad_enabled())
try:
    HeavyBall([w], lr=0)
except ValueError as e:
    print("refused:", e)
