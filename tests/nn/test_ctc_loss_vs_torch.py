"""``nn.functional.ctc_loss`` / ``nn.CTCLoss`` against PyTorch 2.13 (the test-only oracle):
values and ``log_probs.grad`` over many random cases (batch sizes, lengths, repeated
labels, padded and concatenated targets, reductions, ``zero_infinity``, float32/float64),
the graph and what ``CtcLossBackward0`` saves, the refused double backward, the error
messages; and gradcheck through ``log_softmax`` (PyTorch's gradient is the one of the
logits of a log_softmax, not of ``log_probs`` alone: gradcheck on ``log_probs`` fails in
both libraries)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch (the test-only oracle) is not installed")

import viewgrad as vg  # noqa: E402

VF = vg.nn.functional
TF = torch.nn.functional
# (float32: the gradient is a difference of exps, exp(lp) - exp(collected + loss - lp),
# whose last bits depend on the exp and log of the math library)
TOL = {"float64": dict(rtol=1e-12, atol=1e-12), "float32": dict(rtol=1e-5, atol=5e-6)}


def _np(t):
    return t.detach().cpu().numpy()


def _log_probs(rng, t, n, c, dtype, batched=True):
    shape = (t, n, c) if batched else (t, c)
    x = torch.tensor(rng.standard_normal(shape) * 2, dtype=getattr(torch, dtype))
    return x.log_softmax(-1).numpy()


def _random_case(rng):
    """A random batch: lengths (some 0, some too long for their input: inf), labels from a
    small set so that repeats (which need a blank between them) are common."""
    n = int(rng.integers(1, 5))
    c = int(rng.integers(2, 7))
    t = int(rng.integers(1, 12))
    blank = int(rng.integers(0, c)) if rng.random() < 0.3 else 0
    others = [k for k in range(c) if k != blank]
    il = [int(rng.integers(0, t + 1)) if rng.random() < 0.3 else t for _ in range(n)]
    tl = [int(rng.integers(0, 6)) for _ in range(n)]
    s = max(tl) + int(rng.integers(0, 3))
    labels = rng.choice(others[:3], size=(n, s))
    padded = rng.random() < 0.5
    if padded:
        targets = np.where(np.arange(s)[None, :] < np.array(tl)[:, None], labels,
                           rng.integers(-1, c + 2, size=(n, s)))   # padding is ignored
    else:
        targets = np.concatenate([labels[b, :tl[b]] for b in range(n)])
    return t, n, c, blank, il, tl, targets


def _run(L, lp, targets, il, tl, blank, reduction, zero_infinity, lengths_as, tdtype):
    x = L.tensor(lp, requires_grad=True)
    tg = L.tensor(targets, dtype=getattr(L, tdtype))
    if lengths_as == "tensor":
        il, tl = L.tensor(il), L.tensor(tl)
    elif lengths_as == "int32":
        il, tl = L.tensor(il, dtype=L.int32), L.tensor(tl, dtype=L.int32)
    elif lengths_as == "tuple":
        il, tl = tuple(il), tuple(tl)
    loss = L.nn.functional.ctc_loss(x, tg, il, tl, blank=blank, reduction=reduction,
                                    zero_infinity=zero_infinity)
    w = L.tensor(np.linspace(0.5, 1.5, loss.numel()).reshape(tuple(loss.shape)),
                 dtype=loss.dtype)
    (loss * w).sum().backward()   # a gradient that is not all ones
    return _np(loss), _np(x.grad), type(loss.grad_fn).__name__


def _same(ours, theirs, dtype):
    assert ours.shape == theirs.shape
    np.testing.assert_array_equal(np.isinf(ours), np.isinf(theirs))
    np.testing.assert_allclose(ours, theirs, equal_nan=True, **TOL[dtype])


@pytest.mark.parametrize("seed", range(40))
def test_random_cases_values_and_gradients(seed):
    rng = np.random.default_rng(seed)
    for k in range(6):
        t, n, c, blank, il, tl, targets = _random_case(rng)
        dtype = "float64" if (seed + k) % 2 else "float32"
        lp = _log_probs(rng, t, n, c, dtype)
        reduction = ("none", "sum", "mean")[(seed + k) % 3]
        zero_infinity = bool(rng.random() < 0.5)
        lengths_as = ("list", "tuple", "tensor", "int32")[(seed * 7 + k) % 4]
        tdtype = "int64" if rng.random() < 0.7 else "int32"
        args = (lp, targets, il, tl, blank, reduction, zero_infinity, lengths_as, tdtype)
        theirs = _run(torch, *args)
        ours = _run(vg, *args)
        _same(ours[0], theirs[0], dtype)
        _same(ours[1], theirs[1], dtype)
        assert ours[2] == theirs[2]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_larger_batch_padded_and_concatenated_give_the_same(dtype, reduction):
    rng = np.random.default_rng(7)
    t, n, c = 30, 6, 8
    lp = _log_probs(rng, t, n, c, dtype)
    tl = [0, 1, 5, 9, 12, 14]
    il = [30, 4, 30, 25, 30, 22]
    padded = rng.integers(1, 4, size=(n, 14))        # many repeats
    flat = np.concatenate([padded[b, :tl[b]] for b in range(n)])
    results = []
    for targets in (padded, flat):
        theirs = _run(torch, lp, targets, il, tl, 0, reduction, False, "list", "int64")
        ours = _run(vg, lp, targets, il, tl, 0, reduction, False, "list", "int64")
        _same(ours[0], theirs[0], dtype)
        _same(ours[1], theirs[1], dtype)
        results.append(ours[0])
    np.testing.assert_array_equal(results[0], results[1])


def test_known_values_by_hand():
    # two frames, one label 'a' (class 1): paths a-a, a-blank, blank-a
    p = np.array([[0.6, 0.4], [0.3, 0.7]])   # frames x (blank, a)
    lp = np.log(p)[:, None, :]
    loss = VF.ctc_loss(vg.tensor(lp), vg.tensor([[1]]), [2], [1], reduction="none")
    want = -np.log(0.4 * 0.7 + 0.4 * 0.3 + 0.6 * 0.7)
    assert abs(loss.item() - want) < 1e-14
    # 'aa' needs a blank in between: impossible in 2 frames, possible in 3
    two = VF.ctc_loss(vg.tensor(lp), vg.tensor([[1, 1]]), [2], [2], reduction="none")
    assert two.item() == float("inf")
    lp3 = np.log(np.array([[0.5, 0.5]] * 3))[:, None, :]
    three = VF.ctc_loss(vg.tensor(lp3), vg.tensor([[1, 1]]), [3], [2], reduction="none")
    assert abs(three.item() - -np.log(0.125)) < 1e-14


@pytest.mark.parametrize("case", ["blank_inside", "blank_last", "zero_frames", "empty_target",
                                  "float_targets", "unbatched", "unbatched_2d_targets"])
def test_edge_cases_match(case):
    rng = np.random.default_rng(3)
    lp = _log_probs(rng, 6, 2, 5, "float64")
    il, tl, reduction = [6, 5], [3, 2], "none"
    targets = np.array([[1, 2, 2], [3, 4, 0]])
    tdtype = "int64"
    if case == "blank_inside":        # PyTorch does not refuse a blank among the labels
        targets = np.array([[0, 2, 2], [3, 0, 4]])
    elif case == "blank_last":        # ... nor as the last one (its gradient overwrites)
        targets = np.array([[1, 2, 0], [3, 0, 4]])
    elif case == "zero_frames":
        il, tl = [0, 0], [0, 1]
    elif case == "empty_target":
        targets, tl = np.zeros((2, 0), dtype=np.int64), [0, 0]
    elif case == "float_targets":
        targets, tdtype = targets + 0.25, "float64"
    elif case.startswith("unbatched"):
        lp, il, tl = lp[:, 0], [6], [3]
        targets = targets[:1] if case.endswith("2d_targets") else targets[0]
    for reduction in ("none", "mean", "sum"):
        args = (lp, targets, il, tl, 0, reduction, False, "list", tdtype)
        theirs, ours = _run(torch, *args), _run(vg, *args)
        _same(ours[0], theirs[0], "float64")
        _same(ours[1], theirs[1], "float64")
        assert ours[2] == theirs[2]
        np.testing.assert_array_equal(np.signbit(ours[0]), np.signbit(theirs[0]))  # -0.0


def test_zero_infinity_zeroes_the_impossible_loss_and_its_gradient():
    rng = np.random.default_rng(5)
    lp = _log_probs(rng, 4, 3, 4, "float64")
    targets = np.array([[1, 1, 2, 3], [1, 2, 0, 0], [2, 2, 2, 2]])
    il, tl = [4, 4, 2], [4, 2, 3]   # 1 1 needs a blank: 1,_,1,2,3 > 4 frames; 2 frames < 3
    for zi in (False, True):
        for reduction in ("none", "mean", "sum"):
            args = (lp, targets, il, tl, 0, reduction, zi, "list", "int64")
            theirs, ours = _run(torch, *args), _run(vg, *args)
            _same(ours[0], theirs[0], "float64")
            _same(ours[1], theirs[1], "float64")
            assert ours[2] == theirs[2]
    loss, grad, _ = _run(vg, lp, targets, il, tl, 0, "none", True, "list", "int64")
    assert loss[0] == 0 and loss[2] == 0 and 0 < loss[1] < np.inf
    assert not grad[:, 0].any() and not grad[:, 2].any() and grad[:, 1].any()
    _, grad, _ = _run(vg, lp, targets, il, tl, 0, "none", False, "list", "int64")
    assert np.isnan(grad[:, 0]).all()   # as PyTorch: the impossible element's gradient


# -- the graph -----------------------------------------------------------------------------

def _chain(node):
    names = []
    while node is not None:
        names.append(type(node).__name__)
        nxt = [f for f, _ in node.next_functions if f is not None]
        node = nxt[0] if nxt else None
    return names


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("batched", [True, False])
def test_the_graph_is_pytorchs(reduction, zero_infinity, batched):
    rng = np.random.default_rng(1)
    lp = _log_probs(rng, 5, 2, 4, "float32", batched)
    tg = [[1, 2], [3, 3]] if batched else [1, 2]
    lens = ([5, 4], [2, 2]) if batched else ([5], [2])
    chains = []
    for L in (torch, vg):
        x = L.tensor(lp, requires_grad=True)
        loss = L.nn.functional.ctc_loss(x, L.tensor(tg), *lens, reduction=reduction,
                                        zero_infinity=zero_infinity)
        chains.append(_chain(loss.grad_fn))
        assert loss.dtype == x.dtype
    assert chains[1] == chains[0]
    assert "CtcLossBackward0" in chains[0]


def test_what_the_node_saves():
    rng = np.random.default_rng(2)
    lp = _log_probs(rng, 6, 2, 5, "float64")
    seen = []
    for L in (torch, vg):
        x = L.tensor(lp, requires_grad=True)
        tg = L.tensor([[1, 2, 2], [3, 4, 0]])
        node = L.nn.functional.ctc_loss(x, tg, [6, 5], [3, 2], reduction="none").grad_fn
        names = sorted(n for n in dir(node) if n.startswith("_saved_"))
        assert node._saved_log_probs is x and node._saved_targets is tg
        alpha = _np(node._saved_result1)
        seen.append((names, node._saved_input_lengths, node._saved_target_lengths,
                     node._saved_blank, node._saved_zero_infinity,
                     _np(node._saved_result0), alpha[0], alpha[1, :5, :5],
                     len(node.next_functions)))
        i32 = L.nn.functional.ctc_loss(x, tg.to(L.int32), [6, 5], [3, 2], reduction="none")
        assert i32.grad_fn._saved_targets.dtype == L.int64   # a converted copy
    (tn, *tv), (vn, *vv) = seen
    assert vn == tn
    for a, b in zip(vv, tv):
        if isinstance(b, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=0)
        else:
            assert a == b and type(a) is type(b)


def test_targets_modified_in_place_break_backward_as_in_torch():
    lp = _log_probs(np.random.default_rng(4), 5, 1, 4, "float64")
    for L in (torch, vg):
        x = L.tensor(lp, requires_grad=True)
        tg = L.tensor([[1, 2]])
        loss = L.nn.functional.ctc_loss(x, tg, [5], [2])
        tg.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            loss.backward()


def test_double_backward_is_refused_as_in_torch():
    lp = _log_probs(np.random.default_rng(6), 5, 2, 4, "float64")
    got = []
    for L in (torch, vg):
        x = L.tensor(lp, requires_grad=True)
        go = L.ones(2, dtype=L.float64, requires_grad=True)
        loss = L.nn.functional.ctc_loss(x, L.tensor([[1, 2], [2, 2]]), [5, 5], [2, 2],
                                        reduction="none")
        (g,) = L.autograd.grad(loss, x, go, create_graph=True)
        node = g.grad_fn
        edges = [type(f).__name__ for f, _ in node.next_functions]
        with pytest.raises(RuntimeError) as e:
            g.sum().backward()
        (g2,) = L.autograd.grad(loss.sum(), x, create_graph=True)
        edges2 = [type(f).__name__ for f, _ in g2.grad_fn.next_functions]
        got.append((type(node).__name__, edges, edges2, str(e.value)))
    assert got[1] == got[0]
    assert got[0][3] == "derivative for aten::_ctc_loss_backward is not implemented"


# -- gradcheck -----------------------------------------------------------------------------

@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_gradcheck_through_log_softmax(reduction):
    rng = np.random.default_rng(8)
    logits = vg.tensor(rng.standard_normal((6, 3, 4)), requires_grad=True)
    tg = vg.tensor([[1, 1, 3], [2, 0, 0], [3, 1, 2]])   # repeats; padding 0 ignored

    def f(z):
        return VF.ctc_loss(z.log_softmax(2), tg, [6, 4, 5], [3, 1, 3], reduction=reduction)
    assert vg.autograd.gradcheck(f, (logits,))

    flat = vg.tensor([2, 2, 1, 0, 3])                # blank 0 inside a target

    def g(z):
        return VF.ctc_loss(z.log_softmax(-1), flat, vg.tensor([6, 6, 3]),
                           vg.tensor([2, 0, 3]), blank=0, reduction=reduction,
                           zero_infinity=True)      # the last one is impossible
    assert vg.autograd.gradcheck(g, (logits,))

    def h(z):                                        # unbatched, another blank
        return VF.ctc_loss(z[:, 0].log_softmax(-1), vg.tensor([0, 1, 0]), [6], [3],
                           blank=2, reduction=reduction)
    assert vg.autograd.gradcheck(h, (logits,))


def test_gradcheck_on_log_probs_alone_fails_in_both():
    # PyTorch's gradient assumes a log_softmax before it: not d loss / d log_probs
    rng = np.random.default_rng(9)
    lp = rng.standard_normal((4, 2, 3))
    for L in (torch, vg):
        x = L.tensor(lp, requires_grad=True)
        ok = L.autograd.gradcheck(
            lambda z: L.nn.functional.ctc_loss(z, L.tensor([[1, 2], [1, 1]]), [4, 4], [2, 1]),
            (x,), raise_exception=False)
        assert ok is False


# -- the module ----------------------------------------------------------------------------

def test_ctcloss_module():
    rng = np.random.default_rng(10)
    lp = _log_probs(rng, 8, 3, 5, "float32")
    out = []
    for L in (torch, vg):
        m = L.nn.CTCLoss(blank=4, reduction="sum", zero_infinity=True)
        x = L.tensor(lp, requires_grad=True)
        loss = m(x, L.tensor([1, 2, 3, 3, 0, 1]), L.tensor([8, 8, 2]), L.tensor([2, 2, 2]))
        loss.backward()
        out.append((repr(m), m.blank, m.reduction, m.zero_infinity, loss.item(),
                    _np(x.grad)))
        assert repr(L.nn.CTCLoss()) == "CTCLoss()"
    assert out[1][:4] == out[0][:4]
    np.testing.assert_allclose(out[1][4], out[0][4], rtol=1e-6)
    np.testing.assert_allclose(out[1][5], out[0][5], rtol=1e-5, atol=5e-6)
    assert isinstance(vg.nn.CTCLoss(), vg.nn.layers._Loss)


# -- errors --------------------------------------------------------------------------------

def _error_cases(L):
    lp = L.tensor(_log_probs(np.random.default_rng(11), 6, 2, 5, "float32"))
    t = L.tensor([[1, 2, 2], [3, 4, 0]])
    f = L.nn.functional.ctc_loss
    return {
        "bad reduction": lambda: f(lp, t, [6, 5], [3, 2], reduction="foo"),
        "input length > T": lambda: f(lp, t, [7, 5], [3, 2]),
        "negative input length": lambda: f(lp, t, [-1, 5], [3, 2]),
        "negative target length": lambda: f(lp, t, [6, 5], [-1, 2]),
        "target length > S": lambda: f(lp, t, [6, 5], [4, 2]),
        "blank too big": lambda: f(lp, t, [6, 5], [3, 2], blank=5),
        "blank negative": lambda: f(lp, t, [6, 5], [3, 2], blank=-1),
        "input_lengths size": lambda: f(lp, t, [6, 5, 4], [3, 2]),
        "target_lengths size": lambda: f(lp, t, [6, 5], [3]),
        "targets batch": lambda: f(lp, t[:1], [6, 5], [3, 2]),
        "concatenated too short": lambda: f(lp, L.tensor([1, 2, 3, 4]), [6, 5], [3, 2]),
        "targets 3-D": lambda: f(lp, t[:, :, None], [6, 5], [3, 2]),
        "targets 0-D": lambda: f(lp, L.tensor(1), [6, 5], [3, 2]),
        "log_probs 4-D": lambda: f(lp[None], t, [6, 5], [3, 2]),
        "log_probs 1-D": lambda: f(lp[0, 0], t, [6, 5], [3, 2]),
        "log_probs half": lambda: f(lp.half(), t, [6, 5], [3, 2]),
        "log_probs long": lambda: f(L.zeros(6, 2, 5, dtype=L.int64), t, [6, 5], [3, 2]),
        "empty": lambda: f(lp[:, :0], t[:0], [], []),
        "empty 4-D": lambda: f(L.zeros(0, 2, 5, 1), t, [6, 5], [3, 2]),
        "float length tensor": lambda: f(lp, t, L.tensor([6.0, 5.0]), L.tensor([3, 2])),
        "bool target length tensor": lambda: f(lp, t, L.tensor([6, 5]), L.tensor([True, False])),
        "tensor and list": lambda: f(lp, t, L.tensor([6, 5]), [3, 2]),
        "an int": lambda: f(lp, t, 6, [3, 2]),
        "floats": lambda: f(lp, t, [6.0, 5.0], [3, 2]),
        "a later float": lambda: f(lp, t, [6, 5.0], [3, 2]),
        "a later str": lambda: f(lp, t, [6, 5], [3, "2"]),
        "tuple of floats": lambda: f(lp, t, (6.0, 5), [3, 2]),
        "blank bool": lambda: f(lp, t, [6, 5], [3, 2], blank=True),
        "blank float": lambda: f(lp, t, [6, 5], [3, 2], blank=0.0),
        "zero_infinity int": lambda: f(lp, t, [6, 5], [3, 2], zero_infinity=1),
        "targets list": lambda: f(lp, [[1, 2, 2], [3, 4, 0]], [6, 5], [3, 2]),
        "log_probs list": lambda: f([1.0], t, [6, 5], [3, 2]),
        "lengths None": lambda: f(lp, t, None, [3, 2]),
        "0-d length tensors, batch 2": lambda: f(lp, t, L.tensor(6), L.tensor(3)),
    }


def _outcome(fn):
    try:
        fn()
    except Exception as e:   # noqa: BLE001  (comparing which error)
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("name", list(_error_cases(torch)))
def test_errors_are_pytorchs(name):
    theirs = _outcome(_error_cases(torch)[name])
    ours = _outcome(_error_cases(vg)[name])
    assert theirs is not None
    assert ours == theirs


def test_elementwise_mean_is_mean_with_pytorchs_warning():
    lp = vg.tensor(_log_probs(np.random.default_rng(12), 4, 1, 3, "float64"))
    with pytest.warns(UserWarning, match="elementwise_mean' is deprecated"):
        a = VF.ctc_loss(lp, vg.tensor([[1]]), [4], [1], reduction="elementwise_mean")
    assert a.item() == VF.ctc_loss(lp, vg.tensor([[1]]), [4], [1]).item()


def test_labels_out_of_range_are_refused():
    # PyTorch's CPU kernel reads out of bounds for them (an arbitrary number); viewgrad
    # refuses, in the words of the kernel's other checks. Padding past a length is fine.
    lp = vg.tensor(_log_probs(np.random.default_rng(13), 6, 2, 5, "float32"))
    for bad, v in (([[7, 2], [1, 1]], 7), ([[1, 2], [-1, 3]], -1)):
        with pytest.raises(RuntimeError, match=rf"values in \[0, 5\), but got value {v} "):
            VF.ctc_loss(lp, vg.tensor(bad), [6, 6], [2, 2])
    assert VF.ctc_loss(lp, vg.tensor([[1, -1], [1, 99]]), [6, 6], [1, 1]).isfinite().item()
