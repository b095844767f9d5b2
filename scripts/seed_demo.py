"""Runs the seed documents' .grad examples on gradplay's engine and prints what torch prints."""

from __future__ import annotations

import engine as torch

EXAMPLES = [
    ("x**2 then 2*y: x.grad is 8", """
x = torch.tensor([2.0], requires_grad=True)
y = x**2
z = 2*y
z.backward()
print(x.grad)
"""),
    ("two leaves", """
x = torch.tensor([2.0], requires_grad=True)
y = torch.tensor([3.0], requires_grad=True)
z = x**2 + y**3
z.backward()
print(x.grad)
print(y.grad)
"""),
    ("non-scalar backward needs a gradient (seed 004 claims it prints a value)", """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x + 2
z = y * y
try:
    z.backward()
except RuntimeError as e:
    print("RuntimeError:", e)
z.sum().backward()
print(x.grad)
"""),
    ("clone then add_ keeps gradients (seed 004 says it may break them)", """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x.clone()
y.add_(2)
z = (y * y).sum()
z.backward()
print(x.grad)
"""),
    ("in-place on a leaf that requires grad", """
x = torch.tensor(2.0, requires_grad=True)
try:
    x += 1
except RuntimeError as e:
    print("RuntimeError:", e)
"""),
    ("gradients accumulate until zeroed", """
x = torch.tensor([2.0, 3.0], requires_grad=True)
for _ in range(2):
    y = x.pow(2).sum()
    y.backward()
    print(x.grad)
x.grad.zero_()
print(x.grad)
"""),
]


def main() -> None:
    for title, code in EXAMPLES:
        print(f"# {title}")
        print(code.strip())
        print("--- prints:")
        exec(compile(code, title, "exec"), {"torch": torch})  # trusted, fixed demo text
        print()


if __name__ == "__main__":
    main()
