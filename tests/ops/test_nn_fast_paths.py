"""The speed tricks of a training step's layers (ops/nn_fast.py: Note [lean linear],
Note [relu on host arrays], Note [relu's backward in place]; nnops.py: Note [nll_loss,
every target counted]) against the teaching path: every program runs both ways
(``set_nn_fast(False)`` turns them off) and everything observable is compared — values
and gradients bit for bit, node names, edges, saved values, sequence order, the view
``weight.t()`` makes, version counters, and the errors (words included) — and against
PyTorch where it has the same call."""
import contextlib

import numpy as np
import pytest

import viewgrad as vg
from viewgrad.ops import nn_fast
from viewgrad.ops.nnops import cross_entropy, linear, nll_loss

from ..helpers import general_steps, graph_nodes, saved_values, short, torch_or_skip


@contextlib.contextmanager
def _way(fast):
    prev = nn_fast.set_nn_fast(fast)
    try:
        yield
    finally:
        nn_fast.set_nn_fast(prev)


def _bits(t):
    a = np.asarray(t.detach().cpu().numpy())
    return a.dtype.str, a.shape, a.tobytes()


def _describe(t, names=()):
    """Everything observable about t's graph, node by node (newest first); ``names``:
    the program's tensors, by which a saved view's base is named."""
    names = {id(v): k for k, v in dict(names).items()}
    out = []
    for fn in graph_nodes(t):
        saved = {}
        for name, v in saved_values(fn):
            if isinstance(v, vg.Tensor):
                vi = v._view_info
                v = (_bits(v), v.is_leaf, v.requires_grad, v._version,
                     None if v._base is None else names.get(id(v._base), "other"),
                     None if vi is None else (vi.creation_meta, vi.made_by,
                                              [f.__name__ for f, _ in vi.view_fns]))
            elif hasattr(v, "dtype"):   # an array attribute (nll_loss's weight)
                v = repr(v)
            saved[name] = v
        out.append((fn.name(), [(None if f is None else f.name(), nr)
                                for f, nr in fn.next_functions], saved,
                    getattr(fn, "_shapes", None), getattr(fn, "_dtypes", None)))
    return out


def _seq(t):
    """The nodes' sequence numbers, relative to the newest."""
    out = [fn._seq_nr for fn in graph_nodes(t) if type(fn).__name__ != "AccumulateGrad"]
    return [s - max(out) for s in out]


def _err(fn):
    try:
        fn()
    except Exception as e:   # noqa: BLE001 - compared, type and words
        return type(e).__name__, str(e)
    return None


def _params(rng, dtype, rx, rw, rb, x_kind):
    x = vg.tensor(rng.standard_normal((4, 3)), dtype=dtype, requires_grad=rx)
    w = vg.tensor(rng.standard_normal((5, 3)), dtype=dtype, requires_grad=rw)
    b = vg.tensor(rng.standard_normal(5), dtype=dtype, requires_grad=rb)
    xin = {"leaf": lambda: x, "history": lambda: x * 1.0,
           "view": lambda: (x * 1.0)[1:], "t_view": lambda: (x * 1.0).t().t()}[x_kind]()
    return x, w, b, xin


LINEAR_CASES = [(rx, rw, rb, k) for rx in (False, True) for rw in (False, True)
                for rb in (False, True) for k in ("leaf", "history", "view", "t_view")
                if not (k != "leaf" and not rx)]


def _linear_run(fast, dtype, rx, rw, rb, x_kind):
    rng = np.random.default_rng(7)
    with _way(fast):
        x, w, b, xin = _params(rng, dtype, rx, rw, rb, x_kind)
        y = linear(xin, w, b)
        h = y.relu()
        tensors = {"x": x, "w": w, "b": b, "xin": xin}
        out = {"y": _bits(y), "h": _bits(h),
               "graph": _describe(h, tensors) if h.grad_fn else None,
               "seq": _seq(h) if h.grad_fn else None, "rg": h.requires_grad,
               "versions": (x._version, w._version, b._version)}
        if h.requires_grad:
            g = vg.tensor(rng.standard_normal(tuple(h.shape)), dtype=dtype)
            h.backward(g, retain_graph=True)
            out["grads"] = [None if p.grad is None else _bits(p.grad) for p in (x, w, b)]
            h.backward(g)
            out["twice"] = [None if p.grad is None else _bits(p.grad) for p in (x, w, b)]
            out["freed"] = _err(lambda: h.backward(g))
            # a saved operand modified in place: the version error, blame lines included
            for p in (x, w, b):
                p.grad = None
            y2 = linear(xin, w, b).relu()
            with vg.no_grad():
                w.mul_(2.0)
            out["modified"] = _err(lambda: y2.backward(g))
    return out


