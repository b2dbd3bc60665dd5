"""Note [cat's and stack's backward on arrays] (ops/joining.py): CatBackward0's and
StackBackward0's plain-backward step on bare arrays gives the arrays their ``apply`` gives
(narrow/select Tensors, unwrapped): the same values, shapes, strides and memory. And the
gradients through cat and stack match PyTorch's."""
import numpy as np
import pytest

import viewgrad as vg
from viewgrad.autograd.graph import _arrays_to_tensors, _tensors_to_arrays

from ..helpers import torch_or_skip


def _both(node, g):
    """(apply_arrays's answer, apply's answer unwrapped), each as
    [(shape, strides, bytes, shares g's memory)] or None per input."""
    def look(arrays):
        return [None if a is None else (a.shape, a.strides, np.asarray(a).tobytes(),
                                         np.shares_memory(a, g)) for a in arrays]
    lean = node.apply_arrays([g])
    slow = _tensors_to_arrays(node.apply(_arrays_to_tensors([g])))
    return look(lean), look(slow)


CASES = {
    "cat_0": lambda L, a, b, c: L.cat([a, b, c], 0),
    "cat_1": lambda L, a, b, c: L.cat([a.reshape(2, 3), b.reshape(2, 3), c.reshape(2, 3)], 1),
    "cat_neg": lambda L, a, b, c: L.cat([a.reshape(3, 2), b.reshape(3, 2)], -1),
    "cat_empty_piece": lambda L, a, b, c: L.cat([a, b[:0], c], 0),
    "cat_one_needs_grad": lambda L, a, b, c: L.cat([a, b.detach(), c.detach()], 0),
    "stack_0": lambda L, a, b, c: L.stack([a, b, c], 0),
    "stack_last": lambda L, a, b, c: L.stack([a, b, c], -1),
    "stack_mid": lambda L, a, b, c: L.stack([a.reshape(2, 3), b.reshape(2, 3)], 1),
    "stack_one_needs_grad": lambda L, a, b, c: L.stack([a.detach(), b], 0),
    "cat_mixed_dtypes": lambda L, a, b, c: L.cat([a, b.double()], 0),
}


@pytest.mark.host_only("compares the two steps on host arrays")
@pytest.mark.parametrize("case", sorted(CASES))
def test_the_array_step_is_apply_unwrapped(case):
    rng = np.random.default_rng(0)
    a, b, c = (vg.tensor(rng.standard_normal(6), requires_grad=True) for _ in range(3))
    out = CASES[case](vg, a, b, c)
    node = out.grad_fn
    for g in (rng.standard_normal(tuple(out.shape)),
              np.asfortranarray(rng.standard_normal(tuple(out.shape))),
              np.broadcast_to(np.float64(2.5), tuple(out.shape))):
        lean, slow = _both(node, g.astype(out.detach().numpy().dtype))
        assert lean == slow


@pytest.mark.parametrize("case", sorted(CASES))
def test_gradients_through_cat_and_stack_match_torch(case):
    torch = torch_or_skip()
    rng = np.random.default_rng(1)
    data = [rng.standard_normal(6) for _ in range(3)]
    grads = []
    for lib in (vg, torch):
        xs = [lib.tensor(d, requires_grad=True) for d in data]
        out = CASES[case](lib, *xs)
        w = lib.tensor(np.linspace(-1, 2, out.numel()).reshape(tuple(out.shape)))
        (out * w.to(out.dtype)).sum().backward()
        grads.append([None if x.grad is None else x.grad.detach().cpu().numpy() for x in xs])
    for ours, theirs in zip(*grads):
        assert (ours is None) == (theirs is None)
        if ours is not None:
            np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
