"""Fixes for disagreements a differential fuzzer found in attention, the transformer
encoder, gradient clipping, autograd.functional, the recurrent cells and the sequence
utilities, each checked against PyTorch: values, gradients, dtypes and exception types
(the need_weights=False path through scaled_dot_product_attention, the activation flag
of TransformerEncoderLayer, NaN through the inf-norm, Hessians of constant functions and
strict mode, cells' hidden-state checks, vector_to_parameters' dtype, pack/pad checks)."""
import math

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compares with torch CPU tensors through .numpy()")

X = np.random.RandomState(0).randn(2, 1, 2).astype(np.float32)


def _sync(vm, tm):
    vm.load_state_dict({k: vg.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})


def _outcome(fn):
    """fn()'s result, or the name of the exception it raised."""
    try:
        return fn()
    except Exception as e:   # noqa: BLE001 - the type is what is compared
        return type(e).__name__


def _same_outcome(make):
    """make(lib) raises the same exception type in both libraries, or both succeed."""
    torch = torch_or_skip()
    t, v = _outcome(lambda: make(torch)), _outcome(lambda: make(vg))
    assert (t if isinstance(t, str) else "ok") == (v if isinstance(v, str) else "ok")
    return t, v


# -- 1. MultiheadAttention: need_weights=False runs SDPA ----------------------------------

def _mha_pair(**kw):
    torch = torch_or_skip()
    torch.manual_seed(0)
    tm = torch.nn.MultiheadAttention(2, 1, **kw)
    vm = vg.nn.MultiheadAttention(2, 1, **kw)
    _sync(vm, tm)
    return torch, tm, vm


@pytest.mark.parametrize("need_weights", [False, True])
def test_mha_fully_masked_row(need_weights):
    torch, tm, vm = _mha_pair()
    mask = np.array([[True, True], [False, True]])
    res = []
    for L, m in ((torch, tm), (vg, vm)):
        x = L.tensor(X, requires_grad=True)
        out = m(x, x, x, attn_mask=L.tensor(mask), need_weights=need_weights)[0]
        out.sum().backward()
        res.append((out.detach().numpy(), x.grad.numpy()))
    (to, tg), (vo, vgr) = res
    np.testing.assert_allclose(vo, to, rtol=1e-5, atol=1e-6, equal_nan=True)
    np.testing.assert_allclose(vgr, tg, rtol=1e-5, atol=1e-6, equal_nan=True)
    # need_weights=False: zeros for the row with nothing to attend to; True: NaN, as torch
    assert np.isnan(vo[0]).all() == need_weights


def test_mha_causal_hint_without_weights_goes_to_sdpa():
    """With need_weights=False and no key_padding_mask PyTorch drops attn_mask and lets
    SDPA build the causal mask (here one key longer, for bias_k)."""
    torch, tm, vm = _mha_pair(add_bias_kv=True)
    cm = np.triu(np.ones((2, 2), bool), 1)
    outs = []
    for L, m in ((torch, tm), (vg, vm)):
        with L.no_grad():
            outs.append(m(L.tensor(X), L.tensor(X), L.tensor(X), attn_mask=L.tensor(cm),
                          is_causal=True, need_weights=False)[0].numpy())
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-6)


