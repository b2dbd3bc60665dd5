"""scaled_dot_product_attention, MultiheadAttention and the transformer modules against
torch (the test-only oracle): same weights (by state_dict), same outputs and gradients;
masks of both conventions; reprs and errors; gradcheck of the composed attention."""
import warnings

import numpy as np
import pytest

import viewgrad as vg
from viewgrad import nn
from viewgrad.nn import functional as F

from ..helpers import assert_close_torch as _close, load_from_torch as _load

torch = pytest.importorskip("torch", reason="torch is the test-only oracle for these tests")
rng = np.random.default_rng(5)


def _pair(shape):
    x = rng.standard_normal(shape)
    return vg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)




SDPA = [dict(), dict(is_causal=True), dict(scale=0.3), dict(mask="bool"),
        dict(mask="float"), dict(gqa=True)]


@pytest.mark.parametrize("kw", SDPA, ids=[str(k) for k in SDPA])
def test_sdpa_matches_torch(kw):
    kw = dict(kw)
    heads_kv = 1 if kw.pop("gqa", False) else 2
    S = 4 if kw.get("is_causal") else 5
    qa, qb = _pair((2, 2, 4, 3))
    ka, kb = _pair((2, heads_kv, S, 3))
    va, vb = _pair((2, heads_kv, S, 2))
    mask = kw.pop("mask", None)
    if mask == "bool":
        m = rng.random((4, 5)) > 0.3
        m[:, 0] = True
        kw["attn_mask"] = (vg.tensor(m), torch.tensor(m))
    elif mask == "float":
        m = rng.standard_normal((2, 1, 4, 5))
        kw["attn_mask"] = (vg.tensor(m), torch.tensor(m))
    ka_, kb_ = kw.pop("attn_mask", (None, None))
    extra = {"enable_gqa": True} if heads_kv == 1 else {}
    oa = F.scaled_dot_product_attention(qa, ka, va, attn_mask=ka_, **kw, **extra)
    ob = torch.nn.functional.scaled_dot_product_attention(qb, kb, vb, attn_mask=kb_, **kw,
                                                          **extra)
    _close(oa, ob, "output")
    g = rng.standard_normal(tuple(ob.shape))
    oa.backward(vg.tensor(g))
    ob.backward(torch.tensor(g))
    for a, b, n in ((qa, qb, "q"), (ka, kb, "k"), (va, vb, "v")):
        _close(a.grad, b.grad, n)


def test_sdpa_gradcheck_and_errors():
    q = vg.randn(1, 3, 2, dtype=vg.float64, requires_grad=True)
    k = vg.randn(1, 3, 2, dtype=vg.float64, requires_grad=True)
    v = vg.randn(1, 3, 2, dtype=vg.float64, requires_grad=True)
    fn = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True)  # noqa: E731
    assert vg.autograd.gradcheck(fn, (q, k, v))
    assert vg.autograd.gradgradcheck(fn, (q, k, v))
    for lib, f in ((vg, F), (torch, torch.nn.functional)):
        x = lib.zeros(2, 3, 4)
        with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set"):
            f.scaled_dot_product_attention(x, x, x, attn_mask=lib.ones(3, 3, dtype=lib.bool),
                                           is_causal=True)


MHA = [dict(), dict(batch_first=True), dict(kdim=3, vdim=5), dict(add_bias_kv=True),
       dict(add_zero_attn=True, bias=False), dict(average=False), dict(kpm=True),
       dict(mask="bool"), dict(mask="float3d"), dict(unbatched=True)]


