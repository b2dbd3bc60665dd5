"""The padding modules of ``torch.nn``: ZeroPad1d/2d/3d, ConstantPad1d/2d/3d,
ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d and CircularPad1d/2d/3d.

Each holds its ``padding`` as PyTorch does — an int is repeated to 2, 4 or 6 amounts
(left, right, top, bottom, front, back), a sequence is kept as given — and calls
``F.pad`` in ``forward``, so values, gradients (ConstantPadNdBackward0,
ReflectionPad2DBackward0, ...) and refusals are ``F.pad``'s. The reprs are PyTorch's:
``ZeroPad2d((1, 1, 2, 0))``, ``ConstantPad1d(padding=(2, 2), value=3.5)``.
"""
from __future__ import annotations

from . import functional as F
from .module import Module

__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d",
           "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d",
           "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d",
           "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]


def _ntuple(v, n):
    """PyTorch's ``_ntuple(n)``: an iterable kept as a tuple (whatever its length: F.pad
    refuses a wrong one), anything else repeated n times."""
    try:
        return tuple(v)
    except TypeError:
        return (v,) * n


class _PadNd(Module):
    """``F.pad(input, self.padding, mode)``; ``_amounts`` is 2, 4 or 6."""
    _amounts = 2
    _mode = "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, self._amounts)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input):
        # the module checks the rank itself (F.pad would say NotImplementedError)
        dims = self._amounts // 2
        if input.dim() not in (dims + 1, dims + 2):
            raise ValueError(f"expected {dims + 1}D or {dims + 2}D input (got {input.dim()}D "
                             "input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """Wrap-around padding of the last dim of (N, C, W) or (C, W) input."""
    _amounts = 2


class CircularPad2d(_CircularPadNd):
    """Wrap-around padding of the last 2 dims of (N, C, H, W) or (C, H, W) input."""
    _amounts = 4


class CircularPad3d(_CircularPadNd):
    """Wrap-around padding of the last 3 dims of (N, C, D, H, W) or (C, D, H, W) input."""
    _amounts = 6


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with ``value``."""
    _amounts = 2

    def __init__(self, padding, value):   # (its own: a missing value is named as PyTorch's)
        super().__init__(padding, value)


class ConstantPad2d(_ConstantPadNd):
    """Pad the last 2 dims with ``value``."""
    _amounts = 4

    def __init__(self, padding, value):   # (its own: a missing value is named as PyTorch's)
        super().__init__(padding, value)


class ConstantPad3d(_ConstantPadNd):
    """Pad the last 3 dims with ``value``."""
    _amounts = 6

    def __init__(self, padding, value):   # (its own: a missing value is named as PyTorch's)
        super().__init__(padding, value)


class ZeroPad1d(ConstantPad1d):
    """Pad the last dim with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pad the last 2 dims with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pad the last 3 dims with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad1d(_PadNd):
    """Mirror the last dim at its edges (without repeating the edge)."""
    _amounts, _mode = 2, "reflect"


class ReflectionPad2d(_PadNd):
    """Mirror the last 2 dims at their edges (without repeating the edge)."""
    _amounts, _mode = 4, "reflect"


class ReflectionPad3d(_PadNd):
    """Mirror the last 3 dims at their edges (without repeating the edge)."""
    _amounts, _mode = 6, "reflect"


class ReplicationPad1d(_PadNd):
    """Repeat the edge values of the last dim."""
    _amounts, _mode = 2, "replicate"


class ReplicationPad2d(_PadNd):
    """Repeat the edge values of the last 2 dims."""
    _amounts, _mode = 4, "replicate"


class ReplicationPad3d(_PadNd):
    """Repeat the edge values of the last 3 dims."""
    _amounts, _mode = 6, "replicate"
