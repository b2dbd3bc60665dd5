# A custom Function saving non-tensor state on ctx and using needs_input_grad.
import numpy as np
import torch
from torch.autograd import Function


class ScaledExp(Function):
    @staticmethod
    def forward(ctx, x, scale):
        out = x.exp() * scale
        ctx.scale = scale
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        (out,) = ctx.saved_tensors
        gx = grad_out * out if ctx.needs_input_grad[0] else None
        return gx, None


class MulConst(Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None


rng = np.random.default_rng(SEED)
x = torch.tensor(rng.standard_normal(4), dtype=torch.float32, requires_grad=True)
y = ScaledExp.apply(x, 3.0)
z = MulConst.apply(y, -2.0).sum()
z.backward()
RESULTS = {"y": y, "grad": x.grad, "fn": type(y.grad_fn).__name__.replace("Backward", "")}
