"""What a dtype can hold, and the default float dtype: ``finfo``, ``iinfo``,
``set_default_dtype``, ``get_default_dtype`` — as ``torch.finfo`` & co.

The default float dtype is the one Python floats become (``vg.tensor([1.5])``), the one
factories make without ``dtype=`` (``zeros``, ``randn``, ``arange(0.5)``, nn layers'
parameters) and the one integer tensors turn into in true division or ``sin``. It lives in
the backend (``B.default_float()``), where promotion reads it.
"""
from __future__ import annotations

from .. import backend as B

__all__ = ["finfo", "iinfo", "set_default_dtype", "get_default_dtype"]


def set_default_dtype(d):
    """Make ``d`` (``vg.float32`` or ``vg.float64``) the default float dtype, as
    ``torch.set_default_dtype``: afterwards ``vg.tensor([1.5])``, ``vg.zeros(2)``,
    ``vg.randn(2)`` and new nn layers are ``d``. Other dtypes are refused (TypeError)."""
    B.set_default_float(d)


def get_default_dtype():
    """The default float dtype (``vg.float32`` unless ``set_default_dtype`` changed it),
    as ``torch.get_default_dtype``."""
    return B.default_float()


def _fmt(v):
    return f"{v:g}" if isinstance(v, float) else f"{float(v):g}"


class finfo:  # noqa: N801 - mirrors torch.finfo
    """The limits of a float dtype, as ``torch.finfo``: ``vg.finfo(vg.float32).eps`` (the
    gap between 1 and the next float), ``.max``, ``.min`` (the lowest, -max), ``.tiny`` /
    ``.smallest_normal``, ``.resolution``, ``.bits``, ``.dtype`` (a name). ``vg.finfo()``
    describes the default float dtype."""

    def __init__(self, type=None):
        d = B.default_float() if type is None else B.to_dtype(type)
        if d.kind != "f":
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        for k, v in B.finfo_fields(d).items():
            setattr(self, k, v)
        self.dtype = B.dtype_name(d)

    def __repr__(self):
        return (f"finfo(resolution={_fmt(self.resolution)}, min={_fmt(self.min)}, "
                f"max={_fmt(self.max)}, eps={_fmt(self.eps)}, smallest_normal="
                f"{_fmt(self.smallest_normal)}, tiny={_fmt(self.tiny)}, dtype={self.dtype})")


class iinfo:  # noqa: N801 - mirrors torch.iinfo
    """The limits of an integer dtype, as ``torch.iinfo``: ``vg.iinfo(vg.int64).max``,
    ``.min``, ``.bits``, ``.dtype`` (a name). bool is refused, as in PyTorch."""

    def __init__(self, type):
        d = B.to_dtype(type)
        if d == B.bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if d.kind not in "iu":
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo "
                            "to handle 'torch.iinfo'")
        for k, v in B.iinfo_fields(d).items():
            setattr(self, k, v)
        self.dtype = B.dtype_name(d)

    def __repr__(self):
        return f"iinfo(min={_fmt(self.min)}, max={_fmt(self.max)}, dtype={self.dtype})"
