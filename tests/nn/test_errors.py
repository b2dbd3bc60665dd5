"""Bad input is a teaching moment: each error names the argument and the shapes, in
PyTorch's wording where PyTorch has one."""
import pytest

import viewgrad as vg
from viewgrad import nn
from viewgrad.nn import functional as F


def _t(*shape):
    return vg.randn(*shape)


@pytest.mark.parametrize("call,exc,words", [
    # wrong ranks
    (lambda: F.conv2d(_t(5, 5), _t(4, 1, 3, 3)), RuntimeError,
     ["3D (unbatched) or 4D (batched) input to conv2d", "[5, 5]"]),
    (lambda: F.conv2d(_t(1, 3, 5, 5), _t(4, 3, 3)), RuntimeError,
     ["weight", "4-D", "[4, 3, 3]"]),
    (lambda: F.conv1d(_t(1, 2, 3, 4), _t(4, 2, 3)), RuntimeError, ["conv1d", "[1, 2, 3, 4]"]),
    (lambda: F.conv_transpose2d(_t(3, 4), _t(3, 2, 2, 2)), RuntimeError,
     ["conv_transpose2d", "[3, 4]"]),
    (lambda: vg.ops.conv.convolution(_t(1, 3, 5), _t(4, 3, 3, 3)), RuntimeError,
     ["4-dimensional input", "[1, 3, 5]", "[4, 3, 3, 3]"]),
    (lambda: F.max_pool2d(_t(5, 5), 2), RuntimeError, ["max_pool2d", "[5, 5]"]),
    (lambda: F.avg_pool2d(_t(1, 1, 1, 5, 5), 2), RuntimeError, ["avg_pool2d", "[1, 1, 1, 5, 5]"]),
    (lambda: F.adaptive_avg_pool2d(_t(5), 2), RuntimeError, ["3D or 4D", "[5]"]),
    (lambda: F.batch_norm(_t(4), None, None, training=True), ValueError, ["[4]"]),
    (lambda: nn.BatchNorm2d(3)(_t(2, 3, 4)), ValueError, ["4D", "3D", "[2, 3, 4]"]),
    # channels and groups
    (lambda: F.conv2d(_t(2, 3, 5, 5), _t(4, 2, 3, 3)), RuntimeError,
     ["weight of size [4, 2, 3, 3]", "input[2, 3, 5, 5]", "2 channels", "got 3 channels"]),
    (lambda: F.conv2d(_t(2, 3, 5, 5), _t(4, 1, 3, 3), groups=2), RuntimeError,
     ["groups=2", "[4, 1, 3, 3]", "[2, 3, 5, 5]", "divisible by groups"]),
    (lambda: F.conv2d(_t(2, 4, 5, 5), _t(3, 2, 3, 3), groups=2), RuntimeError,
     ["divisible by 2", "[3, 2, 3, 3]"]),
    (lambda: F.conv_transpose2d(_t(2, 3, 5, 5), _t(4, 2, 3, 3)), RuntimeError,
     ["transposed", "[4, 2, 3, 3]", "[2, 3, 5, 5]", "4 channels"]),
    (lambda: nn.Conv2d(3, 4, 3, groups=2), ValueError, ["in_channels", "groups"]),
    (lambda: nn.Conv2d(4, 3, 3, groups=2), ValueError, ["out_channels", "groups"]),
    # kernel larger than the padded input
    (lambda: F.conv2d(_t(1, 3, 5, 5), _t(4, 3, 7, 3)), RuntimeError,
     ["padded input size per channel: (5 x 5)", "Kernel size: (7 x 3)", "can't be greater"]),
    (lambda: F.conv2d(_t(1, 1, 4, 4), _t(1, 1, 3, 3), dilation=2), RuntimeError,
     ["(4 x 4)", "(5 x 5)", "dilation [2, 2]"]),
    (lambda: F.max_pool2d(_t(1, 3, 5, 5), 7), RuntimeError, ["(3x5x5)", "too small"]),
    (lambda: F.avg_pool2d(_t(1, 3, 5, 5), 6), RuntimeError, ["(3x5x5)", "too small"]),
    # mismatched weight / bias / stat shapes
    (lambda: F.conv2d(_t(1, 3, 5, 5), _t(4, 3, 3, 3), _t(3)), RuntimeError,
     ["bias", "4 elements", "[3]", "[4, 3, 3, 3]"]),
    (lambda: F.batch_norm(_t(2, 3, 4), vg.zeros(4), vg.ones(4), training=True), RuntimeError,
     ["running_mean", "3 elements"]),
    (lambda: F.batch_norm(_t(2, 3, 4), vg.zeros(3), vg.ones(3), _t(2)), RuntimeError,
     ["weight", "3 elements", "[2]"]),
    # (the module leaves the channel count to batch_norm, as PyTorch: its words)
    (lambda: nn.BatchNorm2d(4)(_t(2, 3, 4, 4)), RuntimeError,
     ["running_mean should contain 3 elements not 4"]),
    (lambda: nn.Linear(4, 2)(_t(3, 5)), RuntimeError, ["3x5", "4"]),
    (lambda: F.conv2d(_t(1, 3, 5, 5), _t(4, 3, 3, 3).double()), RuntimeError,
     ["float32", "float64"]),
    (lambda: F.conv2d(vg.zeros(1, 1, 3, 3, dtype=vg.int64), _t(1, 1, 2, 2)), RuntimeError,
     ["floating point", "int64", "[1, 1, 3, 3]"]),
    # other arguments
    (lambda: F.conv2d(_t(1, 1, 5, 5), _t(1, 1, 3, 3), stride=0), RuntimeError,
     ["non-positive stride", "[0, 0]"]),
    (lambda: F.conv2d(_t(1, 1, 5, 5), _t(1, 1, 3, 3), padding=-1), RuntimeError,
     ["negative padding"]),
    (lambda: F.conv2d(_t(1, 1, 5, 5), _t(1, 1, 3, 3), stride=(1, 2, 3)), RuntimeError,
     ["stride", "2 values", "[1, 2, 3]"]),
    (lambda: F.conv2d(_t(1, 1, 5, 5), _t(1, 1, 3, 3), stride=2, padding="same"), RuntimeError,
     ["'same'", "strided"]),
    (lambda: F.conv2d(_t(1, 1, 5, 5), _t(1, 1, 3, 3), padding="full"), RuntimeError,
     ["Invalid padding string", "'full'"]),
    (lambda: F.conv_transpose2d(_t(1, 1, 5, 5), _t(1, 1, 3, 3), stride=2, output_padding=2),
     RuntimeError, ["output padding must be smaller", "[2, 2]"]),
    (lambda: F.max_pool2d(_t(1, 1, 5, 5), 3, padding=2), RuntimeError,
     ["pad should be at most half", "pad=2", "kernel_size=3"]),
    (lambda: F.batch_norm(_t(1, 3), vg.zeros(3), vg.ones(3), training=True), ValueError,
     ["more than 1 value per channel", "[1, 3]"]),
    (lambda: F.batch_norm(_t(2, 3), None, None), RuntimeError, ["evaluation mode"]),
    (lambda: F.dropout(_t(3), 1.5), ValueError, ["between 0 and 1", "1.5"]),
    (lambda: F.pad(_t(3), (1, 2, 3)), RuntimeError, ["divisible by 2"]),
    (lambda: F.pad(_t(3), (-2, -2)), RuntimeError, ["negative output size", "dimension 0"]),
])
def test_bad_input(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    msg = str(info.value)
    for w in words:
        assert w in msg, f"{w!r} not in: {msg}"
