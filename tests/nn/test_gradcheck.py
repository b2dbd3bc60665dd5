"""gradcheck and gradgradcheck (float64, finite differences) for every op viewgrad.nn adds
to the derivatives table, over the parametrized grid in ``samples.py`` (strides, paddings,
dilations, groups; transposed; pooling modes; batch norm training/eval, affine or not)."""
import numpy as np
import pytest

import viewgrad as vg
from viewgrad.ops.table import OPS

from .samples import SAMPLES


def _cases():
    for name in sorted(SAMPLES):
        for i, case in enumerate(SAMPLES[name]):
            fn, specs = case[:2]
            opts = case[2] if len(case) > 2 else {}
            yield pytest.param(name, fn, specs, opts, id=f"{name}-{i}")


def _inputs(specs, seed):
    rng = np.random.default_rng(seed)
    return [vg.tensor(rng.standard_normal(s), dtype=vg.float64, requires_grad=True)
            for s in specs]


def test_samples_name_table_rows():
    for name in SAMPLES:
        assert name in OPS, f"{name} is not a row of the derivatives table"


def test_every_nn_op_has_samples():
    from viewgrad.ops import conv, norm, pool
    ours = {n for n, op in OPS.items()
            if getattr(op.forward, "__module__", None) in (conv.__name__, pool.__name__,
                                                           norm.__name__)}
    assert ours and ours <= set(SAMPLES), f"nn ops without samples: {ours - set(SAMPLES)}"


