# torch.set_printoptions: precision, scientific notation, profiles and summaries
import torch

x = torch.tensor([1.23456, 2.0, -0.5])
torch.set_printoptions(precision=2)
print(x, torch.tensor(3.14159), x.double())
torch.set_printoptions(sci_mode=True)
print(torch.tensor([1.5, 200.0]), torch.tensor([1.0, 2.0]), torch.tensor(3.25))
torch.set_printoptions(sci_mode=False, precision=3)
print(torch.tensor([1e-6, 1e6]), torch.tensor([1e10, 1.0]))
torch.set_printoptions(profile="short")
print(torch.arange(10.0).reshape(2, 5), torch.tensor([1.23456]))
torch.set_printoptions(threshold=5, edgeitems=1, linewidth=30)
print(torch.arange(12.0), torch.arange(100.0).reshape(10, 10), torch.arange(6.0))
torch.set_printoptions(profile="default")
print(torch.tensor([1.23456]), torch.arange(12.0))
torch.set_printoptions(profile="wide")
torch.set_printoptions(linewidth=20)
w = torch.ones(3, requires_grad=True)
print(w * 2, torch.nn.Parameter(torch.ones(2)))
torch.set_printoptions(precision=1.5)
try:
    print(torch.tensor([1.25]))
except ValueError as e:
    print("ValueError:", e)
torch.set_printoptions(precision=4, linewidth=80, threshold=float("inf"))
print(torch.arange(1200.0).reshape(30, 40)[:2, :3], torch.arange(30).sum())
