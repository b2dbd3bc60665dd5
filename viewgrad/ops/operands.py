"""What arithmetic and comparisons take as their other operand, and PyTorch's words when
they are given something else.

PyTorch's ``add``/``sub``/``mul``/``div``/``pow`` and the comparisons take a Tensor or a
number — a Python bool, int, float or complex, or a NumPy number (read as the Python
number it holds) — and nothing else: not a list, a tuple, an ndarray, a string or None.
How a refusal reads depends on the form of the call, and viewgrad answers each form as
PyTorch does:

* an operator (``x + "a"``, ``x * [1, 2]``, ``x == None``): the op answers
  ``NotImplemented``, so Python asks the other operand and then raises its own
  "unsupported operand type(s) for +: 'Tensor' and 'str'" — and ``==``/``!=`` fall back
  to identity, ``x == None`` is False;
* a method (``x.add("a")``): "add(): argument 'other' (position 1) must be Tensor, not
  str";
* a function (``viewgrad.add(x, "a")``): the same at position 2, and "argument 'input'
  (position 1)" for a first argument that is neither a Tensor nor a number.

Ops with several PyTorch signatures (``pow``, the comparisons, the aliases ``multiply``,
``subtract``, ``divide``, ``true_divide``) word it as PyTorch's argument parser words
those: "eq() received an invalid combination of arguments - got (str), but expected one
of: ...".

Note [operators answer NotImplemented]
The ops themselves (``pointwise.add`` and friends) are the operators: they answer
NotImplemented for an operand they do not take, found only after their fast cases (a
float, a Tensor), so ``y * 1.01`` pays nothing for the check. The named forms are the
wrappers below (``method_form``, ``function_form``), which ask first and raise the
TypeError. The in-place ops are the other way round: ``inplace.add_`` & co. are the
methods and raise the TypeError themselves, and their operators (``x += y``) wrap them
(``operator_form``), so a traceback through ``x.mul_`` shows the frames it always did.
The rest of the binary ops (maximum, atan2, remainder, bitwise_and...) get their forms
from ``install_methods``/``install_functions`` at import.

An operator given a NumPy array (``x * np.arange(3)``) computes: PyTorch hands that call
to NumPy, which computes the same numbers (viewgrad keeps the graph through it). The
reflected forms refuse it as PyTorch's do (``np.arange(3) * x``), except ``/``, which
PyTorch's ``__rtruediv__`` takes. Known difference: a 0-d float64 array keeps x's dtype
here (a 0-d operand is weak), where NumPy's fallback in PyTorch gives float64.
"""
from __future__ import annotations

import functools

from .. import backend as B
from ..tensor import Tensor

__all__ = ["operand", "type_name", "method_form", "function_form", "operator_form",
           "refusal", "need_tensor", "check_alpha", "invalid_combination", "install_methods", "install_functions",
           "OTHER", "EXPONENT", "F_OTHER", "F_EXPONENT"]

# the signatures PyTorch lists for a method with one operand (``x.eq(...)``) and for the
# function (``torch.eq(x, ...)``)
OTHER = ("Tensor other", "Number other")
EXPONENT = ("Tensor exponent", "Number exponent")
F_OTHER = ("Tensor input, Tensor other, *, Tensor out = None",
           "Tensor input, Number other, *, Tensor out = None")
F_EXPONENT = ("Tensor input, Tensor exponent, *, Tensor out = None",
              "Number self, Tensor exponent, *, Tensor out = None",
              "Tensor input, Number exponent, *, Tensor out = None")

_HEAPTYPE = 1 << 9   # Py_TPFLAGS_HEAPTYPE: a class made by a class statement


def type_name(x) -> str:
    """The type's name as PyTorch's messages print it (CPython's ``tp_name``): ``str``,
    ``list``, ``NoneType``, ``Foo`` for a class of the user's, ``numpy.ndarray``."""
    t = type(x)
    if t.__flags__ & _HEAPTYPE or t.__module__ == "builtins":
        return t.__name__
    return f"{t.__module__}.{t.__name__}"


def _is_number(x) -> bool:
    if B.is_numpy_scalar(x):   # (np.float64 is a float too; np.str_ a str)
        return x.dtype.kind in "biufc"
    return isinstance(x, (int, float, complex))


