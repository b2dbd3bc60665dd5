"""``torch.amp``: mixed precision — ``autocast`` and ``GradScaler`` — as viewgrad runs it.

viewgrad computes in the dtype of its inputs (NumPy has no bfloat16), so:

* ``autocast(..., enabled=False)`` is a no-op that passes through, as in PyTorch.
* ``autocast('cuda')`` when CUDA is unavailable warns and disables itself, as PyTorch does:
  the numbers are PyTorch's (it computes in float32 too).
* ``autocast('cpu')`` enabled (or 'cuda' on a GPU machine) runs the region in FULL
  precision and warns once: PyTorch would run matmuls/convolutions in bfloat16/float16, so
  its numbers differ from viewgrad's by that rounding (about 1e-2 relative for bfloat16).
* ``GradScaler`` scales for real: ``scale(loss)`` multiplies by the scale (2**16 at first),
  ``unscale_``/``step`` divide the grads back and skip the step when any is inf/NaN,
  ``update()`` backs off or grows the scale, exactly as PyTorch's. With the scale a power of
  two, scaling and unscaling are exact, so a training loop gives PyTorch's numbers.
  ``GradScaler('cuda')`` without CUDA disables itself with PyTorch's warning.
"""
from __future__ import annotations

import functools
import math
import warnings

from ..autograd.grad_mode import no_grad
from ..tensor import Tensor

__all__ = ["autocast", "GradScaler", "is_autocast_available", "custom_fwd", "custom_bwd"]

_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip",
                 "ve", "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                 "privateuseone")
_state = {"enabled": {}, "warned": False}


def _cuda_available():
    from ..backend import cuda_is_available
    return cuda_is_available()


def is_autocast_available(device_type):
    """Whether ``autocast(device_type)`` is accepted (cpu and cuda)."""
    return device_type in ("cpu", "cuda")


def is_autocast_enabled(device_type=None):
    """Whether an enabled ``autocast`` region for ``device_type`` (default cuda) is open."""
    return bool(_state["enabled"].get(device_type or "cuda"))


