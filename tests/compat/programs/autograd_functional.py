# torch.autograd.functional: Jacobian, Hessian, vjp, jvp, hvp of small functions.
import numpy as np
import torch
from torch.autograd.functional import hessian, hvp, jacobian, jvp, vjp

rng = np.random.default_rng(SEED)
x = torch.tensor(rng.standard_normal(3))
y = torch.tensor(rng.standard_normal(3))
v = torch.tensor(rng.standard_normal(3))


def f(a, b):
    return a * b.exp() + a.pow(2).sum()


def energy(a):
    return (a ** 4).sum() + (a[0] * a[1] * a[2])


J = jacobian(f, (x, y))
H = hessian(energy, x)
_, vj = vjp(lambda a: f(a, y), x, v)
_, jv = jvp(lambda a: f(a, y), x, v)
_, hv = hvp(energy, x, v)
RESULTS = {"J": J, "H": H, "vjp": vj, "jvp": jv, "hvp": hv, "sym": bool((H == H.t()).all())}