def operand(x, like=None):
    """``x`` as an arithmetic operand: a Tensor or a Python number as it is, a NumPy
    number as the Python number it holds (``B.python_scalar``), anything else
    NotImplemented (Note [operators answer NotImplemented]). ``like``: the Tensor of an
    operator (``x * np.arange(3)``), for which a NumPy array becomes a Tensor on its
    device — PyTorch hands that case to NumPy, which computes the same numbers — while
    the named forms refuse it ("must be Tensor, not numpy.ndarray")."""
    if isinstance(x, Tensor):
        return x
    if B.is_numpy_scalar(x):   # before float: np.float64 is a float
        return B.python_scalar(x) if x.dtype.kind in "biufc" else NotImplemented
    if isinstance(x, (int, float, complex)):
        return x
    if isinstance(like, Tensor) and type(x) is B.cpu.xp.ndarray and x.dtype.kind in "biufc":
        from .factories import tensor
        return tensor(x, device=like.device)
    return NotImplemented


def check_alpha(name, alpha):
    """PyTorch's refusal of an ``alpha=`` that is not a number."""
    if not _is_number(alpha):
        raise TypeError(f"{name}(): argument 'alpha' must be Number, not {type_name(alpha)}")


def invalid_combination(name, args):
    """The first line of PyTorch's argument-parser refusal, naming the types it got."""
    got = ", ".join("Tensor" if isinstance(a, Tensor) else type_name(a) for a in args)
    return (f"{name}() received an invalid combination of arguments - got ({got}), but "
            "expected one of:")


def _refusal(name, args, given, pos, arg, overloads):
    if overloads is None:
        where = f" (position {pos})" if pos else ""
        return TypeError(f"{name}(): argument '{arg}'{where} must be Tensor, not "
                         f"{type_name(given)}")
    lines = [invalid_combination(name, args)]
    for sig in overloads:
        lines.append(f" * ({sig})")
        if len(args) == 1 and "," not in sig:   # a one-operand signature it failed
            lines.append("      didn't match because some of the arguments have invalid "
                         f"types: (!{type_name(given)}!)")
    return TypeError("\n".join(lines))


def need_tensor(name, x, pos=2, arg="other"):
    """PyTorch's refusal of a non-Tensor ``x`` as argument ``arg`` of function ``name``."""
    if not isinstance(x, Tensor):
        raise _refusal(name, (x,), x, pos, arg, None)


def refusal(name, given, overloads=None, arg="other", pos=1):
    """The TypeError of method ``name`` given ``given`` as its operand."""
    return _refusal(name, (given,), given, pos, arg, overloads)


def operator_form(op, arrays=True):
    """``x += y`` for an in-place op that raises PyTorch's TypeError itself
    (``x.add_("a")``): NotImplemented instead, so Python raises its own error. (The
    in-place methods are the ops and the operators wrap them — the other way round from
    ``+``: a traceback through ``x.add_`` shows the frames it always did.)"""
    @functools.wraps(op)
    def operator(self, other):
        # (an ndarray becomes a Tensor: x += np.ones(3); not for the reflected forms)
        other = operand(other, self if arrays else None)
        if other is NotImplemented:
            return other
        return op(self, other)
    return operator


def _other(args, kwargs, first, arg):
    """(the operand, its position or 0 when given by keyword), or (None, None)."""
    if len(args) > first:
        return args[first], first + 1
    if arg in kwargs:
        return kwargs[arg], 0
    return None, None


def _refused(x, tensor_only):
    """Whether ``x`` is refused as the operand: anything but a Tensor when ``tensor_only``
    (``x.maximum(2.0)``), else anything ``operand`` does not take."""
    return not isinstance(x, Tensor) if tensor_only else operand(x) is NotImplemented


