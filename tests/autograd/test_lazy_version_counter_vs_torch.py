"""Note [a version counter made when first asked] (tensor.py): a lean result no node saves
has no VersionCounter until something asks. Whatever asks first — a view, ``detach``, a
node saving it, an in-place op, ``._version`` — the versions, the refusals and the
gradients are torch 2.13's."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compared with torch CPU tensors through .numpy()")

# how a lean result (y = x * 2.0: nothing saves y) is first asked for its counter
FIRST = {
    "version": lambda M, y: y._version,
    "view": lambda M, y: y[1:],
    "detach": lambda M, y: y.detach(),
    "saved": lambda M, y: y * y,          # mul saves both inputs
    "inplace": lambda M, y: y.add_(0.5),
    "nothing": lambda M, y: None,
}
# then, what changes it (or not) before the backward
THEN = {
    "view_inplace": lambda M, y, a: y[:2].mul_(3.0),
    "direct_inplace": lambda M, y, a: y.sub_(1.0),
    "detached_inplace": lambda M, y, a: y.detach().mul_(2.0),
    "none": lambda M, y, a: None,
}


def _run(M, first, then):
    x = M.tensor([0.5, -1.0, 2.0], dtype=M.float64, requires_grad=True)
    y = x * 2.0
    a = FIRST[first](M, y)
    z = y * y if a is None or first != "saved" else a
    THEN[then](M, y, a)
    versions = [y._version]
    if isinstance(a, M.Tensor):
        versions.append(a._version)
    try:
        (z.sum() + y.sum()).backward()
    except RuntimeError as e:
        return versions, "error: " + str(e).split(":")[0]
    return versions, np.round(x.grad.numpy(), 12).tolist()


@pytest.mark.parametrize("then", sorted(THEN))
@pytest.mark.parametrize("first", sorted(FIRST))
def test_first_asked_then_changed_as_torch(first, then):
    torch = torch_or_skip()
    assert _run(vg, first, then) == _run(torch, first, then)


def test_a_lean_result_makes_its_counter_only_when_asked():
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2.0
    assert y._vc is None   # nothing asked yet
    vc = y._version_counter
    assert y._vc is vc and vc.version == 0 and y._version_counter is vc
    v = y.view(2)
    assert v._version_counter is vc   # a view shares the one made
    t = y.tanh()   # saves its result: its counter is made with it
    assert t._vc is not None
