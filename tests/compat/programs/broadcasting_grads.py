# Gradients of broadcast operands are summed back to their shapes.
import numpy as np
import torch

rng = np.random.default_rng(SEED)
a = torch.tensor(rng.standard_normal((3, 1)), dtype=torch.float32, requires_grad=True)
b = torch.tensor(rng.standard_normal((1, 4)), dtype=torch.float32, requires_grad=True)
c = torch.tensor(rng.standard_normal(4), dtype=torch.float32, requires_grad=True)
s = torch.tensor(2.5, requires_grad=True)
out = ((a + b) * c / s - a.expand(3, 4) ** 2).mean()
out.backward()
RESULTS = {"a": a.grad, "b": b.grad, "c": c.grad, "s": s.grad, "out": out}
