"""RNN, LSTM, GRU and their cells against torch.nn (the test-only oracle): the same
state_dict in, the same outputs, final states and gradients (input, h0/c0, every
parameter) out; packed sequences; pad_sequence; PyTorch's errors and reprs; gradcheck of
a small float64 LSTM (double backward goes through the composed ops)."""
import numpy as np
import pytest

import viewgrad as vg
from viewgrad import nn

from ..helpers import assert_close_torch as _close, load_from_torch as _load

torch = pytest.importorskip("torch", reason="torch is the test-only oracle for these tests")
rng = np.random.default_rng(11)


def _pair(shape):
    x = rng.standard_normal(shape)
    return vg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)




def _flat(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [out]


CASES = [("RNN", dict(), False), ("RNN", dict(nonlinearity="relu", num_layers=2), False),
         ("LSTM", dict(num_layers=2, bidirectional=True), True),
         ("LSTM", dict(batch_first=True, bias=False), True),
         ("LSTM", dict(proj_size=2), True),
         ("GRU", dict(num_layers=2, batch_first=True, bidirectional=True), True),
         ("GRU", dict(), False)]


@pytest.mark.parametrize("name,kw,with_h0", CASES, ids=[f"{c[0]}-{i}" for i, c in
                                                        enumerate(CASES)])
def test_recurrent_matches_torch(name, kw, with_h0):
    torch.manual_seed(0)
    theirs = getattr(torch.nn, name)(3, 4, **kw).double()
    ours = getattr(nn, name)(3, 4, **kw).double()
    _load(ours, theirs)
    assert repr(ours) == repr(theirs)
    T, B = 5, 2
    xa, xb = _pair((B, T, 3) if kw.get("batch_first") else (T, B, 3))
    args_a, args_b, leaves = (xa,), (xb,), [(xa, xb)]
    if with_h0:
        D = (2 if kw.get("bidirectional") else 1) * kw.get("num_layers", 1)
        H = kw.get("proj_size") or 4
        ha, hb = _pair((D, B, H))
        leaves.append((ha, hb))
        if name == "LSTM":
            ca, cb = _pair((D, B, 4))
            leaves.append((ca, cb))
            args_a, args_b = (xa, (ha, ca)), (xb, (hb, cb))
        else:
            args_a, args_b = (xa, ha), (xb, hb)
    outs_a, outs_b = _flat(ours(*args_a)), _flat(theirs(*args_b))
    for i, (a, b) in enumerate(zip(outs_a, outs_b)):
        _close(a, b, f"output {i}")
    gs = [rng.standard_normal(tuple(b.shape)) for b in outs_b]
    vg.autograd.backward(outs_a, [vg.tensor(g) for g in gs])
    torch.autograd.backward(outs_b, [torch.tensor(g) for g in gs])
    for i, (a, b) in enumerate(leaves):
        _close(a.grad, b.grad, f"grad of input {i}")
    for (n, p1), (_, p2) in zip(ours.named_parameters(), theirs.named_parameters()):
        _close(p1.grad, p2.grad, n)


@pytest.mark.parametrize("name", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cells_match_torch(name):
    torch.manual_seed(1)
    theirs = getattr(torch.nn, name)(3, 4).double()
    ours = getattr(nn, name)(3, 4).double()
    _load(ours, theirs)
    assert repr(ours) == repr(theirs)
    xa, xb = _pair((2, 3))
    ha, hb = _pair((2, 4))
    if name == "LSTMCell":
        ca, cb = _pair((2, 4))
        oa, ob = ours(xa, (ha, ca)), theirs(xb, (hb, cb))
    else:
        oa, ob = ours(xa, ha), theirs(xb, hb)
    oa, ob = _flat(oa), _flat(ob)
    for a, b in zip(oa, ob):
        _close(a, b, "output")
    sum(o.sum() * (i + 1) for i, o in enumerate(oa)).backward()
    sum(o.sum() * (i + 1) for i, o in enumerate(ob)).backward()
    _close(xa.grad, xb.grad, "input grad")
    _close(ha.grad, hb.grad, "h grad")
    # unbatched input, no state
    ua, ub = ours(xa[0]), theirs(xb[0])
    for a, b in zip(_flat(ua), _flat(ub)):
        _close(a, b, "unbatched")


def test_unbatched_and_init_statistics():
    ours = nn.GRU(3, 5)
    for p in ours.parameters():   # uniform(-1/sqrt(H), 1/sqrt(H))
        assert float(p.abs().max()) <= 1 / np.sqrt(5) + 1e-7
    theirs = torch.nn.GRU(3, 5).double()
    ours = ours.double()
    _load(ours, theirs)
    xa, xb = _pair((4, 3))
    (oa, ha), (ob, hb) = ours(xa), theirs(xb)
    assert tuple(oa.shape) == (4, 5) and tuple(ha.shape) == (1, 5)
    _close(oa, ob, "out")
    _close(ha, hb, "h_n")


def test_packed_sequences_match_torch():
    torch.manual_seed(2)
    theirs = torch.nn.LSTM(3, 4, bidirectional=True, batch_first=True).double()
    ours = nn.LSTM(3, 4, bidirectional=True, batch_first=True).double()
    _load(ours, theirs)
    lengths = [3, 5, 2]
    xa, xb = _pair((3, 5, 3))
    pa = nn.utils.rnn.pack_padded_sequence(xa, lengths, batch_first=True,
                                           enforce_sorted=False)
    pb = torch.nn.utils.rnn.pack_padded_sequence(xb, lengths, batch_first=True,
                                                 enforce_sorted=False)
    _close(pa.data, pb.data, "packed data")
    assert pa.batch_sizes.tolist() == pb.batch_sizes.tolist()
    assert pa.sorted_indices.tolist() == pb.sorted_indices.tolist()
    (oa, (ha, ca)), (ob, (hb, cb)) = ours(pa), theirs(pb)
    _close(oa.data, ob.data, "packed output")
    _close(ha, hb, "h_n")
    _close(ca, cb, "c_n")
    ua, la = nn.utils.rnn.pad_packed_sequence(oa, batch_first=True, total_length=6)
    ub, lb = torch.nn.utils.rnn.pad_packed_sequence(ob, batch_first=True, total_length=6)
    _close(ua, ub, "padded")
    assert la.tolist() == lb.tolist()
    (ua.sum() + (ha * ha).sum() + ca.sum()).backward()
    (ub.sum() + (hb * hb).sum() + cb.sum()).backward()
    _close(xa.grad, xb.grad, "input grad through packing")
    for (n, p1), (_, p2) in zip(ours.named_parameters(), theirs.named_parameters()):
        _close(p1.grad, p2.grad, n)


def test_pad_sequence_matches_torch():
    seqs = [rng.standard_normal((n, 2)) for n in (2, 4, 1)]
    for kw in ({}, {"batch_first": True, "padding_value": -1.0},
               {"padding_side": "left"}):
        a = nn.utils.rnn.pad_sequence([vg.tensor(s) for s in seqs], **kw)
        b = torch.nn.utils.rnn.pad_sequence([torch.tensor(s) for s in seqs], **kw)
        _close(a, b, str(kw))
    packed = nn.utils.rnn.pack_sequence([vg.tensor(s) for s in seqs], enforce_sorted=False)
    back = nn.utils.rnn.unpack_sequence(packed)
    for s, t in zip(seqs, back):
        np.testing.assert_allclose(t.cpu().numpy(), s)


def test_errors_match_torch():
    def both(fn):
        msgs = []
        for lib in (vg, torch):
            with pytest.raises(Exception) as e:
                fn(lib)
            msgs.append((type(e.value), str(e.value)))
        assert msgs[0] == msgs[1]
    both(lambda L: L.nn.LSTM(3, 4)(L.zeros(2, 2, 2, 3)))
    both(lambda L: L.nn.GRU(3, 4)(L.zeros(5, 2, 2)))
    both(lambda L: L.nn.RNN(3, 4)(L.zeros(5, 2, 3), L.zeros(2, 2, 4)))
    both(lambda L: L.nn.LSTM(3, 4)(L.zeros(5, 2, 3), (L.zeros(1, 2, 4), L.zeros(1, 3, 4))))
    both(lambda L: L.nn.RNN(3, 4, nonlinearity="sigmoid"))
    both(lambda L: L.nn.GRU(3, 4, proj_size=2))
    both(lambda L: L.nn.LSTM(3, 4, dropout=1.5))
    both(lambda L: L.nn.LSTMCell(3, 4)(L.zeros(2, 2, 3)))
    both(lambda L: L.nn.utils.rnn.pack_padded_sequence(L.zeros(3, 2, 1), [1, 3]))
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nn.LSTM(3, 4, dropout=0.5)


def test_lstm_gradcheck_and_double_backward():
    vg.manual_seed(0)
    lstm = nn.LSTM(2, 3).double()
    x = vg.randn(3, 1, 2, dtype=vg.float64, requires_grad=True)
    assert vg.autograd.gradcheck(lambda v: lstm(v)[0], (x,))
    assert vg.autograd.gradgradcheck(lambda v: lstm(v)[1][1], (x,))