@pytest.mark.parametrize("dtype", [vg.float32, vg.float64])
@pytest.mark.parametrize("rx,rw,rb,x_kind", LINEAR_CASES)
def test_lean_linear_is_the_teaching_path(rx, rw, rb, x_kind, dtype):
    assert _linear_run(True, dtype, rx, rw, rb, x_kind) == \
        _linear_run(False, dtype, rx, rw, rb, x_kind)


def _saved_fields(node):
    return {k: (v.output_nr, v.had_grad_fn, v.saved_version, v.tensor is not None,
                None if v.where is None else (v.where[0], vg.autograd.blame._resolve(
                    v.where[1])))
            if isinstance(v, vg.autograd.graph.SavedTensor) else v
            for k, v in node._saved.items()}


@pytest.mark.parametrize("x_kind", ["second_output", "leaf", "history"])
def test_lean_linear_saves_what_record_saves(x_kind):
    """The SavedTensors lean_linear builds in line have record's fields: the input's
    output number (aminmax's max is its output 1), history, version, the user's line."""
    def run(fast):
        rng = np.random.default_rng(3)
        x = vg.tensor(rng.standard_normal((2, 4, 3)), requires_grad=True)
        w = vg.tensor(rng.standard_normal((5, 3)), requires_grad=True)
        b = vg.tensor(rng.standard_normal(5), requires_grad=True)
        xin = {"second_output": lambda: vg.aminmax(x * 1.0, dim=0)[1],
               "leaf": lambda: x[0].detach().requires_grad_(),
               "history": lambda: x[0] * 2.0}[x_kind]()
        with _way(fast):
            y = linear(xin, w, b)
        return _saved_fields(y.grad_fn), _saved_fields(y.grad_fn.next_functions[2][0])

    assert run(True) == run(False)


@pytest.mark.host_only("Note [lean linear] is for host arrays; other devices take addmm")
def test_lean_linear_is_taken_and_hands_the_rest_on(monkeypatch):
    seen = []
    real = nn_fast.lean_linear
    monkeypatch.setattr(nn_fast, "lean_linear",
                        lambda *a: seen.append(r := real(*a)) or r)
    x = vg.randn(4, 3, requires_grad=True)
    w = vg.randn(5, 3, requires_grad=True)
    b = vg.randn(5, requires_grad=True)
    linear(x, w, b)
    assert seen[-1] is not None
    others = [lambda: linear(x, w.t().t(), b),                  # a view as the weight
              lambda: linear(x.double(), w.double(), b),       # mixed dtypes: refused
              lambda: linear(x, w, b.reshape(1, 5)),            # a 2-D bias
              lambda: linear(x[0], w, b),                       # a 1-D input
              lambda: linear(x.half(), w.half(), b.half()),
              lambda: linear(vg.randn(4, 2), w, b)]             # mismatched features
    for f in others:
        n = len(seen)
        _err(f)
        assert all(r is None for r in seen[n:])
    with vg.no_grad():
        linear(x, w, b)
    with vg.autograd.detect_anomaly():
        linear(x, w, b)
    assert [r is None for r in seen[-2:]] == [True, True]


@pytest.mark.parametrize("fast", [True, False])
def test_linear_errors_are_the_teaching_paths(fast):
    x = vg.randn(4, 3, requires_grad=True)
    w = vg.randn(5, 3, requires_grad=True)
    with _way(fast):
        errs = [_err(lambda: linear(x, vg.randn(5, 2), vg.randn(5))),
                _err(lambda: linear(x, w, vg.randn(5, dtype=vg.float64))),
                _err(lambda: linear(x, w, vg.randn(4)))]
    with _way(not fast):
        assert errs == [_err(lambda: linear(x, vg.randn(5, 2), vg.randn(5))),
                        _err(lambda: linear(x, w, vg.randn(5, dtype=vg.float64))),
                        _err(lambda: linear(x, w, vg.randn(4)))]
    assert all(e is not None for e in errs)


def test_linear_relu_matches_torch():
    torch = torch_or_skip()
    rng = np.random.default_rng(3)
    a = [rng.standard_normal(s).astype(np.float32) for s in ((6, 4), (5, 4), (5,), (6, 5))]
    vx, vw, vb = (vg.tensor(v, requires_grad=True) for v in a[:3])
    tx, tw, tb = (torch.tensor(v, requires_grad=True) for v in a[:3])
    vy = linear(vx, vw, vb).relu()
    ty = torch.nn.functional.linear(tx, tw, tb).relu()
    assert vy.grad_fn.name() == ty.grad_fn.name()
    assert [f.name() for f, _ in vy.grad_fn.next_functions[0][0].next_functions] == \
        [f.name() for f, _ in ty.grad_fn.next_functions[0][0].next_functions]
    vy.backward(vg.tensor(a[3]))
    ty.backward(torch.tensor(a[3]))
    for v, t in zip((vy, vx, vw, vb), (ty, tx, tw, tb)):
        got = (v if v is vy else v.grad).detach().cpu().numpy()
        np.testing.assert_allclose(got, (t if t is ty else t.grad).detach().numpy(),
                                   rtol=1e-5, atol=1e-6)


