# Looking inside a model with forward hooks: record each layer's output, then check which
# activations a ReLU switched off and how large the gradients reaching them were
import torch
import torch.nn as nn

torch.manual_seed(21)
model = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 3), nn.ReLU(), nn.Linear(3, 1))
activations = {}


def remember(name):
    def hook(module, inputs, output):
        activations[name] = output
        output.retain_grad()
    return hook


handles = []
for name, layer in model.named_children():
    handles.append(layer.register_forward_hook(remember(name)))

x = torch.randn(5, 4)
loss = model(x).pow(2).mean()
loss.backward()
for name, out in activations.items():
    dead = (out == 0).float().mean().item() if isinstance(model[int(name)], nn.ReLU) else None
    print(f"layer {name}: shape {tuple(out.shape)}, grad size {out.grad.pow(2).sum().sqrt():.4f}", end="")
    print(f", zeros {dead:.0%}" if dead is not None else "")


def scale_input(module, args):
    (inp,) = args
    return inp * 0.5


pre = model[0].register_forward_pre_hook(scale_input)
doubled = model[4].register_forward_hook(lambda m, a, out: out * 2)
print(model(x[:2]))
pre.remove()
doubled.remove()
for h in handles:
    h.remove()
print(model(x[:2]), len(activations))
