"""``F.embedding_bag`` records PyTorch's one ``EmbeddingBagBackward0`` node: random cases in
both (modes sum, mean and max; offsets and 2-D input; per_sample_weights;
include_last_offset; padding_idx; scale_grad_by_freq; empty bags; float64, float32 and
int32 indices) compare the bags, the gradients, the node's name, edges and every
``_saved_*`` value (offset2bag, bag_size and max_indices as ``_saved_result1..3``),
what a freed node still shows, the refused double backward and the errors. Gradcheck
(first order: PyTorch has no second derivative here) closes the file."""
import warnings

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import raised, torch_or_skip

pytestmark = pytest.mark.host_only("runs the same embedding bags in torch on the CPU")


def _case(seed):
    """A random bag layout: (indices, offsets or None, keyword arguments, psw or None)."""
    rng = np.random.default_rng(seed)
    mode = ["sum", "mean", "max"][seed % 3]
    n_rows = int(rng.integers(2, 7))
    kw = {"mode": mode}
    if rng.random() < 0.4:
        kw["padding_idx"] = int(rng.integers(-n_rows, n_rows))
    if mode != "max" and rng.random() < 0.3:
        kw["scale_grad_by_freq"] = True
    psw = None
    if rng.random() < 0.3:   # a 2-D input: bags of equal length
        idx = rng.integers(0, n_rows, (int(rng.integers(1, 4)), int(rng.integers(1, 4))))
        off = None
    else:
        n = int(rng.integers(0, 9))
        idx = rng.integers(0, n_rows, n)
        cuts = np.sort(rng.integers(0, n + 1, int(rng.integers(0, 4))))
        off = np.concatenate([[0], cuts])   # equal cuts: empty bags
        if rng.random() < 0.3:
            kw["include_last_offset"] = True
            # (entries past the last offset only where PyTorch's kernels stay in bounds:
            # not its fast float32 'sum', and not with no bag at all)
            if rng.random() < 0.7 or len(off) < 2 or (seed % 4 == 0 and mode == "sum"):
                off = np.concatenate([off, [n]])
    if mode == "sum" and rng.random() < 0.5:
        psw = rng.random(idx.shape) + 0.1
    dtype = "float64" if seed % 4 else "float32"
    itype = "int32" if seed % 5 == 0 else "int64"
    return idx.astype(itype), None if off is None else off.astype(itype), kw, psw, n_rows, \
        dtype


def _run(M, case, seed):
    idx, off, kw, psw, n_rows, dtype = case
    rng = np.random.default_rng(seed + 1000)
    dt = getattr(M, dtype)
    w = M.tensor(rng.standard_normal((n_rows, 3)), dtype=dt, requires_grad=True)
    p = None if psw is None else M.tensor(psw, dtype=dt, requires_grad=True)
    o = M.nn.functional.embedding_bag(M.tensor(idx), w, None if off is None else M.tensor(off),
                                      per_sample_weights=p, **kw)
    g = o.grad_fn
    saved = {a: getattr(g, a) for a in dir(g) if a.startswith("_saved_")}
    saved = {k: (v.dtype, v.tolist()) if hasattr(v, "tolist") else v
             for k, v in saved.items()}
    raws = sorted(a for a in dir(g) if a.startswith("_raw_saved_"))
    edges = [None if f is None else type(f).__name__ for f, _ in g.next_functions]
    weights = M.tensor(rng.standard_normal(tuple(o.shape)), dtype=dt)
    inputs = [w] + ([p] if p is not None else [])
    grads = M.autograd.grad((o * weights).sum(), inputs, retain_graph=True)
    (o * weights).sum().backward()
    freed = {}
    for a in saved:
        try:
            v = getattr(g, a)
            freed[a] = v.tolist() if hasattr(v, "tolist") else v
        except RuntimeError as e:
            freed[a] = "freed" if "second time" in str(e) else str(e)
    return {"out": o.tolist(), "grads": [x.tolist() for x in grads], "name": g.name(),
            "edges": edges, "saved": saved, "raws": raws, "freed": freed}


def _same(ours, theirs, tol):
    for key in ("name", "edges", "raws", "freed"):
        if key == "freed":   # tensors freed, numbers kept: compared as shown
            for a, v in theirs["freed"].items():
                o = ours["freed"][a]
                assert (o == v) if not isinstance(v, list) else np.allclose(o, v), (a, o, v)
            continue
        assert ours[key] == theirs[key], (key, ours[key], theirs[key])
    np.testing.assert_allclose(ours["out"], theirs["out"], rtol=tol, atol=tol)
    for a, b in zip(ours["grads"], theirs["grads"]):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
    assert sorted(ours["saved"]) == sorted(theirs["saved"])
    for a, v in theirs["saved"].items():
        o = ours["saved"][a]
        if isinstance(v, tuple):
            assert str(o[0]).split(".")[-1] == str(v[0]).split(".")[-1], (a, o, v)
            np.testing.assert_allclose(np.array(o[1], dtype=float),
                                       np.array(v[1], dtype=float), rtol=tol, atol=tol)
            assert np.shape(o[1]) == np.shape(v[1]), (a, o, v)
        else:
            assert o == v, (a, o, v)


