"""The other names PyTorch gives to the same operations, and its small dtype helpers:
``torch.eq/ne/lt/le/gt/ge`` as functions (and ``greater``, ``less_equal``, ``not_equal``
...), ``multiply``, ``subtract``, ``negative``, ``absolute``, ``positive``, ``sgn``,
``rsub``; ``broadcast_tensors`` / ``broadcast_shapes``; ``result_type``,
``promote_types``, ``can_cast``, ``is_signed``, ``is_complex``, ``is_nonzero``,
``is_same_size``, ``scalar_tensor``; ``isin``.

Each alias runs the op it names, so the graph records the same node as the original
(``multiply`` records ``MulBackward0``, as in PyTorch); only a refusal names the alias
("greater() received an invalid combination of arguments", as PyTorch words it).
"""
from __future__ import annotations

import functools

from .. import backend as B
from ..tensor import Tensor
from . import pointwise as P
from .args import with_out
from .kernel_refusals import REFUSALS as _CX, refuse as _refuse
from .operands import F_OTHER, OTHER, function_form, method_form
from .table import METHODS, apply_inplace, dispatch, method

__all__ = ["eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less",
           "less_equal", "not_equal", "multiply", "subtract", "negative", "absolute",
           "positive", "sgn", "rsub", "broadcast_tensors", "broadcast_shapes", "result_type",
           "promote_types", "can_cast", "is_signed", "is_complex", "is_nonzero",
           "is_same_size", "scalar_tensor", "isin"]


def _compare(name, dunder, op_name=None):
    # the operator: it answers NotImplemented for an operand it does not take
    op = METHODS[f"__{op_name or name}__"]

    def fn(input, other, *, out=None):
        return with_out(op(input, other), out, name)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"``input {dunder} other`` elementwise (broadcast; ``other`` may be a "
                  f"number): a bool tensor, as ``torch.{name}``. Not differentiable.")
    return function_form(fn, name, F_OTHER, number_input=False)


eq = _compare("eq", "==")
ne = _compare("ne", "!=")
lt = _compare("lt", "<")
le = _compare("le", "<=")
gt = _compare("gt", ">")
ge = _compare("ge", ">=")
greater = _compare("greater", ">", "gt")
greater_equal = _compare("greater_equal", ">=", "ge")
less = _compare("less", "<", "lt")
less_equal = _compare("less_equal", "<=", "le")
not_equal = _compare("not_equal", "!=", "ne")
for _alias, _name in (("greater", "gt"), ("greater_equal", "ge"), ("less", "lt"),
                      ("less_equal", "le"), ("not_equal", "ne")):
    method(_alias)(method_form(METHODS[f"__{_name}__"], _alias, OTHER))


@functools.partial(function_form, name="multiply",
                   overloads=("Tensor input, Tensor other, *, Tensor out = None",
                              "Tensor input, Number other"))
def multiply(input, other, *, out=None):
    """``torch.multiply``: the alias of ``mul`` (``MulBackward0``)."""
    return with_out(P.mul(input, other), out, "multiply")


def _subtract(input, other, *, alpha=1, out=None):
    """``torch.subtract``: the alias of ``sub`` (``input - alpha * other``)."""
    return with_out(P.sub(input, other, alpha=alpha), out, "subtract")


subtract = function_form(_subtract, "subtract", (
    "Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None",
    "Tensor input, Number other, Number alpha = 1"))
method("subtract")(method_form(_subtract, "subtract", ("Tensor other, *, Number alpha = 1",
                                                       "Number other, Number alpha = 1")))


def negative(input, *, out=None):
    """``torch.negative``: the alias of ``neg`` (``NegBackward0``)."""
    return with_out(P.neg(input), out, "negative")


@method("absolute")
def absolute(input, *, out=None):
    """``torch.absolute``: the alias of ``abs`` (``AbsBackward0``)."""
    return with_out(P.abs(input), out, "absolute")


@method("positive")
def positive(input):
    """``torch.positive``: ``input`` itself (bool tensors are refused, as in PyTorch)."""
    if input._data.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


@method("sgn")
def sgn(input, *, out=None):
    """``torch.sgn``: the sign for real tensors, the same numbers as ``sign``; one
    ``SgnBackward0`` node, as PyTorch's (it saves self and the result; the gradient is
    zeros)."""
    if not isinstance(input, Tensor) or input._data.dtype.kind == "b":
        return with_out(P.sign(input), out, "sgn")   # (a bool is itself; sign's refusal)
    return with_out(dispatch(P.SGN, (input,)), out, "sgn")


@method("sgn_")
def sgn_(self):
    """In-place ``sgn`` (``torch.Tensor.sgn_``): ``SgnBackward0`` on self's history."""
    return apply_inplace(P.SGN, self, name="sgn_")


