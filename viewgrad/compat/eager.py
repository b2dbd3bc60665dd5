"""Torch switches that only make sense for a compiler or a GPU, accepted so that real
scripts run unchanged: ``torch.compile`` and the float32 matmul precision.

viewgrad always runs eagerly, op by op (that is what lets it trace and draw every step),
so these change nothing about the numbers.
"""
from __future__ import annotations

__all__ = ["compile", "set_float32_matmul_precision", "get_float32_matmul_precision",
           "UnsupportedDtype", "bfloat16"]

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