@pytest.mark.parametrize("seed", range(60))
def test_random_bags_match_torch(seed):
    torch = torch_or_skip()
    case = _case(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _run(torch, case, seed)
        ours = _run(vg, case, seed)
    _same(ours, theirs, 1e-12 if case[5] == "float64" else 1e-5)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_fixed_layouts_match_torch(mode):
    """Empty bags, a bag of padding only, include_last_offset past the last offset."""
    torch = torch_or_skip()
    for idx, off, kw in [([0, 2, 1, 3, 5, 4], [0, 2, 2, 5], {}),
                         ([0, 0, 1, 0, 5, 4], [0, 2, 2, 5], {"padding_idx": 0}),
                         ([0, 2, 1, 3, 5, 4], [0, 2, 2, 5], {"include_last_offset": True}),
                         ([], [0, 0], {}), ([1, 1, 1], [0], {"padding_idx": 1})]:
        case = (np.array(idx, dtype=np.int64), np.array(off), dict(kw, mode=mode), None, 6,
                "float64")
        _same(_run(vg, case, 0), _run(torch, case, 0), 1e-12)


def _second(M, mode, psw_grad, grad_grad):
    w = M.tensor(np.arange(12.0).reshape(4, 3) / 7, dtype=M.float64, requires_grad=True)
    p = M.tensor([0.5, 1.5, 2.0], dtype=M.float64, requires_grad=psw_grad) \
        if mode == "sum" else None
    o = M.nn.functional.embedding_bag(M.tensor([0, 2, 1]), w, M.tensor([0, 2]), mode=mode,
                                      per_sample_weights=p)
    inputs = [w] + ([p] if psw_grad else [])
    go = M.ones(tuple(o.shape), dtype=M.float64, requires_grad=grad_grad)
    grads = M.autograd.grad(o, inputs, go, create_graph=True)
    shown = [(g.requires_grad, None if g.grad_fn is None else g.grad_fn.name(),
              None if g.grad_fn is None else
              [None if f is None else type(f).__name__ for f, _ in g.grad_fn.next_functions])
             for g in grads]
    refusals = [raised(lambda g=g: M.autograd.grad(g.sum(), inputs + [go] * grad_grad,
                                                allow_unused=True))
                for g in grads if g.requires_grad]
    return shown, refusals


@pytest.mark.parametrize("mode,psw_grad,grad_grad", [
    ("sum", False, True), ("sum", True, False), ("sum", True, True), ("mean", False, True),
    ("max", False, True), ("mean", False, False)])
def test_double_backward_refused_as_torch(mode, psw_grad, grad_grad):
    torch = torch_or_skip()
    assert _second(vg, mode, psw_grad, grad_grad) == _second(torch, mode, psw_grad, grad_grad)


def test_saved_weight_only_for_per_sample_weights():
    torch = torch_or_skip()

    def shown(M, w_grad, p_grad):
        w = M.ones(3, 2, dtype=M.float64, requires_grad=w_grad)
        p = M.ones(2, dtype=M.float64, requires_grad=p_grad)
        g = M.nn.functional.embedding_bag(M.tensor([0, 2]), w, M.tensor([0]), mode="sum",
                                          per_sample_weights=p).grad_fn
        return (g._saved_weight is None, g._saved_per_sample_weights is None,
                [f is None for f, _ in g.next_functions])
    for flags in [(True, False), (False, True), (True, True)]:
        assert shown(vg, *flags) == shown(torch, *flags)


ERRORS = {
    "idx_float": lambda M, w: M.nn.functional.embedding_bag(M.tensor([0.0, 1.0]), w,
                                                            M.tensor([0])),
    "off_float": lambda M, w: M.nn.functional.embedding_bag(M.tensor([0, 1]), w,
                                                            M.tensor([0.0])),
    "idx_range": lambda M, w: M.nn.functional.embedding_bag(M.tensor([0, 6]), w,
                                                            M.tensor([0])),
    "idx_negative": lambda M, w: M.nn.functional.embedding_bag(M.tensor([0, -1]), w,
                                                               M.tensor([0])),
    "first_offset": lambda M, w: M.nn.functional.embedding_bag(M.tensor([0, 1, 2]), w,
                                                               M.tensor([1, 2])),
    "last_offset": lambda M, w: M.nn.functional.embedding_bag(M.tensor([0, 1, 2]), w,
                                                              M.tensor([0, 5])),
    "ilo_no_offsets": lambda M, w: M.nn.functional.embedding_bag(
        M.tensor([0, 1]), w, M.tensor(np.array([], dtype=np.int64)),
        include_last_offset=True),
    "padding_range": lambda M, w: M.nn.functional.embedding_bag(M.tensor([0]), w,
                                                                M.tensor([0]), padding_idx=6),
    "padding_negative": lambda M, w: M.nn.functional.embedding_bag(
        M.tensor([0]), w, M.tensor([0]), padding_idx=-7),
    "psw_shape": lambda M, w: M.nn.functional.embedding_bag(
        M.tensor([0, 1, 2]), w, M.tensor([0]), mode="sum",
        per_sample_weights=M.ones(2, dtype=M.float64)),
    "psw_dtype": lambda M, w: M.nn.functional.embedding_bag(
        M.tensor([0, 1, 2]), w, M.tensor([0]), mode="sum", per_sample_weights=M.ones(3)),
    "psw_mean": lambda M, w: M.nn.functional.embedding_bag(
        M.tensor([0, 1, 2]), w, M.tensor([0]), mode="mean",
        per_sample_weights=M.ones(3, dtype=M.float64)),
    "weight_1d": lambda M, w: M.nn.functional.embedding_bag(M.tensor([0]), M.ones(3),
                                                            M.tensor([0])),
    "weight_long": lambda M, w: M.nn.functional.embedding_bag(
        M.tensor([0]), M.ones(3, 2, dtype=M.int32), M.tensor([0])),
    "max_sparse": lambda M, w: M.nn.functional.embedding_bag(M.tensor([0]), w, M.tensor([0]),
                                                             mode="max", sparse=True),
    "max_freq": lambda M, w: M.nn.functional.embedding_bag(
        M.tensor([0]), w, M.tensor([0]), mode="max", scale_grad_by_freq=True),
    "bad_mode": lambda M, w: M.nn.functional.embedding_bag(M.tensor([0]), w, M.tensor([0]),
                                                           mode="min"),
    "input_3d": lambda M, w: M.nn.functional.embedding_bag(M.tensor([[[0]]]), w),
    "input_0d": lambda M, w: M.nn.functional.embedding_bag(M.tensor(0), w, M.tensor([0])),
    "2d_with_offsets": lambda M, w: M.nn.functional.embedding_bag(M.tensor([[0]]), w,
                                                                  M.tensor([0])),
    "offsets_2d": lambda M, w: M.nn.functional.embedding_bag(M.tensor([0]), w,
                                                             M.tensor([[0]])),
    "1d_no_offsets": lambda M, w: M.nn.functional.embedding_bag(M.tensor([0]), w),
    "2d_no_columns": lambda M, w: M.nn.functional.embedding_bag(
        M.tensor(np.zeros((2, 0), dtype=np.int64)), w),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name):
    torch = torch_or_skip()
    got = raised(lambda: ERRORS[name](vg, vg.ones(6, 3, dtype=vg.float64, requires_grad=True)))
    got = got and (got[0], got[1].replace("viewgrad.tensor.", "torch.")
                         .replace("viewgrad.", "torch.").replace("viewgrad", "torch"))
    want = raised(lambda: ERRORS[name](torch, torch.ones(6, 3, dtype=torch.float64,
                                                         requires_grad=True)))
    assert want is not None and got == want, (got, want)


def test_sparse_gradients_refused():
    with pytest.raises(ValueError, match="sparse"):
        vg.nn.functional.embedding_bag(vg.tensor([0]), vg.ones(2, 2), vg.tensor([0]),
                                       sparse=True)


@pytest.mark.parametrize("mode,kw", [("sum", {}), ("mean", {"padding_idx": 1}), ("max", {}),
                                     ("sum", {"psw": True}),
                                     ("mean", {"padding_idx": 0}),
                                     ("sum", {"include_last_offset": True})])
def test_gradcheck(mode, kw):
    # (not scale_grad_by_freq: it rescales the gradient on purpose, no derivative of the
    # forward; the comparisons with torch above check it)
    kw = dict(kw)
    idx, off = vg.tensor([1, 2, 1, 0, 3, 1]), vg.tensor([0, 2, 2, 5])
    rng = np.random.default_rng(4)
    w = vg.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    if kw.pop("psw", False):
        p = vg.tensor(rng.random(6) + 0.5, requires_grad=True)
        assert vg.autograd.gradcheck(lambda w, p: vg.nn.functional.embedding_bag(
            idx, w, off, mode=mode, per_sample_weights=p), (w, p))
        return
    assert vg.autograd.gradcheck(
        lambda w: vg.nn.functional.embedding_bag(idx, w, off, mode=mode, **kw), (w,))