class autocast:  # noqa: N801 - PyTorch's name
    """``torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None)``, a
    context manager and decorator. viewgrad runs the region in full precision (see the
    module docstring): disabled regions and 'cuda' without CUDA behave exactly as PyTorch;
    an enabled region warns once that PyTorch would round to ``dtype`` there."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: "
                             f"`{type(device_type)}`")
        if device_type.split(":")[0] not in _DEVICE_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at "
                               f"start of device string: {device_type}")
        self.device = device_type
        self.fast_dtype = dtype if dtype is not None else (
            "bfloat16" if device_type == "cpu" else "float16")
        self._enabled = bool(enabled)
        if self._enabled and device_type == "cuda" and not _cuda_available():
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling "
                          "autocast.", stacklevel=2)
            self._enabled = False

    def __enter__(self):
        self._prev = _state["enabled"].get(self.device, False)
        _state["enabled"][self.device] = self._enabled
        if self._enabled and not _state["warned"]:
            _state["warned"] = True
            warnings.warn(f"autocast({self.device!r}) is enabled, but viewgrad computes in "
                          f"full precision (no {self.fast_dtype} rounding): results differ "
                          "from PyTorch's by that rounding. Pass enabled=False to silence "
                          "this.", stacklevel=2)
        return self

    def __exit__(self, *exc):
        _state["enabled"][self.device] = self._prev
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return wrapper


def custom_fwd(fwd=None, *, device_type="cuda", cast_inputs=None):
    """Decorator for a custom Function's ``forward`` under autocast; viewgrad has no
    low-precision casting, so it returns ``forward`` unchanged."""
    if fwd is None:
        return lambda f: f
    return fwd


def custom_bwd(bwd=None, *, device_type="cuda"):
    """Decorator for a custom Function's ``backward`` under autocast; returns it
    unchanged (see ``custom_fwd``)."""
    if bwd is None:
        return lambda f: f
    return bwd


def _grads(optimizer):
    return [p.grad for g in optimizer.param_groups for p in g["params"] if p.grad is not None]


class GradScaler:
    """``torch.amp.GradScaler(device='cuda', init_scale=2.**16, growth_factor=2.0,
    backoff_factor=0.5, growth_interval=2000, enabled=True)``: dynamic loss scaling.
    ``scaler.scale(loss).backward(); scaler.step(opt); scaler.update()``."""

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if enabled and device == "cuda" and not _cuda_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", stacklevel=2)
            self._enabled = False
        if growth_factor <= 1.0:
            raise ValueError("The growth factor must be > 1.0.")
        if backoff_factor >= 1.0:
            raise ValueError("The backoff factor must be < 1.0.")
        self._scale = float(init_scale)
        self._init_scale = float(init_scale)
        self._growth_factor, self._backoff_factor = growth_factor, backoff_factor
        self._growth_interval = growth_interval
        self._growth_tracker = 0
        self._per_optimizer = {}     # id(optimizer) -> {"stage": ..., "found_inf": bool}

    def is_enabled(self):
        """Whether scaling is on."""
        return self._enabled

    def get_scale(self):
        """The current scale (1.0 when disabled)."""
        return self._scale if self._enabled else 1.0

    def scale(self, outputs):
        """``outputs * scale`` (a tensor, or nested lists/tuples of them)."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            return outputs * self._scale
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _opt_state(self, optimizer):
        return self._per_optimizer.setdefault(id(optimizer), {"stage": "ready",
                                                              "found_inf": False})

    def unscale_(self, optimizer):
        """Divide the optimizer's grads by the scale (in place) and note whether any is
        inf/NaN; call it before clipping gradients."""
        if not self._enabled:
            return
        st = self._opt_state(optimizer)
        if st["stage"] == "unscaled":
            raise RuntimeError("unscale_() has already been called on this optimizer since "
                               "the last update().")
        if st["stage"] == "stepped":
            raise RuntimeError("unscale_() is being called after step().")
        inv = 1.0 / self._scale
        found = False
        with no_grad():
            for g in _grads(optimizer):
                g.mul_(inv)
                if not found and not bool(g.isfinite().all()):
                    found = True
        st["found_inf"], st["stage"] = found, "unscaled"

    def step(self, optimizer, *args, **kwargs):
        """``unscale_`` if not done yet, then ``optimizer.step()`` unless a grad was
        inf/NaN (then the step is skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        st = self._opt_state(optimizer)
        if st["stage"] == "stepped":
            raise RuntimeError("step() has already been called since the last update().")
        if st["stage"] == "ready":
            self.unscale_(optimizer)
        ret = None if st["found_inf"] else optimizer.step(*args, **kwargs)
        st["stage"] = "stepped"
        return ret

    def update(self, new_scale=None):
        """Back off the scale after an inf/NaN step, grow it after ``growth_interval``
        clean steps (or set ``new_scale``)."""
        if not self._enabled:
            return
        if new_scale is not None:
            self._scale = float(new_scale.item() if isinstance(new_scale, Tensor)
                                else new_scale)
        else:
            found = any(st["found_inf"] for st in self._per_optimizer.values())
            if not self._per_optimizer:
                raise AssertionError("No inf checks were recorded prior to update.")
            if found:
                self._scale *= self._backoff_factor
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    self._scale *= self._growth_factor
                    self._growth_tracker = 0
            if not math.isfinite(self._scale):
                self._scale = float("inf")
        self._per_optimizer = {}

    def get_growth_factor(self):
        """The factor the scale grows by."""
        return self._growth_factor

    def get_backoff_factor(self):
        """The factor the scale shrinks by after an inf/NaN."""
        return self._backoff_factor

    def get_growth_interval(self):
        """Clean steps between growths."""
        return self._growth_interval

    def state_dict(self):
        """The scaler's state (empty when disabled), as PyTorch's keys."""
        if not self._enabled:
            return {}
        return {"scale": self._scale, "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict):
        """Restore a ``state_dict()``."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._scale = float(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._growth_tracker = state_dict["_growth_tracker"]


from . import cuda  # noqa: E402  (torch.cuda.amp: the deprecated spellings)
