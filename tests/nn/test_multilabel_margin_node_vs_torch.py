"""``F.multilabel_margin_loss`` and ``nn.MultiLabelMarginLoss`` record PyTorch's one
``MultilabelMarginLossBackward0`` node: random cases in both (every reduction, 1-D and
2-D inputs, targets ending in -1 or not, classes listed twice, float64 and float32)
compare the loss, the gradient, the node's name and edges, every ``_saved_*`` value
(``is_target`` included) and what a freed node still shows; the refused double backward
(a ``NotImplemented`` node, as PyTorch's) and the errors too. Gradcheck (first order:
PyTorch has no second derivative of this loss) closes the file."""
import warnings

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import raised, torch_or_skip

pytestmark = pytest.mark.host_only("runs the same losses in torch on the CPU")


def _case(seed):
    rng = np.random.default_rng(seed)
    c = int(rng.integers(1, 6))
    one = seed % 4 == 0
    n = int(rng.integers(1, 5))
    t = rng.integers(-1, c, (n, c))
    if rng.random() < 0.5:   # a few rows cut short by a -1, classes after it ignored
        t[rng.integers(0, n), rng.integers(0, c)] = -1
    x = rng.standard_normal((n, c)) * 0.7
    if one:
        x, t = x[0], t[0]
    reduction = ["none", "mean", "sum"][seed % 3]
    return x, t, reduction, "float32" if seed % 5 == 0 else "float64", seed % 7 == 0


def _run(M, case):
    x, t, reduction, dtype, module = case
    a = M.tensor(x, dtype=getattr(M, dtype), requires_grad=True)
    if module:
        loss = M.nn.MultiLabelMarginLoss(reduction=reduction)(a, M.tensor(t))
    else:
        loss = M.nn.functional.multilabel_margin_loss(a, M.tensor(t), reduction=reduction)
    g = loss.grad_fn
    saved = {k: getattr(g, k) for k in dir(g) if k.startswith("_saved_")}
    saved = {k: (v.tolist(), v.dtype, v.requires_grad, v.grad_fn is None)
             if hasattr(v, "tolist") else v for k, v in saved.items()}
    w = M.tensor(np.arange(1.0, loss.numel() + 1).reshape(tuple(loss.shape)),
                 dtype=getattr(M, dtype))
    grad, = M.autograd.grad((loss * w).sum(), a, retain_graph=True)
    (loss * w).sum().backward()
    freed = {}
    for k in saved:
        try:
            freed[k] = getattr(g, k)
        except RuntimeError as e:
            freed[k] = "freed" if "second time" in str(e) else str(e)
    return {"loss": loss.tolist(), "grad": grad.tolist(), "name": g.name(),
            "edges": [type(f).__name__ for f, _ in g.next_functions], "saved": saved,
            "raws": sorted(k for k in dir(g) if k.startswith("_raw_saved_")),
            "freed": {k: v if isinstance(v, (str, int)) else "tensor" for k, v in freed.items()},
            "shape": tuple(loss.shape)}


@pytest.mark.parametrize("seed", range(60))
def test_random_losses_match_torch(seed):
    torch = torch_or_skip()
    case = _case(seed)
    ours, theirs = _run(vg, case), _run(torch, case)
    tol = 1e-12 if case[3] == "float64" else 1e-5
    for key in ("name", "edges", "raws", "freed", "shape"):
        assert ours[key] == theirs[key], (key, ours[key], theirs[key])
    np.testing.assert_allclose(ours["loss"], theirs["loss"], rtol=tol, atol=tol)
    np.testing.assert_allclose(ours["grad"], theirs["grad"], rtol=tol, atol=tol)
    assert sorted(ours["saved"]) == sorted(theirs["saved"])
    for k, v in theirs["saved"].items():
        o = ours["saved"][k]
        if isinstance(v, tuple):
            np.testing.assert_allclose(o[0], v[0], rtol=tol, atol=tol)
            assert str(o[1]).split(".")[-1] == str(v[1]).split(".")[-1], (k, o, v)
            assert o[2:] == v[2:], (k, o, v)
        else:
            assert o == v, (k, o, v)


def _second(M, reduction, grad_grad):
    a = M.tensor(np.array([[0.3, -0.2, 0.9, 0.1], [0.5, 0.4, -1.0, 0.0]]),
                 dtype=M.float64, requires_grad=True)
    loss = M.nn.functional.multilabel_margin_loss(a, M.tensor([[2, 0, -1, 1], [1, -1, 0, 0]]),
                                                  reduction=reduction)
    go = M.ones(tuple(loss.shape), dtype=M.float64, requires_grad=grad_grad)
    g, = M.autograd.grad(loss, a, go, create_graph=True)
    node = g.grad_fn
    inputs = [a] + [go] * grad_grad
    return (node.name(), [type(f).__name__ for f, _ in node.next_functions], g.tolist(),
            raised(lambda: M.autograd.grad(g.pow(2).sum(), inputs)))


