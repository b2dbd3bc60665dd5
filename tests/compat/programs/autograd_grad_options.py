# autograd.grad: several inputs, allow_unused, grad_outputs, retain_graph and .grad untouched.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor([3.0, -1.0], requires_grad=True)
u = torch.tensor([5.0], requires_grad=True)
out = x * y + x ** 2
gx, gy = torch.autograd.grad(out, (x, y), grad_outputs=torch.tensor([1.0, 2.0]),
                             retain_graph=True)
try:
    torch.autograd.grad(out.sum(), [x, u], retain_graph=True)
    err = None
except RuntimeError as e:
    err = e
gx2, gu = torch.autograd.grad(out.sum(), [x, u], allow_unused=True)
RESULTS = {"gx": gx, "gy": gy, "err": err, "gx2": gx2, "gu": gu is None,
           "untouched": x.grad is None}
