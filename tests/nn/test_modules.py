"""viewgrad.nn modules: registration, walking, modes, zero_grad, state dicts as .npz,
Parameter semantics, BatchNorm running statistics, seeded dropout, no pickling, and no
reference cycles in a training step."""
import gc
import pickle
from collections import OrderedDict

import numpy as np
import pytest

import viewgrad as vg
from viewgrad import nn, optim


def _cnn():
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(4 * 3 * 3, 3))


def test_parameter_is_a_leaf_alias():
    t = vg.zeros(3)
    p = nn.Parameter(t)
    assert isinstance(p, vg.Tensor) and p.requires_grad and p.is_leaf
    assert p.data_ptr() == t.data_ptr()
    t.add_(1)  # shares storage and version counter with the tensor it was made from
    assert p._version == t._version == 1 and p.tolist() == [1.0, 1.0, 1.0]
    assert repr(p).startswith("Parameter containing:\ntensor(")
    assert not nn.Parameter(vg.zeros(2), requires_grad=False).requires_grad


def test_registration_and_walking():
    m = _cnn()
    names = [n for n, _ in m.named_parameters()]
    assert names == ["0.weight", "0.bias", "1.weight", "1.bias", "5.weight", "5.bias"]
    assert [n for n, _ in m.named_buffers()] == ["1.running_mean", "1.running_var",
                                                 "1.num_batches_tracked"]
    assert len(list(m.children())) == 6 and len(list(m.modules())) == 7
    assert isinstance(m[1], nn.BatchNorm2d) and len(m) == 6 and len(m[1:3]) == 2
    assert [type(c).__name__ for c in m[:2]] == ["Conv2d", "BatchNorm2d"]
    with pytest.raises(TypeError, match="cannot assign 'Tensor' as parameter 'weight'"):
        m[0].weight = vg.zeros(4, 1, 3, 3)
    with pytest.raises(AttributeError, match="'Conv2d' object has no attribute 'nope'"):
        m[0].nope
    # a shared module's parameters are listed once
    lin = nn.Linear(2, 2)
    assert len(list(nn.Sequential(lin, lin).parameters())) == 2


def test_repr_like_torch():
    r = repr(_cnn())
    assert "(0): Conv2d(1, 4, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))" in r
    assert "(1): BatchNorm2d(4, eps=1e-05, momentum=0.1, affine=True" in r
    assert "(5): Linear(in_features=36, out_features=3, bias=True)" in r


def test_train_eval_and_dropout():
    m = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))
    assert m.training and m[1].training
    m.eval()
    assert not m.training and not m[1].training
    x = vg.randn(8, 4)
    assert m(x).equal(m[0](x))  # dropout is the identity in eval mode
    m.train()
    vg.manual_seed(7)
    a = m(x)
    vg.manual_seed(7)
    b = m(x)
    assert a.equal(b) and (a == 0).any()  # seeded: the same mask twice


def test_dropout_statistics():
    vg.manual_seed(0)
    y = nn.functional.dropout(vg.ones(20000), 0.3)
    kept = y != 0
    assert abs(float(kept.float().mean()) - 0.7) < 0.02
    assert np.allclose(y.cpu().numpy()[kept.cpu().numpy()], 1 / 0.7)
    assert nn.functional.dropout(vg.ones(3), 1.0).tolist() == [0, 0, 0]
    x = vg.ones(3)
    assert nn.functional.dropout(x, 0.5, training=False) is x


def test_zero_grad():
    m = _cnn()
    m(vg.randn(2, 1, 6, 6)).sum().backward()
    assert all(p.grad is not None for p in m.parameters())
    m.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.any() for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())


def test_batchnorm_running_stats_update_in_place_under_no_grad():
    bn = nn.BatchNorm2d(2, momentum=0.5)
    rm = bn.running_mean
    x = vg.randn(4, 2, 3, 3) * 2 + 1
    v0 = rm._version
    y = bn(x)
    # written by the kernel, as in PyTorch: the running stats' _version does not move
    assert bn.running_mean is rm and rm._version == v0 and not rm.requires_grad
    mean = x.cpu().numpy().mean(axis=(0, 2, 3))
    assert np.allclose(rm.cpu().numpy(), 0.5 * mean, atol=1e-6)
    var = x.cpu().numpy().var(axis=(0, 2, 3), ddof=1)
    assert np.allclose(bn.running_var.cpu().numpy(), 0.5 + 0.5 * var, atol=1e-5)
    assert y.grad_fn.name() == "NativeBatchNormBackward0"
    bn.eval()
    v1 = rm._version
    bn(x)
    assert rm._version == v1  # eval mode uses, and does not touch, the running stats


def test_batchnorm_eval_saves_running_stats():
    """In eval mode the running stats are saved for backward: modifying them in place before
    backward trips the version check, as any saved tensor does."""
    bn = nn.BatchNorm2d(2).eval()
    x = vg.randn(2, 2, 2, 2, requires_grad=True)
    y = bn(x)
    with vg.no_grad():
        bn.running_var.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_batchnorm_without_tracking_uses_batch_stats_in_eval():
    bn = nn.BatchNorm1d(3, affine=False, track_running_stats=False).eval()
    x = vg.randn(5, 3)
    y = bn(x).cpu().numpy()
    assert np.allclose(y.mean(0), 0, atol=1e-5) and bn.running_mean is None
    assert list(bn.state_dict()) == []


