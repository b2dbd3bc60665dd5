# Higher-order gradients: d/dx and d2/dx2 of x**3 + sin-free terms via create_graph.
import torch

x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = (x ** 3 + 2 * x ** 2 - x.exp()).sum()
(g,) = torch.autograd.grad(y, x, create_graph=True)
(gg,) = torch.autograd.grad(g.sum(), x, create_graph=True)
(ggg,) = torch.autograd.grad(gg.sum(), x)
w = torch.tensor([1.0, 2.0], requires_grad=True)
out = (w * w).sum()
out.backward(create_graph=True)
first = w.grad.clone()
w.grad.sum().backward()
RESULTS = {"g": g, "gg": gg, "ggg": ggg, "first": first, "accum": w.grad}
