import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
grads = {}

def save_grad(name):
    def hook(g):
        grads[name] = g.clone()
    return hook

y = x * x
y.register_hook(save_grad("y"))
z = y.sum() * 2
z.register_hook(save_grad("z"))
x.register_hook(lambda g: g * 0.5)
z.backward()
for k in sorted(grads):
    print(k, grads[k])
print("x.grad", x.grad)
