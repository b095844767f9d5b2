import torch
import torch.nn as nn

errors = []


def attempt(description, fn):
    try:
        result = fn()
    except (RuntimeError, ValueError, IndexError, TypeError) as e:
        first_line = str(e).splitlines()[0]
        errors.append(type(e).__name__)
        print(f"{description}: {type(e).__name__}: {first_line}")
    else:
        print(f"{description}: ok -> {result}")


w = torch.ones(3, 2, requires_grad=True)
attempt("matmul of mismatched shapes", lambda: torch.ones(2, 3) @ torch.ones(2, 3))
attempt("matmul of matching shapes", lambda: (torch.ones(2, 3) @ w).shape)
attempt("backward of a vector", lambda: (w * 2).backward())
attempt("in-place on a leaf", lambda: w.add_(1))


def backward_twice():
    y = (w ** 2).sum()
    y.backward()
    y.backward()


attempt("backward twice", backward_twice)
attempt("index out of range", lambda: torch.arange(3)[5])
attempt("a layer with the wrong input size", lambda: nn.Linear(4, 2)(torch.ones(1, 3)))
attempt("view of a non-contiguous tensor", lambda: torch.ones(2, 3).t().view(6))
attempt("reshape instead", lambda: torch.ones(2, 3).t().reshape(6).shape)
attempt("item of a vector", lambda: torch.ones(2).item())
attempt("a float index", lambda: [1, 2, 3][1.0])
w.grad = None


class Trainer:
    def __init__(self):
        self.failures = 0

    def step(self, batch):
        try:
            return (batch @ torch.ones(2, 1)).sum().item()
        except RuntimeError:
            self.failures += 1
            return None
        finally:
            self.last = tuple(batch.shape)


t = Trainer()
results = [t.step(b) for b in (torch.ones(3, 2), torch.ones(3, 3), torch.ones(1, 2))]
print(results, t.failures, t.last)
print(sorted(set(errors)), len(errors))
