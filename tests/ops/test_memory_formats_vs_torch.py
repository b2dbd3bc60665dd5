"""Memory formats against PyTorch (Note [memory formats], backend/formats.py): what
``clone``, ``contiguous``, ``to``, ``empty``, the ``*_like`` factories and ``is_contiguous``
do with ``memory_format=`` on random geometries (permuted, stepped, with dims of size 0
and 1), the strides of the results, when ``to`` returns the tensor itself, ``to``'s
argument parsing (a ``True`` after a dtype is ``non_blocking``), the random ``*_like``
samplers' values under a seed, and ``nn.Module.to``."""
import copy
import itertools

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import raised

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")

pytestmark = pytest.mark.host_only("compares strides with torch on the CPU")

FORMATS = ("contiguous_format", "preserve_format", "channels_last", "channels_last_3d")


def _geometries(n, seed):
    """(shape of the base, permutation, slices) of random views: 2- to 5-D."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        nd = int(rng.integers(2, 6))
        shape = tuple(int(s) for s in rng.choice([0, 1, 1, 2, 3, 4], nd,
                                                 p=[.05, .25, .1, .25, .2, .15]))
        perm = tuple(int(p) for p in rng.permutation(nd))
        steps = tuple(int(s) for s in rng.choice([1, 1, 1, 2], nd))
        out.append((shape, perm, steps))
    return out


def _view(M, shape, perm, steps, dtype=None, requires_grad=False):
    base = M.arange(int(np.prod(shape)), dtype=dtype or M.float64).reshape(shape)
    v = base.permute(*perm)[tuple(slice(None, None, s) for s in steps)]
    if requires_grad:
        v = v.detach().requires_grad_()
    return v


def _outcome(fn):
    """(strides, values) of ``fn()``'s tensor, or what it raised."""
    err = raised(fn)
    if err is not None:
        return err
    r = fn()
    return tuple(r.stride()), np.asarray(r.detach().tolist()).tolist()


CALLS = {
    "clone": lambda M, x, f: x.clone(memory_format=f),
    "contiguous": lambda M, x, f: x.contiguous(memory_format=f),
    "to": lambda M, x, f: x.to(memory_format=f),
    "to float32": lambda M, x, f: x.to(M.float32, memory_format=f),
    "to copy": lambda M, x, f: x.to(copy=True, memory_format=f),
    "empty_like": lambda M, x, f: M.empty_like(x, memory_format=f).fill_(1),
    "zeros_like": lambda M, x, f: M.zeros_like(x, memory_format=f),
    "ones_like int": lambda M, x, f: M.ones_like(x, dtype=M.int64, memory_format=f),
    "full_like": lambda M, x, f: M.full_like(x, 3.5, memory_format=f),
    "empty": lambda M, x, f: M.empty(tuple(x.shape), memory_format=f).fill_(2),
}


@pytest.mark.parametrize("call", sorted(CALLS))
def test_layouts_and_refusals_as_pytorchs(call):
    fn = CALLS[call]
    for shape, perm, steps in _geometries(150, seed=len(call)):
        for name in FORMATS:
            want = _outcome(lambda: fn(torch, _view(torch, shape, perm, steps),
                                       getattr(torch, name)))
            got = _outcome(lambda: fn(vg, _view(vg, shape, perm, steps), getattr(vg, name)))
            assert got == want, (call, shape, perm, steps, name)


def test_is_contiguous_and_what_to_returns_as_pytorchs():
    for shape, perm, steps in _geometries(400, seed=7):
        t, v = _view(torch, shape, perm, steps), _view(vg, shape, perm, steps)
        for name in FORMATS:
            tf, vf = getattr(torch, name), getattr(vg, name)
            where = (shape, perm, steps, name)
            assert v.is_contiguous(memory_format=vf) == t.is_contiguous(memory_format=tf), where
            assert raised(lambda: v.to(memory_format=vf)) == raised(
                lambda: t.to(memory_format=tf)), where
            if raised(lambda: t.to(memory_format=tf)) is None:
                assert (v.to(memory_format=vf) is v) == (t.to(memory_format=tf) is t), where
            assert (raised(lambda: v.contiguous(memory_format=vf)) is None) == (
                raised(lambda: t.contiguous(memory_format=tf)) is None), where
            if raised(lambda: t.contiguous(memory_format=tf)) is None:
                assert (v.contiguous(memory_format=vf) is v) == (
                    t.contiguous(memory_format=tf) is t), where


def test_suggested_format_as_pytorchs_heuristic():
    from torch._prims_common import suggest_memory_format
    rng = np.random.default_rng(11)
    for _ in range(3000):
        nd = int(rng.integers(3, 6))
        shape = tuple(int(s) for s in rng.integers(0, 4, nd))
        st = tuple(int(s) for s in rng.integers(0, 40, nd))
        want = suggest_memory_format(torch.empty_strided(shape, st))
        got = vg.backend.suggest_memory_format(shape, st)
        assert repr(got) == repr(want), (shape, st)


