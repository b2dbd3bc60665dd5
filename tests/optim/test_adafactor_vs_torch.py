"""Adafactor against torch.optim.Adafactor: the parameters after several steps (matrices,
a 3-D tensor, vectors and a scalar; float32 and float64; every option), the state's
keys and shapes, and the argument checks in PyTorch's words."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compares with torch CPU tensors through .numpy()")

OPTIONS = [dict(), dict(lr=0.5), dict(beta2_decay=-0.5), dict(eps=(1e-6, 1e-3)),
           dict(d=2.0), dict(weight_decay=0.05), dict(maximize=True),
           dict(lr=0.3, weight_decay=0.01, eps=(None, 1e-2), d=1.5)]


def _run(M, dtype, options):
    rng = np.random.default_rng(4)
    shapes = [(3, 4), (2, 3, 5), (4,), ()]
    params = [M.tensor(rng.standard_normal(s), dtype=getattr(M, dtype), requires_grad=True)
              for s in shapes]
    opt = M.optim.Adafactor(params, **options)
    x = M.tensor(rng.standard_normal((6, 4)), dtype=getattr(M, dtype))
    for _ in range(7):
        opt.zero_grad()
        loss = ((x @ params[0].t()).tanh() ** 2).sum() + (params[1] ** 3).sum() \
            + (params[2] * x[0]).sum() ** 2 + params[3] ** 2
        loss.backward()
        opt.step()
    state = [{k: tuple(v.shape) for k, v in opt.state[p].items()} for p in params]
    return [p.detach().numpy() for p in params], state


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("options", OPTIONS, ids=[str(o) for o in OPTIONS])
def test_adafactor_steps_as_torch(options, dtype):
    torch = torch_or_skip()
    ours, theirs = _run(vg, dtype, options), _run(torch, dtype, options)
    assert ours[1] == theirs[1]
    for a, b in zip(ours[0], theirs[0]):
        # (float32: the loss's own products round differently from BLAS to BLAS)
        np.testing.assert_allclose(a, b, rtol=1e-12 if dtype == "float64" else 1e-4,
                                   atol=1e-14 if dtype == "float64" else 1e-6)


@pytest.mark.parametrize("bad", [dict(lr=-1.0), dict(beta2_decay=0.5), dict(eps=(-1, 1e-3)),
                                 dict(eps=(None, -1.0)), dict(d=0.5),
                                 dict(weight_decay=-0.1)])
def test_adafactor_argument_checks_as_torch(bad):
    torch = torch_or_skip()
    seen = []
    for M in (vg, torch):
        with pytest.raises(ValueError) as e:
            M.optim.Adafactor([M.zeros(2, requires_grad=True)], **bad)
        seen.append(str(e.value))
    assert seen[0] == seen[1]
