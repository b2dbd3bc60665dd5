# Modifying an output of unbind (a multi-output view) in place is refused, as in PyTorch.
import torch

x = torch.arange(6.0).reshape(2, 3).requires_grad_()
y = x * 1
a, b = y.unbind(0)
try:
    a.mul_(2)
    err = None
except RuntimeError as exc:
    err = type(exc).__name__
z = y.clone()
z[0].mul_(2)          # a plain view is fine
z.sum().backward()
RESULTS = {"err": err, "grad": x.grad}