# -- relu ----------------------------------------------------------------------------------

RELU_PROGRAMS = {
    # the incoming gradient is a fresh product nobody else holds: masked in place
    "mlp": lambda x, w: (x @ w).relu() @ w.t(),
    # the same gradient reaches two relus (AddBackward0 hands it to both)
    "shared": lambda x, w: (x @ w).relu() + (x @ w * 2.0).relu(),
    "sum": lambda x, w: (x @ w).relu().sum(),
    "mean_expand": lambda x, w: (x @ w).relu().mean(0),
    "relu_of_leafish": lambda x, w: x.relu() * w[0],
    "twice": lambda x, w: (x @ w).relu().relu() @ w.t(),
    "inplace": lambda x, w: (x @ w * 1.0).relu_() @ w.t(),
    "hooked": lambda x, w: _hooked((x @ w).relu()) @ w.t(),
    "retained": lambda x, w: _retained((x @ w).relu()) @ w.t(),
    "zero_dim": lambda x, w: (x @ w)[0, 0].relu() * 3.0,
    # a linear layer's relu; exp saved its result, which nothing may overwrite
    "linear": lambda x, w: vg.nn.functional.linear(x, w, w[0] * 1.0).relu() @ w.t(),
    "saved_exp": lambda x, w: (x @ w * 0.1).exp().relu() @ w.t(),
    "function": lambda x, w: vg.relu(x @ w - 0.5) * 2.0,
}


def _hooked(t):
    t.register_hook(lambda g: g * 2.0)
    return t


def _retained(t):
    t.retain_grad()
    return t


def _relu_run(fast, name, dtype):
    rng = np.random.default_rng(11)
    with _way(fast):
        x = vg.tensor(rng.standard_normal((4, 3)), dtype=dtype, requires_grad=True)
        w = vg.tensor(rng.standard_normal((3, 3)), dtype=dtype, requires_grad=True)
        y = RELU_PROGRAMS[name](x, w)
        g = vg.tensor(rng.standard_normal(tuple(y.shape)), dtype=dtype)
        out = [_bits(y), _describe(y, {"x": x, "w": w}), _seq(y)]
        y.backward(g, retain_graph=True)
        out += [_bits(x.grad), _bits(w.grad)]
        # the saved result modified in place: the version error, words and blame included
        y2 = RELU_PROGRAMS[name](x, w)
        r = y2.grad_fn
        while r is not None and r.name() != "ReluBackward0":
            r = r.next_functions[0][0]
        if r is not None:
            with vg.no_grad():
                r._saved_result.add_(1.0)
            out.append(_err(lambda: y2.backward(g)))
    return out


@pytest.mark.parametrize("dtype", [vg.float32, vg.float64])
@pytest.mark.parametrize("name", sorted(RELU_PROGRAMS))
def test_relu_fast_paths_are_the_teaching_path(name, dtype):
    assert _relu_run(True, name, dtype) == _relu_run(False, name, dtype)


@pytest.mark.host_only("Note [relu's backward in place] is for host arrays")
def test_relu_backward_writes_into_an_unshared_gradient(monkeypatch):
    """The gradient a ReluBackward0 returns is the array it was given when nobody else
    holds it (the array of ``h @ w.t()``'s backward); a shared one is left alone."""
    got = []
    real = nn_fast.ReluNode._lean_apply

    def spy(self, grads):
        a = id(grads[0])   # (an id: a reference would keep it from being written into)
        r = real(self, grads)
        got.append(r is not None and id(r[0]) == a)
        return r
    monkeypatch.setattr(nn_fast.ReluNode, "_lean_apply", spy)
    x = vg.randn(4, 3, requires_grad=True)
    w = vg.randn(3, 3, requires_grad=True)
    ((x @ w).relu() @ w.t()).sum().backward()
    assert got == [True]
    # AddBackward0 hands one gradient to both relus: neither may write into it
    ((x @ w).relu() + (x @ w).relu()).sum().backward()
    assert got[1:] == [False, False]
    with _way(False):
        ((x @ w).relu() @ w.t()).sum().backward()
    assert got[3:] == [False]


