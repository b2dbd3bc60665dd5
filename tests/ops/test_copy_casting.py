"""copy_ and fill_ cast like PyTorch (issue 15): values, dtypes, gradients and errors are
compared with torch 2.13 (the viewgrad side of each check runs without it too)."""
import warnings

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_device_like, torch_or_skip

NASTY = [1.7, -1.7, 2.5, 0.0, -0.0, 0.1, 300.2, 255.9, -129.5, 3e9, 1e10, 1e40,
         float("nan"), float("inf"), -float("inf")]


def _dt(t):
    return str(t.dtype).split(".")[-1]


def _same(a, b):
    """Lists equal, NaN equal to NaN."""
    return np.array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float), equal_nan=True)


def _copy(m, dst, src, values, device=None):
    kw = {} if device is None else {"device": device}
    d = m.zeros(len(values), dtype=getattr(m, dst), **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PyTorch casts silently: so must viewgrad
        r = d.copy_(m.tensor(values, dtype=getattr(m, src), **kw))
    assert r is d
    return r.tolist(), _dt(r)


@pytest.mark.parametrize("src", ["float32", "float64", "float16"])
@pytest.mark.parametrize("dst", ["float32", "float64", "float16", "int64", "int32", "int8",
                                 "uint8", "bool"])
def test_copy_from_floats_casts_like_pytorch(src, dst, device):
    vals = [v for v in NASTY if src != "float16" or abs(v) < 6e4 or v != v]
    got, dtype = _copy(vg, dst, src, vals)
    assert dtype == dst
    if dst == "int64":  # truncation toward zero
        assert got[:3] == [1, -1, 2]
    want, _ = _copy(torch_or_skip(), dst, src, vals, torch_device_like(device))
    assert _same(got, want), (got, want)


@pytest.mark.parametrize("src,values", [("int64", [0, 2, -1, 70000, 2 ** 40]),
                                        ("bool", [True, False, True, True, False]),
                                        ("uint8", [0, 1, 255, 128, 7])])
@pytest.mark.parametrize("dst", ["float32", "float16", "int8", "uint8", "bool", "int64"])
def test_copy_from_ints_and_bools(src, values, dst):
    got, _ = _copy(vg, dst, src, values)
    torch = torch_or_skip()
    assert _same(got, _copy(torch, dst, src, values)[0])


def _grad_case(m, dst_dtype, src_dtype, dst_shape, src_values):
    s = m.tensor(src_values, dtype=getattr(m, src_dtype), requires_grad=True)
    d = m.zeros(dst_shape, dtype=getattr(m, dst_dtype))
    r = d.copy_(s)
    out = [r.tolist(), _dt(r), r.requires_grad,
           None if r.grad_fn is None else type(r.grad_fn).__name__.rsplit("::")[-1]]
    if r.requires_grad:
        w = m.arange(1, r.numel() + 1).reshape(r.shape).to(r.dtype)
        (r * w).sum().backward()
        out += [s.grad.tolist(), _dt(s.grad)]
    return out


@pytest.mark.parametrize("dst,src,shape,values", [
    ("float32", "float64", (3,), [1.0, 2.0, 3.0]),
    ("float64", "float32", (3,), [1.0, 2.0, 3.0]),
    ("float32", "float16", (3,), [1.0, 2.0, 3.0]),
    ("float32", "float32", (2, 3), [1.0, 2.0, 3.0]),     # broadcast: the grad sums back
    ("float64", "float32", (2, 3), 4.0),                 # a 0-d src
    ("int64", "float32", (3,), [1.5, -2.5, 3.9]),        # an int result holds no gradient
    ("bool", "float32", (3,), [1.5, 0.0, 3.9]),
])
def test_copy_gradient_is_cast_back_to_src_dtype(dst, src, shape, values):
    got = _grad_case(vg, dst, src, shape, values)
    if got[2]:
        assert got[3] == "CopyBackwards" and got[-1] == src
    torch = torch_or_skip()
    assert got == _grad_case(torch, dst, src, shape, values)


def test_copy_into_a_view_of_another_dtype_flows_back_through_copyslices():
    def run(m):
        s = m.tensor([1.5, 2.5], requires_grad=True)
        base = m.zeros(2, 2, dtype=m.float64)
        base[0].copy_(s)
        (base * 3).sum().backward()
        return base.tolist(), _dt(s.grad), s.grad.tolist(), type(base.grad_fn).__name__
    got = run(vg)
    assert got[1] == "float32" and got[3] == "CopySlices"
    torch = torch_or_skip()
    assert got[:3] == run(torch)[:3]


def test_src_requiring_grad_into_a_dst_that_does_not():
    def run(m):
        s = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        d = m.zeros(2)
        d.copy_(s)
        d.sum().backward()
        return d.requires_grad, d.is_leaf, _dt(d), s.grad.tolist()
    got = run(vg)
    assert got == (True, False, "float32", [1.0, 1.0])
    torch = torch_or_skip()
    assert got == run(torch)


@pytest.mark.parametrize("dst_shape,src_shape", [((3,), (2,)), ((3,), (2, 3)),
                                                 ((3, 2), (2, 1)), ((3,), (0,))])
def test_copy_shape_errors_use_pytorchs_words(dst_shape, src_shape):
    def msg(m):
        with pytest.raises(RuntimeError) as info:
            m.zeros(dst_shape).copy_(m.ones(src_shape))
        return str(info.value)
    got = msg(vg)
    assert "must match the size" in got or "doesn't match the broadcast shape" in got
    torch = torch_or_skip()
    assert got.startswith(msg(torch))


@pytest.mark.parametrize("value", [[1, 2, 3], (1, 2, 3), np.array([1.0, 2.0, 3.0]),
                                   np.array(2.0), "a", None])
def test_copy_from_non_tensors_is_refused(value):
    with pytest.raises(TypeError) as info:
        vg.zeros(3).copy_(value)
    torch = torch_or_skip()
    with pytest.raises(TypeError) as tinfo:
        torch.zeros(3).copy_(value)
    assert str(info.value).startswith(str(tinfo.value))


@pytest.mark.parametrize("value", [2.0, 3, True, np.float64(2.5), np.int64(3), np.True_,
                                   0.1, 2.7, -2.7, float("nan")])
@pytest.mark.parametrize("dst", ["float32", "float64", "int64", "uint8", "bool"])
def test_copy_from_numbers_casts_as_a_tensor_would(value, dst, device):
    def run(m, **kw):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return m.zeros(2, dtype=getattr(m, dst), **kw).copy_(value).tolist()
    got = run(vg)
    torch = torch_or_skip()
    assert _same(got, run(torch, device=torch_device_like(device)))


def test_copy_from_a_complex_number_warns_and_keeps_the_real_part():
    with pytest.warns(UserWarning, match="Casting complex values to real discards"):
        assert vg.zeros(2).copy_(1 + 2j).tolist() == [1.0, 1.0]


FILL = [float("nan"), float("inf"), 2.7, -2.7, -0.5, 1e30, 1e40, 1 + 2j, 3 + 0j,
        np.float64(2.5), np.True_, 300, -1, -256, 2 ** 40, True]


@pytest.mark.parametrize("value", FILL, ids=repr)
@pytest.mark.parametrize("dst", ["int64", "uint8", "int8", "int32", "bool", "float32",
                                 "float16", "float64"])
def test_fill_checks_overflow_like_pytorch(value, dst):
    def run(m):
        try:
            return m.zeros(2, dtype=getattr(m, dst)).fill_(value).tolist()
        except RuntimeError as e:
            return str(e)
    got = run(vg)
    if isinstance(got, str):
        assert got.startswith("value cannot be converted to type ")
    torch = torch_or_skip()
    want = run(torch)
    if isinstance(want, str):
        assert isinstance(got, str) and got.startswith(want), (got, want)
    else:
        assert _same(got, want), (got, want)


def test_fill_with_a_tensor_of_another_dtype_casts():
    assert vg.zeros(2, dtype=vg.int64).fill_(vg.tensor(2.7)).tolist() == [2, 2]
    assert vg.zeros(2).fill_(vg.tensor(True)).tolist() == [1.0, 1.0]
