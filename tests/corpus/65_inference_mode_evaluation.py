import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
with torch.no_grad():
    model.weight.copy_(torch.tensor([[0.2, -0.1, 0.4]]))
    model.bias.fill_(0.1)
data = torch.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 1.0]])

with torch.inference_mode():
    preds = model(data)
    print(preds, torch.is_inference_mode_enabled(), torch.is_grad_enabled())
print(preds.requires_grad, preds.is_inference(), data.is_inference())
print(torch.is_inference_mode_enabled())


@torch.inference_mode()
def evaluate(x):
    return model(x).sum()


score = evaluate(data)
print(score, score.is_inference())


@torch.inference_mode
def evaluate_bare(x):
    return model(x).mean()


print(evaluate_bare(data).is_inference())

loss = (preds + model(data)).sum()
print(loss)
try:
    (preds * model(data)).sum()
except RuntimeError as e:
    print("RuntimeError:", str(e)[:55])
try:
    preds.add_(1)
except RuntimeError as e:
    print("RuntimeError:", str(e)[:60])
try:
    preds.requires_grad_()
except RuntimeError as e:
    print("RuntimeError:", e)
fixed = preds.clone()
print(fixed.is_inference(), (fixed * model(data)).sum())

with torch.inference_mode():
    inside = torch.ones(2)
    inside.add_(1)
    with torch.inference_mode(False):
        print(torch.is_inference_mode_enabled(), torch.ones(1).is_inference())
print(inside)
