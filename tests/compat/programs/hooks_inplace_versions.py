# A hook registered before an in-place op sees the old version's gradient; after, the new.
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 2
got = {}
b.register_hook(lambda g: got.__setitem__("before", g.clone()))
b.mul_(3)
b.register_hook(lambda g: got.__setitem__("after", g.clone()))
b.retain_grad()
(b * torch.tensor([5.0, 7.0])).sum().backward()
RESULTS = {"before": got["before"], "after": got["after"], "bgrad": b.grad, "agrad": a.grad,
           "fn": b.grad_fn.name()}