def test_encoder_layer_fully_padded_sequence():
    torch = torch_or_skip()
    torch.manual_seed(0)
    tl = torch.nn.TransformerEncoderLayer(2, 1, 4, dropout=0.0)
    vl = vg.nn.TransformerEncoderLayer(2, 1, 4, dropout=0.0)
    _sync(vl, tl)
    kp = np.array([[True, True]])
    to = tl(torch.tensor(X), src_key_padding_mask=torch.tensor(kp)).detach().numpy()
    vo = vl(vg.tensor(X), src_key_padding_mask=vg.tensor(kp)).detach().numpy()
    np.testing.assert_allclose(vo, to, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("make", [
    lambda L: (L.ones(3, 2, 4),) * 3 + ({"attn_mask": L.zeros(1, 1, 3, 3)},),
    lambda L: (L.ones(3, 2, 4),) * 3 + ({"attn_mask": L.zeros(1, 1, 3, 3),
                                         "need_weights": False},),
    lambda L: (L.ones(3, 4), L.ones(3, 2, 4), L.ones(3, 2, 4), {}),
    lambda L: (L.ones(3, 2, 4), L.ones(3, 4), L.ones(3, 4), {}),
    lambda L: (L.ones(3, 4),) * 3 + ({"attn_mask": L.zeros(3, 3, 3)},),
    lambda L: (L.ones(3, 2, 4),) * 3 + ({"key_padding_mask": L.zeros(3, dtype=L.bool)},),
])
def test_mha_shape_checks_raise_assertion_error_as_torch(make):
    torch = torch_or_skip()
    msgs = []
    for L in (torch, vg):
        L.manual_seed(0)
        m = L.nn.MultiheadAttention(4, 2)
        q, k, v, kw = make(L)
        with pytest.raises(AssertionError) as info:
            m(q, k, v, **kw)
        msgs.append(str(info.value).replace("torch.Size", "Size")
                    .replace("viewgrad.Size", "Size"))
    assert msgs[0] == msgs[1]


# -- 3. TransformerEncoderLayer's activation flag -------------------------------------------

@pytest.mark.parametrize("act, flag", [("GELU", 2), ("ReLU", 1)])
def test_encoder_activation_module_sets_flag_and_nested_zeros(act, flag):
    torch = torch_or_skip()
    torch.manual_seed(0)
    te = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(
        2, 2, 4, dropout=0.0, batch_first=True, activation=getattr(torch.nn, act)()), 1).eval()
    ve = vg.nn.TransformerEncoder(vg.nn.TransformerEncoderLayer(
        2, 2, 4, dropout=0.0, batch_first=True, activation=getattr(vg.nn, act)()), 1).eval()
    _sync(ve, te)
    assert ve.layers[0].activation_relu_or_gelu == te.layers[0].activation_relu_or_gelu == flag
    assert ve.use_nested_tensor == te.use_nested_tensor is True
    s = np.random.RandomState(1).randn(1, 2, 2).astype(np.float32)
    kp = np.array([[False, True]])
    with torch.no_grad(), vg.no_grad():
        to = te(torch.tensor(s), src_key_padding_mask=torch.tensor(kp)).numpy()
        vo = ve(vg.tensor(s), src_key_padding_mask=vg.tensor(kp)).numpy()
    np.testing.assert_allclose(vo, to, rtol=1e-5, atol=1e-6)
    assert (vo[0, 1] == 0).all()


# -- 2. clipping with the inf-norm propagates NaN -------------------------------------------

def test_inf_norm_clipping_propagates_nan():
    torch = torch_or_skip()
    res = []
    for L in (torch, vg):
        a = L.nn.Parameter(L.tensor([1.0, 2.0]))
        b = L.nn.Parameter(L.tensor([1.0]))
        a.grad, b.grad = L.tensor([0.5, 3.0]), L.tensor([float("nan")])
        with pytest.raises(RuntimeError, match="non-finite"):
            L.nn.utils.clip_grad_norm_([a, b], 1.0, norm_type=math.inf,
                                       error_if_nonfinite=True)
        total = L.nn.utils.get_total_norm([a.grad, b.grad], math.inf)
        clipped = L.nn.utils.clip_grad_norm_([a, b], 1.0, norm_type=math.inf)
        res.append((total.item(), clipped.item(), a.grad.numpy().copy()))
    assert all(math.isnan(x) for x in res[0][:2] + res[1][:2])
    np.testing.assert_array_equal(res[1][2], res[0][2])


