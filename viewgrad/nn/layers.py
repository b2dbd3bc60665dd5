"""The layers: Linear, Conv1d, Conv2d, ConvTranspose2d, BatchNorm1d/2d, activations,
Dropout, pooling, Flatten, Identity, and the losses CrossEntropyLoss, NLLLoss, MSELoss.

Each keeps its parameters as ``Parameter``s and calls ``viewgrad.nn.functional`` in
``forward``. Parameters are initialised as in PyTorch (``reset_parameters``).
"""
from __future__ import annotations

import math

from ..ops import factories as Fa
from ..autograd.grad_mode import no_grad
from . import functional as F
from .functional_losses import _legacy
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["Identity", "Linear", "Conv1d", "Conv2d", "ConvTranspose2d", "BatchNorm1d",
           "BatchNorm2d", "ReLU", "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "Dropout",
           "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "Flatten", "CrossEntropyLoss",
           "NLLLoss", "MSELoss"]


def _tuple(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """``y = x @ weight.T + bias`` with weight (out_features, in_features)."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        # Zeros, not uninitialised memory (PyTorch uses torch.empty): the init writes that
        # follow are traced, and their before-picture must not show garbage that differs
        # from run to run.
        self.weight = Parameter(Fa.zeros(out_features, in_features, device=device,
                                         dtype=dtype))
        if bias:
            self.bias = Parameter(Fa.zeros(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        # PyTorch's choice: kaiming_uniform_ with a=sqrt(5) is U(-1/sqrt(fan_in), +...)
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class _ConvNd(Module):
    _nsp = 2
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", output_padding=0,
                 device=None, dtype=None):
        super().__init__()
        n = self._nsp
        name = type(self).__name__
        if groups <= 0:
            raise ValueError(f"groups must be a positive integer ({name}: got {groups})")
        if in_channels % groups:
            raise ValueError(f"in_channels must be divisible by groups ({name}: "
                             f"in_channels={in_channels}, groups={groups})")
        if out_channels % groups:
            raise ValueError(f"out_channels must be divisible by groups ({name}: "
                             f"out_channels={out_channels}, groups={groups})")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError(f"padding_mode must be one of ['zeros', 'reflect', 'replicate', "
                             f"'circular'], but got padding_mode='{padding_mode}'")
        if padding_mode != "zeros" and self._transposed:
            raise ValueError(f'Only "zeros" padding mode is supported for {name}')
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 "{'same', 'valid'}")
            if padding == "same" and any(s != 1 for s in _tuple(stride, n)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _tuple(kernel_size, n)
        self.stride = _tuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _tuple(padding, n)
        self.dilation = _tuple(dilation, n)
        self.output_padding = _tuple(output_padding, n)
        self.groups = groups
        self.padding_mode = padding_mode
        if self._transposed:
            shape = (in_channels, out_channels // groups) + self.kernel_size
        else:
            shape = (out_channels, in_channels // groups) + self.kernel_size
        self.weight = Parameter(Fa.zeros(shape, device=device, dtype=dtype))  # see Linear
        if bias:
            self.bias = Parameter(Fa.zeros(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _padded(self, input):
        """(input, padding) for the convolution: a padding_mode other than 'zeros' pads the
        input itself (F.pad with that mode, as PyTorch) and convolves with padding 0."""
        if self.padding_mode == "zeros":
            return input, self.padding
        if isinstance(self.padding, str):
            if self.padding == "valid":
                return input, 0
            total = [d * (k - 1) for d, k in zip(self.dilation, self.kernel_size)]
            pads = [(t // 2, t - t // 2) for t in total]
        else:
            pads = [(p, p) for p in self.padding]
        flat = tuple(v for pair in reversed(pads) for v in pair)
        return F.pad(input, flat, mode=self.padding_mode), 0

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * len(self.padding):   # ("same"/"valid" printed bare, as
            s += f", padding={self.padding}"          # PyTorch's str.format does)
        if self.dilation != (1,) * self._nsp:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self._nsp:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    _nsp = 1

    def forward(self, input):
        input, padding = self._padded(input)
        return F.conv1d(input, self.weight, self.bias, self.stride, padding,
                        self.dilation, self.groups)


class Conv2d(_ConvNd):
    """2-D convolution layer: weight (out_channels, in_channels/groups, kH, kW)."""
    _nsp = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, 0, device, dtype)

    def forward(self, input):
        input, padding = self._padded(input)
        return F.conv2d(input, self.weight, self.bias, self.stride, padding,
                        self.dilation, self.groups)


class ConvTranspose2d(_ConvNd):
    """Transposed 2-D convolution: weight (in_channels, out_channels/groups, kH, kW)."""
    _nsp = 2
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, output_padding, device, dtype)

    def forward(self, input):
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  self.output_padding, self.groups, self.dilation)


class _BatchNorm(Module):
    _dims = (2,)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(Fa.ones(num_features, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        if affine and bias:   # (bias=False: a scale without a shift, as PyTorch's)
            self.bias = Parameter(Fa.zeros(num_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", Fa.zeros(num_features, device=device,
                                                          dtype=dtype))
            self.register_buffer("running_var", Fa.ones(num_features, device=device,
                                                        dtype=dtype))
            self.register_buffer("num_batches_tracked", Fa.zeros((), dtype="int64",
                                                                 device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Reset the running statistics and the affine parameters (as PyTorch's
        constructor does: each buffer and parameter is written once, so its _version is
        1 afterwards, as in PyTorch)."""
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def reset_running_stats(self):
        if self.track_running_stats:
            init.zeros_(self.running_mean)
            init.ones_(self.running_var)
            init.zeros_(self.num_batches_tracked)

    def forward(self, input):
        if input.dim() not in self._dims:   # (PyTorch's words, then the sizes)
            raise ValueError(f"expected {' or '.join(f'{d}D' for d in self._dims)} input "
                             f"(got {input.dim()}D input) ({type(self).__name__} was given "
                             f"size {list(input.shape)})")
        # (a wrong channel count is batch_norm's to refuse, as in PyTorch: the running
        # statistics' or the weight's size named; with neither, PyTorch computes it)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked.item())
        use_batch = self.training or self.running_mean is None
        track = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if track else None,
                            self.running_var if track else None, self.weight, self.bias,
                            use_batch, factor, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch norm over (N, C, H, W): one mean/var per channel."""
    _dims = (4,)


class ReLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Tanh(Module):
    def forward(self, input):
        return input.tanh()


class Sigmoid(Module):
    def forward(self, input):
        return input.sigmoid()


class Softmax(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim)   # dim None: PyTorch's implicit dim

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    def forward(self, input):
        return F.log_softmax(input, self.dim)


class Dropout(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class MaxPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"
                f", dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AvgPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


# -- losses ---------------------------------------------------------------------------------
# The bases of every loss module, as PyTorch's (``torch.nn.modules.loss``): scripts test
# ``isinstance(m, nn.modules.loss._Loss)`` and subclass ``_WeightedLoss`` for their own.

class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        # PyTorch's legacy arguments: reduce=False -> 'none'; size_average=False -> 'sum'
        self.reduction = _legacy(size_average, reduce, reduction)


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class CrossEntropyLoss(_WeightedLoss):
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction,
                               label_smoothing=self.label_smoothing)


class NLLLoss(_WeightedLoss):
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class MSELoss(_Loss):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)