def method_form(op, name, overloads=None, arg="other", tensor_only=False):
    """``Tensor.<name>``: ``op`` with PyTorch's TypeError asked first for an operand it
    does not take (``tensor_only``: a Tensor only, as ``maximum``; ``overloads``: the
    signatures PyTorch lists, for an op it words as an invalid combination of arguments)."""
    @functools.wraps(op)
    def method(self, *args, **kwargs):
        other, pos = _other(args, kwargs, 0, arg)
        if pos is not None and _refused(other, tensor_only):
            raise _refusal(name, (other,), other, pos, arg, overloads)
        return op(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = name
    return method


def function_form(op, name, overloads=None, arg="other", number_input=True,
                  tensor_only=False):
    """``viewgrad.<name>(input, other)``: ``op`` with PyTorch's TypeError for an input
    that is not a Tensor (nor a number, where ``number_input``: ``viewgrad.add(2, x)``
    is taken) at position 1, or an ``other`` it does not take at position 2."""
    number_input = number_input and not tensor_only

    @functools.wraps(op)
    def function(*args, **kwargs):
        x = args[0] if args else kwargs.get("input")
        if not isinstance(x, Tensor) and not (number_input and _is_number(x)):
            other, _ = _other(args, kwargs, 1, arg)
            raise _refusal(name, (x, other), x, 1 if args else 0, "input", overloads)
        other, pos = _other(args, kwargs, 1, arg)
        if pos is not None and _refused(other, tensor_only):
            raise _refusal(name, (x, other), other, pos, arg, overloads)
        return op(*args, **kwargs)
    function.__name__ = function.__qualname__ = name
    return function


# -- the rest of the binary ops: their named forms and operators, in PyTorch's words --------
# (an op's own module defines it once, as method and function; ``install`` gives each form
# its refusal, and answers NotImplemented from the operators)

# the operand must be a Tensor: name -> the operand's name
_TENSOR_ONLY = {"maximum": "other", "minimum": "other", "fmax": "other", "fmin": "other",
                "atan2": "other", "arctan2": "other", "hypot": "other", "isclose": "other",
                "allclose": "other", "equal": "other", "nextafter": "other",
                "logaddexp": "other", "logaddexp2": "other", "logical_and": "other",
                "logical_or": "other", "logical_xor": "other", "dist": "other",
                "heaviside": "values", "mm": "mat2", "bmm": "mat2", "matmul": "other",
                "dot": "tensor", "vdot": "other", "inner": "other", "outer": "vec2",
                "ger": "vec2", "mv": "vec", "cross": "other", "kron": "other"}
_TENSOR_ONLY_INPLACE = ("atan2_", "arctan2_", "hypot_", "nextafter_", "heaviside_",
                        "logical_and_", "logical_or_", "logical_xor_")
# a Tensor or a number: PyTorch words a refusal as an invalid combination of arguments
_TENSOR_OR_NUMBER = ("xlogy", "copysign", "remainder", "fmod", "floor_divide", "bitwise_and",
                     "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift")
_TENSOR_OR_NUMBER_INPLACE = ("xlogy_", "copysign_", "remainder_", "fmod_", "floor_divide_",
                             "bitwise_and_", "bitwise_or_", "bitwise_xor_",
                             "bitwise_left_shift_", "bitwise_right_shift_")
_OPERATORS = ("__mod__", "__floordiv__", "__and__", "__or__", "__xor__", "__lshift__",
              "__rshift__", "__imod__", "__ifloordiv__", "__iand__", "__ior__", "__ixor__",
              "__ilshift__", "__irshift__")
_REFLECTED = ("__rmod__", "__rfloordiv__", "__rand__", "__ror__", "__rxor__", "__rlshift__",
              "__rrshift__")


def install_methods(methods):
    """Give the ops above their method forms and operators (``methods``: ops/table.py's
    METHODS, before they are set on Tensor)."""
    for name, arg in _TENSOR_ONLY.items():
        if name in methods:
            methods[name] = method_form(methods[name], name, arg=arg, tensor_only=True)
    for name in _TENSOR_ONLY_INPLACE:
        methods[name] = method_form(methods[name], name, tensor_only=True,
                                    arg="values" if name == "heaviside_" else "other")
    for name in _TENSOR_OR_NUMBER + _TENSOR_OR_NUMBER_INPLACE:
        methods[name] = method_form(methods[name], name, OTHER)
    for name in ("float_power", "float_power_"):
        methods[name] = method_form(methods[name], name, EXPONENT, "exponent")
    for name in _OPERATORS:
        methods[name] = operator_form(methods[name])
    for name in _REFLECTED:
        methods[name] = operator_form(methods[name], arrays=False)


def install_functions(namespace):
    """Give the ops above their function forms (``namespace``: viewgrad's globals)."""
    for name, arg in _TENSOR_ONLY.items():
        if name in namespace:
            namespace[name] = function_form(namespace[name], name, arg=arg, tensor_only=True)
    for name in _TENSOR_OR_NUMBER + ("xlogy_",):
        if name in namespace:   # (torch.fmod(2, t), torch.copysign(2., t): no such overload)
            namespace[name] = function_form(namespace[name], name, F_OTHER,
                                            number_input=name not in ("fmod", "copysign"))
    namespace["float_power"] = function_form(namespace["float_power"], "float_power",
                                             F_EXPONENT, "exponent")
