# autograd.graph.saved_tensors_hooks: see what backward keeps, and keep copies instead.
import torch

a = torch.tensor([0.5, 1.0, 1.5], requires_grad=True)
shapes = []


def pack(t):
    shapes.append(tuple(t.shape))
    return t.clone()


def unpack(t):
    return t


with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    b = a.exp()
    c = (b * a).sum()
b.mul_(100)          # the saved copy is unaffected: backward still works
c.backward()
d = a * a
d.grad_fn._raw_saved_other.register_hooks(lambda t: t * 2, lambda t: t)
g, = torch.autograd.grad(d.sum(), a)
RESULTS = {"shapes": shapes, "grad": a.grad, "g": g}
