"""The nodes each op records, against PyTorch: every op of the torch-differential case lists
(one case each) runs in both, and the node names reachable from its outputs must be the
same, with the same counts (``AddBackward1`` for a Scalar inside a composite,
``ClampMinBackward0`` for a clamp in place, ``CloneBackward0`` where a reshape copies a
column-major linalg result...). ``KNOWN`` lists what still differs, with the reason; the
test checks each still reads as listed."""
import collections
import warnings

import numpy as np
import pytest

import viewgrad as vg
from tests.autograd.test_saved_inputs_vs_torch import one_case_per_op

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")

pytestmark = pytest.mark.host_only("builds the same graphs in torch on the CPU")

KNOWN = {}   # what still differs, with the reason: nothing now


def _nodes(M, fn, shapes):
    F = M.nn.functional
    rng = np.random.default_rng(3)
    xs = [M.tensor(rng.standard_normal(s), dtype=M.float64, requires_grad=True)
          for s in shapes]
    out = fn(M, F, *xs)
    names, seen = collections.Counter(), set()
    stack = [o.grad_fn for o in (out if isinstance(out, (tuple, list)) else (out,))
             if getattr(o, "grad_fn", None) is not None]
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        names[n.name().replace("torch::autograd::", "")] += 1
        stack.extend(f for f, _ in n.next_functions if f is not None)
    return names


@pytest.mark.parametrize("name,fn,shapes", one_case_per_op(), ids=[c[0] for c in one_case_per_op()])
def test_same_nodes_as_pytorch(name, fn, shapes):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = _nodes(torch, fn, shapes)
        except Exception as e:   # noqa: BLE001 - the sweeps of refusals compare those
            pytest.skip(f"torch refuses this case: {type(e).__name__}")
    got = _nodes(vg, fn, shapes)
    if name in KNOWN:
        assert got != want, f"{name} now records PyTorch's nodes: take it out of KNOWN"
        return
    assert got == want, f"{name}: viewgrad only {dict(got - want)}, torch only " \
                        f"{dict(want - got)}"
