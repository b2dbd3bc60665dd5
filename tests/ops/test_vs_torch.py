"""Forward values, gradients and node names of the operators, against PyTorch."""
import numpy as np
import pytest

import viewgrad as vg
from viewgrad.ops import nnops
from tests.helpers import short, torch_or_skip

__all__ = ["compare_with_torch"]

# (name, fn(M, F, *xs), input shapes) — M is the module (vg/torch), F its functional module
CASES = [
    ("add_bcast", lambda M, F, a, b: a + b, [(2, 3), (3,)]),
    ("sub_rsub", lambda M, F, a: 1 - a - 2, [(3,)]),
    ("mul_div", lambda M, F, a, b: a * b / (b * b + 1), [(2, 3), (2, 1)]),
    ("pow", lambda M, F, a: (a * a + 1) ** 1.5, [(4,)]),
    ("pow_t", lambda M, F, a, b: (a * a + 1) ** b, [(3,), (3,)]),
    ("rpow", lambda M, F, a: 2 ** a, [(3,)]),
    ("abs_sqrt", lambda M, F, a: (a.abs() + 1).sqrt(), [(5,)]),
    ("exp_log", lambda M, F, a: (a.exp() + 1).log(), [(5,)]),
    ("tanh_sigmoid_relu", lambda M, F, a: a.tanh() + a.sigmoid() + a.relu(), [(6,)]),
    ("clamp", lambda M, F, a: a.clamp(-0.3, 0.4) + a.clamp(min=0.1), [(6,)]),
    ("where", lambda M, F, a, b: M.where(a > 0, a, b), [(2, 3), (3,)]),
    ("sum_mean", lambda M, F, a: a.sum(1, keepdim=True) * a.mean(0), [(3, 4)]),
    ("max_min", lambda M, F, a: a.max(1)[0] + a.min(0).values.sum() + a.max() + a.min(), [(3, 4)]),
    ("amax_amin", lambda M, F, a: a.amax(1) + a.amin(1), [(3, 4)]),
    ("matmul_2d", lambda M, F, a, b: a @ b, [(2, 3), (3, 4)]),
    ("matmul_batched", lambda M, F, a, b: a @ b, [(2, 1, 3, 4), (3, 4, 2)]),
    ("matmul_vec", lambda M, F, a, b: (a @ b) + (b @ a.t()).sum(), [(3, 4), (4,)]),
    ("matmul_fold", lambda M, F, a, b: a @ b, [(2, 3, 4), (4, 5)]),
    ("bmm", lambda M, F, a, b: a.bmm(b), [(2, 3, 4), (2, 4, 2)]),
    ("cat_stack", lambda M, F, a, b: M.cat([a, b], 0).sum() + M.stack([a, b], 2), [(2, 3), (2, 3)]),
    ("softmax", lambda M, F, a: a.softmax(0) * a.log_softmax(-1), [(3, 4)]),
    ("mse", lambda M, F, a, b: F.mse_loss(a, b), [(3, 4), (3, 4)]),
    ("cross_entropy", lambda M, F, a: F.cross_entropy(a, M.tensor([0, 2, 1])), [(3, 4)]),
    ("cross_entropy_4d", lambda M, F, a: F.cross_entropy(a, M.tensor([[[0, 2], [1, 1]]])), [(1, 3, 2, 2)]),
    ("ce_smooth_weight", lambda M, F, a: F.cross_entropy(a, M.tensor([0, 2, 1]), label_smoothing=0.1), [(3, 4)]),
    ("ce_weighted", lambda M, F, a: F.cross_entropy(a, M.tensor([0, 2, 1, 1]), weight=M.tensor(
        [0.2, 1.0, 3.0], dtype=M.float64)) + F.nll_loss(a, M.tensor([2, 2, 0, 1]), weight=M.tensor(
        [0.5, 1.0, 2.0], dtype=M.float64), reduction="none").sum(), [(4, 3)]),
    ("nll_ignore", lambda M, F, a: F.nll_loss(a.log_softmax(1), M.tensor([0, -100, 1])), [(3, 4)]),
    ("linear", lambda M, F, a, w, b: F.linear(a, w, b), [(2, 3), (4, 3), (4,)]),
    ("linear_3d", lambda M, F, a, w: F.linear(a, w), [(2, 2, 3), (4, 3)]),
    ("gather_scatter", lambda M, F, a: a.gather(1, M.tensor([[0, 0], [2, 1]])) + 0, [(2, 3)]),
    ("index", lambda M, F, a: a[M.tensor([0, 2, 0])] * a[:, [1]], [(3, 2)]),
    ("views", lambda M, F, a: a.t()[1:].unsqueeze(0).expand(2, 3, 3).diagonal(0, 1, 2), [(3, 4)]),
    ("unfold", lambda M, F, a: a.unfold(1, 3, 2) * 2, [(2, 7)]),
    ("split_unbind", lambda M, F, a: a.split([1, 2], 1)[1] + a.unbind(1)[0].unsqueeze(1), [(3, 3)]),
    ("masked_fill", lambda M, F, a: a.masked_fill(a > 0.3, 2.0), [(3, 3)]),
    ("as_strided", lambda M, F, a: a.as_strided((3, 3), (1, 1), 1), [(6,)]),
]


@pytest.mark.parametrize("name,fn,shapes", CASES, ids=[c[0] for c in CASES])
def test_op_matches_torch(name, fn, shapes):
    compare_with_torch(fn, shapes)


def compare_with_torch(fn, shapes, seed=7, exact_name=True):
    """Run ``fn(M, F, *xs)`` with viewgrad and with torch on the same float64 inputs
    (standard normal, of ``shapes``); compare values, the output's node name and the
    gradients of a weighted sum. Skips (saying why) when torch is absent."""
    torch = torch_or_skip()
    import torch.nn.functional as TF
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s) for s in shapes]
    res = []
    for M, F in ((vg, nnops), (torch, TF)):
        xs = [M.tensor(a, dtype=M.float64, requires_grad=True) for a in arrays]
        out = fn(M, F, *xs)
        w = M.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)), dtype=M.float64)
        (out * w).sum().backward()
        res.append((out.detach().cpu().numpy(), short(out.grad_fn.name()),
                    [x.grad.cpu().numpy() if x.grad is not None else None for x in xs]))
    (o, n, g), (to, tn, tg) = res
    np.testing.assert_allclose(o, to, rtol=1e-10, atol=1e-12)
    if exact_name:
        assert n == tn
    for a, b in zip(g, tg):
        if a is None or b is None:
            assert a is None and b is None
            continue
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
