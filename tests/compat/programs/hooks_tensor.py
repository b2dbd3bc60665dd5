# Tensor hooks: change a gradient on its way, retain_grad on an intermediate, hook order.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
seen = []
h = x.register_hook(lambda g: seen.append(g.clone()))
y = x * x
y.retain_grad()
y.register_hook(lambda g: g * 10)
z = (y * torch.tensor([1.0, -1.0, 2.0])).sum()
z.backward()
h.remove()
x.grad = None
(x * 3).sum().backward()
RESULTS = {"seen": seen, "ygrad": y.grad, "xgrad": x.grad, "removed": len(seen)}
