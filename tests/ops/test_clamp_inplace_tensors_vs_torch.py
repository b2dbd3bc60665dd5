"""``clamp_`` with tensor bounds, against PyTorch: ClampBackward0 in place (a bound that
needs a gradient gets one), a 0-d bound that needs none read as a number
(ClampBackward1), PyTorch's refusals (a mix it has no overload for, a result its dtype
cannot hold, a bound that does not broadcast to self). Before, a tensor bound raised
"Boolean value of Tensor ... is ambiguous"."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import short, torch_or_skip

pytestmark = pytest.mark.host_only("compares with torch CPU tensors through .numpy()")

R = np.random.default_rng(3)
A, LO, HI = R.standard_normal((3, 4)), R.standard_normal((3, 4)) * 0.3, R.standard_normal(4)

CASES = {
    "min tensor": lambda M, x, lo, hi: x.clamp_(min=lo),
    "max tensor": lambda M, x, lo, hi: x.clamp_(max=hi),
    "both tensors": lambda M, x, lo, hi: x.clamp_(lo, hi),
    "on a view": lambda M, x, lo, hi: x[1:].clamp_(min=lo[1:]),
    "transposed": lambda M, x, lo, hi: x.t().clamp_(max=hi.unsqueeze(1)),
    "0-d bound, number max": lambda M, x, lo, hi: x.clamp_(min=M.tensor(0.1, dtype=M.float64),
                                                           max=0.7),
    "bound needing grad, number": lambda M, x, lo, hi: x.clamp_(min=lo, max=0.7),
    "not broadcastable": lambda M, x, lo, hi: x.clamp_(min=lo.t()),
    "bound broadcasts self": lambda M, x, lo, hi: x[0].clamp_(min=lo),
    "int self, float bound": lambda M, x, lo, hi: M.arange(4).clamp_(min=hi.detach()),
    "clip_": lambda M, x, lo, hi: x.clip_(lo, hi),
}


def _run(M, name):
    leaves = [M.tensor(v, requires_grad=True) for v in (A, LO, HI)]
    try:
        x, lo, hi = (t * 1 for t in leaves)
        out = CASES[name](M, x, lo, hi)
        fn = short(out.grad_fn.name()) if out.grad_fn is not None else None
        if not out.requires_grad:
            return "ok", out.numpy().copy(), fn
        (out * M.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)))).sum() \
            .backward()
        return ("ok", out.detach().numpy().copy(), fn, x._version,
                *[None if t.grad is None else t.grad.numpy().copy() for t in leaves])
    except (RuntimeError, TypeError) as e:
        return "error", type(e).__name__, str(e).split("\n")[0]


@pytest.mark.parametrize("name", list(CASES))
def test_clamp_inplace_with_tensors_as_torch(name):
    torch = torch_or_skip()
    ours, theirs = _run(vg, name), _run(torch, name)
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "error":
        assert ours[1] == theirs[1]
        # PyTorch's words (its keyword spelling of the arguments aside; ours may name the op)
        head = theirs[2].split(" - got ")[0]
        assert head in ours[2], (ours, theirs)
        return
    assert ours[2] == theirs[2] and ours[3:4] == theirs[3:4]
    np.testing.assert_allclose(ours[1], theirs[1])
    for g, h in zip(ours[4:], theirs[4:]):
        assert (g is None) == (h is None)
        if g is not None:
            np.testing.assert_allclose(g, h)
