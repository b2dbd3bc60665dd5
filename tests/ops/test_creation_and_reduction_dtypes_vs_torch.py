"""Creation functions and dtype= reductions, against PyTorch's own answers.

* ``arange``: its length (ceil((end - start)/step) in double; int64 truncates start, end
  and step first) and its values bit for bit (PyTorch's CPU kernel: the accumulate type,
  whole vectors from a rounded base, fused multiply-adds: backend/ranges.py);
* ``linspace`` / ``logspace`` with every dtype, the ends converted as PyTorch converts them;
* the checked conversion of fill values: an int wraps into an unsigned dtype, a float out
  of range is refused (``full``, ``full_like``, ``scalar_tensor``, ``tensor``);
* ``prod``/``nansum``/``cumsum``/``cumprod``/``mean``/``sum`` told a dtype compute in it
  (wrapping), and their gradients when the input is float and the dtype another float;
* a handful of edges: ``tensor([[], [1, 2]])``, ``chunk`` of an empty dim,
  ``count_nonzero(dim=())``, ``bincount``'s dtype, ``ones()`` with no size,
  ``requires_grad=True`` with an integer dtype.
"""
import math
import random

import numpy as np
import pytest

import viewgrad as vg

from ..helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compares with torch CPU tensors through .numpy()")

RANGE_DTYPES = ["float16", "float32", "float64", "int64", "int32", "int16", "int8", "uint8"]


def _outcome(fn, lib, *args, **kw):
    """``("ok", array)`` or ``("err", exception type name, first line of the message)``."""
    try:
        r = fn(lib)(*args, **kw)
    except Exception as e:   # (the comparison is the point: any error)
        return ("err", type(e).__name__, str(e).split(" (")[0])
    return ("ok", r.detach().cpu().numpy() if hasattr(r, "detach") else r)


def _same(fn, *args, dtype=None, **kw):
    torch = torch_or_skip()
    tkw, vkw = dict(kw), dict(kw)
    if dtype is not None:
        tkw["dtype"], vkw["dtype"] = getattr(torch, dtype), getattr(vg, dtype)
    theirs = _outcome(fn, torch, *args, **tkw)
    ours = _outcome(fn, vg, *args, **vkw)
    where = f"{args} {kw} dtype={dtype}"
    assert ours[0] == theirs[0], f"{where}: vg {ours}, torch {theirs}"
    if ours[0] == "err":   # (viewgrad may add advice after PyTorch's words)
        assert ours[1] == theirs[1] and ours[2].startswith(theirs[2]), f"{where}: {ours}"
        return
    a, b = ours[1], theirs[1]
    assert a.dtype == b.dtype and a.shape == b.shape, f"{where}: {a.dtype}{a.shape} " \
        f"vs {b.dtype}{b.shape}"
    # bit for bit (NaNs with NaNs)
    assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), \
        f"{where}: first differences at {np.nonzero(a != b)[0][:5]}"


def _arange(lib):
    return lib.arange


# -- arange ----------------------------------------------------------------------------

@pytest.mark.parametrize("args, dtype", [
    ((-0.3, 6), "int64"), ((3.3,), "int64"), ((0, 3, 1.5), "int64"), ((4, -5, -0.3), "int8"),
    ((-0.3, 6), "int32"), ((0, 3, 1.5), "uint8"), ((-5, 5), "uint8"), ((-2.5, 2.5, 0.5), "uint8"),
    ((4, -5, -0.3), "int64"), ((-5, 5, 0.1), "float16"), ((-4, 2.0, 0.001), "float32"),
    ((0, 1, 0), None), ((0, math.inf), None), ((0, math.nan), "int64"), ((0.5, -3, 1), None),
    ((0.0, 1, math.inf), None), ((1e19, 1e19 + 1), "int64"), ((3,), "bool"),
    ((3,), "complex64"), ((5,), None), ((0.5, 4), None), ((True, 4), None),
])
def test_arange_edges(args, dtype):
    _same(_arange, *args, dtype=dtype)


def test_arange_examples_read_as_pytorchs():
    assert vg.arange(-0.3, 6, dtype=vg.int64).tolist() == [0, 1, 2, 3, 4, 5]
    assert vg.arange(4, -5, -0.3, dtype=vg.int8).tolist() == [4] * 30
    assert vg.arange(-4, 2.0, 0.001)[973].item() == np.float32(-3.027)


def test_arange_sweep_bit_for_bit():
    rng = random.Random(1234)
    for _ in range(400):
        dtype = rng.choice(RANGE_DTYPES)
        kind = rng.random()
        if kind < 0.3:   # integers
            start = rng.randint(-300, 300)
            step = rng.choice([1, -1]) * rng.randint(1, 7)
            end = start + step * rng.randint(0, 400)
        else:
            start = rng.uniform(-200, 200)
            step = rng.choice([1, -1]) * 10 ** rng.uniform(-3, 1.3)
            end = start + step * rng.uniform(0, 3000)
            if kind < 0.5:
                start = round(start)
        if dtype == "float16" and max(abs(start), abs(end)) > 60000:
            continue
        _same(_arange, start, end, step, dtype=dtype)


