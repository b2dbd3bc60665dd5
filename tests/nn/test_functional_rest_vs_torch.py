"""The rest of torch.nn.functional and its modules (functional_rest.py, layers_rest.py)
against PyTorch: values, gradients, node names, reprs and errors; gumbel_softmax (random)
by its properties."""
import warnings

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compares with torch CPU tensors through .numpy()")

X = np.random.default_rng(5).random((2, 4, 3, 5)) + 0.05

CASES = {
    "channel_shuffle": lambda F, t: F.channel_shuffle(t, 2),
    "channel_shuffle 4": lambda F, t: F.channel_shuffle(t.reshape(2, 4, 15), 4),
    "lp_pool1d": lambda F, t: F.lp_pool1d(t.reshape(2, 4, 15), 2, 3),
    "lp_pool1d stride": lambda F, t: F.lp_pool1d(t.reshape(2, 4, 15), 1.5, 2, stride=3,
                                                 ceil_mode=True),
    "lp_pool1d odd power": lambda F, t: F.lp_pool1d(t.reshape(2, 4, 15) - 0.5, 3.0, 2),
    "lp_pool2d": lambda F, t: F.lp_pool2d(t, 2, (2, 3)),
    "lp_pool2d ceil": lambda F, t: F.lp_pool2d(t, 3, 2, stride=1, ceil_mode=True),
    "lp_pool3d": lambda F, t: F.lp_pool3d(t.unsqueeze(0), 2, 2),
    "lp_pool3d ceil": lambda F, t: F.lp_pool3d(t.unsqueeze(0), 3, (2, 1, 2), stride=1,
                                               ceil_mode=True),
    "max_pool1d_with_indices": lambda F, t: F.max_pool1d_with_indices(t.reshape(2, 4, 15),
                                                                      3, 2)[0],
    "max_pool2d_with_indices": lambda F, t: F.max_pool2d_with_indices(t, 2)[0],
    "adaptive_max_pool1d_with_indices": lambda F, t: F.adaptive_max_pool1d_with_indices(
        t.reshape(2, 4, 15), 4)[0],
    "adaptive_max_pool2d_with_indices": lambda F, t: F.adaptive_max_pool2d_with_indices(
        t, (2, 2))[0],
    "triplet distance": lambda F, t: F.triplet_margin_with_distance_loss(
        t[0, 0], t[0, 1], t[1, 0], margin=0.9),
    "triplet swap": lambda F, t: F.triplet_margin_with_distance_loss(
        t[0, 0], t[0, 1], t[1, 0], swap=True),
    "triplet own distance": lambda F, t: F.triplet_margin_with_distance_loss(
        t[0, 0], t[0, 1], t[1, 0], distance_function=lambda a, b: (a - b).abs().sum(-1),
        reduction="none"),
    "dropout3d eval": lambda F, t: F.dropout3d(t * 1, 0.5, training=False),
}

ERRORS = {
    "channel_shuffle groups": lambda F, t: F.channel_shuffle(t, 3),
    "channel_shuffle 1-D": lambda F, t: F.channel_shuffle(t.reshape(-1), 2),
    "channel_shuffle 0 groups": lambda F, t: F.channel_shuffle(t, 0),
    "triplet dims": lambda F, t: F.triplet_margin_with_distance_loss(t[0, 0], t[0], t[1, 0]),
    "triplet margin": lambda F, t: F.triplet_margin_with_distance_loss(
        t[0, 0], t[0, 1], t[1, 0], margin=0.0),
    "dropout3d p": lambda F, t: F.dropout3d(t, 1.5),
}


def _run(M, fn):
    t = M.tensor(X, requires_grad=True)
    out = fn(M.nn.functional, t)
    w = M.tensor(np.linspace(-1, 2, out.numel()).reshape(tuple(out.shape)))
    g, = M.autograd.grad((out * out * w).sum(), t, create_graph=True)
    gg, = M.autograd.grad((g * g).sum(), t)
    return out.grad_fn.name(), out.detach().numpy(), g.detach().numpy(), gg.numpy()


@pytest.mark.parametrize("name", list(CASES))
def test_values_gradients_and_nodes_as_torch(name):
    torch = torch_or_skip()
    ours, theirs = _run(vg, CASES[name]), _run(torch, CASES[name])
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    torch = torch_or_skip()
    seen = []
    for M in (vg, torch):
        with pytest.raises((RuntimeError, ValueError)) as e:
            ERRORS[name](M.nn.functional, M.tensor(X))
        seen.append((e.type, str(e.value)))
    assert seen[0] == seen[1]


def test_dropout3d_of_other_ranks_warns_as_torch():
    with pytest.warns(UserWarning, match="Received a 3-D input to dropout3d, which is "
                                         "deprecated"):
        out = vg.nn.functional.dropout3d(vg.ones(2, 3, 4), 0.5, training=False)
    assert out.shape == (2, 3, 4)


