import torch
import torch.nn as nn

torch.manual_seed(11)


class TinyRNNCell(nn.Module):
    """h' = tanh(W_x x + W_h h): written by hand, the way a recurrent layer works inside."""

    def __init__(self, n_in, n_hidden):
        super().__init__()
        self.n_hidden = n_hidden
        self.x2h = nn.Linear(n_in, n_hidden)
        self.h2h = nn.Linear(n_hidden, n_hidden, bias=False)

    def forward(self, x, h):
        return torch.tanh(self.x2h(x) + self.h2h(h))

    def init_hidden(self, batch):
        return torch.zeros(batch, self.n_hidden)


cell = TinyRNNCell(1, 3)
readout = nn.Linear(3, 1)
params = list(cell.parameters()) + list(readout.parameters())
opt = torch.optim.SGD(params, lr=0.05)

# a sequence to predict one step ahead: a repeating ramp
seq = torch.tensor([0.0, 0.25, 0.5, 0.75, 1.0] * 4).reshape(-1, 1, 1)
h = cell.init_hidden(1)
chunk = 5
for start in range(0, len(seq) - 1, chunk):
    h = h.detach()  # truncate: gradients stop at the chunk boundary
    opt.zero_grad()
    loss = 0.0
    for t in range(start, min(start + chunk, len(seq) - 1)):
        h = cell(seq[t], h)
        loss = loss + (readout(h) - seq[t + 1]).pow(2).mean()
    loss.backward()
    grad_total = sum(p.grad.abs().sum().item() for p in params)
    opt.step()
    print(f"chunk at {start:2d}: loss {loss.item():.4f}, |grad| {grad_total:.4f}, "
          f"h requires grad: {h.requires_grad}")

print(h.grad_fn is not None, h.detach().grad_fn)