# -- linspace / logspace ----------------------------------------------------------------

@pytest.mark.parametrize("args, dtype", [
    ((0.25, -4, 3), "uint8"), ((-0.5, 300, 3), "uint8"), ((-1.5, 3, 3), "uint8"),
    ((0, 1e40, 3), "float32"), ((0, 1, 3), "bool"), ((-3.7, 4.9, 7), "int64"),
    ((-200, 200, 9), "int8"), ((0, 1, 1), "int32"),
])
def test_linspace_edges(args, dtype):
    _same(lambda lib: lib.linspace, *args, dtype=dtype)


@pytest.mark.parametrize("args, kw, dtype", [
    ((3.3, -2.5, 3), {}, "int64"), ((1.5, 2.0, 4), {"base": 2.0}, "int32"),
    ((-1, 3, 3), {}, "uint8"), ((-1.5, 3, 3), {}, "uint8"), ((2.5, 5, 1), {}, "int64"),
    ((0, 1, 3), {}, "bool"), ((0, 2, 0), {}, None), ((0, 2, 5), {"base": 1.1}, "int64"),
])
def test_logspace_edges(args, kw, dtype):
    _same(lambda lib: lib.logspace, *args, dtype=dtype, **kw)


@pytest.mark.parametrize("fn", ["linspace", "logspace"])
def test_linspace_logspace_sweep_bit_for_bit(fn):
    rng = random.Random(99 if fn == "linspace" else 7)
    for _ in range(300):
        dtype = rng.choice(RANGE_DTYPES)
        span = 300 if fn == "linspace" else 4
        start, end = rng.uniform(-span, span), rng.uniform(-span, span)
        if rng.random() < 0.3:
            start, end = round(start), round(end)
        if dtype == "uint8" and fn == "linspace":
            start, end = abs(start) % 255, abs(end) % 255
        kw = {"base": rng.choice([10.0, 2.0, 0.5, 3.7])} if fn == "logspace" else {}
        _same(lambda lib: getattr(lib, fn), start, end, rng.randint(0, 300), dtype=dtype, **kw)


# -- the checked conversion of fill values ------------------------------------------------

@pytest.mark.parametrize("expr", [
    "lib.full((1,), -2, dtype=lib.uint8)", "lib.full((1,), -2.5, dtype=lib.uint8)",
    "lib.full((1,), 2.5, dtype=lib.uint8)", "lib.full((1,), -300, dtype=lib.uint8)",
    "lib.full((2,), 1e40, dtype=lib.float32)", "lib.full((2,), 3.9, dtype=lib.int8)",
    "lib.full_like(lib.tensor([1], dtype=lib.uint8), -3)",
    "lib.full_like(lib.tensor([1], dtype=lib.uint8), -0.3)",
    "lib.scalar_tensor(-4, dtype=lib.uint8)", "lib.scalar_tensor(-4.5, dtype=lib.uint8)",
    "lib.scalar_tensor(3)", "lib.tensor([-0.3, 2.5], dtype=lib.uint8)",
    "lib.tensor([-1, 2.5], dtype=lib.uint8)", "lib.tensor([float('nan')], dtype=lib.int64)",
    "lib.tensor([[1.5, 300.0]], dtype=lib.uint8)", "lib.tensor([2.7, -3.9], dtype=lib.int8)",
    "lib.tensor([[], [1, 2]])", "lib.tensor([[], [1j]])", "lib.tensor([[[]], [1, 2]])",
    "lib.tensor([[], [1, 2]], dtype=lib.int64)", "lib.tensor([[1, 2], []])",
])
def test_fill_values_convert_as_pytorchs(expr):
    _same(lambda lib: lambda: eval(expr, {"lib": lib}))


# -- reductions told a dtype ----------------------------------------------------------------

REDUCTIONS = {
    "prod": lambda lib, x, dt: lib.prod(x, dtype=dt),
    "prod_dim": lambda lib, x, dt: lib.prod(x, 0, dtype=dt),
    "nansum": lambda lib, x, dt: lib.nansum(x, dtype=dt),
    "nansum_dim": lambda lib, x, dt: lib.nansum(x, 0, dtype=dt),
    "sum": lambda lib, x, dt: lib.sum(x, dtype=dt),
    "mean": lambda lib, x, dt: lib.mean(x, dtype=dt),
    "cumsum": lambda lib, x, dt: lib.cumsum(x, 0, dtype=dt),
    "cumprod": lambda lib, x, dt: lib.cumprod(x, 0, dtype=dt),
}
ALL_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
              "float64"]
VALUES = {"b": [True, False, True, True], "i": [100, 2, 3, -7], "u": [200, 100, 3, 7],
          "f": [1.5, float("nan"), -2.25, 3.0]}


