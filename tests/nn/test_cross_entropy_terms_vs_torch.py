"""cross_entropy's class weights, label smoothing and ignore_index together, for class
indices and class probabilities, against torch 2.13 (loss and gradient) and finite
differences (Note [cross_entropy's weights and smoothing], ops/nnops.py). Before this,
probability targets ignored ``weight`` and ``label_smoothing``, and smoothing ignored the
weights and the ignored targets: wrong losses and gradients, raised nothing."""
import itertools

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

SHAPES = {"batch": (3, 4), "unbatched": (4,), "spatial": (2, 4, 3)}


def _case(shape, kind, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    cdim = 0 if len(shape) == 1 else 1
    if kind == "prob":
        p = rng.random(shape)
        return x, p / p.sum(axis=cdim, keepdims=True)
    tshape = () if len(shape) == 1 else (shape[0],) + shape[2:]
    t = rng.integers(0, shape[cdim], tshape)
    if kind == "ignored":
        t = np.where(rng.random(tshape) < 0.4, -100, t)
    return x, t


def _run(M, x, t, weight, ls, reduction):
    xt = M.tensor(x, requires_grad=True)
    loss = M.nn.functional.cross_entropy(
        xt, M.tensor(t), weight=None if weight is None else M.tensor(weight),
        label_smoothing=ls, reduction=reduction)
    scale = M.tensor(np.arange(1.0, loss.numel() + 1).reshape(tuple(loss.shape)))
    (loss * scale).sum().backward()
    return np.array(loss.tolist(), dtype=float), xt.grad.cpu().numpy() if M is vg else \
        xt.grad.numpy()


@pytest.mark.parametrize("shape,kind", list(itertools.product(sorted(SHAPES),
                                                              ["index", "ignored", "prob"])))
def test_weights_smoothing_and_ignored_targets_match_torch(shape, kind):
    torch = torch_or_skip()
    x, t = _case(SHAPES[shape], kind, len(shape) * 7 + len(kind))
    c = SHAPES[shape][0 if shape == "unbatched" else 1]
    for weight, ls, reduction in itertools.product(
            [None, np.linspace(0.5, 2.0, c)], [0.0, 0.25, 1.0, -0.3],
            ["mean", "sum", "none"]):
        ours = _run(vg, x, t, weight, ls, reduction)
        theirs = _run(torch, x, t, weight, ls, reduction)
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, equal_nan=True,
                                       err_msg=f"{weight is not None} {ls} {reduction}")


@pytest.mark.parametrize("kind", ["index", "ignored", "prob"])
def test_gradcheck_with_weights_and_smoothing(kind):
    x, t = _case((3, 4), kind, 5)
    if kind == "ignored":
        t[0] = 1   # at least one counted target: a finite mean
    w = vg.tensor(np.linspace(0.5, 2.0, 4))
    for reduction in ("mean", "sum", "none"):
        assert vg.autograd.gradcheck(lambda a: vg.nn.functional.cross_entropy(
            a, vg.tensor(t), weight=w, label_smoothing=0.2, reduction=reduction),
            (vg.tensor(x, requires_grad=True),))


def test_refusals_and_silent_zeros_as_torch():
    torch = torch_or_skip()
    for M in (vg, torch):
        with pytest.raises(RuntimeError, match=r"^label_smoothing must be between 0.0 and 1.0. "
                                               r"Got: 2$"):
            M.nn.functional.cross_entropy(M.ones(2, 3), M.tensor([0, 1]), label_smoothing=2.0)
    # every target ignored: a NaN mean, and a zero (not NaN) gradient, without a warning
    for M in (vg, torch):
        x = M.tensor([[0.1, 0.5, -0.3], [1.0, 0.2, 0.3]], requires_grad=True)
        loss = M.nn.functional.cross_entropy(x, M.tensor([-100, -100]))
        loss.backward()
        assert np.isnan(loss.item()) and x.grad.tolist() == [[0.0] * 3] * 2


@pytest.mark.parametrize("case", ["layer_norm", "batch_norm_train", "batch_norm_eval_f32",
                                  "group_norm", "instance_norm"])
def test_norms_refuse_mixed_parameter_dtypes_as_torch(case):
    """PyTorch's normalisation kernels refuse parameters of another dtype (viewgrad
    promoted them before)."""
    torch = torch_or_skip()
    calls = {
        "layer_norm": lambda M, x: M.nn.functional.layer_norm(x, (4,), weight=M.ones(4)),
        "batch_norm_train": lambda M, x: M.nn.functional.batch_norm(
            x, M.zeros(3), M.ones(3), training=True),
        "batch_norm_eval_f32": lambda M, x: M.nn.functional.batch_norm(
            x.float(), M.zeros(3, dtype=M.float64), M.ones(3, dtype=M.float64)),
        "group_norm": lambda M, x: M.nn.functional.group_norm(x, 3, M.ones(3)),
        "instance_norm": lambda M, x: M.nn.functional.instance_norm(x, weight=M.ones(3)),
    }
    outcomes = []
    for M in (vg, torch):
        try:
            calls[case](M, M.ones(2, 3, 4, dtype=M.float64))
            outcomes.append(None)
        except RuntimeError as e:
            outcomes.append(str(e))
    assert outcomes[0] == outcomes[1] and outcomes[1] is not None
