import torch

log = []

def risky(v):
    try:
        if v < 0:
            raise ValueError("negative input")
        return torch.tensor(v).sqrt().item()
    except ValueError as e:
        log.append(str(e))
        return None
    finally:
        log.append(f"done {v}")

print([risky(v) for v in (4.0, -1.0, 9.0)])
print(log)