@pytest.mark.parametrize("op", sorted(REDUCTIONS))
@pytest.mark.parametrize("src", ALL_DTYPES)
def test_reductions_compute_in_the_dtype_given(op, src):
    torch = torch_or_skip()
    kind = np.dtype(src).kind
    vals = VALUES[kind]
    if op.startswith("nansum") or kind != "f":
        pass
    elif op != "mean":
        vals = [v for v in vals if v == v] + [0.5]   # (NaN into an int: C's undefined)
    for dst in ALL_DTYPES + [None]:
        if kind == "f" and dst is not None and np.dtype(dst).kind in "iub" \
                and not op.startswith("nansum") and any(v != v for v in vals):
            continue
        t = torch.tensor(vals, dtype=getattr(torch, src))
        v = vg.tensor(vals, dtype=getattr(vg, src))
        theirs = _outcome(lambda lib: REDUCTIONS[op], torch, torch, t,
                          None if dst is None else getattr(torch, dst))
        ours = _outcome(lambda lib: REDUCTIONS[op], vg, vg, v,
                        None if dst is None else getattr(vg, dst))
        where = f"{op} of {src} with dtype={dst}"
        assert ours[0] == theirs[0], f"{where}: vg {ours}, torch {theirs}"
        if ours[0] == "err":
            assert ours[1] == theirs[1] and ours[2].startswith(theirs[2]), f"{where}: {ours}"
            continue
        assert ours[1].dtype == theirs[1].dtype, where
        np.testing.assert_allclose(ours[1].astype(np.float64), theirs[1].astype(np.float64),
                                   rtol=1e-3, equal_nan=True, err_msg=where)


@pytest.mark.parametrize("op", ["prod", "prod_dim", "nansum", "sum", "mean", "cumsum",
                                "cumprod"])
@pytest.mark.parametrize("src, dst", [("float32", "float64"), ("float64", "float32"),
                                      ("float32", "float16"), ("float16", "float32")])
def test_reduction_dtype_gradients(op, src, dst):
    torch = torch_or_skip()
    vals = [1.5, -2.0, 0.75, 3.0]
    t = torch.tensor(vals, dtype=getattr(torch, src), requires_grad=True)
    v = vg.tensor(vals, dtype=getattr(vg, src), requires_grad=True)
    rt = REDUCTIONS[op](torch, t, getattr(torch, dst))
    rv = REDUCTIONS[op](vg, v, getattr(vg, dst))
    assert str(rv.dtype).split(".")[-1] == dst
    rt.sum().backward()
    rv.sum().backward()
    assert v.grad.dtype == getattr(vg, src)
    np.testing.assert_allclose(v.grad.numpy().astype(np.float64),
                               t.grad.numpy().astype(np.float64), rtol=2e-3)


@pytest.mark.parametrize("op", ["prod", "nansum", "cumsum", "cumprod"])
def test_integer_dtype_of_a_float_requiring_grad_is_refused(op):
    _same(lambda lib: lambda: REDUCTIONS[op](
        lib, lib.tensor([1.0, 2.0], requires_grad=True), lib.int64))


# -- edges ---------------------------------------------------------------------------------

@pytest.mark.parametrize("expr", [
    "len(lib.chunk(lib.zeros(0), 2))", "len(lib.chunk(lib.zeros(0, 3), 3))",
    "[tuple(c.shape) for c in lib.chunk(lib.zeros(0, 3), 3)]",
    "[tuple(c.shape) for c in lib.chunk(lib.zeros(3, 0), 2, 1)]",
    "lib.count_nonzero(lib.tensor([1, 0, 2]), dim=())",
    "lib.count_nonzero(lib.ones(2, 3), dim=[])",
    "lib.bincount(lib.tensor([1, 0, 1]), weights=lib.tensor([1., 2., 3.], dtype=lib.float16))",
    "lib.bincount(lib.tensor([1, 0, 1]), weights=lib.tensor([1., 2., 3.]))",
    "lib.bincount(lib.tensor([1, 0, 1]), weights=lib.tensor([1, 2, 3]))",
    "lib.bincount(lib.tensor([], dtype=lib.int64), weights=lib.tensor([]), minlength=2)",
    "lib.bincount(lib.tensor([], dtype=lib.int64), minlength=2)",
    "lib.ones()", "lib.zeros()", "lib.empty()", "lib.ones(())",
    "lib.tensor(1.0, dtype=lib.int64, requires_grad=True)",
    "lib.ones(2, dtype=lib.int64, requires_grad=True)", "lib.arange(3, requires_grad=True)",
    "lib.full((2,), 3, requires_grad=True)",
    "lib.empty_strided((2,), (1,), dtype=lib.int64, requires_grad=True)",
    "lib.linspace(0, 1, 3, dtype=lib.int64, requires_grad=True)",
    "lib.zeros_like(lib.tensor([1.]), dtype=lib.int64, requires_grad=True)",
])
def test_edges(expr):
    def run(lib):
        r = eval(expr, {"lib": lib})
        return lambda: r if hasattr(r, "detach") else np.asarray(r)
    _same(lambda lib: lambda: run(lib)())
