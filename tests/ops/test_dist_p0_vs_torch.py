"""``dist(a, b, p=0)`` counts nonzeros: PyTorch's backward gives ``a`` no gradient (an
undefined one: ``.grad`` stays None, ``autograd.grad`` answers None), and negating that
for ``b`` raises "Expected a proper Tensor but got None". Both ways, every mode, as torch
2.13 (viewgrad used to give zeros)."""
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compared with torch CPU tensors through .tolist()")


def _run(M, needs, mode):
    a = M.tensor([1.0, 2.0], dtype=M.float64, requires_grad=needs[0])
    b = M.tensor([1.0, 3.0], dtype=M.float64, requires_grad=needs[1])
    d = M.dist(a, b, p=0)
    try:
        if mode == "backward":
            (d + ((a if needs[0] else b) * 1.0).sum()).backward()
            return [None if t.grad is None else t.grad.tolist() for t in (a, b)]
        ins = [t for t in (a, b) if t.requires_grad]
        gs = M.autograd.grad(d, ins, allow_unused=True, create_graph=mode == "double")
        return [None if g is None else g.tolist() for g in gs]
    except RuntimeError as e:
        return "error: " + str(e)[:58]


@pytest.mark.parametrize("mode", ["backward", "grad", "double"])
@pytest.mark.parametrize("needs", [(True, False), (False, True), (True, True)])
def test_dist_p0_backward_as_torch(needs, mode):
    torch = torch_or_skip()
    assert _run(vg, needs, mode) == _run(torch, needs, mode)
