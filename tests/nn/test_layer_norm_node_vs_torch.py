"""layer_norm is one ``NativeLayerNormBackward0`` node with three edges, and embedding one
``EmbeddingBackward0`` node with one edge (the weight), as in PyTorch,
with PyTorch's values, first and second derivatives for input, weight and bias, with and
without the affine parameters. PyTorch is the oracle (skipped, saying why, when it is not
installed)."""
import numpy as np
import pytest

import viewgrad as vg

from ..helpers import torch_or_skip

rng = np.random.default_rng(3)
X, W, B_ = rng.normal(size=(2, 3, 4)), rng.normal(size=(3, 4)), rng.normal(size=(3, 4))


def _run(m, affine, shape):
    x = m.tensor(X, requires_grad=True)
    w = m.tensor(W.reshape(-1)[:int(np.prod(shape))].reshape(shape),
                 requires_grad=True) if affine else None
    b = m.tensor(B_.reshape(-1)[:int(np.prod(shape))].reshape(shape),
                 requires_grad=True) if affine else None
    y = m.nn.functional.layer_norm(x, shape, w, b, eps=1e-3)
    xs = [t for t in (x, w, b) if t is not None]
    gs = m.autograd.grad((y * y * y).sum(), xs, create_graph=True)
    gg = m.autograd.grad(sum((g * g).sum() for g in gs), xs)
    edges = [None if f is None else f.name() for f, _ in y.grad_fn.next_functions]
    return y.grad_fn.name(), edges, [t.detach().cpu().numpy() for t in (y, *gs, *gg)]


@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("shape", [(4,), (3, 4)])
def test_layer_norm_is_one_node_as_in_pytorch(affine, shape):
    torch = torch_or_skip()
    theirs, ours = _run(torch, affine, shape), _run(vg, affine, shape)
    assert ours[0] == theirs[0] == "NativeLayerNormBackward0"
    assert [e and e.split("::")[-1] for e in ours[1]] == \
        [e and e.split("::")[-1] for e in theirs[1]]
    for a, b in zip(ours[2], theirs[2]):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("padding_idx", [None, 2, -1])
def test_embedding_is_one_node_as_in_pytorch(padding_idx):
    torch = torch_or_skip()
    out = []
    for m in (torch, vg):
        w = m.tensor(X.reshape(6, 4), requires_grad=True)
        y = m.nn.functional.embedding(m.tensor([[0, 2, 2], [5, 1, 0]]), w,
                                      padding_idx=padding_idx)
        (g,) = m.autograd.grad((y * y * y).sum(), w, create_graph=True)
        (gg,) = m.autograd.grad((g * g).sum(), w)
        out.append((y.grad_fn.name(), len(y.grad_fn.next_functions),
                    [t.detach().cpu().numpy() for t in (y, g, gg)]))
    (tn, te, tv), (vn, ve, vv) = out
    assert (vn, ve) == (tn, te) == ("EmbeddingBackward0", 1)
    for a, b in zip(vv, tv):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
