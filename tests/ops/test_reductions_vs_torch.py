"""Statistics, scans and norms (ops/stats.py, ops/vector_norms.py) against PyTorch:
values, gradients, node names, dtypes, errors; products with zeros; norms at zero."""
import math
import warnings

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import assert_same_as_torch, torch_or_skip

from .test_vs_torch import compare_with_torch

INF = math.inf

CASES = [
    ("var", lambda M, F, a: a.var(), [(3, 4)]),
    ("var_dim", lambda M, F, a: a.var(1) + a.var(0, keepdim=True).sum(), [(3, 4)]),
    ("var_unbiased_false", lambda M, F, a: a.var(1, unbiased=False), [(3, 4)]),
    ("var_correction", lambda M, F, a: M.var(a, (0, 1), correction=2, keepdim=True), [(3, 4)]),
    ("std", lambda M, F, a: a.std(), [(5,)]),
    ("std_dim", lambda M, F, a: a.std(0, keepdim=True, correction=0), [(3, 4)]),
    ("var_mean", lambda M, F, a: M.var_mean(a, 1)[0] * M.var_mean(a, 1)[1], [(3, 4)]),
    ("std_mean", lambda M, F, a: M.std_mean(a)[0] + M.std_mean(a, 0)[1].sum(), [(3, 4)]),
    ("prod", lambda M, F, a: a.prod(), [(2, 3)]),
    ("prod_dim", lambda M, F, a: a.prod(1) + M.prod(a, 0, keepdim=True).sum(), [(3, 4)]),
    ("cumsum", lambda M, F, a: a.cumsum(1) * M.cumsum(a, 0), [(3, 4)]),
    ("cumprod", lambda M, F, a: a.cumprod(1) + M.cumprod(a, -2), [(3, 4)]),
    ("logsumexp", lambda M, F, a: a.logsumexp(1) + M.logsumexp(a, (0, 1), keepdim=True), [(3, 4)]),
    ("norm", lambda M, F, a: a.norm(), [(3, 4)]),
    ("norm_p_dim", lambda M, F, a: a.norm(1, 1) + M.norm(a, 3, 0, True).sum(), [(3, 4)]),
    ("norm_fro_dim", lambda M, F, a: a.norm(p="fro", dim=(0, 1)), [(3, 4)]),
    ("norm_inf", lambda M, F, a: a.norm(INF, 1) + a.norm(-INF), [(3, 4)]),
    ("vector_norm", lambda M, F, a: M.linalg.vector_norm(a, 0.5, dim=(0, 2)), [(2, 3, 2)]),
    ("linalg_norm_vec", lambda M, F, a: M.linalg.norm(a[0], 1) + M.linalg.norm(a, dim=1), [(3, 4)]),
    ("linalg_norm_mat1", lambda M, F, a: M.linalg.norm(a, 1), [(3, 4)]),
    ("linalg_norm_mat_inf", lambda M, F, a: M.linalg.norm(a, INF, keepdim=True), [(3, 4)]),
    ("linalg_norm_mat_neg", lambda M, F, a: M.linalg.norm(a, -1, dim=(1, 0)), [(3, 4)]),
    ("matrix_norm_fro", lambda M, F, a: M.linalg.matrix_norm(a), [(2, 3, 4)]),
    ("matrix_norm_batched", lambda M, F, a: M.linalg.matrix_norm(a, -INF, dim=(0, 2)), [(2, 3, 4)]),
]


@pytest.mark.parametrize("name,fn,shapes", CASES, ids=[c[0] for c in CASES])
def test_matches_torch(name, fn, shapes):
    compare_with_torch(fn, shapes)


def _grads(M, fn, data):
    x = M.tensor(data, dtype=M.float64, requires_grad=True)
    y = fn(x)
    (y * M.arange(1, y.numel() + 1, dtype=M.float64).reshape(tuple(y.shape))).sum().backward()
    return y.detach().cpu().numpy(), None if x.grad is None else x.grad.cpu().numpy()