@pytest.mark.host_only("relu_grad_new's ways are for host arrays")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(4, 8), (16, 16), (17, 16), (300,), (), (8, 4, 2)])
def test_relu_kernel_is_one_formula_at_every_size(shape, dtype):
    """ReluBackward0's kernel takes ``where`` for a few elements and the bit multiply for
    more (nn_fast.relu_grad_new): the same bits as the in-place kernel and as PyTorch's
    ``result <= 0 ? 0 : grad`` (+0 where the result is a zero of either sign, the
    gradient itself, -0 and NaN included, where the result is NaN or positive), and the
    result's layout is the multiply's, for a transposed gradient too."""
    rng = np.random.default_rng(len(shape))
    n = int(np.prod(shape))
    edges = np.array([0.0, -0.0, np.nan, np.inf, 1.5, -2.0, 1e-30], dtype)
    x = np.resize(np.concatenate([edges, rng.standard_normal(n).astype(dtype)]), shape)
    result = np.maximum(np.zeros((), dtype), x)
    grad = np.resize(np.concatenate([np.array([-1.0, -0.0, np.nan, -np.inf], dtype),
                                     rng.standard_normal(n).astype(dtype)]), shape)
    want = np.where(result <= 0, np.zeros((), dtype), grad)
    for g, r, w in ((grad, result, want), (grad.T, result.T, want.T),
                    (grad.T.copy(), result.T, want.T)):
        got = nn_fast.relu_grad_new(g, r)
        ip = nn_fast.relu_grad(g.copy(), r, out=g.copy())
        bits = f"i{want.itemsize}"
        for a in (got, ip):
            assert a.dtype == dtype and a.shape == g.shape
            np.testing.assert_array_equal(np.ascontiguousarray(a).view(bits),
                                          np.ascontiguousarray(w).view(bits))
        assert got.strides == nn_fast.relu_grad(g, r).strides


def test_relu_matches_torch():
    torch = torch_or_skip()
    a = np.array([[-1.5, 0.0, 2.0], [3.0, -0.0, -2.0]], dtype=np.float32)
    v = vg.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    vy, ty = (v * 1.0).relu(), (t * 1.0).relu()
    assert vy.grad_fn.name() == ty.grad_fn.name()
    np.testing.assert_array_equal(vy.detach().cpu().numpy(), ty.detach().numpy())
    (vy * 2.0).sum().backward()
    (ty * 2.0).sum().backward()
    np.testing.assert_array_equal(v.grad.cpu().numpy(), t.grad.numpy())


# -- cross_entropy / nll_loss ---------------------------------------------------------------

CE_CASES = {
    "default": dict(),
    "sum": dict(reduction="sum"),
    "none": dict(reduction="none"),
    "ignored": dict(ignore_index=2),
    "ignore_unused": dict(ignore_index=7),
    "weighted": dict(weight=True),
    "smoothing": dict(label_smoothing=0.1),
}


def _ce_run(fast, case, dtype, fn):
    rng = np.random.default_rng(5)
    kw = dict(CE_CASES[case])
    with _way(fast):
        if kw.pop("weight", None):
            kw["weight"] = vg.tensor(rng.random(4) + 0.5, dtype=dtype)
        z = vg.tensor(rng.standard_normal((6, 4)) * 3, dtype=dtype, requires_grad=True)
        t = vg.tensor([0, 2, 3, 1, 2, 0])
        logits = z * 1.0
        if fn == "nll":
            kw.pop("label_smoothing", None)
            loss = nll_loss(logits.log_softmax(1), t, **kw)
        else:
            loss = cross_entropy(logits, t, **kw)
        out = [_bits(loss), _describe(loss), _seq(loss)]
        g = vg.tensor(rng.standard_normal(tuple(loss.shape)), dtype=dtype)
        loss.backward(g)
        out.append(_bits(z.grad))
        z.grad = None
        loss = cross_entropy(z * 0.0, t, **kw) if fn == "ce" else None
        if loss is not None:   # a zero incoming gradient, and an all-zero input
            loss.backward(g * 0.0)
            out.append(_bits(z.grad))
        # the saved target modified in place: the version error, blame line included
        loss = cross_entropy(z * 1.0, t, **kw) if fn == "ce" else nll_loss(
            (z * 1.0).log_softmax(1), t, **kw)
        with vg.no_grad():
            t.add_(0)
        out.append(_err(lambda: loss.backward(g)))
        out.append(_err(lambda: cross_entropy(z, vg.tensor([0, 4, 1, 1, 1, 1]))))
        out.append(_err(lambda: cross_entropy(z, vg.tensor([0, -3, 1, 1, 1, 1]))))
    return out


@pytest.mark.parametrize("fn", ["ce", "nll"])
@pytest.mark.parametrize("dtype", [vg.float32, vg.float64])
@pytest.mark.parametrize("case", sorted(CE_CASES))
def test_nll_counted_is_the_teaching_path(case, dtype, fn):
    assert _ce_run(True, case, dtype, fn) == _ce_run(False, case, dtype, fn)


@pytest.mark.host_only("Note [lean cross_entropy] is for host arrays")
def test_lean_cross_entropy_is_taken(monkeypatch):
    from viewgrad.ops import nnops
    seen = []
    real = nnops._lean_cross_entropy
    monkeypatch.setattr(nnops, "_lean_cross_entropy",
                        lambda *a: seen.append(r := real(*a)) or r)
    z = vg.randn(5, 3, requires_grad=True)
    t = vg.tensor([0, 1, 2, 1, 0])
    cross_entropy(z * 1.0, t)
    cross_entropy(z * 1.0, t, reduction="sum", ignore_index=3)
    assert all(r is not None for r in seen)
    for call in (lambda: cross_entropy(z, t),                       # a leaf: teaching
                 lambda: cross_entropy(z * 1.0, t, ignore_index=1),  # ignore_index in range
                 lambda: cross_entropy((z * 1.0)[1:], t[1:]),        # a view
                 lambda: cross_entropy(z * 1.0, vg.tensor([0, 1, 3, 1, 0]))):
        n = len(seen)
        _err(call)
        assert [r is None for r in seen[n:]] == [True]


