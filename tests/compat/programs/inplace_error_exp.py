# The classic: a result that exp saved is modified in place, backward refuses.
import numpy as np
import torch

rng = np.random.default_rng(SEED)
a = torch.tensor(rng.standard_normal(3), dtype=torch.float32, requires_grad=True)
e = a.exp()
e.mul_(2)
try:
    e.sum().backward()
    err = None
except RuntimeError as exc:
    err = exc
b = torch.tensor(rng.standard_normal(4), dtype=torch.float32, requires_grad=True)
s = b.sigmoid()
s[1:3] += 1
try:
    s.sum().backward()
    err2 = None
except RuntimeError as exc:
    err2 = exc
RESULTS = {"err": err, "err2": err2, "version": e._version}
