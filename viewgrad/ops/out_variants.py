"""``out=`` for the functions of the ``viewgrad`` namespace that take it in PyTorch.

``torch.add(a, b, out=c)`` writes the sum into ``c`` (resized to the result's shape when
it differs, with PyTorch's warning unless ``c`` is empty) and returns ``c``. Most of
viewgrad's ops compute into a fresh array; the functions that take ``out=`` natively
(``sin``, ``diag``, ``tensordot``...) pass their result to ``args.with_out``. For the others,
``install_out_variants`` wraps the namespace function (never the Tensor method, which has
no ``out=`` in PyTorch either, and which the lean paths call): the wrapper runs the function
and hands its result to ``with_out``, which refuses what PyTorch refuses (an argument
that requires grad, in grad mode; a result that cannot be cast to ``out``'s dtype).

Note [a factory into out]: a factory (``zeros``, ``arange``, ``rand``...) given ``out=`` and
no dtype makes ``out``'s dtype on ``out``'s device, as PyTorch's do
(``torch.zeros(3, out=long_tensor)`` is a tensor of int64 zeros, not a refusal to cast).

A function PyTorch gives ``out=`` only in some overloads (``sum`` with a dim, not without
one) takes it in every call here: code that PyTorch accepts runs the same.
"""
from __future__ import annotations

import functools
import inspect

from ..tensor import Tensor
from .args import with_out

__all__ = ["OUT_FUNCTIONS", "LINALG_OUT_FUNCTIONS", "install_out_variants"]

# The functions of the torch namespace that take ``out=`` in PyTorch 2.13 (each was
# called with an out tensor there: tests/ops/test_out_variants_vs_torch.py).
OUT_FUNCTIONS = (
    "abs", "absolute", "acos", "add", "addbmm", "addcdiv", "addcmul", "addmm", "addmv",
    "addr", "all", "amax", "amin", "aminmax", "any", "arange", "argmax", "argmin", "asin",
    "atan", "atan2", "baddbmm", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor",
    "bmm", "bucketize", "cat", "ceil", "chain_matmul", "cholesky", "cholesky_inverse",
    "cholesky_solve", "clamp", "clamp_max", "clamp_min", "clip", "column_stack", "concat",
    "concatenate", "conj_physical", "copysign", "cos", "cosh", "cross", "cummax", "cummin",
    "cumprod", "cumsum", "deg2rad", "diag", "diff", "digamma", "div", "divide", "dot",
    "dstack", "empty", "eq", "erf", "erfc", "erfinv", "exp", "exp2", "expm1", "eye",
    "float_power", "floor", "floor_divide", "fmax", "fmin", "fmod", "frac", "frexp", "full",
    "gather", "gcd", "ge", "ger", "gt", "heaviside", "histc", "hstack", "hypot", "i0",
    "index_add", "index_copy", "index_reduce", "index_select", "inner", "inverse", "isin",
    "isneginf", "isposinf", "kron", "kthvalue", "lcm", "ldexp", "le", "lerp", "lgamma",
    "linspace", "log", "log10", "log1p", "log2", "log_softmax", "logaddexp", "logaddexp2",
    "logcumsumexp", "logical_and", "logical_not", "logical_or", "logical_xor", "logit",
    "logspace", "logsumexp", "lt", "lu", "lu_solve", "masked_select", "matmul",
    "matrix_power", "max", "maximum", "mean", "median", "min", "minimum", "mm", "mode",
    "msort", "mul", "multinomial", "multiply", "mv", "mvlgamma", "nan_to_num", "nanmean",
    "nanmedian", "nanquantile", "nansum", "narrow_copy", "ne", "neg", "negative",
    "nextafter", "nonzero", "norm", "normal", "ones", "outer", "polygamma", "pow", "prod",
    "qr", "quantile", "rad2deg", "rand", "randint", "randn", "randperm", "reciprocal",
    "remainder", "renorm", "round", "row_stack", "rsqrt", "scatter", "scatter_add",
    "scatter_reduce", "searchsorted", "sgn", "sigmoid", "sign", "signbit", "sin", "sinc",
    "sinh", "slogdet", "softmax", "sort", "sqrt", "square", "stack", "std", "sub",
    "subtract", "sum", "svd", "take", "take_along_dim", "tanh", "tensordot", "topk",
    "triangular_solve", "tril", "triu", "true_divide", "trunc", "var", "vdot", "vstack",
    "where", "xlogy", "zeros")

# The same for torch.linalg's functions (the others of vg.linalg take out= natively, or
# PyTorch's do not: diagonal, matrix_exp, lstsq).
LINALG_OUT_FUNCTIONS = ("cholesky_ex", "cond", "inv_ex", "matmul", "solve_ex", "vecdot")

# Note [a sum into out]: a reduction with a ``dtype`` argument (sum, prod, cumsum, cumprod,
# nansum) given ``out=`` and no dtype computes in ``out``'s dtype, as PyTorch's do:
# ``torch.sum(x, 1, out=long_tensor)`` casts x to int64 first, where ``torch.mean``
# refuses the cast.
_DTYPE_FROM_OUT = frozenset(("sum", "prod", "cumsum", "cumprod", "nansum"))

# Note [a factory into out]
_FACTORIES = frozenset(("arange", "empty", "eye", "full", "linspace", "logspace", "ones",
                        "rand", "randint", "randn", "randperm", "zeros"))


def _takes_out(fn):
    try:
        return "out" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return True   # (nothing to read: leave it as it is)


def _out_keyword(fn, name, factory, dtype_from_out):
    """``fn`` taking ``out=`` as PyTorch's function ``name`` does."""
    @functools.wraps(fn)
    def function(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        if (factory or dtype_from_out) and isinstance(out, Tensor):
            # Note [a factory into out], Note [a sum into out]
            if kwargs.get("dtype") is None:
                kwargs["dtype"] = out.dtype
            if factory:
                kwargs.setdefault("device", out.device)
        return with_out(fn(*args, **kwargs), out, name)
    return function


def install_out_variants(namespace, names=OUT_FUNCTIONS):
    """Give the functions ``names`` of ``namespace`` (viewgrad's or vg.linalg's globals)
    their ``out=`` keyword, where they do not take it already."""
    for name in names:
        fn = namespace.get(name)
        if fn is not None and callable(fn) and not _takes_out(fn):
            namespace[name] = _out_keyword(fn, name, name in _FACTORIES,
                                           name in _DTYPE_FROM_OUT)
