"""Tensor basics: factories, dtypes, metadata, repr, conversions."""
import numpy as np
import pytest

import viewgrad as vg


def test_factories_and_dtypes():
    assert vg.tensor([1.0, 2.0]).dtype == vg.float32
    assert vg.tensor([1, 2]).dtype == vg.int64
    assert vg.tensor([True]).dtype == vg.bool
    assert vg.zeros(2, 3).shape == (2, 3) and vg.ones((2,)).sum().item() == 2
    assert vg.full((2,), 7.0).tolist() == [7.0, 7.0]
    assert vg.arange(5).tolist() == [0, 1, 2, 3, 4]
    assert vg.arange(0, 1, 0.25).dtype == vg.float32
    assert vg.linspace(0, 1, 5).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert vg.eye(3).sum().item() == 3
    assert vg.empty(2, 2).shape == (2, 2)
    x = vg.randn(3, 4, dtype=vg.float64)
    assert x.dtype == vg.float64
    assert vg.zeros_like(x).dtype == vg.float64 and vg.ones_like(x).shape == (3, 4)
    vg.manual_seed(0)
    a = vg.rand(3)
    vg.manual_seed(0)
    assert vg.rand(3).tolist() == a.tolist()


def test_metadata():
    x = vg.randn(3, 4)
    assert x.size() == (3, 4) and x.size(1) == 4 and x.dim() == 2 and x.numel() == 12
    assert x.stride() == (4, 1) and x.storage_offset() == 0 and x.is_contiguous()
    v = x[1:, 1]
    assert v.stride() == (4,) and v.storage_offset() == 5 and v._base is x
    assert x.t().stride() == (1, 4) and not x.t().is_contiguous()
    assert str(x.device) == x.device.type
    assert x.t().contiguous().is_contiguous()


def test_requires_grad_and_leaf():
    x = vg.ones(2)
    assert not x.requires_grad and x.is_leaf
    x.requires_grad_()
    assert x.requires_grad and x.is_leaf
    y = x * 2
    assert y.requires_grad and not y.is_leaf
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf"):
        y.requires_grad_(False)
    d = y.detach()
    assert not d.requires_grad and d._version_counter is y._version_counter
    z = y.detach_() if False else y.detach()
    assert z.is_leaf


@pytest.mark.host_only("on other devices the repr adds device='...', as PyTorch's does")
def test_repr_like_pytorch():
    assert repr(vg.tensor([1.0, 2.0, 3.0])) == "tensor([1., 2., 3.])"
    assert repr(vg.tensor([0.5, 1.25])) == "tensor([0.5000, 1.2500])"
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    assert repr(x) == "tensor([1., 2.], requires_grad=True)"
    assert repr(x * 2) == "tensor([2., 4.], grad_fn=<MulBackward0>)"
    assert repr(vg.tensor([1, 2])) == "tensor([1, 2])"
    assert "dtype=viewgrad.float64" in repr(vg.tensor([1.0], dtype=vg.float64))
    assert repr(vg.tensor(3.0)) == "tensor(3.)"


def test_item_tolist_numpy():
    x = vg.tensor([[1.0, 2.0]])
    assert x.tolist() == [[1.0, 2.0]] and vg.tensor(2.5).item() == 2.5
    assert isinstance(x.cpu().numpy(), np.ndarray)
    with pytest.raises(RuntimeError, match="detach"):
        x.requires_grad_().cpu().numpy()
    with pytest.raises(RuntimeError, match="cannot be converted to Scalar"):
        vg.ones(2).item()


def test_clone_contiguous_detach():
    x = vg.randn(2, 3, requires_grad=True)
    c = x.clone()
    assert c.grad_fn.name() == "CloneBackward0"
    assert x.t().clone().stride() == (1, 3)  # preserve layout
    assert x.contiguous() is x
    assert x.t().contiguous().grad_fn.name() == "CloneBackward0"


def test_pickle_is_refused():
    import pickle
    with pytest.raises(TypeError, match="npz"):
        pickle.dumps(vg.ones(2))


def test_views_share_memory_and_version():
    b = vg.zeros(3, 4)
    v = b[1]
    v.fill_(5)
    assert b[1].tolist() == [5.0] * 4 and b._version == v._version == 1
    for make in [lambda t: t.view(12), lambda t: t.t(), lambda t: t.narrow(0, 1, 2),
                 lambda t: t.unsqueeze(0), lambda t: t.diagonal(), lambda t: t.unfold(1, 2, 1),
                 lambda t: t.expand(2, 3, 4), lambda t: t.permute(1, 0), lambda t: t.movedim(0, 1),
                 lambda t: t.flatten(), lambda t: t.split(1)[0], lambda t: t.chunk(2, 1)[1],
                 lambda t: t.unbind(1)[0], lambda t: t.as_strided((2,), (1,), 3),
                 lambda t: t[..., None], lambda t: t.view_as(t), lambda t: t.squeeze()]:
        v = make(b)
        assert v._base is b and v._version_counter is b._version_counter
        assert np.shares_memory(v._data, b._data)
    assert b.t().reshape(12)._base is not b      # reshape copies when strides don't allow
    assert b[[0, 2]]._base is None               # advanced indexing copies


def test_int_tensor_ops_and_division():
    a = vg.tensor([1, 2, 3])
    assert (a / 2).dtype == vg.float32
    assert (a * 2).tolist() == [2, 4, 6]
