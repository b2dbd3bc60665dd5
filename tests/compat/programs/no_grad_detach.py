# no_grad, enable_grad, set_grad_enabled, detach and requires_grad propagation.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    a = x * 2
    with torch.enable_grad():
        b = x * 2
with torch.set_grad_enabled(False):
    c = x + 1
d = x.detach()
d2 = d * 3
e = (x * 2).detach().requires_grad_()


@torch.no_grad()
def update(t):
    return t * 5


f = update(x)
RESULTS = {"flags": [a.requires_grad, b.requires_grad, c.requires_grad, d.requires_grad,
                     d2.requires_grad, e.requires_grad, e.is_leaf, f.requires_grad],
           "grad_enabled": torch.is_grad_enabled()}