@pytest.mark.parametrize("kw", MHA, ids=[str(k) for k in MHA])
def test_multihead_attention_matches_torch(kw):
    kw = dict(kw)
    average = kw.pop("average", True)
    kpm, mask, unbatched = kw.pop("kpm", False), kw.pop("mask", None), kw.pop("unbatched",
                                                                              False)
    torch.manual_seed(0)
    theirs = torch.nn.MultiheadAttention(6, 2, **kw).double()
    ours = nn.MultiheadAttention(6, 2, **kw).double()
    _load(ours, theirs)
    assert repr(ours) == repr(theirs)
    L, S, N = 3, 4, 2
    bf = kw.get("batch_first")

    def shape(n, e):
        if unbatched:
            return (n, e)
        return (N, n, e) if bf else (n, N, e)
    qa, qb = _pair(shape(L, 6))
    ka, kb = _pair(shape(S, kw.get("kdim", 6)))
    va, vb = _pair(shape(S, kw.get("vdim", 6)))
    extra_a, extra_b = {}, {}
    if kpm:
        m = np.zeros((N, S), bool)
        m[0, -1] = True
        extra_a["key_padding_mask"], extra_b["key_padding_mask"] = vg.tensor(m), torch.tensor(m)
    if mask == "bool":
        m = np.triu(np.ones((L, S), bool), 1)
        extra_a["attn_mask"], extra_b["attn_mask"] = vg.tensor(m), torch.tensor(m)
    elif mask == "float3d":
        m = rng.standard_normal((N * 2, L, S))
        extra_a["attn_mask"], extra_b["attn_mask"] = vg.tensor(m), torch.tensor(m)
    oa, wa = ours(qa, ka, va, average_attn_weights=average, **extra_a)
    ob, wb = theirs(qb, kb, vb, average_attn_weights=average, **extra_b)
    _close(oa, ob, "output")
    _close(wa, wb, "weights")
    g = rng.standard_normal(tuple(ob.shape))
    (oa * vg.tensor(g)).sum().add(wa.sum()).backward()
    (ob * torch.tensor(g)).sum().add(wb.sum()).backward()
    for a, b, n in ((qa, qb, "q"), (ka, kb, "k"), (va, vb, "v")):
        _close(a.grad, b.grad, n)
    for (n, p1), (_, p2) in zip(ours.named_parameters(), theirs.named_parameters()):
        _close(p1.grad, p2.grad, n)


def _run_pair(ours, theirs, args_np, kwargs_np=None, train=True):
    kwargs_np = kwargs_np or {}
    ta = [vg.tensor(a, requires_grad=a.dtype.kind == "f") for a in args_np]
    tb = [torch.tensor(a, requires_grad=a.dtype.kind == "f") for a in args_np]
    ka = {k: vg.tensor(v) for k, v in kwargs_np.items()}
    kb = {k: torch.tensor(v) for k, v in kwargs_np.items()}
    oa, ob = ours(*ta, **ka), theirs(*tb, **kb)
    _close(oa, ob, "output", 1e-6)
    if train:
        g = rng.standard_normal(tuple(ob.shape))
        oa.backward(vg.tensor(g))
        ob.backward(torch.tensor(g))
        for a, b in zip(ta, tb):
            _close(a.grad, b.grad, "input grad", 1e-6)
        for (n, p1), (_, p2) in zip(ours.named_parameters(), theirs.named_parameters()):
            _close(p1.grad, p2.grad, n, 1e-6)


LAYERS = [dict(), dict(norm_first=True, activation="gelu"), dict(batch_first=True)]


@pytest.mark.parametrize("kw", LAYERS, ids=[str(k) for k in LAYERS])
def test_transformer_layers_match_torch(kw):
    warnings.simplefilter("ignore")
    torch.manual_seed(0)
    enc_t = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(
        6, 2, 10, dropout=0.0, **kw), 2, norm=torch.nn.LayerNorm(6)).double()
    enc_v = nn.TransformerEncoder(nn.TransformerEncoderLayer(6, 2, 10, dropout=0.0, **kw), 2,
                                  norm=nn.LayerNorm(6)).double()
    _load(enc_v, enc_t)
    assert repr(enc_v) == repr(enc_t)
    bf = kw.get("batch_first")
    x = rng.standard_normal((2, 4, 6) if bf else (4, 2, 6))
    causal = np.triu(np.full((4, 4), -np.inf), 1)
    kpm = np.array([[False] * 4, [False, False, False, True]])
    _run_pair(enc_v, enc_t, [x], {"mask": causal, "src_key_padding_mask": kpm})
    dec_t = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(
        6, 2, 10, dropout=0.0, **kw), 2).double()
    dec_v = nn.TransformerDecoder(nn.TransformerDecoderLayer(6, 2, 10, dropout=0.0, **kw),
                                  2).double()
    _load(dec_v, dec_t)
    mem = rng.standard_normal((2, 5, 6) if bf else (5, 2, 6))
    _run_pair(dec_v, dec_t, [x, mem], {"tgt_mask": causal})


