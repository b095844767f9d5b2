import torch

t = torch.tensor([[1.5, -2.25], [3.0, 0.125]])
print(f"{t.shape=}" if False else f"shape={tuple(t.shape)} dtype={t.dtype}")
print(f"sum={t.sum().item():>10.3f}|mean={t.mean().item():<8.2f}|")
print(f"{t.max().item():e} {t.min().item():+.1f} {int(t.numel()):04d} {0.25:%}")
print("{:.2f} {:>6} {!r}".format(t[0, 0].item(), "ok", "q"))
print("%-6s|%6.2f|%x" % ("left", 3.14159, 255))
rows = [" ".join(f"{v:6.2f}" for v in row) for row in t.tolist()]
print("\n".join(rows))