ZEROS = [
    ("prod_one_zero", lambda x: x.prod(), [2.0, 0.0, 3.0, -1.5]),
    ("prod_two_zeros", lambda x: x.prod(), [2.0, 0.0, 3.0, 0.0]),
    ("prod_dim_zeros", lambda x: x.prod(1), [[2.0, 0.0, 3.0], [0.0, 0.0, 1.0], [1.0, 2.0, 3.0]]),
    ("cumprod_zeros", lambda x: x.cumprod(0), [2.0, 0.0, 3.0, 0.0, 4.0]),
    ("cumprod_dim_zeros", lambda x: x.cumprod(1), [[0.0, 2.0, 3.0], [1.0, 2.0, 0.0], [1.0, 0.0, 0.0]]),
    ("norm_at_zero", lambda x: x.norm(), [0.0, 0.0, 0.0]),
    ("norm_p_at_zero", lambda x: x.norm(3, dim=1), [[0.0, 0.0], [1.0, -2.0]]),
    ("norm_half_zero_entry", lambda x: x.norm(0.5), [0.0, 1.0, 4.0]),
    ("norm_1_zero_entry", lambda x: x.norm(1), [0.0, -1.0, 4.0]),
    ("norm_inf_ties", lambda x: x.norm(INF), [1.0, -3.0, 3.0]),
    ("norm_0_count", lambda x: vg_or_torch_linalg(x).vector_norm(x, 0), [0.0, 1.0, 4.0]),
    ("std_constant", lambda x: x.std(), [1.0, 1.0, 1.0]),
    ("std_one_element", lambda x: x.std(0), [[1.0, 2.0]]),
    ("logsumexp_large", lambda x: x.logsumexp(0), [1000.0, 1000.0]),
    ("logsumexp_all_neg_inf", lambda x: x.logsumexp(0), [-INF, -INF]),
    ("logsumexp_pos_inf", lambda x: x.logsumexp(0), [INF, 1.0]),
]


def vg_or_torch_linalg(x):
    return vg.linalg if isinstance(x, vg.Tensor) else __import__("torch").linalg


