"""The padding modules (Zero/Constant/Reflection/Replication/CircularPad1d/2d/3d), F.pad's
non-constant modes, F.fold / nn.Fold / nn.Unfold, F.rrelu / F.rrelu_ / nn.RReLU and the
3-D norms against torch 2.13: values, gradients, node names, module reprs and refusals.

rrelu in training mode samples its slopes: viewgrad's generator gives PyTorch's stream,
so with the same seed the slopes are PyTorch's own (compared here); the test also checks
what holds whatever the stream: slopes in [lower, upper], gradient = slope where x < 0."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import raised, torch_or_skip

RNG = np.random.default_rng(7)


def _x(*shape):
    return RNG.standard_normal(shape)


def _run(M, x, f, seed=None, dtype="float64"):
    """Value, input gradient (against a fixed ramp) and node name of ``f(M, x)``."""
    a = M.tensor(x, dtype=getattr(M, dtype), requires_grad=True)
    if seed is not None:
        M.manual_seed(seed)
    y = f(M, a * 1.0)     # a non-leaf, so that the in-place forms may write into it
    w = np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape))
    (y * M.tensor(w, dtype=getattr(M, dtype))).sum().backward()
    return np.array(y.tolist()), np.array(a.grad.tolist()), y.grad_fn.name()


def _compare(x, f, seed=None, node=True, rtol=1e-12, dtype="float64"):
    torch = torch_or_skip()
    ours, theirs = _run(vg, x, f, seed, dtype), _run(torch, x, f, seed, dtype)
    assert ours[0].shape == theirs[0].shape
    atol = 1e-14 if dtype == "float64" else 1e-6
    np.testing.assert_allclose(ours[0], theirs[0], rtol=rtol, atol=atol)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=rtol, atol=atol)
    if node:
        assert ours[2] == theirs[2]


# -- padding ---------------------------------------------------------------------------------

MODULES = [
    ("ZeroPad1d", (2,), (2, 3, 4)), ("ZeroPad1d", ((1, 3),), (3, 4)),
    ("ZeroPad2d", (1,), (1, 2, 3, 4)), ("ZeroPad2d", ((1, 1, 2, 0),), (2, 3, 4)),
    ("ZeroPad3d", ((1, 0, 2, 1, 0, 1),), (1, 1, 2, 3, 2)),
    ("ConstantPad1d", (2, 3.5), (2, 3, 4)), ("ConstantPad2d", ((1, 0, -1, 2), -1.0), (1, 3, 4)),
    ("ConstantPad3d", (1, 0.5), (1, 2, 2, 2)),
    ("ReflectionPad1d", (2,), (2, 3, 4)), ("ReflectionPad1d", ((3, 1),), (3, 5)),
    ("ReflectionPad2d", (1,), (1, 2, 3, 4)), ("ReflectionPad2d", ((2, 0, 1, 2),), (2, 3, 4)),
    ("ReflectionPad3d", ((1, 0, 2, 1, 1, 1),), (1, 1, 2, 3, 3)),
    ("ReplicationPad1d", (3,), (2, 3, 2)), ("ReplicationPad2d", ((2, 0, 1, 3),), (1, 2, 3, 4)),
    ("ReplicationPad3d", (1,), (2, 2, 2, 3)),
    ("CircularPad1d", ((2, 1),), (2, 3, 4)), ("CircularPad2d", (1,), (1, 2, 3, 4)),
    ("CircularPad3d", ((1, 0, 2, 1, 1, 1),), (1, 1, 2, 3, 3)),
]


@pytest.mark.parametrize("name,args,shape", MODULES,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(MODULES)])
def test_padding_modules_match_torch(name, args, shape):
    torch = torch_or_skip()
    assert repr(getattr(vg.nn, name)(*args)) == repr(getattr(torch.nn, name)(*args))
    assert getattr(vg.nn, name)(*args).padding == getattr(torch.nn, name)(*args).padding
    # circular padding is slice copies in PyTorch (CopySlices), an index gather here
    _compare(_x(*shape), lambda M, a: getattr(M.nn, name)(*args)(a),
             node=not name.startswith("Circular"))


PADS = [((2, 3, 5), (-1, 2)), ((2, 3, 5), (2, -1)), ((1, 2, 5), (-3, -1)), ((2, 5), (4, 4)),
        ((1, 2, 4, 5), (1, 2, 3, -1)), ((2, 3, 4, 5), (1, 1, 2, 0, 1, 2)),
        ((1, 1, 3, 4, 5), (1, 2, -1, 2, 2, 0)), ((0, 2, 5), (1, 1)), ((1, 2, 5), (0, 0))]


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape,pad", PADS)
def test_pad_modes_match_torch(mode, shape, pad):
    _compare(_x(*shape), lambda M, a: M.nn.functional.pad(a, pad, mode),
             node=mode != "circular")


def test_pad_double_backward_matches_torch():
    torch = torch_or_skip()
    x, v = _x(1, 2, 4, 5), _x(1, 2, 6, 8)
    out = []
    for M in (vg, torch):
        a, g = M.tensor(x, requires_grad=True), M.tensor(v, requires_grad=True)
        y = M.nn.functional.pad(a, (2, 1, 1, 1), "reflect")
        (ga,) = M.autograd.grad((y * y).sum(), a, create_graph=True)
        (gg,) = M.autograd.grad((ga * ga).sum(), a)
        ya = M.nn.functional.pad(a, (1, 2, 0, 1), "replicate")
        (gb,) = M.autograd.grad(ya, a, g[..., :5, :8], create_graph=True)
        (ggb,) = M.autograd.grad(gb.sum(), g)
        out.append([np.array(t.tolist()) for t in (ga, gg, ggb)])
    for a, b in zip(*out):
        np.testing.assert_allclose(a, b, rtol=1e-12)


PAD_REFUSALS = {
    "odd_length": lambda M: M.nn.functional.pad(M.ones(1, 2, 5), (1, 1, 1), "reflect"),
    "too_long": lambda M: M.nn.functional.pad(M.ones(2, 5), (1,) * 6, "replicate"),
    "bad_mode": lambda M: M.nn.functional.pad(M.ones(1, 2, 5), (1, 1), "wrap"),
    "value": lambda M: M.nn.functional.pad(M.ones(1, 2, 5), (1, 1), "reflect", 1.0),
    "1d_input": lambda M: M.nn.functional.pad(M.ones(5), (1, 1), "reflect"),
    "2d_input_4": lambda M: M.nn.functional.pad(M.ones(4, 5), (1, 1, 1, 1), "circular"),
    "6d_input": lambda M: M.nn.functional.pad(M.ones(1, 1, 1, 2, 3, 4), (1, 1), "replicate"),
    "empty_channel": lambda M: M.nn.functional.pad(M.ones(2, 0, 4, 5), (1,) * 4, "reflect"),
    "reflect_w": lambda M: M.nn.functional.pad(M.ones(2, 3, 3), (3, 3, 1, 1), "reflect"),
    "reflect_h": lambda M: M.nn.functional.pad(M.ones(1, 2, 3, 3), (1, 1, 3, 1), "reflect"),
    "reflect_d": lambda M: M.nn.functional.pad(M.ones(1, 1, 2, 3, 3), (1, 1, 1, 1, 2, 1),
                                               "reflect"),
    "replicate_empty": lambda M: M.nn.functional.pad(M.ones(1, 1, 5), (-3, -2), "replicate"),
    "circular_twice": lambda M: M.nn.functional.pad(M.ones(1, 2, 3), (4, 0), "circular"),
    "circular_negative": lambda M: M.nn.functional.pad(M.ones(1, 2, 3), (-3, -1), "circular"),
    "module_rank": lambda M: M.nn.CircularPad2d(1)(M.ones(2, 3)),
    "module_rank_3d": lambda M: M.nn.CircularPad3d(1)(M.ones(1, 2, 3, 4, 5, 6)),
    "constant_no_value": lambda M: M.nn.ConstantPad1d(2),
    "reflection_module": lambda M: M.nn.ReflectionPad2d(3)(M.ones(1, 2, 3, 3)),
}


@pytest.mark.parametrize("name", sorted(PAD_REFUSALS))
def test_pad_refusals_match_torch(name):
    torch = torch_or_skip()
    ours, theirs = raised(lambda: PAD_REFUSALS[name](vg)), raised(lambda: PAD_REFUSALS[name](torch))
    assert theirs is not None and ours == theirs


# -- fold / unfold ---------------------------------------------------------------------------

FOLDS = [
    ((2, 12, 12), ((4, 5), 2), {}), ((2, 12, 6), (4, (2, 3)), {}),
    ((1, 6, 10), ((5, 4), (2, 3)), {"dilation": (2, 1), "padding": 1, "stride": (1, 2)}),
    ((8, 4), (3, 2), {}), ((1, 4, 9), ((6, 6), 2), {"stride": 2, "padding": 0}),
    ((2, 9, 9), ((5, 5), 3), {"padding": 1, "stride": 2}), ((0, 4, 9), (4, 2), {}),
]


@pytest.mark.parametrize("shape,args,kw", FOLDS, ids=[str(i) for i in range(len(FOLDS))])
def test_fold_matches_torch(shape, args, kw):
    torch = torch_or_skip()
    _compare(_x(*shape), lambda M, a: M.nn.functional.fold(a, *args, **kw))
    _compare(_x(*shape), lambda M, a: M.nn.Fold(*args, **kw)(a))
    assert repr(vg.nn.Fold(*args, **kw)) == repr(torch.nn.Fold(*args, **kw))


def test_unfold_module_and_fold_of_unfold_match_torch():
    torch = torch_or_skip()
    for args, kw in [((2,), {}), (((2, 3),), {"dilation": (1, 2), "padding": 1, "stride": 2})]:
        assert repr(vg.nn.Unfold(*args, **kw)) == repr(torch.nn.Unfold(*args, **kw))
        # (F.unfold is built of views here: no Im2ColBackward0 node to compare)
        _compare(_x(2, 3, 5, 6), lambda M, a: M.nn.Unfold(*args, **kw)(a), node=False)
        _compare(_x(2, 3, 5, 6), lambda M, a: M.nn.functional.fold(
            M.nn.functional.unfold(a, *args, **kw), (5, 6), *args, **kw), node=True)


FOLD_REFUSALS = {
    "blocks": lambda M: M.nn.functional.fold(M.ones(2, 12, 12), (4, 5), (2, 3)),
    "divisible": lambda M: M.nn.functional.fold(M.ones(2, 13, 12), (4, 5), (2, 3)),
    "1d": lambda M: M.nn.functional.fold(M.ones(12), (4, 5), (2, 3)),
    "4d": lambda M: M.nn.functional.fold(M.ones(2, 12, 12, 1), (4, 5), (2, 3)),
    "empty": lambda M: M.nn.functional.fold(M.ones(2, 0, 12), (4, 5), (2, 3)),
    "stride": lambda M: M.nn.functional.fold(M.ones(2, 12, 12), (4, 5), (2, 3), stride=0),
    "padding": lambda M: M.nn.functional.fold(M.ones(2, 12, 12), (4, 5), (2, 3), padding=-1),
    "dilation": lambda M: M.nn.functional.fold(M.ones(2, 12, 12), (4, 5), (2, 3), dilation=0),
    "kernel": lambda M: M.nn.functional.fold(M.ones(2, 12, 12), (4, 5), (0, 3)),
    "output_len": lambda M: M.nn.functional.fold(M.ones(2, 12, 12), (4, 5, 3), (2, 3)),
    "kernel_len": lambda M: M.nn.functional.fold(M.ones(2, 12, 12), (4, 5), (2, 3, 1)),
    "no_blocks": lambda M: M.nn.functional.fold(M.ones(2, 12, 1), (1, 1), (2, 3)),
    "float_kernel": lambda M: M.nn.functional.fold(M.ones(2, 12, 12), [4, 5], 2.0),
    "module": lambda M: M.nn.Fold((4, 5), 2)(M.ones(2, 12, 11)),
}


@pytest.mark.parametrize("name", sorted(FOLD_REFUSALS))
def test_fold_refusals_match_torch(name):
    torch = torch_or_skip()
    ours = raised(lambda: FOLD_REFUSALS[name](vg))
    theirs = raised(lambda: FOLD_REFUSALS[name](torch))
    assert theirs is not None and ours == theirs


# -- rrelu -----------------------------------------------------------------------------------

EDGES = np.array([-2.0, -0.5, -0.0, 0.0, 0.5, 3.0, -1e-3, 1e-3])


@pytest.mark.parametrize("kind", ["function", "module_eval", "inplace", "rrelu_", "bounds"])
def test_rrelu_eval_matches_torch(kind):
    f = {"function": lambda M, a: M.nn.functional.rrelu(a),
         "module_eval": lambda M, a: M.nn.RReLU(0.1, 0.3).eval()(a),
         "inplace": lambda M, a: M.nn.functional.rrelu(a, 0.2, 0.5, False, True),
         "rrelu_": lambda M, a: M.nn.functional.rrelu_(a, 0.05, 0.4),
         "bounds": lambda M, a: M.nn.functional.rrelu(a, 0.3, 0.3)}[kind]
    _compare(np.concatenate([EDGES, _x(12)]), f)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("inplace", [False, True])
def test_rrelu_training_slopes(dtype, inplace):
    """Whatever the stream: each slope in [lower, upper], output = slope * x and gradient
    = slope where x <= 0, x and 1 elsewhere; with the same seed, PyTorch's slopes."""
    torch = torch_or_skip()
    x = np.concatenate([EDGES, _x(40)]).reshape(6, 8)
    lower, upper = 0.1, 0.4
    outs = []
    for M in (vg, torch):
        a = M.tensor(x, dtype=getattr(M, dtype), requires_grad=True)
        M.manual_seed(3)
        m = M.nn.RReLU(lower, upper, inplace)
        y = m(a * 1.0)
        y.sum().backward()
        outs.append((np.array(y.tolist()), np.array(a.grad.tolist()), y.grad_fn.name()))
    (y, g, node), (ty, tg, tnode) = outs
    assert node == tnode == ("RreluWithNoiseBackward1" if inplace else "RreluWithNoiseBackward0")
    neg = x <= 0
    assert np.all(g[~neg] == 1) and np.array_equal(y[~neg], x[~neg].astype(dtype))
    assert np.all((g[neg] >= np.float32(lower) - 1e-7) & (g[neg] <= np.float32(upper) + 1e-7))
    assert len(np.unique(g[neg])) > 10                      # drawn per element
    np.testing.assert_allclose(y[neg], (x[neg] * g[neg]).astype(dtype), rtol=1e-6)
    np.testing.assert_allclose(y, ty, rtol=1e-6 if dtype == "float32" else 1e-12)
    np.testing.assert_allclose(g, tg, rtol=1e-6 if dtype == "float32" else 1e-12)


