"""``F.rms_norm`` and ``nn.RMSNorm`` against PyTorch: PyTorch records its composite op
for op (PowBackward0, MeanBackward1 over the dims last first, AddBackward1 of ``add_``
in place, RsqrtBackward0, MulBackward0, ToCopyBackward0 around a float16 input), so the
graph, the saved values, the values, the gradients and the errors are compared — and the
gradients by finite differences."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import assert_same_as_torch, graph_nodes, saved_values, short, torch_or_skip


def _graph(t):
    out = []
    for fn in graph_nodes(t):
        saved = {k: v for k, v in saved_values(fn)
                 if not hasattr(v, "shape") and k not in ("self_sym_sizes", "_saved_dim")}
        out.append((short(fn.name()), saved))
    return out


CASES = [((2, 3, 4), [4], "same"), ((2, 3, 4), [3, 4], None), ((2, 3, 4), [3, 4], "same"),
         ((5, 4), [4], "float64"), ((4,), [4], "same"), ((2, 1, 3), [1, 3], "same")]


@pytest.mark.host_only("compared with torch CPU tensors through .numpy()")
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("shape,normalized,weight", CASES)
@pytest.mark.parametrize("eps", [None, 1e-3])
def test_rms_norm_is_torchs(shape, normalized, weight, dtype, eps):
    torch = torch_or_skip()
    rng = np.random.default_rng(len(shape) + len(normalized))
    x = rng.standard_normal(shape).astype(dtype)
    w = None if weight is None else rng.standard_normal(normalized).astype(
        dtype if weight == "same" else weight)
    g = rng.standard_normal(shape).astype(dtype)
    got = []
    for M in (torch, vg):
        xt = M.tensor(x, requires_grad=True)
        wt = None if w is None else M.tensor(w, requires_grad=True)
        with __import__("warnings").catch_warnings():
            __import__("warnings").simplefilter("ignore")   # torch: "cannot dispatch to fused"
            y = M.nn.functional.rms_norm(xt, normalized, wt, eps)
        graph = _graph(y)
        y.backward(M.tensor(g).to(y.dtype))
        got.append((str(y.dtype).split(".")[-1], graph, y.detach().float().numpy(),
                    xt.grad.float().numpy(), None if wt is None else wt.grad.float().numpy()))
    (td, tg, ty, tx, tw), (vd, vgr, vy, vx, vw) = got
    assert vd == td and vgr == tg
    tol = 2e-3 if dtype == "float16" else 1e-5
    np.testing.assert_allclose(vy, ty, rtol=tol, atol=tol)
    np.testing.assert_allclose(vx, tx, rtol=10 * tol, atol=10 * tol)
    if tw is not None:
        np.testing.assert_allclose(vw, tw, rtol=10 * tol, atol=10 * tol)


@pytest.mark.parametrize("normalized,weight", [([4], True), ([3, 4], False), ([3, 4], True)])
def test_rms_norm_gradients_by_finite_differences(normalized, weight):
    rng = np.random.default_rng(3)
    x = vg.tensor(rng.standard_normal((2, 3, 4)), dtype=vg.float64, requires_grad=True)
    inputs = [x]
    if weight:
        inputs.append(vg.tensor(rng.standard_normal(normalized), dtype=vg.float64,
                                requires_grad=True))

    def f(*a):
        return vg.nn.functional.rms_norm(a[0], normalized, a[1] if len(a) > 1 else None,
                                         1e-2)

    assert vg.autograd.gradcheck(f, tuple(inputs))
    assert vg.autograd.gradgradcheck(f, tuple(inputs))


def test_rms_norm_default_eps_is_the_dtypes_machine_epsilon():
    """eps None: the computing dtype's epsilon (float32 for float16), as PyTorch's."""
    for dtype, eps in ((vg.float32, np.finfo(np.float32).eps),
                       (vg.float64, np.finfo(np.float64).eps),
                       (vg.float16, np.finfo(np.float32).eps)):
        x = vg.zeros(2, 3, dtype=dtype)
        x[0, 0] = 1e-3
        a = vg.nn.functional.rms_norm(x, [3]).float()
        b = vg.nn.functional.rms_norm(x, [3], eps=float(eps)).float()
        assert vg.equal(a, b), dtype


@pytest.mark.parametrize("call", [
    lambda M, x: M.nn.functional.rms_norm(x, [5]),
    lambda M, x: M.nn.functional.rms_norm(x, [2, 4]),
    lambda M, x: M.nn.functional.rms_norm(x, [3, 4, 5]),
    lambda M, x: M.nn.functional.rms_norm(x, []),
    lambda M, x: M.nn.functional.rms_norm(x, 4),
    lambda M, x: M.nn.functional.rms_norm(x, [4], M.ones(3)),
    lambda M, x: M.nn.functional.rms_norm(x.long(), [4]),
    lambda M, x: M.nn.functional.rms_norm(x, (4,)),
], ids=["short", "two_dims", "too_many", "empty", "an_int", "weight_shape", "long", "tuple"])
def test_rms_norm_errors_are_torchs(call):
    assert_same_as_torch(lambda M: call(M, M.arange(24.0).reshape(2, 3, 4)), rtol=1e-5,
                         wording_too=True)


@pytest.mark.host_only("compared with torch CPU tensors through .numpy()")
def test_rms_norm_module_is_torchs():
    torch = torch_or_skip()
    x = np.random.default_rng(1).standard_normal((2, 3, 4)).astype(np.float32)
    outs = []
    for M in (torch, vg):
        m = M.nn.RMSNorm([3, 4], eps=1e-4)
        with M.no_grad():
            m.weight.mul_(M.arange(12.0).reshape(3, 4))
        xt = M.tensor(x, requires_grad=True)
        y = m(xt)
        y.sum().backward()
        outs.append((repr(m), m.weight._version, y.detach().cpu().numpy(),
                     xt.grad.cpu().numpy(), m.weight.grad.cpu().numpy()))
    assert outs[0][:2] == outs[1][:2]
    for a, b in zip(outs[1][2:], outs[0][2:]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
