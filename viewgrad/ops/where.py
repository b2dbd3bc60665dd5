"""``where(condition, input, other)``: its table row (WhereBackward0), the function and
the method, with PyTorch's argument rules.

As PyTorch's, the condition is no input of the node (``next_functions`` has one entry per
value, ``input`` and ``other``) but is saved, version-checked, for the backward (an
attribute Tensor: autograd/recording.py ``_save``); the result has the promoted dtype of the
two values (0-d tensors and Python numbers are weaker). ``where(condition)`` alone is
``condition.nonzero(as_tuple=True)``.
"""
from __future__ import annotations

from .. import backend as B
from ..tensor import Tensor
from .args import torch_type_name
from .operands import invalid_combination, operand as _operand
from .pointwise import _bshape_err, number_as
from .table import _device_of, defop, dispatch, method, promoted_dtype

__all__ = ["where", "WHERE"]

_xp = B.xp_of


def _where_fwd(self, other, condition, dtype):
    c = condition._data
    out = _xp(c).where(c, self, other)
    out = out if out.dtype == dtype else out.astype(dtype)
    if out.ndim > 1 and type(out) is B.HOST_ARRAY:
        # PyTorch's operands are (condition, self, other), in that order: Note [an
        # elementwise result's layout] (layouts.py)
        out = B.iterator_layout(out, [a if type(a) is B.HOST_ARRAY else None
                                      for a in (c, self, other)], out.dtype, keep_first=True)
    return out


WHERE = defop("where", "WhereBackward0", _where_fwd, inputs=("self", "other"),
              attrs=("condition", "dtype"), broadcast=True,
              self=lambda grad, condition: where(condition, grad, 0.0),
              other=lambda grad, condition: where(condition, 0.0, grad))


_WHERE_SIGS = ("Tensor condition", "Tensor condition, Tensor input, Tensor other, *, Tensor out = None",
               "Tensor condition, Number self, Tensor other",
               "Tensor condition, Tensor input, Number other",
               "Tensor condition, Number self, Number other")


def _where_args(condition, values, sigs, refuse=False):
    """PyTorch's refusal of a condition that is not a Tensor, or of a value that is
    neither a Tensor nor a number (a list, an ndarray, None: its argument parser's
    words), or of any call when ``refuse``; the values as operands."""
    ops = tuple(_operand(v) for v in values)
    if refuse or not isinstance(condition, Tensor) or NotImplemented in ops:
        raise TypeError(invalid_combination("where", (condition, *values)) + "\n"
                        + "\n".join(f" * ({s})" for s in sigs))
    return ops


_ONE_ARGUMENT = object()


def where(condition, self=_ONE_ARGUMENT, other=_ONE_ARGUMENT):
    """``where(cond, a, b)``: a where cond is True, else b (a, b may be scalars);
    ``where(cond)`` alone is ``cond.nonzero(as_tuple=True)``, as in PyTorch."""
    if self is _ONE_ARGUMENT and other is _ONE_ARGUMENT:
        _where_args(condition, (), _WHERE_SIGS)
        return condition.nonzero(as_tuple=True)
    if self is _ONE_ARGUMENT or other is _ONE_ARGUMENT:   # two arguments: PyTorch's words
        _where_args(condition, (self,) if other is _ONE_ARGUMENT else (other,), _WHERE_SIGS,
                    refuse=True)
    self, other = _where_args(condition, (self, other), _WHERE_SIGS)
    if condition._data.dtype.kind != "b" and condition._data.dtype != "uint8":
        # (PyTorch still takes a uint8 condition, with a deprecation warning)
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a "
                           f"tensor with dtype {torch_type_name(condition.dtype)}; compare "
                           "first, e.g. where(x > 0, a, b)")
    _device_of((condition, self, other))  # the condition is no node input: check it here
    # PyTorch's promotion of self and other (0-d tensors and Python scalars are weaker)
    dtype = promoted_dtype((self, other))
    if dtype.kind in "iu":   # a number converted as PyTorch does (-1 is 255 for uint8)
        self, other = (number_as(v, dtype) if isinstance(v, (int, float)) else v
                       for v in (self, other))
    if not isinstance(self, Tensor) and not isinstance(other, Tensor):
        from .factories import tensor  # two scalars: a tensor on the condition's device
        self = tensor(self, dtype=dtype, device=condition.device)
    try:
        return dispatch(WHERE, (self, other), (condition, dtype))
    except ValueError:
        raise _bshape_err("where", self, other) from None


@method("where")
def _where_method(self, condition, other):
    _where_args(condition, (other,), ("Tensor condition, Tensor other",
                                      "Tensor condition, Number other"))
    return where(condition, self, other)