ADDMM_CASES = [dict(beta=1, alpha=1), dict(beta=0.5, alpha=1), dict(beta=1, alpha=2.0),
               dict(beta=0, alpha=-1.5)]


@pytest.mark.parametrize("bias_shape", [(5,), (4, 5), (1, 5), ()])
@pytest.mark.parametrize("kw", ADDMM_CASES)
@pytest.mark.parametrize("needs", [(True, True, True), (False, True, False),
                                   (True, False, True), (False, False, True)])
def test_addmm_backward_is_the_teaching_path(kw, bias_shape, needs):
    def run(fast):
        rng = np.random.default_rng(8)
        with _way(fast):
            b, m1, m2 = (vg.tensor(rng.standard_normal(s), requires_grad=r)
                         for s, r in zip((bias_shape, (4, 3), (5, 3)), needs))
            y = vg.addmm(b * 1.0 if needs[0] else b, m1 * 1.0, (m2 * 1.0).t(), **kw)
            g = vg.tensor(rng.standard_normal((4, 5)))
            y.backward(g, retain_graph=True)
            out = [_bits(y)] + [None if p.grad is None else _bits(p.grad) for p in (b, m1, m2)]
            with vg.no_grad():
                m1.mul_(2.0)
                m2.mul_(2.0)
            out.append(_err(lambda: y.backward(g)))
            return out
    assert run(True) == run(False)


def test_nll_counted_keeps_a_nan_as_the_teaching_path_does():
    z = vg.tensor([[np.nan, 1.0], [2.0, -np.inf]], requires_grad=True)
    t = vg.tensor([0, 1])
    res = []
    for fast in (True, False):
        with _way(fast):
            loss = nll_loss(z * 1.0, t)
            loss.backward()
            res.append((_bits(loss), _bits(z.grad)))
            z.grad = None
    assert res[0] == res[1]


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_cross_entropy_matches_torch(reduction):
    torch = torch_or_skip()
    rng = np.random.default_rng(9)
    a = rng.standard_normal((8, 5)).astype(np.float32)
    y = rng.integers(0, 5, 8)
    v = vg.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    vl = cross_entropy(v * 1.0, vg.tensor(y), reduction=reduction)
    tl = torch.nn.functional.cross_entropy(t * 1.0, torch.tensor(y), reduction=reduction)
    assert vl.grad_fn.name() == tl.grad_fn.name()
    vl.backward()
    tl.backward()
    np.testing.assert_allclose(vl.item(), tl.item(), rtol=1e-6)
    np.testing.assert_allclose(v.grad.cpu().numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-7)


# -- sub_ / add_ with alpha under no_grad (inplace.py) -------------------------------------

def _update_way(fast):
    from viewgrad.ops import inplace
    return inplace.set_fast_update(fast)


UPDATE_CASES = {
    "sgd": lambda p, g: p.sub_(g, alpha=1e-3),
    "add": lambda p, g: p.add_(g, alpha=-0.5),
    "int_alpha": lambda p, g: p.sub_(g, alpha=2),
    "broadcast": lambda p, g: p.sub_(g[0], alpha=0.25),
    "self_view": lambda p, g: p[1:].sub_(g[1:], alpha=0.25),
    "aliased": lambda p, g: p.sub_(p, alpha=0.5),
    "overlap": lambda p, g: p[1:].sub_(p[:-1], alpha=0.5),
    "float64_other": lambda p, g: p.sub_(g.double(), alpha=0.5),
    "int_self": lambda p, g: p.long().sub_(g.long(), alpha=0.5),
    "number": lambda p, g: p.sub_(2.0, alpha=0.5),
    "grad_mode": lambda p, g: p.sub_(g, alpha=0.5),
    "inference": lambda p, g: p.sub_(g, alpha=0.5),
    "expanded": lambda p, g: p[0:1].expand(*p.shape).sub_(g, alpha=0.5),
    "transposed_grad": lambda p, g: p.sub_(g.t().contiguous().t(), alpha=0.5),
    # one storage, no overlap: axpy takes it (Note [an update in one call], blas.py)
    "rows_of_one_matrix": lambda p, g: p[0].sub_(p[2], alpha=0.5),
    "fortran_pair": lambda p, g: p.t().sub_(g.t(), alpha=0.5),
    "readonly_grad": lambda p, g: p.sub_(vg.from_numpy(_readonly(g.numpy())), alpha=0.5),
}


