import torch

names = ["weight", "bias", "running_mean"]
shapes = [(3, 2), (3,), (3,)]
table = []
for name, shape in zip(names, shapes):
    t = torch.zeros(*shape)
    table.append((name.upper().ljust(14), "x".join(str(s) for s in shape), t.numel()))
for row in table:
    print("%s %-6s %3d" % row)
words = "loss went down then up then down".split()
print(words.count("down"), words.index("then"), " ".join(reversed(words)))
print({w: len(w) for w in set(words) if len(w) > 3} == {"loss": 4, "went": 4, "down": 4, "then": 4})
