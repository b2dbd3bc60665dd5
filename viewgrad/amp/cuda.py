"""``torch.cuda.amp`` (deprecated in PyTorch for ``torch.amp``): ``autocast`` and
``GradScaler`` bound to the 'cuda' device, warning as PyTorch 2.13 does; see
``viewgrad.amp`` for what viewgrad does with them."""
from __future__ import annotations

import warnings

from . import GradScaler as _GradScaler, autocast as _autocast, custom_bwd, custom_fwd

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


class autocast(_autocast):  # noqa: N801 - PyTorch's name
    """``torch.cuda.amp.autocast(enabled=True, dtype=float16, cache_enabled=True)``: the
    same as ``torch.amp.autocast('cuda', ...)`` (a FutureWarning says so)."""

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    """``torch.cuda.amp.GradScaler(...)``: ``torch.amp.GradScaler('cuda', ...)`` (a
    FutureWarning says so; without CUDA it disables itself)."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval,
                         enabled)