def test_grid_covers_strides_paddings_dilations_groups():
    seen = set()
    real = vg.ops.conv._convolution

    def spy(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
        seen.add((max(stride), max(padding), max(dilation), groups, transposed))
        return real(input, weight, bias, stride, padding, dilation, transposed,
                    output_padding, groups)
    vg.ops.conv._convolution = spy
    try:
        for fn, specs in (c[:2] for c in SAMPLES["convolution"]):
            with vg.no_grad():
                fn(*_inputs(specs, 0))
    finally:
        vg.ops.conv._convolution = real
    assert {s for s, *_ in seen} >= {1, 2} and {p for _, p, *_ in seen} >= {0, 1}
    assert {d for _, _, d, *_ in seen} >= {1, 2} and {g for *_, g, _ in seen} >= {1, 2}
    assert {(s, p, d, g) for s, p, d, g, t in seen if not t} >= {
        (s, p, d, g) for s in (1, 2) for p in (0, 1) for d in (1, 2) for g in (1, 2)}
    assert any(t for *_, t in seen)


@pytest.mark.parametrize("name,fn,specs,opts", list(_cases()))
def test_gradcheck(name, fn, specs, opts):
    assert vg.autograd.gradcheck(fn, _inputs(specs, 1), **opts)


@pytest.mark.parametrize("name,fn,specs,opts", list(_cases()))
def test_gradgradcheck(name, fn, specs, opts):
    vg.manual_seed(2)
    assert vg.autograd.gradgradcheck(fn, _inputs(specs, 3), **opts)


def test_node_names():
    x = vg.randn(2, 2, 5, 5, requires_grad=True)
    w = vg.randn(3, 2, 3, 3, requires_grad=True)
    F = vg.nn.functional
    assert F.conv2d(x, w).grad_fn.name() == "ConvolutionBackward0"
    assert F.conv_transpose2d(x, vg.randn(2, 3, 3, 3)).grad_fn.name() == "ConvolutionBackward0"
    assert F.conv1d(x[:, :, 0], w[:, :, 0]).grad_fn.name() == "ConvolutionBackward0"
    assert F.max_pool2d(x, 2).grad_fn.name() == "MaxPool2DWithIndicesBackward0"
    assert F.avg_pool2d(x, 2).grad_fn.name() == "AvgPool2DBackward0"
    assert F.adaptive_avg_pool2d(x, 2).grad_fn.name() == "AdaptiveAvgPool2DBackward0"
    assert F.pad(x, (1, 1)).grad_fn.name() == "ConstantPadNdBackward0"
    rm, rv = vg.zeros(2), vg.ones(2)
    assert F.batch_norm(x, rm, rv, training=True).grad_fn.name() == "NativeBatchNormBackward0"
    assert F.batch_norm(x, rm, rv).grad_fn.name() == "NativeBatchNormBackward0"
    assert F.dropout(x, 0.5).grad_fn.name() == "MulBackward0"  # as PyTorch on CPU


def test_double_backward_builds_convolutions():
    """The backward of a convolution is made of convolutions: with create_graph=True the
    gradient has a ConvolutionBackward0 grad_fn of its own."""
    x = vg.randn(1, 2, 5, 5, dtype=vg.float64, requires_grad=True)
    w = vg.randn(4, 1, 3, 3, dtype=vg.float64, requires_grad=True)
    y = vg.nn.functional.conv2d(x, w, stride=2, padding=1, groups=2)
    gx, gw = vg.autograd.grad(y.pow(2).sum(), (x, w), create_graph=True)
    assert gx.grad_fn.name() == "ConvolutionBackward0"
    (gx.sum() + gw.sum()).backward()
    assert x.grad is not None and w.grad is not None


def test_unfold_is_one_im2col_node_and_conv_is_unfold_matmul():
    """F.unfold records PyTorch's one Im2ColBackward0 node, whose gradient is fold (a
    Col2ImBackward0 node in a double backward); conv2d equals weight @ unfold(x)."""
    F = vg.nn.functional
    x = vg.randn(2, 4, 5, 6, dtype=vg.float64, requires_grad=True)
    w = vg.randn(6, 2, 3, 2, dtype=vg.float64, requires_grad=True)
    cols = F.unfold(x, (3, 2), dilation=(1, 2), padding=1, stride=2)
    assert cols.grad_fn.name() == "Im2ColBackward0"
    assert cols.grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"
    g, = vg.autograd.grad((cols * cols).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "Col2ImBackward0"
    # groups=2: each group's weight against its group's columns
    conv = F.conv2d(x, w, None, 2, 1, (1, 2), groups=2)
    k = 2 * 3 * 2
    parts = [w[g * 3:(g + 1) * 3].reshape(3, k) @ cols[:, g * k:(g + 1) * k] for g in range(2)]
    ref = vg.cat(parts, 1).reshape(conv.shape)
    assert np.allclose(conv.detach().cpu().numpy(), ref.detach().cpu().numpy())
    f = lambda x: F.unfold(x, 2, padding=1, stride=(1, 2))  # noqa: E731
    xs = vg.randn(1, 2, 4, 3, dtype=vg.float64, requires_grad=True)
    assert vg.autograd.gradcheck(f, (xs,)) and vg.autograd.gradgradcheck(f, (xs,))


@pytest.mark.parametrize("op", ["conv_input", "conv_weight", "conv_frozen_weight",
                                "max_pool", "avg_pool", "adaptive", "bn_train"])
def test_saved_tensors_follow_pytorch(op):
    """What a node saves decides which later in-place ops break backward; these follow
    PyTorch: convolution saves input and weight, the pools save their input, batch norm
    (training) its input."""
    F = vg.nn.functional
    x = vg.randn(2, 2, 4, 4, requires_grad=True)
    w = vg.randn(3, 2, 3, 3, requires_grad=True)
    a, b = x * 1, w * 1
    if op == "conv_frozen_weight":  # only the input needs a gradient: w is still saved
        b = w.detach().clone()
    out = {"conv_input": lambda: F.conv2d(a, b), "conv_weight": lambda: F.conv2d(a, b),
           "conv_frozen_weight": lambda: F.conv2d(a, b),
           "max_pool": lambda: F.max_pool2d(a, 2), "avg_pool": lambda: F.avg_pool2d(a, 2),
           "adaptive": lambda: F.adaptive_avg_pool2d(a, 3),
           "bn_train": lambda: F.batch_norm(a, None, None, training=True)}[op]()
    with vg.no_grad():
        (b if op.startswith("conv_") and op != "conv_input" else a).add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_conv_saves_input_and_weight_readably():
    x = vg.randn(1, 2, 4, 4, requires_grad=True)
    w = vg.randn(3, 2, 3, 3)
    y = vg.nn.functional.conv2d(x, w, stride=2)
    assert y.grad_fn._saved_weight is w and y.grad_fn._saved_input is x
    assert y.grad_fn._saved_stride == (2, 2) and y.grad_fn._saved_groups == 1


@pytest.mark.parametrize("name,fn,specs,opts",
                         [c for c in _cases() if OPS[c.values[0]].fast is not None])
def test_fast_kernels_match_formulas(name, fn, specs, opts):
    """A plain backward runs the array kernels (ops/fast.py style; convolution, max pool,
    batch norm), create_graph=True the viewgrad formulas: the same gradients on every
    sample."""
    inputs = _inputs(specs, 5)
    out = fn(*inputs)
    v = vg.tensor(np.random.default_rng(6).standard_normal(tuple(out.shape)),
                  dtype=out.dtype)
    fast = vg.autograd.grad(out, inputs, v, retain_graph=True, allow_unused=True)
    slow = vg.autograd.grad(out, inputs, v, create_graph=True, allow_unused=True)
    for a, b in zip(fast, slow):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.shape == b.shape and a.dtype == b.dtype
            np.testing.assert_allclose(a.cpu().numpy(), b.detach().cpu().numpy(), rtol=1e-10,
                                       atol=1e-12)
