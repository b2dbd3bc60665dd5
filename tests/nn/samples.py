"""Gradcheck samples for the derivatives-table rows added by viewgrad.nn (convolution,
padding, pooling, batch norm), in the format of ``tests/ops/samples.py``:

SAMPLES maps an op name (a key of ``viewgrad.ops.table.OPS``) to a list of
``(fn, specs[, gradcheck options])``; ``fn(*tensors)`` calls the op, ``specs`` are the
shapes of the float64 inputs that require grad. The convolution entry is the parametrized
grid the issue asks for: strides x paddings x dilations x groups, plain and transposed,
1-D, 2-D and 3-D. Shapes are tiny: gradgradcheck differentiates every element.
``tests/ops/samples.py`` merges this dict into the core sweep; ``test_gradcheck.py`` here
runs it too.
"""
import itertools

import viewgrad as vg
from viewgrad.nn import functional as F
from viewgrad.ops import activations as A, conv as C, norm as Nm, pool as P
from viewgrad.nn import functional_cnn as FC


def _conv2d(stride, padding, dilation, groups, bias):
    if bias:
        return lambda x, w, b: F.conv2d(x, w, b, stride, padding, dilation, groups)
    return lambda x, w: F.conv2d(x, w, None, stride, padding, dilation, groups)