def _rsub(input, other, *, alpha=1):
    """``torch.rsub(input, other)``: ``other - alpha * input``."""
    if isinstance(other, Tensor):
        return P.sub(other, input, alpha=alpha)
    return P.rsub(input * alpha if alpha != 1 else input, other)


# (input must be a Tensor: PyTorch has no rsub(Number, Tensor))
rsub = function_form(_rsub, "rsub", ("Tensor input, Tensor other, *, Number alpha = 1",
                                     "Tensor input, Number other, Number alpha = 1"),
                     number_input=False)


def broadcast_shapes(*shapes):
    """The shape the given shapes broadcast to, as ``torch.broadcast_shapes`` (a
    ``Size``); a RuntimeError when they do not broadcast."""
    from ..tensor import Size
    for s in shapes:   # ints, or tuples/lists of them: PyTorch's words for anything else
        if not (isinstance(s, int) or (isinstance(s, (tuple, list)) and all(
                isinstance(n, int) for n in s))):
            raise RuntimeError("Input shapes should be of type ints, a tuple of ints, or a "
                               f"list of ints, got {s}")
    shapes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    try:
        return Size(B.broadcast_shapes(*shapes))
    except ValueError:
        raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single shape "
                           f"({', '.join(str(list(s)) for s in shapes)})") from None


def broadcast_tensors(*tensors):
    """The tensors expanded to their common shape (views, ``ExpandBackward0``), as
    ``torch.broadcast_tensors``."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = B.checked_broadcast("broadcast_tensors", *[tuple(t.shape) for t in tensors])
    return tuple(t if tuple(t.shape) == shape else t.expand(*shape) for t in tensors)


def result_type(tensor1, tensor2):
    """The dtype PyTorch's type promotion gives ``tensor1 op tensor2`` (tensors or
    numbers), as ``torch.result_type``: float32 tensor with an int64 tensor is float32,
    an int tensor with 2.5 the default float dtype."""
    dims, zero, scalars = [], [], []
    for x in (tensor1, tensor2):
        if isinstance(x, Tensor):
            (dims if x.dim() else zero).append(x._data.dtype)
        else:
            scalars.append(x)
    return B.torch_result_type(dims, zero, scalars)


def promote_types(type1, type2):
    """The smallest dtype both dtypes convert to without losing their category, as
    ``torch.promote_types`` (int32 and float32: float32)."""
    return B.promote_types(B.to_dtype(type1), B.to_dtype(type2))


def can_cast(from_, to):
    """Whether PyTorch's casting rules allow ``from_`` to ``to`` in an in-place op, as
    ``torch.can_cast``: never to a lower category (float to int, int to bool)."""
    cat = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
    return cat[B.to_dtype(from_).kind] <= cat[B.to_dtype(to).kind]


@method("is_signed")
def is_signed(input):
    """True unless the dtype is unsigned (uint8) or bool, as ``torch.is_signed``."""
    return input._data.dtype.kind in "ifc"


@method("is_complex")
def is_complex(input):
    """``torch.is_complex``: False — viewgrad's tensors are real."""
    return input._data.dtype.kind == "c"


@method("is_nonzero")
def is_nonzero(input):
    """``torch.is_nonzero``: the truth of a one-element tensor (an error otherwise)."""
    if input.numel() != 1:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous" if
                           input.numel() == 0 else "Boolean value of Tensor with more than "
                           "one value is ambiguous")
    return bool(input.item())


@method("is_same_size")
def is_same_size(input, other):
    """``torch.is_same_size``: whether both tensors have the same shape."""
    return tuple(input.shape) == tuple(other.shape)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    """A 0-d tensor holding the number ``s``, as ``torch.scalar_tensor`` (the default
    float dtype unless ``dtype`` is given, even for an int). PyTorch fills an empty
    tensor with ``s``: an int wraps into an unsigned dtype, a float out of range is refused."""
    from .factories import full
    return full((), s, dtype=dtype or B.default_float(), device=device,
                requires_grad=requires_grad)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """True where an element of ``elements`` occurs in ``test_elements`` (either may be a
    number), as ``torch.isin``; ``invert=True`` gives the opposite."""
    _refuse(_CX["isin"], elements, test_elements)   # Note [inputs PyTorch refuses]
    like = elements if isinstance(elements, Tensor) else test_elements
    dev = like._device
    xp = dev.xp
    e = elements._data if isinstance(elements, Tensor) else xp.asarray(elements)
    t = test_elements._data if isinstance(test_elements, Tensor) else \
        xp.asarray([test_elements])
    return Tensor._make(xp.asarray(xp.isin(e, t, invert=invert)), dev)