def test_rrelu_training_functional_matches_torch():
    _compare(_x(5, 7), lambda M, a: M.nn.functional.rrelu(a, 0.2, 0.6, training=True), seed=11)


def test_rrelu_modules_and_refusals_match_torch():
    torch = torch_or_skip()
    for args in [(), (0.1, 0.3), (0.1, 0.3, True), (0.5, 0.1)]:
        assert repr(vg.nn.RReLU(*args)) == repr(torch.nn.RReLU(*args))
    for call in [lambda M: M.nn.functional.rrelu(M.ones(3), 0.5, 0.1, training=True),
                 lambda M: M.nn.functional.rrelu(M.ones(3), 0.5, 0.1),
                 lambda M: M.nn.RReLU(0.5, 0.1)(M.ones(3)),
                 lambda M: M.nn.functional.rrelu(M.ones(3), "a")]:
        theirs = raised(lambda: call(torch))
        assert theirs is not None and raised(lambda: call(vg)) == theirs
    # the in-place form on a leaf: refused at viewgrad's in-place choke point (its message
    # names the op and says what to do instead)
    ours = raised(lambda: vg.nn.functional.rrelu(vg.ones(2, requires_grad=True), inplace=True))
    theirs = raised(lambda: torch.nn.functional.rrelu(torch.ones(2, requires_grad=True),
                                                      inplace=True))
    assert ours[0] == theirs[0] and theirs[1].rstrip(".") in ours[1]


# -- the 3-D normalisations ------------------------------------------------------------------

@pytest.mark.parametrize("name,kw", [("BatchNorm3d", {}), ("BatchNorm3d", {"affine": False}),
                                     ("InstanceNorm3d", {}),
                                     ("InstanceNorm3d", {"affine": True,
                                                         "track_running_stats": True})])
def test_3d_norms_match_torch(name, kw):
    torch = torch_or_skip()
    assert repr(getattr(vg.nn, name)(3, **kw)) == repr(getattr(torch.nn, name)(3, **kw))
    assert list(getattr(vg.nn, name)(3, **kw).state_dict()) == \
        list(getattr(torch.nn, name)(3, **kw).state_dict())
    _compare(_x(2, 3, 2, 3, 2), lambda M, a: getattr(M.nn, name)(3, **kw)(a), node=False,
             rtol=1e-4, dtype="float32")
