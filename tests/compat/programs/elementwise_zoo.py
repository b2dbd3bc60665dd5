# The elementwise functions real programs reach for: maximum/minimum (ties split the
# gradient), xlogy for entropies, logaddexp, nan_to_num, clamp with tensor bounds,
# float_power, div with rounding modes, masks with & | ~, isfinite/isinf, diff, kron.
import numpy as np
import torch

rng = np.random.default_rng(SEED)
a = torch.tensor(rng.standard_normal(8).round(1), dtype=torch.float32, requires_grad=True)
b = torch.tensor(rng.standard_normal(8).round(1), dtype=torch.float32, requires_grad=True)

p = torch.softmax(a, 0)
entropy = -torch.xlogy(p, p).sum()
soft = torch.logaddexp(a, b).sum() + torch.logaddexp2(a, b).mean()
ties = torch.maximum(a, a.detach().round()).sum() + torch.minimum(a, b).sum()
fm = torch.fmax(a, torch.where(b > 0, float("nan"), b)).sum()
clamped = torch.clamp(a, min=b - 0.5, max=b + 0.5).sum() + a.clip(-0.3, 0.3).sum()
safe = torch.nan_to_num(torch.log(a), nan=0.0, neginf=-5.0).sum()
powered = torch.float_power(a.abs() + 1, 1.5).sum()
rounded = torch.div(a * 10, 3, rounding_mode="floor").sum() + (a * 10).div(3, rounding_mode="trunc").sum()
signs = torch.copysign(a, b).sum() + torch.sinc(a).sum() + torch.deg2rad(b).sum()
mask = (a > 0) & ~(b > 0.5) | torch.isinf(a / 0)
counted = mask.sum() + torch.isfinite(a).all().long()
d = torch.diff(a, prepend=torch.zeros(1)).abs().sum()
k = torch.kron(a[:2], b[:3]).sum() + torch.tensordot(a.view(2, 4), b.view(4, 2), dims=1).sum()
total = entropy + soft + ties + fm + clamped + safe + powered + signs + d + k
total.backward()

ints = torch.tensor([7, -7, 12, 5])
RESULTS = {"total": total, "a.grad": a.grad, "b.grad": b.grad, "rounded": rounded,
           "counted": counted, "mask": mask,
           "int_ops": [torch.div(ints, 2, rounding_mode="floor"), ints & 6, ints | 1,
                       ints ^ 3, ~ints, ints << 1, ints >> 1, torch.bitwise_and(ints, 3)],
           "finfo": [torch.finfo(torch.float32).eps, torch.finfo(torch.float64).max,
                     torch.iinfo(torch.int32).max, torch.finfo(torch.float32).tiny],
           "default": torch.get_default_dtype() == torch.float32}
