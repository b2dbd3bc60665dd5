"""F.embedding / nn.Embedding with scale_grad_by_freq as PyTorch: each row's gradient
divided by how often its index occurs (padding_idx rows still get none), the node's saved
flag, and PyTorch's double backward, which differentiates the unscaled rows."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compares with torch CPU tensors through .numpy()")


@pytest.mark.parametrize("padding_idx", [None, 4, -1, 1])
@pytest.mark.parametrize("seed", range(3))
def test_scaled_gradients_as_torch(padding_idx, seed):
    torch = torch_or_skip()
    rng = np.random.default_rng(seed)
    w0 = rng.standard_normal((5, 3))
    idx = rng.integers(0, 5, (3, 4))
    out = []
    for L in (vg, torch):
        w = L.tensor(w0, requires_grad=True)
        y = L.nn.functional.embedding(L.tensor(idx), w, padding_idx=padding_idx,
                                      scale_grad_by_freq=True)
        g, = L.autograd.grad((y * y * L.tensor(w0[idx])).sum(), w, create_graph=True)
        gg, = L.autograd.grad((g * g).sum(), w)
        out.append((g.detach().numpy(), gg.numpy(), y.grad_fn._saved_scale_grad_by_freq))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-12, atol=1e-12)
    assert out[0][2] is out[1][2] is True


def test_module_and_sparse_refusal():
    torch = torch_or_skip()
    assert str(vg.nn.Embedding(5, 3, scale_grad_by_freq=True)) == str(
        torch.nn.Embedding(5, 3, scale_grad_by_freq=True))
    with pytest.raises(ValueError, match="sparse"):
        vg.nn.functional.embedding(vg.tensor([0]), vg.ones(2, 2), sparse=True)