def test_transformer_and_nested_eval_zeros():
    warnings.simplefilter("ignore")
    torch.manual_seed(0)
    t = torch.nn.Transformer(6, 2, 1, 1, 8, dropout=0.0, batch_first=True).double()
    v = nn.Transformer(6, 2, 1, 1, 8, dropout=0.0, batch_first=True).double()
    _load(v, t)
    src, tgt = rng.standard_normal((2, 5, 6)), rng.standard_normal((2, 3, 6))
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    np.testing.assert_array_equal(mask.cpu().numpy(),
                                  torch.nn.Transformer.generate_square_subsequent_mask(3))
    _run_pair(v, t, [src, tgt], {"tgt_mask": mask.cpu().numpy()})
    # eval + no_grad + padding mask: PyTorch's nested-tensor path writes zeros
    enc_t, enc_v = t.encoder.eval(), v.encoder.eval()
    kpm = np.array([[False] * 5, [False, False, False, True, True]])
    with torch.no_grad(), vg.no_grad():
        oa = enc_v(vg.tensor(src), src_key_padding_mask=vg.tensor(kpm))
        ob = enc_t(torch.tensor(src), src_key_padding_mask=torch.tensor(kpm))
    _close(oa, ob, "eval output with padding")


def test_transformer_errors_and_warnings():
    for lib in (vg, torch):
        with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
            lib.nn.TransformerEncoderLayer(8, 2, activation="tanh")
        with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
            lib.nn.MultiheadAttention(8, 3)
        m = lib.nn.MultiheadAttention(8, 2)
        x = lib.zeros(3, 2, 8)
        with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal"):
            m(x, x, x, is_causal=True)
        with pytest.raises(RuntimeError, match=r"The shape of the 2D attn_mask is torch.Size"):
            m(x, x, x, attn_mask=lib.zeros(2, 2))
        with pytest.warns(UserWarning, match="enable_nested_tensor is True, but "
                                             "self.use_nested_tensor is False"):
            lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2), 2)


def test_deepcopy_of_modules_and_tensors_as_torch():
    import copy
    for lib in (vg, torch):
        m = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.ReLU())
        m[0].weight.grad = lib.ones(3, 2)
        m2 = copy.deepcopy(m)
        assert m2[0].weight is not m[0].weight and type(m2[0].weight) is type(m[0].weight)
        assert bool((m2[0].weight == m[0].weight).all()) and m2[0].weight.requires_grad
        assert m2[0].weight.grad is None     # a Parameter's grad is not copied...
        t = lib.ones(2, requires_grad=True)
        t.grad = lib.ones(2)
        assert float(copy.deepcopy(t).grad.sum()) == 2.0   # ...a plain tensor's is
        with lib.no_grad():
            m2[0].weight.add_(1.0)
        assert not bool((m2[0].weight == m[0].weight).any())
        x = lib.ones(2, requires_grad=True) * 2
        with pytest.raises(RuntimeError, match="Only Tensors created explicitly by the user"):
            copy.deepcopy(x)
    lst = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    with vg.no_grad():
        for m in lst:
            m.weight.zero_()
            m.bias.zero_()
    assert repr(lst).startswith("ModuleList(\n  (0-2): 3 x Linear(")