def test_modules_as_torch():
    torch = torch_or_skip()

    def run(M):
        nn = M.nn
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mods = [nn.LPPool1d(2, 3), nn.LPPool2d(1.5, (2, 2), stride=1, ceil_mode=True),
                    nn.LPPool3d(2, (2, 2, 2)),
                    nn.ChannelShuffle(2), nn.Dropout3d(0.3), nn.FeatureAlphaDropout(0.2),
                    nn.TripletMarginWithDistanceLoss(margin=0.5, swap=True), nn.NLLLoss2d()]
        t = M.tensor(X)
        for m in mods:
            m.eval()
        outs = [mods[0](t.reshape(2, 4, 15)), mods[1](t), mods[2](t.unsqueeze(0)), mods[3](t),
                mods[4](t), mods[5](t), mods[6](t[0, 0], t[0, 1], t[1, 0]),
                mods[7](t[:, :, 0, 0].log_softmax(1), M.tensor([1, 3]))]
        return ([repr(m) for m in mods], [np.round(o.numpy(), 10).tolist() for o in outs],
                sorted(dict(mods[6].named_modules())))
    assert run(vg) == run(torch)
    with pytest.warns(FutureWarning, match="NLLLoss2d` has been deprecated"):
        vg.nn.NLLLoss2d()


def test_gumbel_softmax_samples_and_passes_the_soft_gradient_straight_through():
    vg.manual_seed(0)
    logits = vg.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]], requires_grad=True)
    soft = vg.nn.functional.gumbel_softmax(logits, tau=0.5)
    assert np.allclose(soft.sum(-1).detach().numpy(), 1.0) and (soft.detach() > 0).all()
    hard = vg.nn.functional.gumbel_softmax(logits, hard=True)
    h = hard.detach().numpy()
    assert set(np.unique(h)) <= {0.0, 1.0} and (h.sum(-1) == 1).all()
    assert hard.grad_fn.name() == "AddBackward0"
    (hard * vg.tensor([[1.0, 2.0, 3.0]])).sum().backward()
    assert logits.grad.shape == (2, 3) and np.allclose(logits.grad.sum(-1).numpy(), 0.0, atol=1e-6)
    # the argmax of many hard samples follows softmax(logits)
    counts = np.zeros(3)
    one = vg.tensor([0.0, np.log(3.0), 0.0])
    for _ in range(3000):
        counts += vg.nn.functional.gumbel_softmax(one, hard=True).numpy()
    assert np.allclose(counts / 3000, [0.2, 0.6, 0.2], atol=0.04)