def test_gradients_through_format_copies_as_pytorchs():
    for shape in [(2, 3, 4, 5), (1, 3, 1, 2), (2, 1, 3, 2, 2)]:
        for name in FORMATS:
            outs = []
            for M in (torch, vg):
                x = M.arange(float(np.prod(shape)), dtype=M.float64).reshape(shape)
                x = x.permute(*reversed(range(len(shape)))).detach().requires_grad_()
                f = getattr(M, name)
                err = raised(lambda: x.to(M.float32, memory_format=f))
                if err is not None:
                    outs.append(err)
                    continue
                y = x.to(M.float32, memory_format=f)
                z = x.clone(memory_format=f) if name != "channels_last_3d" or \
                    len(shape) == 5 else x.clone()
                (y.double() * z).sum().backward()
                outs.append((y.grad_fn.name(), tuple(y.stride()), tuple(x.grad.stride()),
                             x.grad.tolist()))
            assert outs[0] == outs[1], (shape, name)


def test_random_like_values_under_a_seed_as_pytorchs():
    for shape, perm, steps in _geometries(60, seed=5):
        for name in ("rand_like", "randn_like", "randint_like"):
            for fmt in (None, "contiguous_format", "channels_last"):
                res = []
                for M in (torch, vg):
                    x = _view(M, shape, perm, steps, dtype=M.float32)
                    kw = {} if fmt is None else {"memory_format": getattr(M, fmt)}
                    args = (x, 7) if name == "randint_like" else (x,)
                    M.manual_seed(3)
                    res.append(_outcome(lambda: getattr(M, name)(*args, **kw)))
                assert res[0][0] == res[1][0], (name, shape, perm, steps, fmt)
                if isinstance(res[0][1], list):
                    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-6, atol=1e-7)


TO_ARGS = [
    ("float64", True), ("float64", False, True), ("cpu", "float64", True, True),
    ("cpu", "float64", False), ("cpu", None), (None, "float64"), (None,), (True,), (1.5,),
    (True, True), ("cpu", True), ("float64", None), ("float64", 1), ("x", True, True),
    ("x", None), ("float64", False, False, "contiguous_format"), (int,), (float,), (bool,),
]
TO_KWARGS = [
    {"non_blocking": True}, {"copy": True}, {"dtype": "float64", "copy": True},
    {"device": "cpu", "dtype": "float64"}, {"memory_format": "contiguous_format"},
    {"non_blocking": 1}, {"memory_format": "preserve_format", "copy": False},
]


def _resolve(M, x, a):
    if a == "x":
        return x
    if isinstance(a, str) and a != "cpu":
        return getattr(M, a)
    return a


@pytest.mark.parametrize("args,kwargs",
                         [(a, {}) for a in TO_ARGS] + [((), k) for k in TO_KWARGS]
                         + [(("float64",), {"dtype": "float32"}), (("x",), {"dtype": "float64"}),
                            (("float64",), {"non_blocking": 1})])
def test_to_parses_its_arguments_as_pytorchs(args, kwargs):
    outs = []
    for M in (torch, vg):
        x = M.ones(3, 2).t()
        a = [_resolve(M, x, v) for v in args]
        k = {n: _resolve(M, x, v) for n, v in kwargs.items()}
        err = raised(lambda: x.to(*a, **k))
        if err is not None:
            outs.append(err[0])
            continue
        r = x.to(*a, **k)
        outs.append((str(r.dtype).replace("torch.", ""), r is x, tuple(r.stride())))
    assert outs[0] == outs[1]


def test_module_to_converts_as_pytorchs():
    outs = []
    for M in (torch, vg):
        m = M.nn.Sequential(M.nn.Conv2d(3, 4, 3), M.nn.BatchNorm2d(4), M.nn.Linear(2, 3))
        m.to(M.float64)
        m.to(memory_format=M.channels_last)
        got = [(n, str(t.dtype).replace("torch.", ""), tuple(t.stride()))
               for n, t in itertools.chain(m.named_parameters(), m.named_buffers())]
        got.append(raised(lambda: m.to(M.int64)))
        got.append(raised(lambda: m.to("cpu", non_blocking=True)))
        got.append(raised(lambda: M.nn.Conv3d(1, 1, 1).to(memory_format=M.channels_last)))
        outs.append(got)
    assert outs[0] == outs[1]


def test_memory_format_values_as_pytorchs():
    for name in FORMATS:
        f = getattr(vg, name)
        assert repr(f) == repr(getattr(torch, name)) == str(f)
        assert copy.deepcopy(f) is f and copy.copy(f) is f
        assert isinstance(f, vg.memory_format)
    assert raised(lambda: vg.memory_format()) == raised(lambda: torch.memory_format())
    x = vg.ones(2, 2)
    assert raised(lambda: x.clone(memory_format="contiguous")) == raised(
        lambda: torch.ones(2, 2).clone(memory_format="contiguous"))
    assert raised(lambda: x.is_contiguous(memory_format="x")) == raised(
        lambda: torch.ones(2, 2).is_contiguous(memory_format="x"))


def test_torch_code_names_the_formats():
    from viewgrad.compat import torch_imports
    src = ("import torch\n"
           "x = torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last)\n"
           "ok = (x.is_contiguous(memory_format=torch.channels_last), x.stride(),\n"
           "      torch.empty_like(x).stride(), isinstance(torch.preserve_format,"
           " torch.memory_format))\n")
    env = {}
    with torch_imports():
        exec(src, env)
    assert env["ok"] == (True, (60, 1, 15, 3), (60, 1, 15, 3), True)
