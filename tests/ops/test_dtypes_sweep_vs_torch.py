"""Every argument-free Tensor method on integer, bool and float tensors against PyTorch:
the result's dtype, shape and values, or that both refuse. Integer and bool inputs are
where NumPy's rules and PyTorch's part (``np.exp(int64)`` is float64, ``uint8.sum()`` is
uint64, ``bool ** 2`` is int8), so each method is run on them all."""
import warnings

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip
from viewgrad.ops.table import METHODS

pytestmark = pytest.mark.host_only("compared with torch CPU tensors through .numpy()")

DATA = {"int64": [3, -2, 0], "int32": [3, -2, 0], "uint8": [3, 2, 0], "int8": [3, -2, 0],
        "bool": [True, False, True], "float64": [0.5, -1.5, 2.0], "float16": [0.5, -1.5, 2.0]}

# Where viewgrad knowingly differs: each with why.
KNOWN = {
    # PyTorch has no bool kernel for these (NotImplementedError); NumPy's answer is kept:
    # on bool it is the identity, which is what the op means there
    ("abs", "bool"), ("absolute", "bool"), ("ceil", "bool"), ("floor", "bool"),
    ("round", "bool"), ("trunc", "bool"), ("fix", "bool"), ("median", "bool"),
    ("bincount", "bool"), ("bernoulli", "bool"),
    # frac of integers: PyTorch has no integer kernel; viewgrad computes it in float32
    ("frac", "int64"), ("frac", "int32"), ("frac", "uint8"), ("frac", "int8"), ("frac", "bool"),
}
NAMES = sorted(n for n in METHODS if not n.startswith("_") and not n.endswith("_")
               and n != "slice")   # Tensor.slice: viewgrad's own spelling of x[a:b]


def _call(t, name):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return getattr(t, name)()


@pytest.mark.parametrize("dtype", sorted(DATA))
def test_argument_free_methods_match_torch(dtype):
    torch = torch_or_skip()
    bad = []
    for name in NAMES:
        if (name, dtype) in KNOWN:
            continue
        tt = torch.tensor(DATA[dtype], dtype=getattr(torch, dtype))
        vt = vg.tensor(DATA[dtype], dtype=getattr(vg, dtype))
        if not hasattr(tt, name):
            continue
        try:
            tr = _call(tt, name)
        except TypeError:
            continue   # needs arguments
        except Exception as e:  # noqa: BLE001 - any refusal counts
            tr = e
        try:
            vr = _call(vt, name)
        except Exception as e:  # noqa: BLE001
            vr = e
        if isinstance(tr, Exception) or isinstance(vr, Exception):
            if isinstance(tr, Exception) != isinstance(vr, Exception):
                bad.append((name, "refused" if isinstance(vr, Exception) else "accepted",
                            repr(vr)[:80], repr(tr)[:80]))
            continue
        if not isinstance(tr, torch.Tensor):
            continue
        if str(vr.dtype) != str(tr.dtype).replace("torch.", ""):
            bad.append((name, "dtype", str(vr.dtype), str(tr.dtype)))
        elif tuple(vr.shape) != tuple(tr.shape):
            bad.append((name, "shape", tuple(vr.shape), tuple(tr.shape)))
        elif not name.startswith(("rand", "bernoulli", "normal", "exponential", "uniform")):
            # (.cpu(): on a GPU machine .cuda() is one of the argument-free methods)
            a = vr.cpu().numpy().astype(np.float64)
            b = tr.cpu().numpy().astype(np.float64)
            if not np.allclose(a, b, rtol=1e-3, atol=1e-6, equal_nan=True):
                bad.append((name, "values", a.tolist(), b.tolist()))
    assert not bad, bad


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32", "int64", "bool", "float32"])
@pytest.mark.parametrize("out", [None, "int32", "float64", "int8"])
@pytest.mark.parametrize("dim", [None, 0])
def test_sum_dtype_is_torchs(dtype, out, dim):
    """Integer and bool sums are int64; ``dtype=`` is the result's dtype."""
    torch = torch_or_skip()
    data = DATA.get(dtype, [0.5, -1.5, 2.0])
    tt = torch.tensor(data, dtype=getattr(torch, dtype))
    vt = vg.tensor(data, dtype=getattr(vg, dtype))
    kt = {} if out is None else {"dtype": getattr(torch, out)}
    kv = {} if out is None else {"dtype": getattr(vg, out)}
    a = tt.sum(**kt) if dim is None else tt.sum(dim, **kt)
    b = vt.sum(**kv) if dim is None else vt.sum(dim, **kv)
    assert str(b.dtype) == str(a.dtype).replace("torch.", "") and b.tolist() == a.tolist()


