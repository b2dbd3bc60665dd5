"""Modules built with the same arguments as PyTorch's have PyTorch's parameters, buffers,
state_dict keys and shapes, and repr — so a checkpoint's keys and a printed model read the
same — and (for the normalisations with ``bias=False``) the same outputs."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

CASES = [
    ("Linear", (3, 4), {}), ("Linear", (3, 4), {"bias": False}), ("Conv2d", (2, 3, 3), {}),
    ("Conv1d", (2, 3, 3), {"padding": 1}), ("ConvTranspose2d", (2, 3, 3), {}),
    ("BatchNorm1d", (3,), {}), ("BatchNorm1d", (3,), {"bias": False}),
    ("BatchNorm2d", (3,), {"affine": False}), ("BatchNorm2d", (3,), {"track_running_stats": False}),
    ("LayerNorm", (4,), {}), ("LayerNorm", (4,), {"bias": False}), ("GroupNorm", (2, 4), {}),
    ("GroupNorm", (2, 4), {"bias": False}), ("GroupNorm", (2, 4), {"affine": False}),
    ("InstanceNorm2d", (3,), {"affine": True, "track_running_stats": True}),
    ("Embedding", (5, 3), {}), ("EmbeddingBag", (5, 3), {}), ("LSTM", (3, 4), {}),
    ("LSTM", (3, 4), {"num_layers": 2, "bidirectional": True}), ("GRU", (3, 4), {"bias": False}),
    ("RNN", (3, 4), {}), ("LSTMCell", (3, 4), {}), ("GRUCell", (3, 4), {}),
    ("MultiheadAttention", (4, 2), {}), ("MultiheadAttention", (4, 2), {"kdim": 3, "vdim": 5}),
    ("TransformerEncoderLayer", (4, 2), {"dim_feedforward": 8}), ("PReLU", (), {}),
    ("Bilinear", (2, 3, 4), {}), ("RMSNorm", (4,), {}), ("RMSNorm", ([3, 4],), {"eps": 1e-3}),
    ("RMSNorm", (4,), {"elementwise_affine": False}), ("InstanceNorm1d", (3,), {"affine": True}),
    ("InstanceNorm1d", (3,), {}), ("PReLU", (3,), {"init": 0.1}),
    ("LayerNorm", (4,), {"elementwise_affine": False}),
]


@pytest.mark.parametrize("name,args,kw", CASES,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(CASES)])
def test_module_structure_is_torchs(name, args, kw):
    torch = torch_or_skip()
    t, v = getattr(torch.nn, name)(*args, **kw), getattr(vg.nn, name)(*args, **kw)
    assert [(k, tuple(x.shape)) for k, x in v.state_dict().items()] == \
        [(k, tuple(x.shape)) for k, x in t.state_dict().items()]
    assert [n for n, _ in v.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in v.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert repr(v) == repr(t)


@pytest.mark.parametrize("name,args,kw", CASES,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(CASES)])
def test_module_versions_after_construction_are_torchs(name, args, kw):
    """Each parameter and buffer is written by the constructor as many times as PyTorch's
    writes it (``init.ones_``, ``reset_running_stats``...): the same ``_version``, which
    the "modified by an inplace operation" error quotes. The deterministic ones (ones,
    zeros, constants) hold the same values."""
    torch = torch_or_skip()
    t, v = getattr(torch.nn, name)(*args, **kw), getattr(vg.nn, name)(*args, **kw)
    tv = {k: x._version for k, x in list(t.named_parameters()) + list(t.named_buffers())}
    vv = {k: x._version for k, x in list(v.named_parameters()) + list(v.named_buffers())}
    assert vv == tv
    if name in ("LayerNorm", "GroupNorm", "RMSNorm", "PReLU") or "Norm" in name:
        for (k, a), (_, b) in zip(v.state_dict().items(), t.state_dict().items()):
            np.testing.assert_array_equal(a.cpu().numpy(), b.numpy(), err_msg=k)


@pytest.mark.host_only("compared with torch CPU tensors through .numpy()")
@pytest.mark.parametrize("name,kw,shape", [
    ("BatchNorm1d", {"bias": False}, (5, 3)), ("BatchNorm2d", {"bias": False}, (2, 3, 4, 4)),
    ("GroupNorm", {"bias": False}, (2, 4, 3))])
def test_normalisation_without_bias_matches_torch(name, kw, shape):
    torch = torch_or_skip()
    args = (2, 4) if name == "GroupNorm" else (3,)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    g = np.arange(x.size, dtype=np.float32).reshape(shape) / x.size
    outs = []
    for M in (torch, vg):
        m = getattr(M.nn, name)(*args, **kw)
        xt = M.tensor(x, requires_grad=True)
        y = m(xt)
        (y * M.tensor(g)).sum().backward()
        outs.append((y.detach().numpy(), xt.grad.numpy(), m.weight.grad.numpy(), m.bias))
    assert outs[0][3] is None and outs[1][3] is None
    for a, b in zip(outs[1][:3], outs[0][:3]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
