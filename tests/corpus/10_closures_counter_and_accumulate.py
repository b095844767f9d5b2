import torch

def make_logger(prefix):
    lines = []
    def log(*values):
        text = prefix + " ".join(str(v) for v in values)
        lines.append(text)
        return len(lines)
    return log, lines

log, lines = make_logger("[grad] ")
a = torch.tensor(3.0, requires_grad=True)
for k in range(1, 4):
    (a * k).backward()
    log("after", k, "->", a.grad.item())
for line in lines:
    print(line)
