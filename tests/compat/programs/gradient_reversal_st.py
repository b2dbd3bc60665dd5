# Custom autograd Functions people copy from papers: gradient reversal (DANN), straight-through
# estimator for binarisation / rounding, Gumbel-softmax (hard) with noise from rng.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Function

rng = np.random.default_rng(SEED)


class GradReverse(Function):
    @staticmethod
    def forward(ctx, x, lambd):
        ctx.lambd = lambd
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.neg() * ctx.lambd, None


class STEBinarize(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sign(x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (x.abs() <= 1).to(g.dtype)


feat = nn.Linear(4, 6)
label_head = nn.Linear(6, 3)
domain_head = nn.Linear(6, 2)
for m in (feat, label_head, domain_head):
    with torch.no_grad():
        m.weight.copy_(torch.tensor(rng.normal(0, 0.5, tuple(m.weight.shape)), dtype=torch.float32))
        m.bias.zero_()
x = torch.tensor(rng.standard_normal((8, 4)), dtype=torch.float32)
y = torch.tensor(rng.integers(0, 3, 8))
d = torch.tensor(rng.integers(0, 2, 8))
h = F.relu(feat(x))
loss = F.cross_entropy(label_head(h), y) + F.cross_entropy(domain_head(GradReverse.apply(h, 0.3)), d)
loss.backward()

w = torch.tensor(rng.standard_normal(6) * 1.5, dtype=torch.float32, requires_grad=True)
b = STEBinarize.apply(w)
(b * torch.arange(6.0)).sum().backward()
r = torch.tensor(rng.uniform(-2, 2, 5), dtype=torch.float32, requires_grad=True)
rounded = r + (torch.round(r) - r).detach()            # straight-through rounding
rounded.pow(2).sum().backward()

logits = torch.tensor(rng.standard_normal((3, 4)), dtype=torch.float32, requires_grad=True)
u = torch.tensor(rng.uniform(1e-6, 1, (3, 4)), dtype=torch.float32)
g = -torch.log(-torch.log(u))
y_soft = F.softmax((logits + g) / 0.5, dim=-1)
index = y_soft.max(-1, keepdim=True)[1]
y_hard = torch.zeros_like(logits).scatter_(-1, index, 1.0)
gumbel = y_hard - y_soft.detach() + y_soft
(gumbel * torch.arange(4.0)).sum().backward()
RESULTS = {"loss": loss, "feat_grad": feat.weight.grad, "dom_grad": domain_head.weight.grad,
           "b": b, "w_grad": w.grad, "rounded": rounded, "r_grad": r.grad, "gumbel": gumbel,
           "logits_grad": logits.grad, "grad_fn": type(b.grad_fn).__name__.replace("Backward", "")}
