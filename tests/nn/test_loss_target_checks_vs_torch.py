"""The targets PyTorch's losses refuse, refused with its words (they were computed,
silently): class indices that are not int64 or uint8, a 2-D target beside a 1-D input, a
1-D input's target of more than one class, integer class probabilities, a binary
cross-entropy target of another dtype; and linear's TypeError for an argument that is
not a Tensor."""
import numpy as np
import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")

pytestmark = pytest.mark.host_only("compares with torch CPU tensors")

CASES = {
    "ce int32": lambda M, F: F.cross_entropy(M.ones(3, 4), M.tensor([1, 2, 0], dtype=M.int32)),
    "ce uint8": lambda M, F: F.cross_entropy(M.ones(3, 4), M.tensor([1, 2, 0], dtype=M.uint8)),
    "nll int16": lambda M, F: F.nll_loss(M.ones(3, 4), M.tensor([1, 2, 0], dtype=M.int16)),
    "ce int8": lambda M, F: F.cross_entropy(M.ones(3, 4), M.tensor([1, 2, 0], dtype=M.int8)),
    "nll float": lambda M, F: F.nll_loss(M.ones(3, 4), M.ones(3)),
    "nll 1d": lambda M, F: F.nll_loss(M.ones(3), M.tensor([1, 2, 0])),
    "nll 1d t1": lambda M, F: F.nll_loss(M.ones(3), M.tensor([1])),
    "nll 1d t2d": lambda M, F: F.nll_loss(M.ones(3), M.tensor([[1]])),
    "ce 1d t2d": lambda M, F: F.cross_entropy(M.ones(3), M.tensor([[1]])),
    "ce 1d 0d": lambda M, F: F.cross_entropy(M.ones(3), M.tensor(1)),
    "ce long probs": lambda M, F: F.cross_entropy(M.ones(3, 4), M.ones(3, 4, dtype=M.int64)),
    "ce 1d size 1": lambda M, F: F.cross_entropy(M.ones(1), M.tensor([0])),
    "ce 3d int32": lambda M, F: F.cross_entropy(M.ones(2, 3, 4), M.zeros(2, 4, dtype=M.int32)),
    "bce long": lambda M, F: F.binary_cross_entropy(M.full((3,), .5), M.tensor([1, 0, 1])),
    "bce f64": lambda M, F: F.binary_cross_entropy(M.full((3,), .5),
                                                   M.tensor([1., 0, 1], dtype=M.float64)),
    "linear input": lambda M, F: F.linear(np.ones((2, 3)), M.ones(4, 3)),
    "linear weight": lambda M, F: F.linear(M.ones(2, 3), np.ones((4, 3))),
    "linear bias": lambda M, F: F.linear(M.ones(2, 3), M.ones(4, 3), np.ones(4)),
    "linear list": lambda M, F: F.linear([1., 2.], M.ones(4, 2)),
}


def _outcome(M, fn):
    try:
        return "value", round(float(fn(M, M.nn.functional)), 6)
    except (RuntimeError, ValueError, TypeError, IndexError) as e:
        return type(e).__name__, str(e)


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_torch(name):
    got, want = _outcome(vg, CASES[name]), _outcome(torch, CASES[name])
    assert got[0] == want[0], (got, want)
    if want[0] == "value":
        assert got == want
    else:   # (PyTorch's sentence first; viewgrad may add a hint)
        assert got[1].startswith(want[1]), (got, want)
