"""The activations, losses, normalisations, embedding, padding modes and pooling variants
of ``torch.nn.functional`` that viewgrad adds: values and gradients against torch (the
test-only oracle), gradcheck and gradgradcheck in float64, node names where the op has a
row of its own in the derivatives table."""
import numpy as np
import pytest

import viewgrad as vg
from viewgrad.nn import functional as F

rng = np.random.default_rng(7)


def _arr(shape, kind="normal"):
    if kind == "prob":
        return rng.uniform(0.05, 0.95, shape)
    if kind == "pos":
        return rng.uniform(0.1, 2.0, shape)
    return rng.standard_normal(shape) * 1.5


# name -> (call(F, *tensors), [(shape, kind, requires_grad)], extra non-float args builder)
CASES = {
    "leaky_relu": (lambda f, x: f.leaky_relu(x, 0.2), [((3, 4), "normal")]),
    "elu": (lambda f, x: f.elu(x, 1.5), [((3, 4), "normal")]),
    "gelu": (lambda f, x: f.gelu(x), [((3, 4), "normal")]),
    "gelu_tanh": (lambda f, x: f.gelu(x, approximate="tanh"), [((5,), "normal")]),
    "softplus": (lambda f, x: f.softplus(x, beta=2, threshold=2), [((3, 4), "normal")]),
    "silu": (lambda f, x: f.silu(x), [((3, 4), "normal")]),
    "hardtanh": (lambda f, x: f.hardtanh(x, -0.5, 0.7), [((3, 4), "normal")]),
    "relu6": (lambda f, x: f.relu6(x * 4), [((6,), "normal")]),
    "mish": (lambda f, x: f.mish(x), [((6,), "normal")]),
    "logsigmoid": (lambda f, x: f.logsigmoid(x), [((6,), "normal")]),
    "softsign": (lambda f, x: f.softsign(x), [((6,), "normal")]),
    "selu": (lambda f, x: f.selu(x), [((6,), "normal")]),
    "celu": (lambda f, x: f.celu(x, 0.7), [((6,), "normal")]),
    "hardswish": (lambda f, x: f.hardswish(x * 3), [((6,), "normal")]),
    "glu": (lambda f, x: f.glu(x, 1), [((2, 4), "normal")]),
    "bce": (lambda f, x, t: f.binary_cross_entropy(x, t), [((4, 3), "prob"), ((4, 3), "prob")]),
    "bce_weight_sum": (lambda f, x, t, w: f.binary_cross_entropy(x, t, w, reduction="sum"),
                       [((4, 3), "prob"), ((4, 3), "prob"), ((3,), "pos", False)]),
    "bce_logits": (lambda f, x, t: f.binary_cross_entropy_with_logits(x, t),
                   [((4, 3), "normal"), ((4, 3), "prob")]),
    "bce_logits_pos_weight": (lambda f, x, t, w: f.binary_cross_entropy_with_logits(
        x, t, pos_weight=w, reduction="none"), [((4, 3), "normal"), ((4, 3), "prob"),
                                                ((3,), "pos", False)]),
    "l1": (lambda f, x, t: f.l1_loss(x, t), [((4, 3), "normal"), ((4, 3), "normal")]),
    "smooth_l1": (lambda f, x, t: f.smooth_l1_loss(x, t, beta=0.8),
                  [((4, 3), "normal"), ((4, 3), "normal")]),
    "huber": (lambda f, x, t: f.huber_loss(x, t, reduction="sum", delta=0.7),
              [((4, 3), "normal"), ((4, 3), "normal")]),
    "kl_div": (lambda f, x, t: f.kl_div(x, t, reduction="batchmean"),
               [((3, 4), "normal"), ((3, 4), "prob")]),
    "kl_div_log_target": (lambda f, x, t: f.kl_div(x, t, reduction="sum", log_target=True),
                          [((3, 4), "normal"), ((3, 4), "normal")]),
    "layer_norm": (lambda f, x, w, b: f.layer_norm(x, (3, 4), w, b),
                   [((2, 3, 4), "normal"), ((3, 4), "normal"), ((3, 4), "normal")]),
    "group_norm": (lambda f, x, w, b: f.group_norm(x, 2, w, b),
                   [((2, 4, 3), "normal"), ((4,), "normal"), ((4,), "normal")]),
    "normalize": (lambda f, x: f.normalize(x, dim=1), [((3, 4), "normal")]),
    "normalize_p1": (lambda f, x: f.normalize(x, p=1, dim=0), [((3, 4), "normal")]),
    "cosine_similarity": (lambda f, a, b: f.cosine_similarity(a, b, dim=1),
                          [((3, 4), "normal"), ((3, 4), "normal")]),
    "cosine_similarity_broadcast": (lambda f, a, b: f.cosine_similarity(a, b, dim=-1),
                                    [((1, 4), "normal"), ((3, 4), "normal")]),
    "cosine_similarity_dim0": (lambda f, a, b: f.cosine_similarity(a, b, dim=0),
                               [((3, 4), "normal"), ((4,), "normal")]),
    "pairwise_distance": (lambda f, a, b: f.pairwise_distance(a, b),
                          [((3, 4), "normal"), ((3, 4), "normal")]),
    "pad_reflect": (lambda f, x: f.pad(x, (2, 1, 1, 2), mode="reflect"), [((1, 2, 3, 4), "normal")]),
    "pad_replicate": (lambda f, x: f.pad(x, (2, 3), mode="replicate"), [((2, 3, 4), "normal")]),
    "pad_circular": (lambda f, x: f.pad(x, (1, 2, 2, 0), mode="circular"),
                     [((1, 2, 3, 4), "normal")]),
    "avg_pool1d": (lambda f, x: f.avg_pool1d(x, 3, 2, 1), [((2, 3, 7), "normal")]),
    "adaptive_avg_pool1d": (lambda f, x: f.adaptive_avg_pool1d(x, 3), [((2, 3, 7), "normal")]),
    "max_pool3d": (lambda f, x: f.max_pool3d(x, 2, 1, 1), [((1, 2, 3, 3, 4), "normal")]),
    "max_pool3d_ceil": (lambda f, x: f.max_pool3d(x, (2, 2, 3), 2, ceil_mode=True),
                        [((2, 1, 3, 5, 4), "normal")]),
    "max_pool3d_dilated": (lambda f, x: f.max_pool3d(x, 2, 1, dilation=2),
                           [((1, 1, 4, 4, 5), "normal")]),
}


