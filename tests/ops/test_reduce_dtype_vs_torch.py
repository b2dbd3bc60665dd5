"""``sum(dtype=)`` / ``mean(dtype=)`` as PyTorch records them: one node (SumBackward0,
SumBackward1, MeanBackward0, MeanBackward1) computed in ``dtype``, whose input gradient
comes back in the input's dtype — no ToCopyBackward0 between — and PyTorch's refusals
(an integer ``sum`` under autograd, an integer ``mean``)."""
import numpy as np
import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")

CASES = [
    ("sum", (), {"dtype": "float64"}),
    ("sum", (0,), {"dtype": "float64"}),
    ("sum", (1,), {"keepdim": True, "dtype": "float64"}),
    ("sum", ((0, 1),), {"dtype": "float16"}),
    ("sum", (), {"dtype": "float32"}),
    ("mean", (), {"dtype": "float64"}),
    ("mean", (1,), {"dtype": "float64"}),
    ("mean", (-1,), {"keepdim": True, "dtype": "float16"}),
    ("mean", ((0, 1),), {"dtype": "float64"}),
    ("sum", (), {"dtype": "int64"}),
    ("sum", (0,), {"dtype": "int32"}),
    ("sum", (), {"dtype": "bool"}),
    ("mean", (), {"dtype": "int32"}),
    ("mean", (0,), {"dtype": "uint8"}),
]


def _run(lib, name, args, kw, through, grad_mode=True):
    x = lib.tensor([[1.0, -2.5, 3.0], [4.0, 0.5, 6.25]], requires_grad=True)
    kw = {k: getattr(lib, v) if k == "dtype" else v for k, v in kw.items()}
    src = x * 1.5 if through else x
    try:
        if grad_mode:
            s = getattr(src, name)(*args, **kw)
        else:
            with lib.no_grad():
                s = getattr(src, name)(*args, **kw)
    except RuntimeError as e:
        return ("error", str(e).split(";")[0])
    fn = s.grad_fn
    out = [str(s.dtype).split(".")[-1], tuple(s.shape),
           np.asarray(s.detach().double().tolist()).round(4).tolist(),
           None if fn is None else fn.name(),
           None if fn is None else [None if f is None else f.name().split("::")[-1]
                                    for f, _ in fn.next_functions]]
    if fn is not None:
        w = lib.arange(s.numel(), dtype=s.dtype).reshape(s.shape) + 1
        (g,) = (torch if lib is torch else vg).autograd.grad((s * w).sum(), x,
                                                             create_graph=True)
        out.append((str(g.dtype).split(".")[-1], np.asarray(g.tolist()).tolist(),
                    g.grad_fn is not None))
    return out


@pytest.mark.parametrize("through", [False, True], ids=["leaf", "nonleaf"])
@pytest.mark.parametrize("name,args,kw", CASES)
def test_reduce_with_dtype_as_torch(name, args, kw, through):
    assert _run(vg, name, args, kw, through) == _run(torch, name, args, kw, through)


@pytest.mark.parametrize("name,args,kw", [c for c in CASES if c[2]["dtype"] in
                                          ("int64", "int32", "bool")])
def test_integer_sum_outside_autograd_as_torch(name, args, kw):
    assert _run(vg, name, args, kw, False, grad_mode=False) == \
        _run(torch, name, args, kw, False, grad_mode=False)


def test_gradcheck_through_a_dtype_reduction():
    x = vg.tensor(np.linspace(-1.0, 2.0, 6).reshape(2, 3), dtype=vg.float64,
                  requires_grad=True)
    assert vg.autograd.gradcheck(lambda t: (t * t).sum(1, dtype=vg.float64) * 2.0, (x,))
    assert vg.autograd.gradgradcheck(lambda t: (t * t).mean(0, dtype=vg.float64), (x,))
