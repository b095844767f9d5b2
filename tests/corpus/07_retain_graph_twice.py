import torch

w = torch.tensor([2.0], requires_grad=True)
out = (w ** 3).sum()
out.backward(retain_graph=True)
print("first", w.grad)
out.backward()
print("accumulated", w.grad)
try:
    out.backward()
except RuntimeError as e:
    msg = str(e)
    print("third backward fails:", msg.split(".")[0])
w.grad.zero_()
print("zeroed", w.grad)