def test_avg_pool3d_as_torch_over_random_settings():
    """Values, gradients and errors of avg_pool3d over random shapes, kernels, strides,
    paddings, ceil_mode, count_include_pad and divisor_override (a composite here: its
    node is the division's, DivBackward0, where PyTorch's is AvgPool3DBackward0)."""
    torch = torch_or_skip()
    rng = np.random.default_rng(11)
    for _ in range(120):
        shape = (int(rng.integers(1, 3)), 2) + tuple(int(v) for v in rng.integers(1, 7, 3))
        if rng.random() < 0.2:
            shape = shape[1:]
        k = tuple(int(v) for v in rng.integers(1, 4, 3))
        st = tuple(int(v) for v in rng.integers(1, 4, 3)) if rng.random() < 0.7 else None
        pd = tuple(int(rng.integers(0, kk // 2 + 1)) for kk in k)
        args = (k, st, pd, bool(rng.integers(0, 2)), bool(rng.integers(0, 2)),
                [None, None, 3][int(rng.integers(0, 3))])
        X = rng.standard_normal(shape)
        seen = []
        for M in (vg, torch):
            x = M.tensor(X, requires_grad=True)
            try:
                o = M.nn.functional.avg_pool3d(x, *args)
                g, = M.autograd.grad((o * o).sum(), x)
                seen.append(("ok", o.detach().numpy(), g.numpy()))
            except RuntimeError as e:
                seen.append(("error", str(e)))
        assert seen[0][0] == seen[1][0], (shape, args, seen)
        if seen[0][0] == "error":
            assert seen[0][1] == seen[1][1]
        else:
            np.testing.assert_allclose(seen[0][1], seen[1][1], rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(seen[0][2], seen[1][2], rtol=1e-10, atol=1e-12)


def test_conv_transpose3d_and_the_3d_modules_as_torch():
    torch = torch_or_skip()
    x = np.random.default_rng(2).random((1, 2, 4, 3, 5))

    def run(M):
        ms = [M.nn.AvgPool3d(2), M.nn.AvgPool3d((2, 3, 2), stride=1, padding=1,
                                                ceil_mode=True, count_include_pad=False),
              M.nn.ConvTranspose3d(2, 3, 2, stride=2, output_padding=1, dtype=M.float64),
              M.nn.ConvTranspose3d(2, 4, (1, 2, 3), groups=2, dilation=2, dtype=M.float64)]
        t = M.tensor(x, requires_grad=True)
        for m in ms[2:]:
            with M.no_grad():
                m.weight.copy_(M.tensor(np.linspace(-1, 1, m.weight.numel()).reshape(
                    tuple(m.weight.shape))))
                m.bias.fill_(0.1)
        outs = [m(t) for m in ms] + [M.nn.functional.conv_transpose3d(
            t[0], ms[2].weight, None, 1, 1)]
        g, = M.autograd.grad(sum((o * o).sum() for o in outs), t)
        return ([repr(m) for m in ms], [np.round(o.detach().numpy(), 9).tolist() for o in outs],
                np.round(g.numpy(), 8).tolist(), outs[2].grad_fn.name())
    assert run(vg) == run(torch)


def test_max_pools_pick_a_windows_last_nan_as_torch():
    """PyTorch's max pools take every NaN they meet: a window's last NaN is its maximum,
    in the indices and where the gradient goes (argmax and max(dim) keep the first)."""
    torch = torch_or_skip()
    rng = np.random.default_rng(3)
    pool = [0.0, 1.0, -1.0, 2.0, np.nan, np.inf, -np.inf, 1.0]
    for _ in range(60):
        a = rng.choice(pool, size=(1, 2, 3, 4, 5))
        k = tuple(int(v) for v in rng.integers(1, 4, 3))
        s = tuple(int(v) for v in rng.integers(1, 3, 3))
        seen = []
        for M in (vg, torch):
            x = M.tensor(a, requires_grad=True)
            F = M.nn.functional
            outs = [F.max_pool3d(x, k, s, return_indices=True),
                    F.max_pool2d(x[0], k[1:], s[1:], return_indices=True),
                    F.max_pool1d(x[0, 0], k[2], s[2], return_indices=True)]
            total = sum((v * M.tensor(np.linspace(1, 2, v.numel()).reshape(tuple(v.shape))))
                        .sum() for v, _ in outs)
            total.backward()
            seen.append(([np.nan_to_num(v.detach().numpy(), nan=7.0) for v, _ in outs],
                         [i.numpy() for _, i in outs], x.grad.numpy()))
        for p, q in zip(seen[0][0] + seen[0][1], seen[1][0] + seen[1][1]):
            np.testing.assert_array_equal(p, q)
        np.testing.assert_allclose(seen[0][2], seen[1][2])


def test_buffer_registers_as_torch():
    """nn.Buffer: a Tensor marked as a buffer; assigned to a module it is registered,
    with its persistence (a non-persistent one stays out of the state dict)."""
    torch = torch_or_skip()

    def run(M):
        b = M.nn.Buffer(M.ones(2), persistent=False)
        m = M.nn.Module()
        m.x = b
        m.y = M.nn.Buffer(M.zeros(3))
        m.z = M.ones(1)   # a plain tensor: an attribute, not a buffer
        return (isinstance(b, M.nn.Buffer), isinstance(M.ones(1), M.nn.Buffer), b.persistent,
                sorted(dict(m.named_buffers())), sorted(m.state_dict()),
                m.x is b, M.nn.Buffer(M.ones(2, requires_grad=True)).requires_grad,
                tuple(M.nn.Buffer().shape))
    assert run(vg) == run(torch)


def test_adaptive_avg_pool3d_as_torch_over_random_sizes():
    torch = torch_or_skip()
    rng = np.random.default_rng(8)
    for t in range(80):
        shape = ((1, 2), (2,))[t % 2] + tuple(int(v) for v in rng.integers(1, 7, 3))
        out = tuple(None if rng.random() < 0.2 else int(rng.integers(1, 7)) for _ in range(3))
        X = rng.standard_normal(shape)
        seen = []
        for M in (vg, torch):
            x = M.tensor(X, requires_grad=True)
            y = M.nn.functional.adaptive_avg_pool3d(x, out)
            g, = M.autograd.grad((y * y).sum(), x)
            seen.append((y.detach().numpy(), g.numpy()))
        for a, b in zip(*seen):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    assert repr(vg.nn.AdaptiveAvgPool3d((2, 3, 1))) == repr(torch.nn.AdaptiveAvgPool3d((2, 3, 1)))
    with pytest.raises(RuntimeError, match="adaptive_avg_pool3d: output_size must be 3"):
        vg.nn.functional.adaptive_avg_pool3d(vg.ones(1, 2, 3, 3, 3), (1, 2))


def test_max_unpool3d_as_torch():
    torch = torch_or_skip()
    X = np.random.default_rng(9).standard_normal((2, 2, 4, 6, 6))

    def run(M):
        x = M.tensor(X, requires_grad=True)
        F = M.nn.functional
        outs = []
        for k, s, p in (((2, 2, 2), None, 0), ((2, 1, 3), (1, 1, 2), (1, 0, 1))):
            v, i = F.max_pool3d(x, k, s, p, return_indices=True)
            outs.append(F.max_unpool3d(v, i, k, s, p, output_size=x.shape[-3:]))
            outs.append(M.nn.MaxUnpool3d(k, s, p)(v, i, output_size=x.shape))
        v, i = F.max_pool3d(x, 2, return_indices=True)
        outs.append(F.max_unpool3d(v, i, 2))   # the default output size
        g, = M.autograd.grad(sum((o * o).sum() for o in outs), x)
        return ([o.detach().numpy().tolist() for o in outs], g.numpy().tolist(),
                repr(M.nn.MaxUnpool3d((2, 1, 2), stride=1, padding=(1, 0, 0))))
    assert run(vg) == run(torch)
