"""``torch.nn`` modules for convolutional networks over the functional forms: Fold /
Unfold (col2im / im2col), RReLU, and the 3-D BatchNorm3d / InstanceNorm3d (the
normalisations' functional forms work for any number of spatial dims already).

Each keeps its arguments as PyTorch does (as given: ``Fold(output_size=(4, 5),
kernel_size=2, ...)`` prints them unexpanded) and has PyTorch's repr.
"""
from __future__ import annotations

from . import functional as F
from .layers import _BatchNorm
from .layers_extra import _InstanceNorm
from .module import Module

__all__ = ["Fold", "Unfold", "RReLU", "BatchNorm3d", "InstanceNorm3d"]


class Fold(Module):
    """``F.fold``: sum the sliding blocks in the columns of (N, C*kH*kW, L) into an
    (N, C, *output_size) image (the adjoint of ``Unfold``)."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation,
                      self.padding, self.stride)

    def extra_repr(self):
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")


class Unfold(Module):
    """``F.unfold``: the sliding blocks of (N, C, H, W) as the columns of
    (N, C*kH*kW, L)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class RReLU(Module):
    """Randomized leaky ReLU: a slope drawn from U(lower, upper) per non-positive element
    in training mode, the slope (lower + upper) / 2 in eval mode."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace
                                                            else "")


class BatchNorm3d(_BatchNorm):
    """Batch norm over (N, C, D, H, W): one mean/var per channel."""
    _dims = (5,)


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of (N, C, D, H, W) (or unbatched (C, D, H, W)) input."""
    _dims = 3
