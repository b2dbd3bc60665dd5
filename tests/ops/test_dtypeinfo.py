"""finfo / iinfo and set_default_dtype / get_default_dtype against PyTorch: the limits,
the errors, and what the default float dtype changes (factories, Python floats, integer
division, nn parameters, printing)."""
import pytest

import viewgrad as vg
from tests.helpers import assert_same_as_torch, torch_or_skip


@pytest.fixture
def default_float64():
    torch = torch_or_skip()
    vg.set_default_dtype(vg.float64)
    torch.set_default_dtype(torch.float64)
    yield
    vg.set_default_dtype(vg.float32)
    torch.set_default_dtype(torch.float32)


def _info(M, f, d):
    i = f(d)
    return [i.bits, i.max, i.min, str(i.dtype)] + (
        [i.eps, i.tiny, i.smallest_normal, i.resolution] if f is M.finfo else [])


@pytest.mark.parametrize("name", ["float32", "float64", "float16"])
def test_finfo_matches_torch(name):
    assert_same_as_torch(lambda M: _info(M, M.finfo, getattr(M, name)))
    assert_same_as_torch(lambda M: repr(M.finfo(getattr(M, name))))


@pytest.mark.parametrize("name", ["int64", "int32", "int8", "uint8"])
def test_iinfo_matches_torch(name):
    assert_same_as_torch(lambda M: _info(M, M.iinfo, getattr(M, name)))
    assert_same_as_torch(lambda M: repr(M.iinfo(getattr(M, name))))


@pytest.mark.parametrize("call", ["finfo(M.int64)", "iinfo(M.float32)", "iinfo(M.bool)",
                                  "set_default_dtype(M.int64)"])
def test_dtype_info_errors_match_torch(call):
    assert_same_as_torch(lambda M: eval("M." + call), match="")


def test_default_dtype_is_float32():
    assert vg.get_default_dtype() == vg.float32 and vg.finfo().bits == 32


def test_default_float64_changes_what_torch_changes(default_float64):
    assert vg.get_default_dtype() == vg.float64
    assert_same_as_torch(lambda M: [M.tensor([1.5]), M.zeros(2), M.ones(1), M.full((1,), 2.0),
                                    M.arange(3) / 2, M.arange(0.5, 2), M.linspace(0, 1, 3),
                                    M.eye(2), M.tensor([1]) * 2.5, M.sin(M.tensor([1])),
                                    M.tensor(1.5).item(), M.finfo().eps, M.Tensor(2).dtype,
                                    M.get_default_dtype(), M.tensor([1.0], dtype=M.float32)])
    assert_same_as_torch(lambda M: [M.randn(2).dtype, M.rand(2).dtype,
                                    M.nn.Linear(2, 2).weight.dtype])
    assert repr(vg.tensor([1.5]).cpu()) == "tensor([1.5000])"
    assert repr(vg.tensor([1.5], dtype=vg.float32).cpu()) == "tensor([1.5000], dtype=viewgrad.float32)"