def _readonly(a):
    a = a.copy()
    a.flags.writeable = False
    return a


def _update_run(fast, case, dtype, shape=(3, 4)):
    from viewgrad.autograd import blame
    rng = np.random.default_rng(2)
    prev = _update_way(fast)
    try:
        p = vg.tensor(rng.standard_normal(shape) * 1e3, dtype=dtype, requires_grad=True)
        g = vg.tensor(rng.standard_normal(shape), dtype=dtype)
        p.grad = g
        ctx = (contextlib.nullcontext() if case == "grad_mode" else vg.inference_mode()
               if case == "inference" else vg.no_grad())
        with ctx:
            err = _err(lambda: UPDATE_CASES[case](p, p.grad))
        bumps = [(op, blame._resolve(w) if w else None, v)
                 for op, w, _, v in (p._version_counter.bumps or [])]
        return err, _bits(p), _bits(g), p._version, g._version, bumps
    finally:
        _update_way(prev)


@pytest.fixture(params=["axpy", "no_blas"])
def blas_way(request, monkeypatch):
    """Both ways of Note [alpha as one fused multiply-add] (blas.py): NumPy's BLAS axpy,
    and the two-rounding formula of a NumPy without it."""
    from viewgrad import blas
    if request.param == "no_blas":
        monkeypatch.setattr(blas, "AXPY", None)
    elif blas.AXPY is None:
        pytest.skip("this NumPy's BLAS has no axpy that viewgrad knows (blas.py)")
    return request.param


@pytest.mark.parametrize("shape", [(3, 4), (16, 32), (96, 128)])
@pytest.mark.parametrize("dtype", [vg.float32, vg.float64])
@pytest.mark.parametrize("case", sorted(UPDATE_CASES))
def test_update_with_alpha_is_the_teaching_path(case, dtype, shape, blas_way):
    # (3, 4): a tail past axpy's blocks; (16, 32): whole blocks, axpy_dense's one call;
    # (96, 128): more than one BLAS thread's chunk (blas.py)
    assert _update_run(True, case, dtype, shape) == _update_run(False, case, dtype, shape)


@pytest.mark.parametrize("dtype", [vg.float32, vg.float64])
@pytest.mark.parametrize("case", ["sgd", "add", "int_alpha", "transposed_grad", "aliased"])
def test_update_with_alpha_in_the_scratch_buffer_is_the_teaching_path(case, dtype,
                                                                      monkeypatch):
    from viewgrad import blas
    monkeypatch.setattr(blas, "AXPY", None)   # the scratch buffer is the no-BLAS way
    # 128 x 160 floats: 80 / 160 KiB, inside Note [a scratch buffer for the scaled update]
    fast = _update_run(True, case, dtype, (128, 160))
    assert fast == _update_run(False, case, dtype, (128, 160))
    assert fast[0] is None


@pytest.mark.host_only("Note [a scratch buffer for the scaled update] is for host arrays")
def test_scaled_update_reuses_one_bounded_buffer_per_thread(monkeypatch):
    import threading
    from viewgrad.ops import inplace
    monkeypatch.setattr(inplace, "_SCRATCH", threading.local())
    g = np.arange(20000, dtype=np.float32).reshape(100, 200)   # 80,000 bytes
    r = inplace._scaled(g, 0.5)
    buf = inplace._SCRATCH.buf
    assert buf.nbytes == g.nbytes and np.shares_memory(r, buf)
    assert r.dtype == g.dtype and r.shape == g.shape
    assert _bits(vg.tensor(r)) == _bits(vg.tensor(g * 0.5))
    small = np.ones((45, 200), np.float64)   # 72,000 bytes: reused, not regrown
    r2 = inplace._scaled(small, 0.25)
    assert inplace._SCRATCH.buf is buf and np.shares_memory(r2, buf)
    assert not np.shares_memory(inplace._scaled(np.ones(10, np.float32), 2.0), buf)
    monkeypatch.setattr(inplace, "_SCRATCH_MAX", 100_000)   # above the bound: a temporary
    big = np.ones((200, 200), np.float32)
    assert not np.shares_memory(inplace._scaled(big, 2.0), buf)
    assert inplace._SCRATCH.buf is buf
    other = []
    t = threading.Thread(target=lambda: (inplace._scaled(g, 0.5),
                                         other.append(inplace._SCRATCH.buf)))
    t.start()
    t.join()
    assert other[0] is not buf   # each thread its own: no race between two updates