def _make(lib, specs):
    return [lib.tensor(_arr(s[0], s[1]), requires_grad=s[2] if len(s) > 2 else True)
            for s in specs]


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_grads_vs_torch(name):
    torch = pytest.importorskip("torch", reason="torch is the test-only oracle")
    fn, specs = CASES[name]
    state = rng.bit_generator.state
    ours = _make(vg, specs)
    rng.bit_generator.state = state
    theirs = _make(torch, specs)
    y = fn(F, *ours)
    yt = fn(torch.nn.functional, *theirs)
    np.testing.assert_allclose(y.detach().cpu().numpy(), yt.detach().numpy(), rtol=1e-6,
                               atol=1e-9)
    g = _arr(tuple(yt.shape))
    y.backward(vg.tensor(g))
    yt.backward(torch.tensor(g))
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if not b.requires_grad:
            continue
        np.testing.assert_allclose(a.grad.cpu().numpy(), b.grad.numpy(), rtol=1e-6, atol=1e-9,
                                   err_msg=f"grad of input {i}")


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck_and_gradgradcheck(name):
    fn, specs = CASES[name]
    inputs = _make(vg, specs)   # random inputs (fixed seed) stay away from the kinks
    assert vg.autograd.gradcheck(lambda *xs: fn(F, *xs), inputs)
    assert vg.autograd.gradgradcheck(lambda *xs: fn(F, *xs), inputs)