def _conv_grid():
    cases = []
    # the 2-D grid: every combination, channels 2 so that groups=2 is depthwise
    for stride, padding, dilation, groups in itertools.product((1, 2), (0, 1), (1, 2), (1, 2)):
        bias = (stride + padding + dilation + groups) % 2 == 0  # half of them with a bias
        specs = [(1, 2, 4, 4), (2, 2 // groups, 2, 2)] + ([(2,)] if bias else [])
        cases.append((_conv2d(stride, padding, dilation, groups, bias), specs))
    # a batch of 2 with 4 channels in 2 groups and a non-square kernel, strides per dim
    cases.append((lambda x, w, b: F.conv2d(x, w, b, (2, 1), (1, 0), (1, 2), 2),
                  [(2, 4, 4, 5), (2, 2, 2, 2), (2,)]))
    # padding='same' with an even kernel: the extra element is padded on the right
    cases.append((lambda x, w: F.conv2d(x, w, padding="same"), [(1, 1, 3, 4), (2, 1, 2, 3)]))
    # 1-D and 3-D through the same op
    cases.append((lambda x, w, b: F.conv1d(x, w, b, 2, 1, 2, 2), [(2, 2, 6), (4, 1, 2), (4,)]))
    cases.append((lambda x, w: F.conv1d(x, w, padding="valid"), [(1, 3, 4), (2, 3, 3)]))
    cases.append((lambda x, w: F.conv3d(x, w, stride=(1, 2, 1), padding=1),
                  [(1, 1, 2, 3, 2), (1, 1, 2, 2, 2)]))
    # transposed: strides, paddings, output_padding, dilations, groups
    for stride, padding, out_pad, dilation, groups in [
            (1, 0, 0, 1, 1), (2, 0, 1, 1, 1), (2, 1, 1, 1, 2), (1, 1, 1, 2, 1),
            (2, 1, 0, 2, 2), (3, 1, 2, 1, 1)]:
        specs = [(1, 2, 3, 2), (2, 2 // groups, 2, 2), (2,)]
        cases.append((lambda x, w, b, s=stride, p=padding, o=out_pad, d=dilation, g=groups:
                      F.conv_transpose2d(x, w, b, s, p, o, g, d), specs))
    cases.append((lambda x, w: F.conv_transpose1d(x, w, stride=2, padding=1, output_padding=1),
                  [(2, 2, 3), (2, 1, 3)]))
    # unbatched input
    cases.append((lambda x, w: F.conv2d(x, w, stride=2), [(1, 4, 3), (2, 1, 2, 2)]))
    return cases


def _upsample_samples():
    """interpolate's rows (nn/upsample.py): each forward row, and its backward row through
    the gradient of the forward with respect to the incoming gradient."""
    cases = {"nearest": [(1, (1, 2, 3), dict(scale_factor=2)), (2, (1, 1, 3, 2), dict(size=(4, 5))),
                         (3, (1, 1, 2, 2, 2), dict(scale_factor=2))],
             "nearest-exact": [(1, (1, 1, 4), dict(size=6)), (2, (1, 1, 3, 3), dict(scale_factor=1.5)),
                               (3, (1, 1, 2, 2, 2), dict(size=(3, 3, 3)))],
             "linear": [(1, (1, 2, 3), dict(scale_factor=2))],
             "bilinear": [(2, (1, 1, 3, 3), dict(size=(4, 5), align_corners=True))],
             "bicubic": [(2, (1, 1, 3, 3), dict(scale_factor=2))],
             "trilinear": [(3, (1, 1, 2, 2, 2), dict(scale_factor=2))]}
    out = {}
    for mode, specs in cases.items():
        for nd, shape, kw in specs:
            slug = mode.replace("-", "_")
            fwd = (lambda mode, kw: lambda x: F.interpolate(x, mode=mode, **kw))(mode, kw)
            out[f"upsample_{slug}{nd}d"] = [(fwd, [shape])]
            out_shape = tuple(F.interpolate(vg.zeros(shape), mode=mode, **kw).shape)

            def bwd(g, fwd=fwd, shape=shape):
                x = vg.zeros(shape, dtype=vg.float64, requires_grad=True)
                return vg.autograd.grad(fwd(x), x, g, create_graph=True)[0]
            out[f"upsample_{slug}{nd}d_backward"] = [(bwd, [out_shape])]
    # antialias=True: PyTorch's private _upsample_<mode>2d_aa rows, shrinking (where the
    # filter widens) and growing
    for mode in ("bilinear", "bicubic", "lanczos"):
        fwds = [(lambda mode, kw: lambda x: F.interpolate(x, mode=mode, antialias=True, **kw))(
            mode, kw) for kw in (dict(size=(3, 2)), dict(scale_factor=1.5))]
        shapes = [(1, 2, 6, 5), (1, 1, 3, 3)]
        out[f"_upsample_{mode}2d_aa"] = [(f, [sh]) for f, sh in zip(fwds, shapes)]
        rows = []
        for f, sh in zip(fwds, shapes):
            def bwd(g, fwd=f, shape=sh):
                x = vg.zeros(shape, dtype=vg.float64, requires_grad=True)
                return vg.autograd.grad(fwd(x), x, g, create_graph=True)[0]
            rows.append((bwd, [tuple(f(vg.zeros(sh)).shape)]))
        out[f"_upsample_{mode}2d_aa_backward"] = rows
    return out


SAMPLES = {
    "convolution": _conv_grid(),
    "constant_pad_nd": [
        (lambda a: C.constant_pad_nd(a, (1, 2)), [(2, 3)]),
        (lambda a: F.pad(a, (1, 0, -1, 2), value=0.5), [(1, 3, 2)]),
    ],
    "max_pool2d_with_indices": [
        (lambda a: F.max_pool2d(a, 2), [(1, 2, 4, 4)]),
        (lambda a: F.max_pool2d(a, 3, stride=2, padding=1), [(2, 1, 5, 4)]),
        (lambda a: F.max_pool2d(a, (2, 3), stride=(1, 2), dilation=(2, 1), ceil_mode=True),
         [(1, 1, 5, 6)]),
        (lambda a: F.max_pool1d(a, 2, stride=1, padding=1), [(1, 2, 4)]),
        (lambda a: F.max_pool2d(a, 2, return_indices=True)[0], [(2, 3, 2)]),
    ],
    "max_pool3d_with_indices": [
        (lambda a: F.max_pool3d(a, 2), [(1, 2, 4, 4, 3)]),
        (lambda a: F.max_pool3d(a, (2, 1, 2), stride=(1, 2, 1), padding=(1, 0, 1),
                                dilation=(1, 2, 1), ceil_mode=True), [(1, 1, 3, 5, 4)]),
        (lambda a: F.max_pool3d(a, 2, return_indices=True)[0], [(2, 3, 2, 4)]),
    ],
    "avg_pool2d": [
        (lambda a: F.avg_pool2d(a, 2), [(1, 2, 4, 4)]),
        (lambda a: F.avg_pool2d(a, 3, stride=2, padding=1), [(1, 1, 5, 4)]),
        (lambda a: F.avg_pool2d(a, 3, 2, 1, ceil_mode=True, count_include_pad=False),
         [(2, 1, 4, 5)]),
        (lambda a: F.avg_pool2d(a, (1, 2), divisor_override=3), [(1, 2, 3)]),
    ],
    "adaptive_avg_pool2d": [
        (lambda a: F.adaptive_avg_pool2d(a, (2, 3)), [(1, 2, 5, 4)]),
        (lambda a: F.adaptive_avg_pool2d(a, 1), [(2, 2, 3)]),
        (lambda a: F.adaptive_avg_pool2d(a, (None, 2)), [(1, 1, 3, 4)]),
    ],
    "native_batch_norm": [
        (lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
         [(3, 2, 2), (2,), (2,)]),
        (lambda x: F.batch_norm(x, None, None, training=True, eps=1e-3), [(4, 3)]),
        (lambda x, w: F.batch_norm(x, vg.zeros(2, dtype=vg.float64), vg.ones(2, dtype=vg.float64),
                                   w, None, training=True, momentum=0.5), [(2, 2, 2, 2), (2,)]),
    ],
    "native_batch_norm_eval": [
        (lambda x, w, b: F.batch_norm(x, vg.tensor([0.1, -0.2], dtype=vg.float64),
                                      vg.tensor([0.5, 2.0], dtype=vg.float64), w, b),
         [(3, 2, 2), (2,), (2,)]),
        (lambda x: F.batch_norm(x, vg.zeros(3, dtype=vg.float64),
                                vg.ones(3, dtype=vg.float64)), [(2, 3, 1, 2)]),
    ],
    # activations with rows of their own (viewgrad/ops/activations.py)
    "leaky_relu": [(lambda x: F.leaky_relu(x, 0.2), [(3, 4)])],
    "elu": [(lambda x: F.elu(x, 1.5), [(3, 4)])],
    "gelu": [(lambda x: F.gelu(x), [(3, 4)])],
    "gelu_backward": [(lambda g, x: A.gelu_backward(g, x), [(3,), (3,)])],
    "softplus": [(lambda x: F.softplus(x, 2.0, 1.0), [(3, 4)])],
    "silu": [(lambda x: F.silu(x), [(3, 4)])],
    "selu": [(lambda x: F.selu(x), [(3, 4)])],
    # (padding_idx reads a row it sends no gradient to, as PyTorch: not a gradcheck sample;
    # tests/nn/test_layer_norm_node_vs_torch.py compares it with torch)
    "embedding": [(lambda w: F.embedding(vg.tensor([[0, 2, 2], [3, 1, 0]]), w), [(4, 3)])],
    **_upsample_samples(),
    "adaptive_max_pool2d": [(lambda x: F.adaptive_max_pool2d(x, (2, 3)), [(1, 2, 5, 5)]),
                            (lambda x: F.adaptive_max_pool2d(x, 2), [(2, 4, 4)])],
    "adaptive_max_pool3d": [(lambda x: F.adaptive_max_pool3d(x, (2, 3, 2)), [(1, 2, 3, 5, 4)]),
                            (lambda x: F.adaptive_max_pool3d(x, 2), [(2, 3, 4, 3)])],
    "_prelu_kernel": [(lambda x, w: F.prelu(x, w), [(2, 3, 2), (3,)]),
                      (lambda x, w: F.prelu(x, w), [(4,), (1,)])],
    "pixel_shuffle": [(lambda x: F.pixel_shuffle(x, 2), [(1, 8, 2, 3)])],
    "pixel_unshuffle": [(lambda x: F.pixel_unshuffle(x, 2), [(2, 1, 4, 6)])],
    "channel_shuffle": [(lambda x: F.channel_shuffle(x, 2), [(2, 4, 3)]),
                        (lambda x: F.channel_shuffle(x, 3), [(1, 6, 2, 1)])],
    "native_group_norm": [(lambda x, w, b: F.group_norm(x, 2, w, b), [(2, 4, 3), (4,), (4,)]),
                          (lambda x: F.group_norm(x, 1), [(3, 2, 2)])],
    "native_layer_norm": [(lambda x, w, b: F.layer_norm(x, (4,), w, b), [(3, 4), (4,), (4,)]),
                          (lambda x: F.layer_norm(x, (2, 3)), [(2, 2, 3)])],
    "celu": [(lambda x: F.celu(x, 0.7), [(3, 4)])],
    "gelu_tanh": [(lambda x: F.gelu(x, approximate="tanh"), [(3, 4)])],
    "mish": [(lambda x: F.mish(x), [(3, 4)])],
    "hardsigmoid": [(lambda x: F.hardsigmoid(x * 3), [(3, 4)])],
    "hardswish": [(lambda x: F.hardswish(x * 3), [(3, 4)])],
    "log_sigmoid": [(lambda x: F.logsigmoid(x), [(3, 4)])],
    "glu": [(lambda x: F.glu(x), [(3, 4)]), (lambda x: F.glu(x, 0), [(4, 3)])],
    "hardtanh": [(lambda x: F.hardtanh(x, -0.5, 0.5), [(3, 4)])],
    # the in-place forms (their rows save the result): written into a non-leaf copy
    "leaky_relu_": [(lambda x: F.leaky_relu(x * 1.0, 0.2, inplace=True), [(3, 4)])],
    "elu_": [(lambda x: F.elu_(x * 1.0, 1.5), [(3, 4)])],
    "selu_": [(lambda x: F.selu(x * 1.0, inplace=True), [(3, 4)])],
    "celu_": [(lambda x: F.celu_(x * 1.0, 0.7), [(3, 4)])],
    "threshold": [(lambda x: F.threshold(x, 0.1, 2.5), [(3, 4)])],
    "hardshrink": [(lambda x: F.hardshrink(x, 0.1), [(3, 4)])],   # (seeded: no value at a
    "softshrink": [(lambda x: F.softshrink(x, 0.1), [(3, 4)])],   # kink, ±0.1)
    "threshold_": [(lambda x: F.threshold(x * 1.0, 0.1, 2.5, inplace=True), [(3, 4)]),
                   (lambda x: F.threshold_(x * 1.0, -0.2, -1.5), [(3, 4)])],
    # unfold (im2col): overlapping blocks, dilation, padding, stride; unbatched
    "im2col": [
        (lambda a: F.unfold(a, 2), [(2, 2, 4, 5)]),
        (lambda a: F.unfold(a, (2, 3), dilation=(2, 1), padding=1, stride=(1, 2)),
         [(1, 1, 5, 4)]),
        (lambda a: F.unfold(a, 2, stride=2), [(1, 3, 3)]),
    ],
    # fold (col2im): overlapping blocks, dilation, padding, stride; unbatched
    "col2im": [
        (lambda a: F.fold(a, (4, 5), 2), [(2, 12, 12)]),
        (lambda a: F.fold(a, (5, 4), (2, 3), dilation=(2, 1), padding=1, stride=(1, 2)),
         [(1, 6, 10)]),
        (lambda a: F.fold(a, 3, 2), [(4, 4)]),
    ],
    # rrelu: evaluation (fixed slope) and training (the same seed at every call, so the
    # finite differences see the same slopes)
    "rrelu_with_noise": [
        (lambda x: F.rrelu(x, 0.1, 0.3), [(3, 4)]),
        (lambda x: (vg.manual_seed(0), F.rrelu(x, 0.1, 0.3, training=True))[1], [(3, 4)]),
    ],
    "rrelu_with_noise_": [
        (lambda x: F.rrelu_(x * 1.0, 0.2, 0.4), [(3, 4)]),
        (lambda x: (vg.manual_seed(0), F.rrelu(x * 1.0, training=True, inplace=True))[1],
         [(3, 4)]),
    ],
    # (PyTorch's ctc_loss has no second derivative, so neither has viewgrad's: its
    # gradcheck, first order only and through log_softmax, is in
    # tests/nn/test_ctc_loss_vs_torch.py)
    "_ctc_loss": [],
    # (PyTorch's pdist has no second derivative either: its first-order gradcheck is in
    # tests/ops/test_pdist_node_vs_torch.py)
    "_pdist_forward": [],
    # (nor embedding_bag's _embedding_bag: its first-order gradcheck is in
    # tests/nn/test_embedding_bag_node_vs_torch.py)
    "_embedding_bag": [],
}
# reflection and replication padding, and their backward ops, in 1, 2 and 3 dims
for _mode, _name in (("reflect", "reflection"), ("replicate", "replication")):
    for _n, _shape, _pad in ((1, (2, 3, 4), (2, 1)), (2, (1, 3, 4), (1, 2, 0, 2)),
                             (3, (1, 2, 3, 3), (1, 0, 2, 1, -1, 1))):
        _out = list(_shape)
        for _i in range(_n):
            _out[-1 - _i] += _pad[2 * _i] + _pad[2 * _i + 1]
        SAMPLES[f"{_name}_pad{_n}d"] = [
            (lambda a, p=_pad, m=_mode: F.pad(a, p, m), [_shape])]
        SAMPLES[f"{_name}_pad{_n}d_backward"] = [
            (lambda g, s=_shape, p=_pad, m=_mode: FC._pad_backward(g, s, p, m), [tuple(_out)])]