def test_state_dict_npz_roundtrip(tmp_path):
    vg.manual_seed(0)
    a, b = _cnn(), _cnn()
    a(vg.randn(4, 1, 6, 6))  # move a's running stats
    path = tmp_path / "cnn.npz"
    a.save(path)
    with np.load(path, allow_pickle=False) as z:  # a plain .npz of arrays
        assert set(z.files) == set(a.state_dict())
        assert z["1.num_batches_tracked"].dtype == np.int64
    w = b[0].weight
    v = w._version
    assert b.load(path) == ([], [])
    assert b[0].weight is w and w._version == v + 1  # copied in place
    for (k, x), (_, y) in zip(a.state_dict().items(), b.state_dict().items()):
        assert x.equal(y), k
    sd = nn.load(path)
    assert isinstance(sd, OrderedDict) and sd["0.weight"].shape == (4, 1, 3, 3)


def test_load_state_dict_errors():
    m = nn.Linear(3, 2)
    with pytest.raises(RuntimeError) as e:
        m.load_state_dict({"weight": vg.zeros(2, 4), "extra": vg.zeros(1)})
    msg = str(e.value)
    assert "Error(s) in loading state_dict for Linear" in msg
    assert 'Missing key(s) in state_dict: "bias"' in msg
    assert 'Unexpected key(s) in state_dict: "extra"' in msg
    # (the shapes as PyTorch prints them: torch.Size([2, 4]) there)
    assert "size mismatch for weight: copying a param with shape viewgrad.Size([2, 4])" in msg
    assert "current model is viewgrad.Size([2, 3])" in msg
    res = m.load_state_dict({"weight": vg.ones(2, 3)}, strict=False)
    assert res.missing_keys == ["bias"] and m.weight.detach().cpu().numpy().sum() == 6


def test_no_pickle(tmp_path):
    with pytest.raises(TypeError, match="not pickled"):
        pickle.dumps(nn.Linear(2, 2))


def test_init_functions():
    vg.manual_seed(0)
    w = vg.empty(200, 100)
    v = w._version
    nn.init.kaiming_normal_(w, nonlinearity="relu")
    assert w._version == v + 1
    assert abs(float(w.cpu().numpy().std()) - np.sqrt(2 / 100)) < 0.01
    nn.init.xavier_uniform_(w)
    assert np.abs(w.cpu().numpy()).max() <= np.sqrt(6 / 300)
    nn.init.constant_(w, 0.5)
    assert (w.cpu().numpy() == 0.5).all()
    assert nn.init.calculate_gain("tanh") == 5 / 3
    with pytest.raises(ValueError, match="Fan in and fan out"):
        nn.init.xavier_uniform_(vg.empty(3))
    p = nn.Linear(2, 2).weight  # a leaf requiring grad: init works under no_grad
    nn.init.zeros_(p)
    assert p.requires_grad and not p.any()


def test_module_double_and_to():
    m = _cnn().double()
    opt_params = list(m.parameters())
    assert all(p.dtype == vg.float64 for p in m.parameters())
    assert m[1].running_mean.dtype == vg.float64 and m[1].num_batches_tracked.dtype == vg.int64
    assert all(a is b for a, b in zip(opt_params, m.parameters()))
    assert m(vg.randn(2, 1, 6, 6, dtype=vg.float64)).dtype == vg.float64


def test_training_step_has_no_reference_cycles():
    """A training step's graph is freed by reference counting alone: memory stays flat with
    the cycle collector off."""
    vg.manual_seed(0)
    m = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                      nn.MaxPool2d(2), nn.Dropout(0.1), nn.Flatten(), nn.Linear(16, 3))
    opt = optim.Adam(m.parameters(), lr=1e-3)
    x, y = vg.randn(8, 1, 4, 4), vg.randint(0, 3, (8,))

    def step():
        opt.zero_grad()
        nn.CrossEntropyLoss()(m(x), y).backward()
        opt.step()
    step()
    gc.collect()
    gc.disable()
    try:
        for _ in range(5):
            step()
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_inplace_relu_in_a_model():
    """ReLU(inplace=True) after conv + batch norm is fine (neither saves its output); after
    Sigmoid, which saves its result, backward fails — as in PyTorch."""
    vg.manual_seed(0)
    conv, bn = nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2)
    x = vg.randn(2, 1, 5, 5)
    ref = nn.Sequential(conv, bn, nn.ReLU())(x).sum()
    ref.backward()
    g = conv.weight.grad.cpu().numpy().copy()
    conv.zero_grad()
    y = nn.Sequential(conv, bn, nn.ReLU(inplace=True))(x)
    assert y.grad_fn.name() == "ReluBackward0"
    y.sum().backward()
    np.testing.assert_allclose(conv.weight.grad.cpu().numpy(), g, rtol=1e-5, atol=1e-6)
    bad = nn.Sequential(conv, nn.Sigmoid(), nn.ReLU(inplace=True))(x)
    with pytest.raises(RuntimeError, match="SigmoidBackward0"):
        bad.sum().backward()
