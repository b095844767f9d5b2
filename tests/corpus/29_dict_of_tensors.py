import torch

params = {
    "w": torch.tensor([[0.5, -0.5]], requires_grad=True),
    "b": torch.tensor([0.1], requires_grad=True),
}
x = torch.tensor([[1.0], [2.0]])
out = params["w"] @ x + params["b"]
out.sum().backward()
for key, value in params.items():
    print(key, value.grad)
print(sorted(params), "w" in params, len(params))
params.pop("b")
print(list(params.keys()))
