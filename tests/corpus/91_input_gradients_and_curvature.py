import torch

torch.manual_seed(6)
model = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.Tanh(), torch.nn.Linear(5, 1))
for p in model.parameters():
    p.requires_grad_(False)  # frozen: only the input is asked about

x = torch.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
score = model(x).squeeze()
(saliency,) = torch.autograd.grad(score, x)
print("which input matters most:", saliency.abs().argmax().item())
print(saliency.shape, x.grad)


def f(t):
    return (t ** 3).sum() - 2 * (t ** 2).sum()


t = torch.tensor([1.0, 2.0, -1.0], requires_grad=True)
(g,) = torch.autograd.grad(f(t), t, create_graph=True)
print("first derivative:", g)
hessian_rows = []
for i in range(3):
    (row,) = torch.autograd.grad(g[i], t, retain_graph=True)
    hessian_rows.append(row)
hessian = torch.stack(hessian_rows)
print("second derivatives (a diagonal matrix):")
print(hessian)
print(torch.equal(hessian, torch.diag(6 * t.detach() - 4)))
print(g.grad_fn.name(), g.requires_grad)