@pytest.mark.parametrize("dtype", ["bool", "int64", "uint8"])
@pytest.mark.parametrize("exponent", [2, 0, True, 2.0, 0.5, -1, -2.0])
def test_integer_and_bool_powers_are_torchs(dtype, exponent):
    torch = torch_or_skip()
    data = DATA[dtype]
    tt = torch.tensor(data, dtype=getattr(torch, dtype))
    vt = vg.tensor(data, dtype=getattr(vg, dtype))
    try:
        a = tt ** exponent
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match=str(e)):
            vt ** exponent
        return
    b = vt ** exponent
    assert str(b.dtype) == str(a.dtype).replace("torch.", "")
    np.testing.assert_allclose(b.numpy().astype(float), a.numpy().astype(float), rtol=1e-6)


def test_float16_sinc_is_rounded_once_as_in_torch():
    torch = torch_or_skip()
    x = np.linspace(-4, 4, 801).astype(np.float16)
    np.testing.assert_array_equal(vg.tensor(x).sinc().numpy(), torch.tensor(x).sinc().numpy())


@pytest.mark.parametrize("default", ["float32", "float64"])
def test_complex_data_takes_the_default_complex_dtype(default):
    torch = torch_or_skip()
    prev_v, prev_t = vg.get_default_dtype(), torch.get_default_dtype()
    vg.set_default_dtype(getattr(vg, default))
    torch.set_default_dtype(getattr(torch, default))
    try:
        for data in ([1 + 2j], [1, 2 + 1j, 3.5], 1j, [[1j, 2], [3, 4]]):
            assert str(vg.tensor(data).dtype) == str(torch.tensor(data).dtype)[6:]
    finally:
        vg.set_default_dtype(prev_v)
        torch.set_default_dtype(prev_t)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_mean_takes_a_dtype(dtype):
    torch = torch_or_skip()
    for data in ([1.0, 2.0, 4.0], [1, 2, 4]):
        tt, vt = torch.tensor(data), vg.tensor(data)
        try:
            a = tt.mean(dtype=getattr(torch, dtype))
        except RuntimeError:
            with pytest.raises(RuntimeError, match="could not infer output dtype"):
                vt.mean(dtype=getattr(vg, dtype))
            continue
        b = vt.mean(dtype=getattr(vg, dtype))
        assert str(b.dtype) == str(a.dtype)[6:] and b.item() == pytest.approx(a.item())
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    x.mean(dtype=vg.float64).backward()
    assert x.grad.dtype == vg.float32 and x.grad.tolist() == [0.5, 0.5]


NUMPY_SCALARS = [np.float32(2.0), np.float64(2.5), np.int64(3), np.int32(-1), np.bool_(True)]


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "int32"])
@pytest.mark.parametrize("i", range(len(NUMPY_SCALARS)))
def test_numpy_scalar_operands_are_weak_as_in_torch(dtype, i):
    """A NumPy scalar operand is a Python number to PyTorch (float32 * np.float64 stays
    float32; ** np.float32 is PowBackward0, a number exponent); NumPy's own rules made
    float64 results and tensor exponents."""
    torch = torch_or_skip()
    s = NUMPY_SCALARS[i]
    data = [1.0, 2.0, 4.0] if dtype.startswith("float") else [1, 2, 4]
    res = []
    for M in (torch, vg):
        t = M.tensor(data, dtype=getattr(M, dtype))
        out = []
        for f in (lambda: t * s, lambda: s * t, lambda: t + s, lambda: t - s, lambda: t / s,
                  lambda: t > s, lambda: M.maximum(t, M.tensor(s))):
            try:
                r = f()
                out.append((str(r.dtype).replace("torch.", ""), r.tolist()))
            except (RuntimeError, TypeError) as e:
                out.append(type(e).__name__)
        res.append(out)
    assert res[1] == res[0]
    w = vg.tensor([1.0, 2.0], requires_grad=True) * 1.0
    assert (w ** np.float32(2)).grad_fn.name() == "PowBackward0"
