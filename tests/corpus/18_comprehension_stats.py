import torch

samples = [torch.tensor([float(i), float(i * i)]) for i in range(5)]
stacked = torch.stack(samples)
means = {name: stacked[:, k].mean().item() for k, name in enumerate(["x", "x2"])}
print(stacked)
print(means)
big = [s for s in samples if s.sum() > 5]
print(len(big), [round((s * s).sum().sqrt().item(), 3) for s in big])
print(sorted(means.items(), key=lambda kv: kv[1], reverse=True))
