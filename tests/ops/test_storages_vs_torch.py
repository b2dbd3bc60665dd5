"""``x.untyped_storage()`` and ``x.storage()`` against torch 2.13: which tensors share a
storage (by ``data_ptr``), its size in bytes and elements, its contents, the deprecation
warning and the printed form."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("runs the same programs in torch on the CPU")

# each: (what to make of a 2x3 float32 x, whether it shares x's storage)
DERIVED = ["x[1]", "x[:, 1:]", "x.t()", "x.view(3, 2)", "x.reshape(6)", "x.t().reshape(6)",
           "x.clone()", "x.detach()", "x.t().contiguous()", "x.contiguous()", "x.expand(2, 2, 3)",
           "x.unsqueeze(0)", "x.double()", "x.float()", "x[[0, 1]]", "x.diagonal()",
           "x.as_strided((2,), (1,), 1)", "x.split(1)[1]", "x.flatten()", "x.T.flatten()"]


@pytest.mark.parametrize("expr", DERIVED)
def test_which_tensors_share_a_storage(expr):
    torch = torch_or_skip()
    got = []
    for M in (torch, vg):
        x = M.arange(6.0).reshape(2, 3)
        y = eval(expr)
        s, t = x.untyped_storage(), y.untyped_storage()
        got.append((s.data_ptr() == t.data_ptr(), t.nbytes(), len(t), t.size(),
                    y.data_ptr() - t.data_ptr(), t.element_size(), t.tolist()))
    assert got[1] == got[0]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int8", "bool"])
def test_typed_storage_as_torch(dtype):
    torch = torch_or_skip()
    got = []
    for M in (torch, vg):
        x = M.tensor([[1, 0, 3], [4, 5, 0]], dtype=getattr(M, dtype))[:, 1:]
        if M is torch:   # (its once-per-process flag, as the conftest clears viewgrad's)
            torch.storage._warn_typed_storage_removal.__dict__["has_warned"] = False
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t = x.storage()
            x.storage()   # (once)
        got.append(([str(w.message) for w in caught], [w.category for w in caught],
                    t.size(), len(t), t.element_size(), t.nbytes(), t.tolist(), t[1],
                    str(t.dtype).split(".")[-1], t.data_ptr() == x.untyped_storage().data_ptr(),
                    repr(t).replace("torch.float", "viewgrad.float")
                    .replace("torch.int", "viewgrad.int").replace("torch.bool", "viewgrad.bool")))
    assert got[1] == got[0]


def test_untyped_storage_prints_as_torch():
    torch = torch_or_skip()
    reprs = [repr(M.tensor([1, 2], dtype=M.int16).untyped_storage()) for M in (torch, vg)]
    assert reprs[1] == reprs[0]


def test_a_storage_reads_the_memory_as_it_is_now():
    x = vg.zeros(3)
    s = x.untyped_storage()
    x[1] = 1.0
    assert s.tolist()[4:8] == list(np.float32(1.0).tobytes())
    assert not s.is_shared() and not s.is_pinned() and s.resizable()


@pytest.mark.parametrize("expr", ["x", "x.view(2, 3)", "x.view(6)", "x.clone()", "x.detach()",
                                  "x.t().t()", "x[:]", "x.expand(2, 3)", "x.as_strided((2, 3), (3, 1))",
                                  "x.as_strided((2, 2), (3, 1), 1)"])
def test_is_set_to_as_torch(expr):
    torch = torch_or_skip()
    got = []
    for M in (torch, vg):
        x = M.arange(6.0).reshape(2, 3)
        got.append((x.is_set_to(eval(expr)), x[0].is_set_to(x[0]), x.t().is_set_to(x.t()),
                    M.empty(0).is_set_to(M.empty(0))))
        with pytest.raises(TypeError, match="must be Tensor, not int"):
            x.is_set_to(3)
    assert got[1] == got[0]
