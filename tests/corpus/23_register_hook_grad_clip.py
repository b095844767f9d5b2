import torch

w = torch.tensor([3.0, -4.0], requires_grad=True)
clip = 1.0
handle = w.register_hook(lambda g: g.clamp(-clip, clip))
loss = (w ** 2).sum()
loss.backward()
print(w.grad)
handle.remove()
w.grad = None
(w ** 2).sum().backward()
print(w.grad)