@pytest.mark.host_only("Note [a scratch buffer for the scaled update] is for host arrays")
def test_sgd_step_takes_the_scratch_buffer_and_keeps_the_grad(monkeypatch):
    import threading
    from viewgrad import blas
    from viewgrad.ops import inplace
    monkeypatch.setattr(blas, "AXPY", None)   # the scratch buffer is the no-BLAS way
    monkeypatch.setattr(inplace, "_SCRATCH", threading.local())
    rng = np.random.default_rng(5)
    w = vg.tensor(rng.standard_normal((64, 300)).astype(np.float32), requires_grad=True)
    (w * w).sum().backward()
    g = w.grad.numpy().copy()
    before = w.detach().numpy().copy()
    vg.optim.SGD([w], lr=0.1).step()
    assert inplace._SCRATCH.buf.nbytes == w.numel() * 4
    np.testing.assert_array_equal(w.grad.numpy(), g)   # p.grad untouched
    np.testing.assert_array_equal(w.detach().numpy(), before - g * np.float32(0.1))


@pytest.mark.host_only("Note [alpha as one fused multiply-add] is for host arrays")
def test_sgd_step_with_axpy_is_one_pass_one_rounding_and_keeps_the_grad(monkeypatch):
    import threading
    from viewgrad import blas
    from viewgrad.ops import inplace
    if blas.AXPY is None:
        pytest.skip("this NumPy's BLAS has no axpy that viewgrad knows (blas.py)")
    monkeypatch.setattr(inplace, "_SCRATCH", threading.local())
    calls = []
    real = blas.axpy_dense   # (Note [an update in one call], blas.py)
    monkeypatch.setattr(blas, "axpy_dense", lambda *a: calls.append(a[0].shape) or real(*a))
    rng = np.random.default_rng(5)
    w = vg.tensor(rng.standard_normal((64, 300)).astype(np.float32), requires_grad=True)
    c = vg.tensor(rng.standard_normal((64, 300)).astype(np.float32))
    (w * c).sum().backward()
    g = w.grad.numpy().copy()
    before = w.detach().numpy().copy()
    vg.optim.SGD([w], lr=0.1).step()
    assert calls == [(64, 300)] and not hasattr(inplace._SCRATCH, "buf")
    np.testing.assert_array_equal(w.grad.numpy(), g)   # p.grad untouched
    # one rounding: the exact p - lr*g (exact in float64 for float32 operands), rounded
    exact = before.astype(np.float64) - np.float64(np.float32(0.1)) * g.astype(np.float64)
    np.testing.assert_array_equal(w.detach().numpy(), exact.astype(np.float32))
    assert not np.array_equal(w.detach().numpy(), before - g * np.float32(0.1))


@pytest.mark.host_only("Note [an update with alpha, under no_grad] is for host arrays")
def test_update_with_alpha_is_taken(monkeypatch):
    from viewgrad.ops import inplace
    seen = []
    real = inplace.apply_inplace
    monkeypatch.setattr(inplace, "apply_inplace", lambda *a, **k: seen.append(a[0].name)
                        or real(*a, **k))
    p = vg.randn(3, 4, requires_grad=True)
    with vg.no_grad():
        p.sub_(vg.randn(3, 4), alpha=0.1)
        p.add_(vg.randn(3, 4), alpha=0.1)
        assert seen == []
        p.sub_(vg.randn(4), alpha=0.1)
    assert seen == ["sub_alpha"]


def test_sgd_update_matches_torch():
    torch = torch_or_skip()
    rng = np.random.default_rng(4)
    a, b = (rng.standard_normal((5, 3)).astype(np.float32) for _ in range(2))
    v, t = vg.tensor(a), torch.tensor(a)
    with vg.no_grad():
        v.sub_(vg.tensor(b), alpha=1e-3)
        v.add_(vg.tensor(b), alpha=0.5)
    with torch.no_grad():
        t.sub_(torch.tensor(b), alpha=1e-3)
        t.add_(torch.tensor(b), alpha=0.5)
    assert v._version == t._version
    from viewgrad import blas
    if blas.AXPY is not None and v.device.type == "cpu":   # one rounding, as torch
        np.testing.assert_array_equal(v.cpu().numpy(), t.numpy())
    np.testing.assert_allclose(v.cpu().numpy(), t.numpy(), rtol=1e-6)


# -- Note [the classes the lean paths take] (tensor.py): a Module's Parameters -------------

def _all_ways(fast):
    """Every lean path of a training step on (fast) or off, as one context."""
    from viewgrad.ops import inplace, lean
    stack = contextlib.ExitStack()
    for setter in (nn_fast.set_nn_fast, lean.set_lean_ops, _update_way):
        prev = setter(fast)
        stack.callback(setter, prev)
    return stack


def _module_steps(fast, dtype, momentum):
    """Two training steps of a Module (Linear, ReLU, Linear; cross-entropy; SGD):
    everything observable, the lean paths on or off."""
    rng = np.random.default_rng(11)
    with _all_ways(fast):
        vg.manual_seed(3)
        m = vg.nn.Sequential(vg.nn.Linear(3, 5), vg.nn.ReLU(), vg.nn.Linear(5, 4)).to(dtype)
        opt = vg.optim.SGD(m.parameters(), lr=0.1, momentum=momentum)
        x = vg.tensor(rng.standard_normal((6, 3)), dtype=dtype)
        y = vg.tensor(rng.integers(0, 4, 6))
        out = []
        for _ in range(2):
            opt.zero_grad()
            z = m(x)
            h = z * 2.0 + m[0].bias.exp().sum()   # a Parameter (a leaf) in a lean op too
            loss = vg.nn.functional.cross_entropy(h, y)
            params = {f"p{i}": p for i, p in enumerate(m.parameters())}
            out.append((_describe(loss, params), _seq(loss), _bits(loss)))
            loss.backward()
            out.append([_bits(p.grad) for p in m.parameters()])
            opt.step()
            out.append([(_bits(p), p._version) for p in m.parameters()])
    return out


