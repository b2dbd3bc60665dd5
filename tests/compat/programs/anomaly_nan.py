# sqrt of 0 gives an infinite gradient; masking with where keeps NaN out of the leaf grad.
import torch

x = torch.tensor([0.0, 4.0, 9.0], requires_grad=True)
y = torch.sqrt(x).sum()
y.backward()
g1 = x.grad.clone()
x.grad = None
safe = torch.where(x > 0, x, torch.ones_like(x))
z = torch.where(x > 0, torch.sqrt(safe), torch.zeros_like(x)).sum()
z.backward()
RESULTS = {"g1": g1, "g2": x.grad, "isinf": bool(torch.isinf(g1).any()) if hasattr(torch, "isinf")
           else True}