@pytest.mark.parametrize("name,fn,data", ZEROS, ids=[z[0] for z in ZEROS])
def test_edge_values_and_grads_match_torch(name, fn, data):
    torch = torch_or_skip()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (v, g), (tv, tg) = _grads(vg, fn, data), _grads(torch, fn, data)
    np.testing.assert_allclose(v, tv, rtol=1e-12, equal_nan=True)
    assert (g is None) == (tg is None)
    if g is not None:
        np.testing.assert_allclose(g, tg, rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize("fn,data", [
    (lambda x: x.prod(), [2.0, 0.0, 3.0, -1.5]),
    (lambda x: x.prod(1), [[2.0, 0.0, 3.0], [0.0, 0.0, 1.0]]),
    (lambda x: x.cumprod(1), [[0.0, 2.0, 3.0], [1.0, 2.0, 0.0], [1.0, 0.0, 0.5]]),
], ids=["prod", "prod_dim", "cumprod"])
def test_products_with_zeros_pass_gradgradcheck(fn, data):
    x = vg.tensor(data, dtype=vg.float64, requires_grad=True)
    assert vg.autograd.gradcheck(fn, [x])
    assert vg.autograd.gradgradcheck(fn, [x])


DTYPES = [
    lambda M: M.arange(4).prod(),
    lambda M: M.tensor([True, False]).prod(),
    lambda M: M.tensor([1, 2], dtype=M.int32).cumsum(0),
    lambda M: M.tensor([True, True]).cumsum(0),
    lambda M: M.arange(3).cumprod(0),
    lambda M: M.ones(3).prod(dtype=M.float64),
    lambda M: M.ones(3).cumsum(0, dtype=M.float64),
    lambda M: M.arange(3).logsumexp(0),
    lambda M: M.ones(2, 3).var([]),
    lambda M: M.ones(2, 3).std(0, True),
    lambda M: M.ones(2, 3).var(0, True, True),
    lambda M: M.var_mean(M.ones(2, 3), 1),
    lambda M: M.linalg.vector_norm(M.ones(3), dtype=M.float64),
    lambda M: M.tensor(-3.0).norm(1),
    lambda M: M.linalg.vector_norm(M.zeros(0)),
    lambda M: M.linalg.vector_norm(M.zeros(0, 3), INF, dim=1),
    lambda M: M.zeros(0).logsumexp(0),
    lambda M: M.zeros(0).prod(),
    lambda M: M.zeros(0, 3).var(0),
    lambda M: M.tensor(3.0).cumsum(0),
    lambda M: M.tensor(3.0).prod(0),
    lambda M: M.tensor(3.0).var(0),
    lambda M: M.tensor(3.0).logsumexp(-1),
]


@pytest.mark.parametrize("i", range(len(DTYPES)))
def test_values_and_dtypes_match_torch(i):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_as_torch(DTYPES[i])


ERRORS = [
    (lambda M: M.arange(3).var(), "std and var only support floating point"),
    (lambda M: M.arange(3).norm(), "Expected a floating point or complex tensor as input. Got Long"),
    (lambda M: M.linalg.vector_norm(M.ones(3), "fro"), "argument 'ord' (position 2) must be Number, not str"),
    (lambda M: M.linalg.norm(M.ones(3), "fro"), "The input tensor A must have at least 2 dimensions."),
    (lambda M: M.linalg.norm(M.ones(3, 3, 3), "fro"), "If dim is not specified but ord is, the input must be 1D or 2D. Got 3D."),
    (lambda M: M.linalg.matrix_norm(M.ones(3)), "must have at least 2 dimensions"),
    (lambda M: M.linalg.norm(M.ones(3, 3), 3), "linalg.matrix_norm: Order 3 not supported."),
    (lambda M: M.ones(3).norm(p="abc"), "Order abc not supported."),
    (lambda M: M.ones(2, 3, 4).norm(p="fro", dim=(0, 1, 2)), "dim must be a 2-tuple. Got 0 1 2"),
    (lambda M: M.linalg.norm(M.ones(2, 3, 4), dim=(0, 1, 2)), "If dim is specified, it must be of length 1 or 2. Got [0, 1, 2]"),
    (lambda M: M.linalg.vector_norm(M.zeros(0), INF), "cannot compute the inf norm on an empty tensor"),
    (lambda M: M.linalg.vector_norm(M.zeros(0, 3), -1), "cannot compute the -1 norm on an empty tensor"),
    (lambda M: M.linalg.vector_norm(M.zeros(0, 3), INF, dim=0), "cannot compute the inf norm on the dimension 0"),
    (lambda M: M.norm(M.ones(3), dim=5), "Dimension out of range (expected to be in range of [-1, 0], but got 5)"),
    (lambda M: M.ones(3).var(1), "Dimension out of range"),
    (lambda M: M.ones(2, 3).cumsum(2), "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda M: M.ones(3).cumsum(), "dim"),
    (lambda M: M.ones(3).logsumexp(), "dim"),
    (lambda M: M.ones(2, 3).prod((0, 1)), None),
    (lambda M: M.ones(3).var(unbiased=False, correction=1), None),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i):
    fn, match = ERRORS[i]
    assert_same_as_torch(fn, match=match)


def test_degrees_of_freedom_warning_as_torch():
    for M in (vg, torch_or_skip()):
        with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
            v = M.ones(1, 3).var(0)
        assert np.isnan(v.cpu().numpy()).all()


def test_var_mean_outputs_share_one_node():
    x = vg.randn(3, 4, dtype=vg.float64, requires_grad=True)
    v, m = vg.var_mean(x, 1)
    assert v.grad_fn is m.grad_fn and v.grad_fn.name() == "VarMeanBackward0"
    assert (v.output_nr, m.output_nr) == (0, 1)
    s, m2 = vg.std_mean(x)
    assert s.grad_fn.name() == "StdMeanBackward0"
    m.sum().backward()                    # only the mean is used: the var's grad is None
    np.testing.assert_allclose(x.grad.cpu().numpy(), np.full((3, 4), 0.25))


@pytest.mark.parametrize("ord", ["nuc", 2, -2])
def test_matrix_spectral_norms_match_torch(ord):
    """2, -2 and 'nuc' are made of singular values (linalg.svdvals), as in PyTorch."""
    compare_with_torch(lambda M, F, a: M.linalg.matrix_norm(a, ord) + M.linalg.matrix_norm(
        a, ord, dim=(0, 2), keepdim=True).sum() + M.linalg.norm(a[0], ord), [(3, 4, 2)])


def test_torch_linalg_resolves_to_viewgrad_linalg():
    from viewgrad.compat import torch_imports
    with torch_imports():
        import torch.linalg as L
        assert L.vector_norm is vg.linalg.vector_norm
        from torch.linalg import norm
        assert norm is vg.linalg.norm


def test_normalize_and_clip_use_the_vector_norm():
    # F.normalize of a zero row: the norm's subgradient 0 gives 1/eps, not NaN (as torch)
    torch = torch_or_skip()
    import torch.nn.functional as TF
    from viewgrad.nn import functional as VF
    grads = []
    for M, F in ((vg, VF), (torch, TF)):
        x = M.tensor([[1.0, 2.0], [0.0, 0.0]], dtype=M.float64, requires_grad=True)
        y = F.normalize(x)
        assert y.grad_fn.next_functions[1][0].next_functions[0][0].next_functions[0][0].name() \
            == "LinalgVectorNormBackward0"
        y.sum().backward()
        grads.append(x.grad.cpu().numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)
    p = vg.nn.Parameter(vg.tensor([3.0, 4.0]))
    p.grad = vg.tensor([3.0, 4.0])
    assert float(vg.nn.utils.clip_grad_norm_([p], 1.0)) == pytest.approx(5.0)
