import torch
import torch.nn as nn

torch.manual_seed(1)

model = nn.Sequential(
    nn.Linear(3, 4),
    nn.ReLU(),
    nn.Linear(4, 4),
    nn.ReLU(),
    nn.Linear(4, 1),
)

activations = {}
grad_norms = {}


def save_activation(name):
    def hook(module, inputs, output):
        activations[name] = output.detach()
    return hook


handles = []
for name, layer in model.named_children():
    if isinstance(layer, nn.ReLU):
        handles.append(layer.register_forward_hook(save_activation(f"relu{name}")))

def record_norm(name):
    def hook(grad):
        grad_norms[name] = grad.norm().item()  # a tensor hook sees the gradient on its way to .grad
    return hook


for name, p in model.named_parameters():
    p.register_hook(record_norm(name))

x = torch.randn(5, 3)
y = model(x).sum()
y.backward()

print("{:<8} {:>6} {:>8}".format("layer", "alive", "mean"))
for name, a in activations.items():
    alive = (a > 0).float().mean().item()
    print("{:<8} {:>6.0%} {:>8.4f}".format(name, alive, a.mean().item()))

for name in sorted(grad_norms, key=grad_norms.get, reverse=True)[:3]:
    print(f"{name:>8}: |grad| = {grad_norms[name]:.4f}")

for h in handles:
    h.remove()
activations.clear()
model(x)
print("after remove():", activations)
