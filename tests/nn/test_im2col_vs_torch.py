"""F.unfold as PyTorch records it: one Im2ColBackward0 node (saved kernel_size, dilation,
padding, stride and the input's height and width), whose gradient is fold (Col2ImBackward0),
with im2col's argument checks in PyTorch's order and words, and integer inputs refused as
PyTorch's CPU kernel refuses them. Random geometries, values and gradients against torch."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compared with torch CPU tensors through .numpy()")

SAVED = ("_saved_kernel_size", "_saved_dilation", "_saved_padding", "_saved_stride",
         "_saved_self_sym_argsize_minus_2", "_saved_self_sym_argsize_minus_1")


def _run(M, x, g, args):
    t = M.tensor(x, requires_grad=True)
    try:
        y = M.nn.functional.unfold(t, *args)
    except Exception as e:   # noqa: BLE001 - the outcome is compared
        return type(e).__name__, str(e)
    y.backward(M.tensor(g(tuple(y.shape))))
    fn = y.grad_fn
    return (y.detach().numpy(), t.grad.numpy(), fn.name(), tuple(y.stride()),
            tuple(getattr(fn, a) for a in SAVED))


def test_random_geometries_as_torch():
    torch = torch_or_skip()
    rng = np.random.default_rng(0)
    for _ in range(200):
        c, h, w = (int(v) for v in rng.integers(1, 7, 3))
        shape = (int(rng.integers(0, 3)), c, h, w) if rng.random() < 0.8 else (c, h, w)
        args = tuple(tuple(int(v) for v in rng.integers(lo, hi, 2))
                     for lo, hi in ((1, 4), (1, 3), (0, 3), (1, 3)))
        x = rng.standard_normal(shape)
        gs = {}

        def g(s):
            return gs.setdefault(s, rng.standard_normal(s))
        theirs, ours = _run(torch, x, g, args), _run(vg, x, g, args)
        if isinstance(theirs[0], str):
            assert ours == theirs, (shape, args)
            continue
        np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12, atol=0)
        np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12, atol=1e-14)
        assert ours[2:] == theirs[2:], (shape, args)


BAD = [((1, 2, 4, 4), "float32", (0,), {}), ((1, 2, 4, 4), "float32", (2,), {"stride": 0}),
       ((1, 2, 4, 4), "float32", (2,), {"dilation": 0}),
       ((1, 2, 4, 4), "float32", (2,), {"padding": -1}),
       ((1, 2, 4, 4), "float32", (0,), {"stride": 0, "padding": -1}),
       ((1, 2, 4, 4), "float32", (5,), {}), ((2, 4), "float32", (2,), {}),
       ((1, 2, 4, 4, 4), "float32", (2,), {}), ((1, 0, 4, 4), "float32", (2,), {}),
       ((0, 4, 4), "float32", (2,), {}), ((1, 2, 4, 4), "float32", ((2, 2, 2),), {}),
       ((1, 2, 4, 4), "float32", (2.5,), {}), ((1, 2, 1, 4), "float32", (2,), {}),
       ((1, 2, 4, 4), "int32", (2,), {}), ((1, 2, 4, 4), "int64", (2,), {}),
       ((1, 2, 4, 4), "bool", (2,), {}), ((1, 2, 4, 4), "float16", (2,), {})]


@pytest.mark.parametrize("shape,dtype,args,kw", BAD)
def test_checks_and_dtypes_as_torch(shape, dtype, args, kw):
    torch = torch_or_skip()
    out = []
    for M in (torch, vg):
        x = M.ones(shape, dtype=getattr(M, dtype))
        try:
            r = M.nn.functional.unfold(x, *args, **kw)
            out.append(("ok", tuple(r.shape), str(r.dtype).split(".")[-1]))
        except Exception as e:   # noqa: BLE001
            out.append((type(e).__name__, str(e)))
    assert out[1] == out[0]


def test_fold_refuses_integers_as_torch():
    torch = torch_or_skip()
    for M in (torch, vg):
        with pytest.raises(NotImplementedError, match="\"col2im_out_cpu\" not implemented "
                                                      "for 'Int'"):
            M.nn.functional.fold(M.ones(1, 4, 1, dtype=M.int32), (2, 2), 2)


def test_gradcheck_and_gradgradcheck():
    x = vg.tensor(np.random.default_rng(1).standard_normal((1, 2, 4, 5)), requires_grad=True)
    f = lambda t: vg.nn.functional.unfold(t, (2, 3), 1, (1, 0), (2, 1))  # noqa: E731
    assert vg.autograd.gradcheck(f, (x,)) and vg.autograd.gradgradcheck(f, (x,))
