import torch

a = torch.Tensor([1, 2, 3])
b = torch.FloatTensor([[1.5, 2.5]])
c = torch.LongTensor([3.7, -1.2, 0])
d = torch.DoubleTensor([0.1, 0.2])
for t in (a, b, c, d):
    print(t, t.dtype, t.type())

print(torch.Tensor(2, 3).shape, torch.Tensor().shape, torch.LongTensor(4).dtype)
print(isinstance(a, torch.FloatTensor), isinstance(c, torch.FloatTensor), isinstance(c, torch.Tensor))
print(a.type(torch.LongTensor), d.to(torch.float32), c.to(torch.float64))
print(a.requires_grad, a.grad_fn, torch.Tensor([True, False]))

w = torch.Tensor([0.5, -0.5]).requires_grad_()
loss = (w * torch.Tensor([2, 4])).sum()
loss.backward()
print(w.grad)

try:
    torch.Tensor(3.0)
except TypeError as e:
    print("TypeError:", e)
try:
    a.cuda()
except AssertionError as e:
    print("AssertionError:", e)
try:
    torch.device("gpu")
except RuntimeError as e:
    print("RuntimeError:", str(e)[:40])
print(torch.device("cpu") == a.device, torch.device("cuda:0"), str(torch.device("cuda", 1)))