def test_total_norm_promotes_and_clip_value_of_nothing():
    torch = torch_or_skip()
    a, b = np.ones(2, np.float16), np.ones(2, np.float64)
    for order in ((a, b), (b, a)):
        t = torch.nn.utils.get_total_norm([torch.tensor(x) for x in order])
        v = vg.nn.utils.get_total_norm([vg.tensor(x) for x in order])
        assert str(v.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        np.testing.assert_allclose(v.item(), t.item(), rtol=1e-6)
    for kw in ({}, {"foreach": True}):
        _same_outcome(lambda L: L.nn.utils.clip_grad_value_([], 1.0, **kw))


def test_vector_to_parameters_takes_the_vectors_dtype():
    torch = torch_or_skip()
    for L in (torch, vg):
        p = L.nn.Parameter(L.zeros(2, dtype=L.float64))
        L.nn.utils.vector_to_parameters(L.ones(2, dtype=L.float32), [p])
        assert p.dtype == L.float32 and p.tolist() == [1.0, 1.0]
    _same_outcome(lambda L: L.nn.utils.vector_to_parameters([1.0], []))


# -- 4. autograd.functional -----------------------------------------------------------------

@pytest.mark.parametrize("name", ["hessian", "hvp", "vhp"])
def test_second_order_of_a_constant_is_zeros(name):
    torch = torch_or_skip()
    res = []
    for L in (torch, vg):
        F, z = L.autograd.functional, L.tensor([1.0, 2.0])
        args = (L.ones(2),) if name != "hessian" else ()
        r = getattr(F, name)(lambda a: L.ones(()), z, *args)
        res.append([x.numpy() for x in (r if isinstance(r, tuple) else (r,))])
    for t, v in zip(*res):
        np.testing.assert_array_equal(v, t)


@pytest.mark.parametrize("name", ["hvp", "vhp"])
def test_hvp_vhp_keep_the_output_shape(name):
    torch = torch_or_skip()
    shapes = [tuple(getattr(L.autograd.functional, name)(
        lambda a: (a ** 3).sum().reshape(1), L.tensor([1.0, 2.0]), L.ones(2))[0].shape)
        for L in (torch, vg)]
    assert shapes[0] == shapes[1] == (1,)


@pytest.mark.parametrize("call", [
    lambda L, F, z: F.jacobian(lambda a: a * 2, z, strict=True, create_graph=True),
    lambda L, F, z: F.vjp(lambda a: (a.sum(), L.ones(())), z, strict=True),
    lambda L, F, z: F.vjp(lambda a: (a.sum(), a.prod()), z),
    lambda L, F, z: F.hvp(lambda a: (a * 2).sum(), z, L.ones(2), strict=True),
    lambda L, F, z: F.vhp(lambda a: (a * 2).sum(), z, L.ones(2), strict=True),
    lambda L, F, z: F.hessian(lambda a: (a * 2).sum(), z, strict=True),
    lambda L, F, z: F.hvp(lambda a: (a ** 2).sum(), z, L.ones(2), strict=True,
                          create_graph=True),
    lambda L, F, z: F.vhp(lambda a: (a ** 2).sum(), z, L.ones(2), strict=True,
                          create_graph=True),
    lambda L, F, z: F.jvp(lambda a: L.ones(2), z, L.ones(2), strict=True),
    lambda L, F, z: F.vjp(lambda a: a * 2, [z]),
    lambda L, F, z: F.vjp(lambda a: a * 2, z, (L.ones(2), L.ones(2))),
    lambda L, F, z: F.hessian(lambda a: (a, a.sum()), z),
    lambda L, F, z: F.jacobian(lambda a: a * 2, z, strict=True, vectorize=True),
])
def test_strict_and_argument_checks_raise_as_torch(call):
    _same_outcome(lambda L: call(L, L.autograd.functional, L.tensor([1.0, 2.0])))


# -- 5. recurrent cells: hidden-state checks ------------------------------------------------

@pytest.mark.parametrize("cell, x_shape, h_shapes", [
    ("GRUCell", (2, 3), [(2,)]),
    ("GRUCell", (3,), [(1, 2)]),
    ("GRUCell", (3,), [(2, 2)]),
    ("GRUCell", (2, 3), [(1, 2)]),
    ("RNNCell", (2, 3), [(2,)]),
    ("LSTMCell", (4, 3), [(4, 2), (4, 3)]),
    ("LSTMCell", (4, 3), [(4, 2), (3, 2)]),
    ("LSTMCell", (4, 3), [(2,), (4, 2)]),
    ("LSTMCell", (3,), [(1, 2), (2,)]),
    ("LSTMCell", (4, 3), [(4, 2)]),
    ("LSTMCell", (4, 3), [(4, 2)] * 3),
])
def test_cell_hidden_checks(cell, x_shape, h_shapes):
    def make(L):
        L.manual_seed(0)
        c = getattr(L.nn, cell)(3, 2)
        hs = [L.ones(*s) for s in h_shapes]
        return c(L.ones(*x_shape), tuple(hs) if cell == "LSTMCell" else hs[0])
    t, v = _same_outcome(make)
    assert isinstance(t, str)


@pytest.mark.parametrize("h_shape, x_shape", [((4, 2), (4, 3)), ((2,), (3,)),
                                              ((2, 2), (3,))])
def test_lstm_cell_bare_tensor_hx(h_shape, x_shape):
    torch = torch_or_skip()
    t, v = _same_outcome(lambda L: L.nn.LSTMCell(3, 2)(L.ones(*x_shape), L.ones(*h_shape)))
    if isinstance(t, str):
        return
    assert [tuple(a.shape) for a in t] == [tuple(a.shape) for a in v]   # rows as (h, c)
    assert torch is not None


@pytest.mark.parametrize("x_shape, h_shape", [((4, 1, 3), (1, 1, 2)), ((4, 3), (1, 2)),
                                              ((4, 1, 3), (2, 1, 1, 2))])
def test_lstm_bare_tensor_hx_raises(x_shape, h_shape):
    t, _ = _same_outcome(lambda L: L.nn.LSTM(3, 2)(L.ones(*x_shape), L.ones(*h_shape)))
    assert isinstance(t, str)
    t, _ = _same_outcome(lambda L: L.nn.LSTM(3, 2)(
        L.ones(4, 1, 3), (L.ones(1, 1, 2),) * 3))
    assert t == "RuntimeError"


def test_rnn_cell_unknown_nonlinearity_raises_at_forward():
    torch = torch_or_skip()
    for L in (torch, vg):
        c = L.nn.RNNCell(3, 2, nonlinearity="x")
        assert "nonlinearity=x" in repr(c)
        with pytest.raises(RuntimeError, match="Unknown nonlinearity: x"):
            c(L.ones(2, 3))
        with pytest.raises(ValueError):
            c(L.ones(2, 3, 3))
    t = torch.nn.RNNCell(3, 2, nonlinearity="relu")
    v = vg.nn.RNNCell(3, 2, nonlinearity="relu")
    _sync(v, t)
    x = np.random.RandomState(2).randn(2, 3).astype(np.float32)
    np.testing.assert_allclose(v(vg.tensor(x)).detach().numpy(),
                               t(torch.tensor(x)).detach().numpy(), rtol=1e-6)


# -- 7. sequence utilities' exception types -------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda r, L: r.pack_padded_sequence(L.ones(3, 2, 1), [3]),
    lambda r, L: r.pack_padded_sequence(L.ones(3, 2, 1), [3, 2, 1]),
    lambda r, L: r.pack_padded_sequence(L.ones(3, 2, 1), [1, 2, 1]),
    lambda r, L: r.pack_padded_sequence(L.ones(3, 2, 1), [3, 2, 1], enforce_sorted=False),
    lambda r, L: r.pack_padded_sequence(L.ones(3, 0, 1), []),
    lambda r, L: r.pack_padded_sequence(L.ones(3, 3, 1), [2, 3, 0]),
    lambda r, L: r.pad_sequence([L.ones(2)], padding_side="up"),
    lambda r, L: r.pad_sequence([L.tensor(1.0), L.tensor(2.0)]),
    lambda r, L: r.pad_sequence([L.ones(2), L.tensor(1.0)]),
    lambda r, L: r.pad_sequence([], padding_side="up"),
    lambda r, L: r.pad_sequence(5),
])
def test_sequence_utils_raise_as_torch(make):
    t, _ = _same_outcome(lambda L: make(L.nn.utils.rnn, L))
    assert isinstance(t, str)


def test_pack_fewer_lengths_unsorted_packs_a_subset():
    torch = torch_or_skip()
    x = np.arange(6, dtype=np.float32).reshape(3, 2, 1)
    t = torch.nn.utils.rnn.pack_padded_sequence(torch.tensor(x), [3], enforce_sorted=False)
    v = vg.nn.utils.rnn.pack_padded_sequence(vg.tensor(x), [3], enforce_sorted=False)
    np.testing.assert_array_equal(v.data.numpy(), t.data.numpy())
    assert v.batch_sizes.tolist() == t.batch_sizes.tolist()
