"""The modules of ``nn.functional``'s rest (functional_rest.py) and a name PyTorch keeps
for old code: ``ConvTranspose3d``, ``AvgPool3d``, ``AdaptiveAvgPool3d``, ``MaxUnpool3d``,
``LPPool1d``, ``LPPool2d``, ``LPPool3d``, ``ChannelShuffle``, ``Dropout3d``,
``FeatureAlphaDropout``, ``TripletMarginWithDistanceLoss`` and ``NLLLoss2d`` (deprecated
in PyTorch, which warns; it is ``NLLLoss``)."""
from __future__ import annotations

import warnings

from . import functional as F
from .layers import ConvTranspose2d, NLLLoss
from .layers_extra import AlphaDropout, _MaxUnpool
from .layers_more import Dropout1d, PairwiseDistance, _Loss
from .module import Module

__all__ = ["ConvTranspose3d", "AvgPool3d", "AdaptiveAvgPool3d", "MaxUnpool3d", "LPPool1d",
           "LPPool2d", "LPPool3d", "ChannelShuffle", "Dropout3d", "FeatureAlphaDropout",
           "TripletMarginWithDistanceLoss", "NLLLoss2d"]


class ConvTranspose3d(ConvTranspose2d):
    """Transposed 3-D convolution: weight (in_channels, out_channels/groups, kD, kH, kW)."""
    _nsp = 3

    def forward(self, input):
        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding,
                                  self.output_padding, self.groups, self.dilation)


class AvgPool3d(Module):
    """``F.avg_pool3d``: the mean of each window over the last three dims."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding,
                            self.ceil_mode, self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool3d(Module):
    """``F.adaptive_avg_pool3d``: the last three dims averaged to ``output_size``."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class MaxUnpool3d(_MaxUnpool):
    """``F.max_unpool3d`` as a module: ``forward(input, indices, output_size=None)``."""
    _n = 3


class _LPPoolNd(Module):
    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """``F.lp_pool1d``: the p-norm of each window along the last dim."""

    def forward(self, input):
        return F.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


class LPPool2d(_LPPoolNd):
    """``F.lp_pool2d``: the p-norm of each window over the last two dims."""

    def forward(self, input):
        return F.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


class LPPool3d(_LPPoolNd):
    """``F.lp_pool3d``: the p-norm of each window over the last three dims."""

    def forward(self, input):
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


class ChannelShuffle(Module):
    """``F.channel_shuffle``: interleave ``groups`` groups of channels."""

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"


class Dropout3d(Dropout1d):
    """Zero whole channels of (N, C, D, H, W) with probability p (training only)."""

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class FeatureAlphaDropout(AlphaDropout):
    """``F.feature_alpha_dropout`` (training only): alpha dropout of whole channels."""

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training, self.inplace)


class TripletMarginWithDistanceLoss(_Loss):
    """``F.triplet_margin_with_distance_loss``: ``forward(anchor, positive, negative)``;
    the default distance is a ``PairwiseDistance()`` child module, as in PyTorch."""

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(None, None, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater "
                             f"than 0, got {margin} instead")
        self.distance_function = (distance_function if distance_function is not None
                                  else PairwiseDistance())
        self.margin, self.swap = margin, swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)


class NLLLoss2d(NLLLoss):
    """``NLLLoss`` under its old name (PyTorch warns that it is deprecated)."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        warnings.warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a "
                      "drop-in replacement and see "
                      "https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for more "
                      "details.", FutureWarning, stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)
