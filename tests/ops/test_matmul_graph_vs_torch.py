"""matmul builds PyTorch's graph (issue 14): the same nodes for every shape combination,
because it picks the same kernels — dot, mv, mm after folding a batched operand into a
matrix (when the other operand requires grad, or when folding needs no copy), or one bmm
over the broadcast batch — and reshape is a view (ViewBackward0 / ReshapeAliasBackward0)
exactly when PyTorch's is.
"""
import math

import pytest

from tests.helpers import assert_same_as_torch


def _chain(fn):
    """The graph under ``fn`` as nested (name, children...) tuples, leaves as 'leaf'."""
    if fn is None:
        return None
    return (fn.name().rsplit("::", 1)[-1],) + tuple(
        None if f is None else "leaf" if "AccumulateGrad" in f.name() else _chain(f)
        for f, _ in fn.next_functions)


SHAPES = [((2, 2, 3), (3,)), ((3,), (2, 3, 2)), ((2, 2, 3), (3, 2)), ((2, 3), (2, 3, 2)),
          ((2, 2, 3), (2, 3, 2)), ((2, 1, 2, 3), (3, 2)), ((2, 3), (2, 1, 3, 2)),
          ((3,), (2, 1, 3, 2)), ((1, 2, 3), (2, 3, 2)), ((2, 2, 3), (1, 3, 2)),
          ((1, 2, 3), (1, 3, 2)), ((1, 1, 2, 3), (2, 3, 2)), ((2, 2, 3), (1, 1, 3, 2))]


@pytest.mark.parametrize("shapes", SHAPES, ids=lambda s: f"{s[0]}@{s[1]}")
@pytest.mark.parametrize("grads", [(True, False), (False, True), (True, True)])
@pytest.mark.parametrize("transposed", [False, True])
def test_matmul_graph_and_gradients(shapes, grads, transposed):
    def f(M):
        a, b = (M.arange(float(math.prod(s))).reshape(s).requires_grad_(g)
                for s, g in zip(shapes, grads))
        x = a.transpose(0, 1) if transposed and a.dim() >= 3 else a
        r = x @ b
        (r * r).sum().backward()
        return r, _chain(r.grad_fn), a.grad, b.grad
    assert_same_as_torch(f)


@pytest.mark.parametrize("make", [
    lambda t: t.reshape(4, 3), lambda t: t.transpose(0, 1).reshape(2, 2, 3),
    lambda t: t.transpose(0, 1).reshape(4, 3), lambda t: t.transpose(1, 2).reshape(2, 3, 2),
    lambda t: t[:, :1].reshape(2, 3), lambda t: t.expand(2, 2, 2, 3).reshape(4, 2, 3),
    lambda t: t[:, :1].flatten(), lambda t: t.transpose(0, 1).flatten(1),
])
def test_reshape_is_a_view_exactly_when_pytorchs_is(make):
    def f(M):
        a = M.arange(12.0).reshape(2, 2, 3).requires_grad_()
        r = make(a * 1)
        (r * 2).sum().backward()
        return r, _chain(r.grad_fn), r._is_view(), a.grad
    assert_same_as_torch(f)


def test_the_graph_comparison_can_fail():
    import viewgrad as vg
    a = vg.ones(2, 2, 3, requires_grad=True)
    assert _chain((a @ vg.ones(3)).grad_fn) != _chain((a @ vg.ones(3, 1)).grad_fn)
