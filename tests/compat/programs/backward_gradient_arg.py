# backward() of a non-scalar needs a gradient; retain_graph lets a second pass accumulate.
import torch

x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
y = x * x + 1
try:
    y.backward()
    err = None
except RuntimeError as e:
    err = e
y.backward(torch.tensor([[1.0, 0.5], [0.0, 2.0]]), retain_graph=True)
first = x.grad.clone()
y.backward(torch.ones_like(y))
try:
    y.sum().backward()
    y.sum().backward()
    err2 = None
except RuntimeError as e:
    err2 = e
RESULTS = {"err": err, "first": first, "second": x.grad, "err2": err2}