@pytest.mark.parametrize("momentum", [0.0, 0.9])
@pytest.mark.parametrize("dtype", [vg.float32, vg.float64])
def test_module_training_lean_is_the_teaching_path(dtype, momentum):
    assert _module_steps(True, dtype, momentum) == _module_steps(False, dtype, momentum)


@pytest.mark.host_only("the lean paths are for host arrays")
def test_parameters_take_the_lean_paths(monkeypatch):
    """A Parameter is not refused by the lean paths (Note [the classes the lean paths
    take]): nn.Linear's forward is lean_linear's, SGD's update is Note [an update with
    alpha, under no_grad]'s, and a leaf Parameter in a unary or Python-number op takes
    the lean op."""
    from viewgrad.ops import inplace, table
    seen = []
    real = nn_fast.lean_linear
    monkeypatch.setattr(nn_fast, "lean_linear", lambda *a: seen.append(r := real(*a)) or r)
    layer = vg.nn.Linear(3, 2)
    layer(vg.randn(4, 3)).sum().backward()
    assert len(seen) == 1 and seen[0] is not None
    slow = []
    real_inplace = inplace.apply_inplace
    monkeypatch.setattr(inplace, "apply_inplace",
                        lambda *a, **k: slow.append(a[0].name) or real_inplace(*a, **k))
    vg.optim.SGD(layer.parameters(), lr=0.1).step()
    assert slow == []
    dispatched = []
    real_dispatch = table.dispatch
    monkeypatch.setattr(table, "dispatch",
                        lambda op, *a, **k: dispatched.append(op.name) or
                        real_dispatch(op, *a, **k))
    from viewgrad.ops import lean
    monkeypatch.setattr(lean, "dispatch", table.dispatch)
    w = layer.weight
    assert type(w) is vg.nn.Parameter
    w.exp(), w * 2.0
    assert dispatched == []


def test_module_step_matches_torch():
    torch = torch_or_skip()
    rng = np.random.default_rng(12)
    mods = []
    for lib in (vg, torch):
        m = lib.nn.Sequential(lib.nn.Linear(3, 5), lib.nn.ReLU(), lib.nn.Linear(5, 4))
        mods.append((m, lib.optim.SGD(m.parameters(), lr=0.1)))
    with torch.no_grad():
        for pv, pt in zip(mods[0][0].parameters(), mods[1][0].parameters()):
            pt.copy_(torch.tensor(pv.detach().cpu().numpy()))
    x = rng.standard_normal((6, 3)).astype(np.float32)
    y = rng.integers(0, 4, 6)
    start = [[p._version for p in m.parameters()] for m, _ in mods]
    for lib, (m, opt) in zip((vg, torch), mods):
        for _ in range(3):
            opt.zero_grad()
            lib.nn.functional.cross_entropy(m(lib.tensor(x)), lib.tensor(y)).backward()
            opt.step()
    for pv, pt, sv, st in zip(mods[0][0].parameters(), mods[1][0].parameters(), *start):
        assert pv._version - sv == pt._version - st == 3   # one bump a step
        np.testing.assert_allclose(pv.detach().cpu().numpy(), pt.detach().numpy(),
                                   rtol=1e-5, atol=1e-6)


@pytest.mark.host_only("the lean backward steps are for host arrays")
def test_a_training_step_takes_no_general_backward_step(monkeypatch):
    """Every node of the MLP step (linear, relu, cross_entropy) answers from its lean step
    in a plain backward: the general ``FnNode.apply_arrays`` is never run. (A lean step
    lost by an edit, as _NllNode's once was when a helper was pasted inside its class,
    still gives the right numbers; only this sees it.)"""
    general = general_steps(monkeypatch)
    rng = np.random.default_rng(0)
    for dtype in (vg.float32, vg.float64):
        P = [vg.tensor(rng.standard_normal(s), dtype=dtype, requires_grad=True)
             for s in ((6, 5), (6,), (4, 6), (4,))]
        x = vg.tensor(rng.standard_normal((3, 5)), dtype=dtype)
        h = linear(x, P[0], P[1]).relu()
        for reduction in ("mean", "sum"):
            loss = cross_entropy(linear(h, P[2], P[3]), vg.tensor([0, 3, 1]),
                                   reduction=reduction)
            loss.backward(retain_graph=True)
    assert general == []