def test_own_rows_have_pytorchs_node_names():
    x = vg.randn(3, requires_grad=True)
    names = {f: getattr(F, f)(x).grad_fn.name() for f in
             ("leaky_relu", "elu", "gelu", "softplus", "silu", "hardtanh")}
    assert names == {"leaky_relu": "LeakyReluBackward0", "elu": "EluBackward0",
                     "gelu": "GeluBackward0", "softplus": "SoftplusBackward0",
                     "silu": "SiluBackward0", "hardtanh": "HardtanhBackward0"}
    (g,) = vg.autograd.grad(F.gelu(x).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "GeluBackwardBackward0"


def test_one_hot_embedding_and_indices_vs_torch():
    torch = pytest.importorskip("torch", reason="torch is the test-only oracle")
    idx = np.array([[0, 2, 1], [3, 3, 0]])
    assert F.one_hot(vg.tensor(idx)).tolist() == torch.nn.functional.one_hot(
        torch.tensor(idx)).tolist()
    assert F.one_hot(vg.tensor(idx), 6).shape == (2, 3, 6)
    w = _arr((4, 3))
    a, b = vg.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    ya = F.embedding(vg.tensor(idx), a, padding_idx=3)
    yb = torch.nn.functional.embedding(torch.tensor(idx), b, padding_idx=3)
    np.testing.assert_allclose(ya.detach().cpu().numpy(), yb.detach().numpy())
    (ya * ya).sum().backward()
    (yb * yb).sum().backward()
    np.testing.assert_allclose(a.grad.cpu().numpy(), b.grad.numpy())
    x = _arr((1, 2, 4, 4, 5))
    va, ia = F.max_pool3d(vg.tensor(x), 2, 2, 1, return_indices=True)
    vb, ib = torch.nn.functional.max_pool3d(torch.tensor(x), 2, 2, 1, return_indices=True)
    np.testing.assert_allclose(va.cpu().numpy(), vb.numpy())
    assert ia.tolist() == ib.tolist()
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes"):
        F.one_hot(vg.tensor([0, 5]), 3)


def test_softmax_implicit_dim_and_dtype_match_torch():
    torch = pytest.importorskip("torch", reason="torch is the test-only oracle")
    import warnings
    x = _arr((2, 3, 4))
    for fn in ("softmax", "log_softmax"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = getattr(torch.nn.functional, fn)(torch.tensor(x, dtype=torch.float32))
        got = getattr(F, fn)(vg.tensor(x, dtype=vg.float32))
        np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-5)
        got = getattr(F, fn)(vg.tensor(x, dtype=vg.float32), dim=-1, dtype=vg.float64)
        assert got.dtype == vg.float64


def test_cosine_similarity_is_torchs_below_eps():
    """PyTorch clamps the norms in place under no_grad: below eps the clamp is not
    differentiated (the gradient goes through the unclamped norm), and the graph is its
    sum of quotients."""
    torch = pytest.importorskip("torch", reason="torch is the oracle (pip install torch==2.13.0)")
    out = []
    for M in (vg, torch):
        x = M.tensor([[1e-12, -2e-12, 0.0], [0.5, 1.0, -2.0]], dtype=M.float64,
                     requires_grad=True)
        y = M.tensor([[3e-10, 1e-10, 2e-10], [1.0, 1.0, 1.0]], dtype=M.float64,
                     requires_grad=True)
        z = M.nn.functional.cosine_similarity(x, y)
        z.sum().backward()
        names, stack = [], [z.grad_fn]
        while stack:
            n = stack.pop()
            if n is not None:
                names.append(n.name().split("::")[-1])
                stack += [f for f, _ in n.next_functions]
        out.append((z.detach().cpu().numpy(), x.grad.cpu().numpy(), y.grad.cpu().numpy(),
                    names))
    for a, b in zip(out[0][:3], out[1][:3]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=0)
    assert out[0][3] == out[1][3]
