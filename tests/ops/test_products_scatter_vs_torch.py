"""The view scatters (select/slice/diagonal/as_strided_scatter), einsum, outer, baddbmm,
addmv and addr against PyTorch: values, node names, gradients and errors; and the
functionalized rewrite that ``explain`` prints runs as written."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import assert_same_as_torch

from .test_vs_torch import compare_with_torch

CASES = [
    ("select_scatter", lambda M, F, a, s: a.select_scatter(s, 0, -1), [(3, 2), (2,)]),
    ("select_scatter_fn", lambda M, F, a, s: M.select_scatter(a, s, 1, 0) * a, [(3, 2), (3,)]),
    ("slice_scatter", lambda M, F, a, s: M.slice_scatter(a, s, 1, 1, 4, 2), [(2, 5), (2, 2)]),
    ("slice_scatter_default", lambda M, F, a, s: a.slice_scatter(s, start=2), [(4, 2), (2, 2)]),
    ("diagonal_scatter", lambda M, F, a, s: a.diagonal_scatter(s, -1), [(3, 3), (2,)]),
    ("diagonal_scatter_dims", lambda M, F, a, s: M.diagonal_scatter(a, s, 0, 0, 2), [(2, 3, 2), (3, 2)]),
    # as_strided_scatter: only src's gradient is compared (see the test below)
    ("as_strided_scatter", lambda M, F, a, s: a.detach().as_strided_scatter(s, (2, 2), (1, 3), 1), [(2, 4), (2, 2)]),
    ("as_strided_scatter_fn", lambda M, F, a, s: M.as_strided_scatter(a.detach(), s, (3,), (2,)), [(6,), (3,)]),
    ("outer", lambda M, F, a, b: M.outer(a, b) + a.ger(b), [(3,), (4,)]),
    ("baddbmm", lambda M, F, c, a, b: M.baddbmm(c, a, b, beta=0.5, alpha=2), [(3, 5), (2, 3, 4), (2, 4, 5)]),
    ("baddbmm_method", lambda M, F, c, a, b: c.baddbmm(a, b), [(2, 3, 5), (2, 3, 4), (2, 4, 5)]),
    ("addmv", lambda M, F, c, m, v: M.addmv(c, m, v, alpha=-1), [(3,), (3, 4), (4,)]),
    ("addr", lambda M, F, c, a, b: c.addr(a, b, beta=2), [(3, 4), (3,), (4,)]),
    ("addmv_inplace", lambda M, F, c, m, v: (c * 1).addmv_(m, v, beta=0.5), [(3,), (3, 4), (4,)]),
    ("baddbmm_inplace_view", lambda M, F, c, a, b: _row(c, lambda r: r.baddbmm_(a, b, alpha=2)), [(2, 2, 3, 5), (2, 3, 4), (2, 4, 5)]),
    ("addr_inplace", lambda M, F, c, a, b: (c * 2).addr_(a, b), [(3, 4), (3,), (4,)]),
    ("addr_beta0", lambda M, F, c, a, b: M.addr(c, a, b, beta=0), [(1, 4), (3,), (4,)]),
]

def _row(c, op):
    b = c * 1
    op(b[1])
    return b


EINSUM = [("ij,jk->ik", [(3, 4), (4, 5)]), ("ij->ji", [(3, 4)]), ("ij,ij->", [(3, 4), (3, 4)]),
          ("i,j->ij", [(3,), (4,)]), ("ij->", [(3, 4)]), ("ij->j", [(3, 4)]),
          ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("ij,j->i", [(3, 4), (4,)]),
          ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("i,i->", [(3,), (3,)]),
          ("ij,kj->ik", [(3, 4), (5, 4)]), ("...ij->...ji", [(2, 3, 4)]),
          ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]), ("ij,jk", [(3, 4), (4, 2)]),
          ("iij->j", [(3, 3, 2)]), ("ijk,ikl->", [(2, 1, 3), (2, 3, 4)]),
          ("a,b,c->abc", [(2,), (3,), (2,)]), ("b h i d, b h j d -> b h i j", [(1, 2, 3, 4), (1, 2, 5, 4)])]


@pytest.mark.parametrize("name,fn,shapes", CASES, ids=[c[0] for c in CASES])
def test_matches_torch(name, fn, shapes):
    compare_with_torch(fn, shapes)


@pytest.mark.parametrize("eq,shapes", EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum_matches_torch(eq, shapes):
    compare_with_torch(lambda M, F, *xs: M.einsum(eq, *xs), shapes)


def test_as_strided_scatter_self_gradient_is_the_untouched_part():
    """PyTorch 2.13's AsStridedScatterBackward0 gives ``self`` the gradient of the
    OVERWRITTEN elements (its own gradcheck fails); viewgrad gives the elements that
    survive, as slice_scatter does for the same region (and gradcheck passes: the sweep)."""
    a = vg.zeros(6, dtype=vg.float64, requires_grad=True)
    b = vg.zeros(6, dtype=vg.float64, requires_grad=True)
    s = vg.ones(3, dtype=vg.float64)
    g = vg.arange(6.0, dtype=vg.float64)
    a.as_strided_scatter(s, (3,), (2,)).backward(g)
    b.slice_scatter(s, 0, 0, 6, 2).backward(g)
    assert a.grad.tolist() == b.grad.tolist() == [0, 1, 0, 3, 0, 5]


def test_einsum_list_and_sublist_forms_match_torch():
    compare_with_torch(lambda M, F, a, b: M.einsum("ij,jk->ik", [a, b]), [(2, 3), (3, 2)])
    compare_with_torch(lambda M, F, a, b: M.einsum(a, [0, 1], b, [1, 2], [0, 2]), [(2, 3), (3, 2)])
    compare_with_torch(lambda M, F, a, b: M.einsum(a, [0, Ellipsis], b, [0]), [(2, 3), (2,)])


def test_einsum_double_backward():
    a = vg.randn(2, 3, dtype=vg.float64, requires_grad=True)
    b = vg.randn(3, 2, dtype=vg.float64, requires_grad=True)
    assert vg.autograd.gradgradcheck(lambda a, b: vg.einsum("ij,jk->ik", a, b), [a, b])
    assert vg.autograd.gradgradcheck(lambda a: vg.einsum("ii->i", a[:, :2]), [a])


ERRORS = [
    lambda M: M.select_scatter(M.ones(3, 4), M.ones(3), 0, 0),
    lambda M: M.slice_scatter(M.ones(3, 4), M.ones(3, 3), 1, 0, 2),
    lambda M: M.diagonal_scatter(M.ones(3, 4), M.ones(4)),
    lambda M: M.as_strided_scatter(M.ones(3, 4), M.ones(3), (2,), (1,)),
    lambda M: M.einsum("ij,jk", M.ones(3, 4)),
    lambda M: M.einsum("ij,jk->ik", M.ones(3, 4), M.ones(3, 2)),
    lambda M: M.einsum("i1->i", M.ones(3, 4)),
    lambda M: M.einsum("ij->k", M.ones(3, 4)),
    lambda M: M.einsum("ij->ii", M.ones(3, 4)),
    lambda M: M.einsum("ijk->i", M.ones(3, 4)),
    lambda M: M.einsum("ij", M.ones(3, 4), M.ones(3)),
    lambda M: M.einsum("ii->i", M.ones(3, 4)),
    lambda M: M.outer(M.ones(3, 4), M.ones(3, 4)),
    lambda M: M.baddbmm(M.ones(2, 3, 5), M.ones(2, 3, 4), M.ones(2, 5, 5)),
    lambda M: M.baddbmm(M.ones(3, 5), M.ones(3, 4), M.ones(2, 4, 5)),
    lambda M: M.addmv(M.ones(3), M.ones(3, 4), M.ones(5)),
    lambda M: M.addr(M.ones(3, 4), M.ones(3, 4), M.ones(4)),
    lambda M: M.addr(M.ones(2, 4), M.ones(3), M.ones(4)),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors_match_torch(k):
    assert_same_as_torch(lambda M: ERRORS[k](M), wording_too=True)


_SUB = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")


def _run_rewrite(event, **values):
    """Run the rewrite ``explain`` printed for ``event`` on ``values``; the namespace."""
    code = vg.trace.explain(event).translate(_SUB)
    ns = {"vg": vg, **values}
    exec(code, ns)  # noqa: S102 - our own generated code: running it is the point
    return code, ns


def test_the_rewrite_explain_prints_runs():
    """Each event's functionalized rewrite, run on copies of the values from before the op,
    gives the base's values after it (select/slice/diagonal/as_strided_scatter all run)."""
    a = vg.randn(3, 4, dtype=vg.float64, requires_grad=True)
    b = a.clone()
    b.name = "b"
    seen = set()
    for k in range(3):
        v = b[1, 1:3] if k == 0 else b.diagonal() if k == 1 else b.t()[1:3].unfold(0, 1, 1)
        v.name = "v"
        b0, v0 = b.detach().clone(), v.detach().clone()
        with vg.trace() as tr:
            if k == 0:
                v.mul_(2)
            elif k == 1:
                v.add_(1)
            else:
                v.zero_()
        v.name = None  # a stale view of an earlier step is no longer named in later rewrites
        code, ns = _run_rewrite(tr.events[-1], b=b0, v=v0)
        seen.update(w for w in ("select_scatter", "slice_scatter", "diagonal_scatter",
                                "as_strided_scatter") if w in code)
        np.testing.assert_allclose(ns["b"].cpu().numpy(), b.detach().cpu().numpy())
    assert seen == {"select_scatter", "slice_scatter", "diagonal_scatter", "as_strided_scatter"}
