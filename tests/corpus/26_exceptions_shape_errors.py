import torch

a = torch.ones(2, 3)
b = torch.ones(4, 5)
errors = []
for op in ("add", "matmul"):
    try:
        if op == "add":
            a + b
        else:
            a @ b
    except RuntimeError as e:
        errors.append(op)
        print(op, "->", str(e).split("\n")[0])
print(errors)
try:
    a.view(7)
except RuntimeError as e:
    print("view:", e)