@pytest.mark.parametrize("target", [0, -1, [0]])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_a_single_score_matches_torch(reduction, target):
    torch = torch_or_skip()
    outs = []
    for M in (vg, torch):
        a = M.tensor(0.5, dtype=M.float64, requires_grad=True)
        loss = M.nn.functional.multilabel_margin_loss(a, M.tensor(target), reduction=reduction)
        outs.append((loss.tolist(), tuple(loss.shape), loss.grad_fn._saved_is_target.tolist(),
                     M.autograd.grad(loss, a)[0].tolist()))
    assert outs[0] == outs[1]


@pytest.mark.parametrize("grad_grad", [False, True])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_double_backward_refused_as_torch(reduction, grad_grad):
    torch = torch_or_skip()
    ours, theirs = _second(vg, reduction, grad_grad), _second(torch, reduction, grad_grad)
    assert ours[0] == theirs[0] and ours[1] == theirs[1] and ours[3] == theirs[3]
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-12)


def test_the_node_keeps_the_inputs_it_saved():
    torch = torch_or_skip()

    def saved(M):
        a = M.tensor([[0.3, -0.2, 0.9]], dtype=M.float64, requires_grad=True)
        t = M.tensor([[2, -1, 0]])
        g = M.nn.functional.multilabel_margin_loss(a, t).grad_fn
        return g._saved_self is a, g._saved_target is t
    assert saved(vg) == saved(torch) == (True, True)


ERRORS = {
    "target_shape": lambda M: M.nn.functional.multilabel_margin_loss(
        M.ones(2, 4), M.zeros(2, 3, dtype=M.int64)),
    "target_1d_for_2d": lambda M: M.nn.functional.multilabel_margin_loss(
        M.ones(2, 4), M.zeros(4, dtype=M.int64)),
    "target_2d_for_1d": lambda M: M.nn.functional.multilabel_margin_loss(
        M.ones(3), M.zeros(1, 3, dtype=M.int64)),
    "input_3d": lambda M: M.nn.functional.multilabel_margin_loss(
        M.ones(2, 3, 4), M.zeros(2, 3, 4, dtype=M.int64)),
    "input_0d_target_range": lambda M: M.nn.functional.multilabel_margin_loss(
        M.ones(()), M.ones((), dtype=M.int64)),
    "no_classes": lambda M: M.nn.functional.multilabel_margin_loss(
        M.ones(2, 0), M.zeros(2, 0, dtype=M.int64)),
    "empty_1d": lambda M: M.nn.functional.multilabel_margin_loss(
        M.ones(0), M.zeros(0, dtype=M.int64)),
    "target_high": lambda M: M.nn.functional.multilabel_margin_loss(
        M.ones(2, 4), M.tensor([[4, 0, 0, 0], [0, 1, 2, 3]])),
    "target_low": lambda M: M.nn.functional.multilabel_margin_loss(
        M.ones(2, 4), M.tensor([[-2, 0, 0, 0], [0, 1, 2, 3]])),
    "range_after_end": lambda M: M.nn.functional.multilabel_margin_loss(
        M.ones(2, 4), M.tensor([[0, -1, 9, 9], [1, -1, 0, 0]])),
    "target_float": lambda M: M.nn.functional.multilabel_margin_loss(
        M.ones(2, 4), M.zeros(2, 4)),
    "target_int32": lambda M: M.nn.functional.multilabel_margin_loss(
        M.ones(2, 4), M.zeros(2, 4, dtype=M.int32)),
    "input_half": lambda M: M.nn.functional.multilabel_margin_loss(
        M.ones(2, 4, dtype=M.float16), M.zeros(2, 4, dtype=M.int64)),
    "input_long": lambda M: M.nn.functional.multilabel_margin_loss(
        M.ones(2, 4, dtype=M.int64), M.zeros(2, 4, dtype=M.int64)),
    "bad_reduction": lambda M: M.nn.functional.multilabel_margin_loss(
        M.ones(2, 4), M.zeros(2, 4, dtype=M.int64), reduction="bad"),
    "target_list": lambda M: M.nn.functional.multilabel_margin_loss(M.ones(2, 4),
                                                                    [[0, 1, 2, 3]] * 2),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name):
    torch = torch_or_skip()
    got, want = raised(lambda: ERRORS[name](vg)), raised(lambda: ERRORS[name](torch))
    assert want is not None and got == want, (got, want)


@pytest.mark.parametrize("reduction", ["none"])
def test_empty_batch_matches_torch(reduction):
    torch = torch_or_skip()
    # (not 'mean' nor 'sum': PyTorch's kernel returns memory it never wrote for no frames)
    outs = []
    for M in (vg, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loss = M.nn.functional.multilabel_margin_loss(M.ones(0, 3, dtype=M.float64),
                                                          M.zeros(0, 3, dtype=M.int64),
                                                          reduction=reduction)
        outs.append((loss.tolist(), tuple(loss.shape)))
    assert outs[0] == outs[1]


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("one", [False, True])
def test_gradcheck(reduction, one):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 5))
    t = np.array([[3, 0, -1, 1, 2], [1, 1, 4, -1, 0], [-1, 2, 3, 0, 1]])
    if one:
        x, t = x[1], t[1]
    target = vg.tensor(t)
    assert vg.autograd.gradcheck(
        lambda a: vg.nn.functional.multilabel_margin_loss(a, target, reduction=reduction),
        (vg.tensor(x, requires_grad=True),))
