"""Torch switches that only make sense for a compiler or a GPU, accepted so that real
scripts run unchanged: ``torch.compile`` and the float32 matmul precision.

viewgrad always runs eagerly, op by op (that is what lets it trace and draw every step),
so these change nothing about the numbers.
"""
from __future__ import annotations

__all__ = ["compile", "set_float32_matmul_precision", "get_float32_matmul_precision",
           "UnsupportedDtype", "bfloat16", "set_num_threads", "get_num_threads",
           "set_num_interop_threads", "get_num_interop_threads",
           "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled"]

_PRECISION = {"value": "highest"}


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,  # noqa: A001
            options=None, disable=False):
    """``torch.compile(model)``: returns ``model`` (a module or function) UNCHANGED —
    viewgrad runs eagerly, op by op, so there is nothing to compile and the results are
    those of the uncompiled model (which is what PyTorch's compiled model computes too).
    Used as a decorator (``@torch.compile`` or ``@torch.compile(mode=...)``) it returns
    the function itself."""
    if model is None:
        return lambda fn: fn
    if not callable(model):
        raise RuntimeError("torch.compile: the model must be a callable (a Module or a "
                           f"function), got {type(model).__name__}")
    return model


def set_float32_matmul_precision(precision):
    """``torch.set_float32_matmul_precision('highest'|'high'|'medium')``: recorded only;
    viewgrad's float32 matmuls are always full precision ('highest', PyTorch's default on
    CPU)."""
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(f"Invalid value for float32 matmul precision: {precision} "
                           "(expected 'highest', 'high' or 'medium')")
    _PRECISION["value"] = precision


def get_float32_matmul_precision():
    """The value last given to ``set_float32_matmul_precision`` ('highest' at first)."""
    return _PRECISION["value"]


class UnsupportedDtype:
    """A torch dtype viewgrad cannot compute in (NumPy has no bfloat16): scripts may NAME
    it — in a table of options, as ``autocast``'s ``dtype`` — but a tensor of it cannot be
    made (the backend refuses it)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"

    @property
    def is_floating_point(self):
        """True: bfloat16 is a floating-point type."""
        return True


bfloat16 = UnsupportedDtype("bfloat16")


# -- thread counts and determinism: recorded, as the top of a reproducibility script sets
# them (viewgrad runs its Python on one thread; NumPy's BLAS keeps its own setting, and
# every viewgrad op is deterministic already)

_THREADS = {"intra": None, "interop": None}
_DETERMINISTIC = {"mode": False, "warn_only": False}


def _positive(n, name):
    if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
        raise RuntimeError(f"{name} expects a positive integer")
    return n


def set_num_threads(n):
    """``torch.set_num_threads(n)``: recorded (``get_num_threads`` answers it)."""
    _THREADS["intra"] = _positive(n, "set_num_threads")


def get_num_threads():
    """``torch.get_num_threads()``: what ``set_num_threads`` recorded, else the CPU count
    (PyTorch's default)."""
    import os
    return _THREADS["intra"] or os.cpu_count() or 1


def set_num_interop_threads(n):
    """``torch.set_num_interop_threads(n)``: recorded."""
    _THREADS["interop"] = _positive(n, "set_num_interop_threads")


def get_num_interop_threads():
    """``torch.get_num_interop_threads()``."""
    import os
    return _THREADS["interop"] or os.cpu_count() or 1


def use_deterministic_algorithms(mode, *, warn_only=False):
    """``torch.use_deterministic_algorithms(mode)``: recorded; viewgrad's ops are
    deterministic whatever it says."""
    _DETERMINISTIC["mode"] = bool(mode)
    _DETERMINISTIC["warn_only"] = bool(warn_only)


def are_deterministic_algorithms_enabled():
    return _DETERMINISTIC["mode"]


def is_deterministic_algorithms_warn_only_enabled():
    return _DETERMINISTIC["warn_only"]
