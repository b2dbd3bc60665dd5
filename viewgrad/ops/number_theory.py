"""gcd and lcm of integer tensors (``torch.gcd``/``torch.lcm``, their methods and in-place
forms). Not differentiable: PyTorch's kernels take integers only ("gcd_cpu" not
implemented for 'Float'), and integer tensors never require grad.

Note [gcd as PyTorch's kernel computes it]
PyTorch's ``calc_gcd`` takes ``std::abs`` of each operand in the operand's own type, then
runs Euclid's loop with C's ``%`` (the remainder has the dividend's sign). The absolute
value of the most negative integer does not fit, so it stays negative, and
``gcd(int8(-128), int8(6))`` is -2, not 2. NumPy's ``gcd`` answers 2, so the loop is
written out here on arrays, with ``fmod`` (C's ``%`` on integers), one step for all
entries at a time. ``lcm`` is ``abs(a / g * b)``, where C++ computes ``a / g * b`` of
8- and 16-bit operands in ``int`` and only the stored result wraps: computed here in
int64 for those dtypes, then cast (wrapping) to the result dtype.
"""
from __future__ import annotations

from .. import backend as B
from ..tensor import Tensor
from . import pointwise as P
from .args import check_result_cast, with_out, torch_type_name
from .logic import _assign
from .operands import need_tensor
from .table import _device_of, method, promoted_arrays, promoted_dtype

__all__ = ["gcd", "lcm"]


def _gcd_arrays(xp, a, b):
    """Euclid's loop as PyTorch's ``calc_gcd`` runs it (Note [gcd as PyTorch's kernel
    computes it])."""
    dt = a.dtype
    a = xp.abs(a).astype(dt, copy=False)
    b = xp.abs(b).astype(dt, copy=False)
    a, b = xp.broadcast_arrays(a, b)
    while True:   # (NumPy's warnings here are filtered: Note [floating-point warnings])
        live = a != 0
        if not bool(live.any()):
            return xp.array(b)
        c = a
        a = xp.where(live, xp.fmod(b, xp.where(live, a, 1)), 0).astype(dt, copy=False)
        b = xp.where(live, c, b)


def _lcm_arrays(xp, a, b):
    dt = a.dtype
    # (Note [gcd as PyTorch's kernel computes it]: 8- and 16-bit products in C's int)
    wide = B.int64 if dt.itemsize < 4 else dt
    g = _gcd_arrays(xp, a, b).astype(wide)
    a, b = a.astype(wide), b.astype(wide)
    safe = xp.where(g == 0, 1, g)
    return xp.where(g == 0, 0, xp.abs(a // safe * b)).astype(dt)


def _binary(name, kernel, doc):
    def fn(input, other, *, out=None):
        need_tensor(name, input, pos=1, arg="input")
        need_tensor(name, other)
        dev = _device_of((input, other))
        a, b = promoted_arrays([input, other])
        if a.dtype.kind not in "iu":
            raise NotImplementedError(f'"{name}_cpu" not implemented for '
                                      f"'{torch_type_name(a.dtype)}' (gcd and lcm take "
                                      "integer tensors)")
        try:
            dev.xp.broadcast_shapes(a.shape, b.shape)
        except ValueError:
            raise P._bshape_err(name, input, other) from None
        r = kernel(dev.xp, a, b)
        if type(r) is B.HOST_ARRAY and r.ndim > 1:   # Note [an elementwise result's layout]
            r = B.iterator_layout(r, (input._data, other._data), a.dtype)
        return with_out(Tensor._make(r, dev), out, name)

    def method_fn(self, other):
        need_tensor(name, other, pos=1)
        return fn(self, other)

    def fn_(self, other):
        need_tensor(name + "_", other, pos=1)
        # first, as PyTorch: int8.gcd_(int64) is fine, int.gcd_(float) is not
        check_result_cast(promoted_dtype((self, other)), self._data.dtype)
        return _assign(self, fn(self, other), name + "_")
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    method_fn.__name__ = method_fn.__qualname__ = name
    method_fn.__doc__ = doc
    fn_.__name__ = fn_.__qualname__ = name + "_"
    fn_.__doc__ = f"In-place ``{name}`` (``torch.Tensor.{name}_``): self keeps its dtype."
    method(name)(method_fn)
    method(name + "_")(fn_)
    return fn


gcd = _binary("gcd", _gcd_arrays, """The greatest common divisor of integer tensors,
    elementwise (broadcast), as ``torch.gcd``: never negative, except where an operand is
    the dtype's most negative value, as PyTorch's kernel (Note [gcd as PyTorch's kernel
    computes it]); ``gcd(0, 0)`` is 0. Floats and bools are refused.""")
lcm = _binary("lcm", _lcm_arrays, """The least common multiple of integer tensors,
    elementwise (broadcast), as ``torch.lcm``: ``|a / gcd(a, b) * b|``, 0 where either
    is 0; it wraps around in the result's dtype when it does not fit.""")
