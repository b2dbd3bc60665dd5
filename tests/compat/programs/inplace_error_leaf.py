# In-place on a leaf that requires grad (and on a view of it) is refused; under no_grad it is fine.
import torch

w = torch.ones(3, requires_grad=True)
errs = []
for f in (lambda: w.add_(1), lambda: w[0].mul_(2), lambda: w.zero_()):
    try:
        f()
        errs.append(None)
    except RuntimeError as exc:
        errs.append(exc)
with torch.no_grad():
    w.mul_(3)
RESULTS = {"errs": errs, "w": w, "version": w._version, "leaf": w.is_leaf}
