"""Positions outside a dim, negative positions and int32 positions in index_select,
index_fill, index_copy and index_add (in place and not), against PyTorch: only
index_fill counts from the end; the others refuse a negative position, each in its own
kernel's exception and words (index_add's depend on alpha, the rank and the index dtype,
as PyTorch's two kernels do); index_copy and index_fill refuse int32 positions. Before,
a negative position was taken from the end everywhere: a silently different result."""
import warnings

import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compares with torch CPU tensors through .tolist()")

OPS = {
    "index_select": lambda M, sh, i, a: M.zeros(*sh).index_select(0, i),
    "index_fill": lambda M, sh, i, a: M.zeros(*sh).index_fill(0, i, 1.0),
    "index_fill_": lambda M, sh, i, a: M.zeros(*sh).index_fill_(0, i, 1.0),
    "index_copy": lambda M, sh, i, a: M.zeros(*sh).index_copy(
        0, i, M.ones(len(i), *sh[1:])),
    "index_copy_": lambda M, sh, i, a: M.zeros(*sh).index_copy_(
        0, i, M.ones(len(i), *sh[1:])),
    "index_add": lambda M, sh, i, a: M.zeros(*sh).index_add(
        0, i, M.ones(len(i), *sh[1:]), alpha=a),
    "index_add_": lambda M, sh, i, a: M.zeros(*sh).index_add_(
        0, i, M.ones(len(i), *sh[1:]), alpha=a),
}


def _outcome(M, name, shape, positions, alpha, dtype):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = OPS[name](M, shape, M.tensor(positions, dtype=getattr(M, dtype)), alpha)
        return "ok", out.tolist()
    except (RuntimeError, IndexError) as e:
        return type(e).__name__, str(e)


@pytest.mark.parametrize("dtype", ["int64", "int32"])
@pytest.mark.parametrize("name", sorted(OPS))
def test_index_positions_as_torch(name, dtype):
    torch = torch_or_skip()
    for shape in ((3,), (3, 2), (3, 2, 2)):
        for positions in ([0, -1], [0, 3], [-4], [2, 0], [-3]):
            for alpha in (1, 2):
                ours = _outcome(vg, name, shape, positions, alpha, dtype)
                theirs = _outcome(torch, name, shape, positions, alpha, dtype)
                assert ours == theirs, (shape, positions, alpha)


def test_take_along_dim_takes_positions_modulo_the_size_as_torch():
    """PyTorch's take_along_dim along a dim takes every position modulo the dim's size (-1
    is the last, so is 2n - 1), and its gradient goes there; without a dim it refuses
    them (take's words)."""
    torch = torch_or_skip()

    def run(M):
        x = M.tensor([[float(v) for v in range(4 * r, 4 * r + 4)] for r in range(3)],
                     requires_grad=True)
        outs = [x.take_along_dim(M.tensor([[i]]), d).tolist()
                for i in (4, 5, 7, 100, -1, -5, -8, -100) for d in (0, 1)]
        x.take_along_dim(M.tensor([[-1], [5], [2]]), 1).sum().backward()
        try:
            x.take_along_dim(M.tensor([-1, 13]))
        except RuntimeError as e:
            outs.append(str(e))
        return outs, x.grad.tolist()
    assert run(vg) == run(torch)


@pytest.mark.parametrize("other", ["row", "1d", "3d", "fits", "0d", "number", "int"])
def test_diff_checks_prepend_and_append_as_torch(other):
    torch = torch_or_skip()

    def run(M):
        x = M.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
        p = {"row": lambda: M.zeros(1, 1), "1d": lambda: M.zeros(3),
             "3d": lambda: M.zeros(2, 1, 1), "fits": lambda: M.zeros(2, 2),
             "0d": lambda: M.tensor(5.0), "number": lambda: 5.0,
             "int": lambda: M.zeros(2, 1, dtype=M.int64)}[other]()
        try:
            return M.diff(x, dim=1, prepend=p).tolist(), M.diff(x, dim=1, append=p).tolist()
        except (RuntimeError, TypeError) as e:
            return type(e).__name__, str(e)
    assert run(vg) == run(torch)
