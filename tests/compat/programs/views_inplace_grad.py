# Writing through views: slices, a transposed view, index assignment — gradients flow right.
import numpy as np
import torch

rng = np.random.default_rng(SEED)
w = torch.tensor(rng.standard_normal((3, 4)), dtype=torch.float32, requires_grad=True)
base = w.clone()
base[0] = base[1] * 2
v = base.view(12)
v[5] = 0.0
base.t()[2].mul_(3)           # column 2 via a transposed view
base[:, 1:3] += torch.ones(3, 2)
base.view(12)[5] = 0.0        # a write through a view after the += on a slice
loss = (base ** 2).sum()
loss.backward()
RESULTS = {"base": base, "grad": w.grad, "fn": type(base.grad_fn).__name__, "version": base._version}
