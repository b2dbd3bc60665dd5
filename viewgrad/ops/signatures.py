"""PyTorch's argument parser, for the arguments whose type it checks before anything runs.

``x.index_select(0, [0])`` in PyTorch is refused at the door: "index_select(): argument
'index' (position 2) must be Tensor, not list". Without this module viewgrad got further
and failed somewhere inside (``'list' object has no attribute 'dtype'``), or worse took
the value (``x.tril(1.5)``, ``vg.full((2,), None)``, ``x.clamp([0, 1])``) where PyTorch
refuses it. Here each such method and function gets a wrapper that checks its typed
arguments first and words a refusal as PyTorch does:

* one signature: ``name(): argument 'arg' (position N) must be Kind, not type``, where N
  counts from 1 after ``self`` for a method and from the input for a function, and a
  keyword argument has no position;
* an op PyTorch overloads (``clamp``, ``masked_fill``, ``lerp``, ``sum``...): the first
  line of "received an invalid combination of arguments - got (...)".

What PyTorch accepts, this accepts: for an ``int``, a Python or NumPy integer or a 0-d
integer tensor (``__index__``), not a bool; for a ``Number``, any Python or NumPy number
or a 0-d tensor; for ``tuple of ints``, one int or a list/tuple of them.

Note [typed arguments, checked at the door]: only the argument kinds are checked here
(what the parser checks); values (a dim out of range, a negative size) stay with each op,
which words them as PyTorch does. The wrappers stay off the hot paths (arithmetic,
indexing, in-place updates, the ops the benchmarks time), whose operands ops/operands.py
checks after the fast cases.
"""
from __future__ import annotations

import functools

from .. import backend as B
from ..tensor import Tensor
from .operands import invalid_combination, type_name

__all__ = ["install_method_signatures", "install_function_signatures", "checked_function",
           "SEQ_INTS", "TENSOR", "NUMBER", "INT", "BOOL"]

INT, TENSOR, NUMBER, INTS, BOOL = "int", "Tensor", "Number", "tuple of ints", "bool"
SEQ_INTS = "tuple of ints "   # a sequence only (pad): PyTorch takes no single int there
TENSORS = "tuple of Tensors"
FLOAT, STR = "float", "str"
# "int?", "Tensor?": the kind, or None
# an overloaded argument: (kinds it may be); a refusal is then an invalid combination
NUM_OR_T = (NUMBER, TENSOR)
DIM_OR_NONE = (INT, INTS, None)


def _is_int(v) -> bool:
    t = type(v)
    if t is int:
        return True
    if t is bool:
        return False
    if B.is_numpy_scalar(v):
        return v.dtype.kind in "iu"
    if isinstance(v, Tensor):
        return v.dim() == 0 and v._data.dtype.kind in "iu"
    return False


def _is_number(v) -> bool:
    if isinstance(v, (int, float, complex)):
        return True
    if B.is_numpy_scalar(v):
        return v.dtype.kind in "biufc"
    return isinstance(v, Tensor) and v.dim() == 0


def _bad_element(v):
    """For a ``tuple of ints``: None when ``v`` is one, else (position, element) of the
    first element that is not an int (position None: ``v`` is not a sequence at all)."""
    if _is_int(v):
        return None
    if isinstance(v, (list, tuple)):
        for i, e in enumerate(v):
            if not _is_int(e):
                return i, e
        return None
    return None, v


def _accepts(kind, v) -> bool:
    if kind is None:
        return v is None
    if type(kind) is str and kind[-1] == "?":
        return v is None or _accepts(kind[:-1], v)
    if kind == INT:
        return _is_int(v)
    if kind == TENSOR:
        return isinstance(v, Tensor)
    if kind == NUMBER:
        return _is_number(v)
    if kind == INTS:
        return _bad_element(v) is None
    if kind == SEQ_INTS:
        return isinstance(v, (list, tuple)) and _bad_element(v) is None
    if kind == TENSORS:
        return isinstance(v, (list, tuple)) and all(isinstance(e, Tensor) for e in v)
    if kind == FLOAT:   # a real number (PyTorch's double: a bool, an int, a 0-d tensor too)
        return (isinstance(v, (int, float)) or (B.is_numpy_scalar(v) and v.dtype.kind in "biuf")
                or (isinstance(v, Tensor) and v.dim() == 0))
    if kind == STR:
        return isinstance(v, str)
    if kind == BOOL:
        return type(v) is bool or (B.is_numpy_scalar(v) and v.dtype.kind == "b")
    return any(_accepts(k, v) for k in kind)   # an overloaded argument


def _words(name, arg, kind, v, pos):
    where = f" (position {pos})" if pos else ""
    kind = INTS if kind == SEQ_INTS else kind.rstrip("?")
    if kind == TENSORS and isinstance(v, (list, tuple)):
        at = next(i for i, e in enumerate(v) if not isinstance(e, Tensor))
        return (f"expected Tensor as element {at} in argument {max(pos - 1, 0)}, but got "
                f"{type_name(v[at])}")
    if kind == INTS and isinstance(v, (list, tuple)):
        at, e = _bad_element(v)
        if at is not None:
            return (f"{name}(): argument '{arg}'{where} must be tuple of ints, but found "
                    f"element of type {type_name(e)} at pos {at}")
    return f"{name}(): argument '{arg}'{where} must be {kind}, not {type_name(v)}"


def _combination(name, args, kwargs):
    got = invalid_combination(name, args)
    if kwargs:
        kw = ", ".join(f"{k}={'Tensor' if isinstance(v, Tensor) else type_name(v)}"
                       for k, v in kwargs.items())
        head, _, tail = got.partition("got (")
        given, _, rest = tail.partition(")")
        # PyTorch's own quirk: with no positional argument it ends the list with ", "
        given = f"{given}, {kw}" if given else f"{kw}, "
        got = f"{head}got ({given}){rest}"
    return got


def _int_ok(kind) -> bool:
    """Whether a plain int is always of ``kind`` (the check's fast path)."""
    if isinstance(kind, tuple):
        return any(_int_ok(k) for k in kind)
    return kind in (INT, INTS, NUMBER, "int?", "Number?", None)


# the kinds a Tensor is accepted as, as it is (``_as_ints`` gives it back unchanged)
_TENSOR_KINDS = frozenset((TENSOR, TENSOR + "?"))


def _check(name, params, args, kwargs, first_pos, shown_args, kw_positions=False):
    """Raise PyTorch's TypeError for the first typed argument of the wrong kind; else
    (args, kwargs) with NumPy integers and 0-d integer tensors given as ints made Python
    ints, as PyTorch's parser reads them."""
    fixed = None
    for i, v in enumerate(args):
        if i >= len(params):
            break
        arg, kind = params[i]
        if (kind is None or (type(v) is int and _int_ok(kind))
                or (kind in _TENSOR_KINDS and isinstance(v, Tensor))):
            continue
        if not _accepts(kind, v):
            _refuse(name, arg, kind, v, first_pos + i, shown_args, kwargs)
        w = _as_ints(kind, v)
        if w is not v:
            fixed = list(args) if fixed is None else fixed
            fixed[i] = w
    if kwargs:
        kinds = dict(params)
        for k, v in kwargs.items():
            kind = _KW_KINDS.get((name, k)) or kinds.get(k)
            if kind is None or (type(v) is int and _int_ok(kind)):
                continue
            if not _accepts(kind, v):
                pos = [a for a, _ in params].index(k) + first_pos if kw_positions else 0
                _refuse(name, k, kind, v, pos, shown_args, kwargs)
            w = _as_ints(kind, v)
            if w is not v:
                kwargs[k] = w
    return args if fixed is None else tuple(fixed), kwargs


def _as_ints(kind, v):
    """``v`` (accepted as ``kind``) with its integers as Python ints, and a 0-d tensor
    given as a Number as the Python number it holds (PyTorch's Scalar)."""
    if kind == NUMBER and isinstance(v, Tensor):
        return v.item()
    ints = kind in (INT, INTS, SEQ_INTS, "int?") or (
        isinstance(kind, tuple) and (INT in kind or INTS in kind))
    if not ints or isinstance(v, (bool, float, complex, str)) or v is None:
        return v
    if isinstance(v, Tensor) and isinstance(kind, tuple) and TENSOR in kind:
        return v   # a tensor where a tensor is taken: repeat_interleave(tensor(2)) stays one
    if _is_int(v):
        return int(v)
    if isinstance(v, (list, tuple)) and not all(type(e) is int for e in v) and all(
            _is_int(e) for e in v):
        return tuple(int(e) for e in v)
    return v


def _refuse(name, arg, kind, v, pos, shown_args, kwargs):
    if isinstance(kind, tuple) or name.rstrip("_") in OVERLOADED:
        raise TypeError(_combination(name, shown_args, kwargs))
    raise TypeError(_words(name, arg, kind, v, pos))


def _method(fn, name, params, kw_positions=False):
    @functools.wraps(fn)
    def method(*args, **kwargs):   # (self, ...); a function's input may come by keyword
        if len(args) == 1 and not kwargs:   # (self alone: no argument to check)
            return fn(args[0])
        rest = args[1:]
        checked, kwargs = _check(name, params, rest, kwargs, 1, rest, kw_positions)
        if checked is not rest:
            args = args[:1] + checked
        return fn(*args, **kwargs)
    method._checked_kinds = params
    return method


def _function(fn, name, params):
    @functools.wraps(fn)
    def function(*args, **kwargs):   # (input, ...), input perhaps by keyword
        if len(args) == 1 and not kwargs:   # (the input alone: no argument to check)
            return fn(args[0])
        rest = args[1:]
        checked, kwargs = _check(name, params, rest, kwargs, 2, args)
        if checked is not rest:
            args = args[:1] + checked
        return fn(*args, **kwargs)
    function._checked_kinds = params
    return function


# The arguments after self (methods) / after input (functions), in order: (name, kind);
# kind None: not checked here (the op checks it).
SIGNATURES = {
    "index_select": (("dim", INT), ("index", TENSOR)),
    "gather": (("dim", INT), ("index", TENSOR), ("sparse_grad", BOOL)),
    "scatter": (("dim", INT), ("index", TENSOR), ("src", NUM_OR_T)),
    "scatter_add": (("dim", INT), ("index", TENSOR), ("src", TENSOR)),
    "index_add": (("dim", INT), ("index", TENSOR), ("source", TENSOR)),
    "index_copy": (("dim", INT), ("index", TENSOR), ("source", TENSOR)),
    "index_fill": (("dim", INT), ("index", TENSOR), ("value", NUM_OR_T)),
    "take": (("index", TENSOR),),
    "take_along_dim": (("indices", TENSOR), ("dim", "int?")),
    "put_": (("index", TENSOR), ("source", TENSOR), ("accumulate", BOOL)),
    "masked_fill": (("mask", TENSOR), ("value", NUM_OR_T)),
    "masked_select": (("mask", TENSOR),),
    "masked_scatter": (("mask", TENSOR), ("source", TENSOR)),
    "expand_as": (("other", TENSOR),),
    "view_as": (("other", TENSOR),),
    "reshape_as": (("other", TENSOR),),
    "type_as": (("other", TENSOR),),
    "clamp": (("min", (NUMBER, TENSOR, None)), ("max", (NUMBER, TENSOR, None))),
    "clamp_": (("min", (NUMBER, TENSOR, None)), ("max", (NUMBER, TENSOR, None))),
    "clip": (("min", (NUMBER, TENSOR, None)), ("max", (NUMBER, TENSOR, None))),
    "clamp_min": (("min", NUM_OR_T),),
    "clamp_max": (("max", NUM_OR_T),),
    "clamp_min_": (("min", NUM_OR_T),),
    "clamp_max_": (("max", NUM_OR_T),),
    "lerp": (("end", TENSOR), ("weight", NUM_OR_T)),
    "lerp_": (("end", TENSOR), ("weight", NUM_OR_T)),
    "addcmul": (("tensor1", TENSOR), ("tensor2", TENSOR)),
    "addcdiv": (("tensor1", TENSOR), ("tensor2", TENSOR)),
    "cumsum": (("dim", INT),),
    "cumprod": (("dim", INT),),
    "sum": (("dim", DIM_OR_NONE), ("keepdim", BOOL)),
    "mean": (("dim", DIM_OR_NONE), ("keepdim", BOOL)),
    "transpose": (("dim0", INT), ("dim1", INT)),
    "swapdims": (("dim0", INT), ("dim1", INT)),
    "swapaxes": (("axis0", INT), ("axis1", INT)),
    "flip": (("dims", INTS),),
    "roll": (("shifts", INTS), ("dims", (INTS, None))),
    "narrow": (("dim", INT), ("start", INT), ("length", INT)),
    "narrow_copy": (("dim", INT), ("start", INT), ("length", INT)),
    "combinations": (("r", INT), ("with_replacement", BOOL)),
    "select": (("dim", INT), ("index", INT)),
    "unsqueeze": (("dim", INT),),
    "topk": (("k", INT), ("dim", INT), ("largest", BOOL), ("sorted", BOOL)),
    "tril": (("diagonal", INT),),
    "triu": (("diagonal", INT),),
    "diagonal": (("offset", INT), ("dim1", INT), ("dim2", INT)),
    "fill_": (("value", NUM_OR_T),),
    "masked_fill_": (("mask", TENSOR), ("value", NUM_OR_T)),
    "new_full": (("size", INTS), ("fill_value", NUMBER)),
    "chunk": (("chunks", INT), ("dim", INT)),
    "softmax": (("dim", INT),),
    "log_softmax": (("dim", INT),),
    "argmax": (("dim", "int?"), ("keepdim", BOOL)),
    "argmin": (("dim", "int?"), ("keepdim", BOOL)),
    "kthvalue": (("k", INT), ("dim", INT), ("keepdim", BOOL)),
    "cummax": (("dim", INT),),
    "cummin": (("dim", INT),),
    "diff": (("n", INT), ("dim", INT)),
    "unfold": (("dimension", INT), ("size", INT), ("step", INT)),
    "unbind": (("dim", INT),),
    "round": (("decimals", INT),),
    "requires_grad_": (("requires_grad", BOOL),),
    "logsumexp": (("dim", INTS), ("keepdim", BOOL)),
    "as_strided": (("size", SEQ_INTS), ("stride", SEQ_INTS), ("storage_offset", "int?")),
    "flatten": (("start_dim", INT), ("end_dim", INT)),
    "movedim": (("source", INTS), ("destination", INTS)),
    "moveaxis": (("source", INTS), ("destination", INTS)),
    "squeeze": (("dim", (INT, INTS)),),
    "max": (("dim", (INT, TENSOR)), ("keepdim", BOOL)),
    "min": (("dim", (INT, TENSOR)), ("keepdim", BOOL)),
    "std": (("dim", (INT, INTS, BOOL, None)),),   # std(True): the unbiased overload
    "var": (("dim", (INT, INTS, BOOL, None)),),
    "prod": (("dim", INT), ("keepdim", BOOL)),
    "all": (("dim", DIM_OR_NONE), ("keepdim", BOOL)),
    "any": (("dim", DIM_OR_NONE), ("keepdim", BOOL)),
    "sort": (("dim", INT), ("descending", BOOL)),
    "argsort": (("dim", INT), ("descending", BOOL)),
    "tensor_split": (("indices_or_sections", (INT, INTS, TENSOR)), ("dim", INT)),
    "unflatten": (("dim", INT), ("sizes", SEQ_INTS)),
    "repeat_interleave": (("repeats", (INT, TENSOR)), ("dim", (INT, None))),
    "nan_to_num": (("nan", "float?"), ("posinf", "float?"), ("neginf", "float?")),
    "div": (("other", None), ("rounding_mode", (STR, None))),
    "divide": (("other", None), ("rounding_mode", (STR, None))),
    "index_put_": (("indices", TENSORS), ("values", TENSOR), ("accumulate", BOOL)),
    "index_put": (("indices", TENSORS), ("values", TENSOR), ("accumulate", BOOL)),
}
# by keyword an argument may take less than in its place: std(True) is the unbiased
# overload, std(dim=True) is refused
_KW_KINDS = {("std", "dim"): DIM_OR_NONE, ("var", "dim"): DIM_OR_NONE}
# factories whose one-argument form PyTorch checks as its own signature (arange(end),
# eye(n)), and whose longer forms as an overloaded op: the one argument's name
_ALONE = {"arange": "end", "eye": "n"}
# ops PyTorch overloads: any refusal is worded as an invalid combination of arguments
OVERLOADED = {"scatter", "index_fill", "masked_fill", "clamp", "clip", "clamp_min",
              "clamp_max", "lerp", "sum", "mean", "fill", "bucketize", "searchsorted",
              "narrow", "movedim", "moveaxis", "squeeze", "max", "min", "std", "var", "prod",
              "all", "any", "sort", "argsort", "tensor_split", "view", "repeat_interleave",
              "div", "divide", "linspace"}
# methods whose PyTorch form takes its arguments as *sizes (x.repeat(2, 3)): the first
# checked as a tuple of ints when it is the only one
# (not new_zeros/new_ones/new_empty: the engine makes every backward's seed with new_ones,
# and on CUDA the wrapped call left 48 bytes a step alive in CuPy's fill, which the
# gc-disabled memory test caught on the H100; the cause is not found yet, so the seed's
# path stays as it was)
_VARARG_SIZES = {"repeat": "repeats", "reshape": "shape", "view": "size", "expand": "size",
                 "permute": "dims", "tile": "dims"}
# factories that take *size the same way
_VARARG_FACTORIES = ("zeros", "ones", "empty", "randn", "rand")
# functions whose first argument is not a tensor: (the names, their kinds)
FUNCTIONS = {
    "full": (("size", INTS), ("fill_value", NUMBER)),
    "bucketize": (("input", NUM_OR_T), ("boundaries", TENSOR)),
    "searchsorted": (("sorted_sequence", TENSOR), ("input", NUM_OR_T)),
    "linspace": (("start", NUM_OR_T), ("end", NUM_OR_T), ("steps", INT)),
    "arange": (("start", NUMBER), ("end", NUMBER), ("step", NUMBER)),
    "eye": (("n", INT), ("m", INT)),
    "cat": (("tensors", TENSORS), ("dim", INT)),
    "concat": (("tensors", TENSORS), ("dim", INT)),
    "concatenate": (("tensors", TENSORS), ("dim", INT)),
    "stack": (("tensors", TENSORS), ("dim", INT)),
    "tril_indices": (("row", INT), ("col", INT), ("offset", INT)),
    "triu_indices": (("row", INT), ("col", INT), ("offset", INT)),
}


def _sizes_refusal(name, arg, sizes, first_pos):
    """PyTorch's TypeError for ``*sizes`` given as one bad value or several, one of them
    not an int; None when they are fine."""
    if len(sizes) == 1:
        if _accepts(INTS, sizes[0]):
            return None
        if name in OVERLOADED:
            return TypeError(_combination(name, sizes, {}))
        return TypeError(_words(name, arg, INTS, sizes[0], first_pos))
    for i, e in enumerate(sizes):
        # PyTorch's parser: the first size picks the overload (a bool there is refused),
        # a bool after it is taken as an int
        if not (_is_int(e) or (i and type(e) is bool)):
            if i == 0 and name in OVERLOADED:
                return TypeError(_combination(name, sizes, {}))
            return TypeError(f"{name}(): argument '{arg}' failed to unpack the object at pos "
                             f"{i + 1} with error \"type must be tuple of ints,but got "
                             f"{type_name(e)}\"")
    return None


def _split_method(fn):
    """``Tensor.split``: PyTorch's is Python code that calls ``split`` for an int size and
    ``split_with_sizes`` (counting ``self`` as position 1) for anything else."""
    @functools.wraps(fn)
    def split(self, split_size, dim=0):
        if isinstance(split_size, int):   # a Python int (a bool too: refused there)
            if type(split_size) is bool or not _is_int(dim):
                raise TypeError(_combination("split", (self, split_size, dim), {}))
            return fn(self, split_size, int(dim))
        if isinstance(split_size, (list, tuple)):
            bad = _sizes_refusal("split_with_sizes", "split_sizes", tuple(split_size), 2)
            if bad is not None and split_size and not _is_int(split_size[0]):
                bad = TypeError(_words("split_with_sizes", "split_sizes", INTS, split_size, 2))
        elif isinstance(split_size, Tensor) and _is_int(split_size):   # a 0-d int tensor
            return fn(self, int(split_size), int(dim))
        elif B.is_numpy_scalar(split_size) or isinstance(split_size, Tensor):
            bad = TypeError(_words("split_with_sizes", "split_sizes", INTS, split_size, 2))
        else:
            bad = None if _accepts(INTS, split_size) else TypeError(
                _words("split_with_sizes", "split_sizes", INTS, split_size, 2))
        if bad is None and not _is_int(dim):
            bad = TypeError(_words("split_with_sizes", "dim", INT, dim, 3))
        if bad is not None:
            raise bad
        return fn(self, _as_ints(INTS, split_size), int(dim))
    split._checked_kinds = (("split_size", (INT, INTS)), ("dim", INT))
    return split


def _ints(sizes):
    """``*sizes`` with NumPy integers and 0-d tensors as Python ints (and a sequence given
    as the one argument the same way)."""
    if all(type(e) is int for e in sizes):
        return sizes
    return tuple(int(e) if isinstance(e, bool) else _as_ints(INTS, e) for e in sizes)


def _varargs_method(fn, name, arg):
    dtype_overload = name == "view"

    @functools.wraps(fn)
    def method(self, *sizes, **kwargs):
        if dtype_overload and len(sizes) == 1 and B.is_dtype_like(sizes[0]):
            return fn(self, *sizes, **kwargs)   # view(dtype): its own overload
        if not (sizes and type(sizes[0]) is int and len(sizes) == 1):
            bad = _sizes_refusal(name, arg, sizes, 1)
            if bad is not None:
                raise bad
            sizes = _ints(sizes)
        return fn(self, *sizes, **kwargs)
    method._checked_kinds = ((arg, INTS),)
    return method


def _varargs_factory(fn, name):
    @functools.wraps(fn)
    def factory(*sizes, **kwargs):
        bad = _sizes_refusal(name, "size", sizes, 1) if sizes else None
        if bad is not None:
            raise bad
        return fn(*_ints(sizes), **kwargs)
    factory._checked_kinds = (("size", INTS),)
    return factory


def _plain_function(fn, name, params):
    alone = _ALONE.get(name)

    @functools.wraps(fn)
    def function(*args, **kwargs):
        if alone is not None and len(args) == 1 and not kwargs:
            kind = dict(params)["n" if name == "eye" else "start"]
            if not _accepts(kind, args[0]):
                raise TypeError(_words(name, alone, kind, args[0], 1))
        elif alone is not None:
            try:
                args, kwargs = _check(name, params, args, kwargs, 1, args)
            except TypeError:
                raise TypeError(_combination(name, args, kwargs)) from None
            return fn(*args, **kwargs)
        args, kwargs = _check(name, params, args, kwargs, 1, args)
        return fn(*args, **kwargs)
    return function


def install_method_signatures(methods):
    """Wrap the methods of the table above (``methods``: ops/table.py's METHODS, before
    they are set on Tensor)."""
    for name, params in SIGNATURES.items():
        if name in methods:
            methods[name] = _method(methods[name], name, params)
    for name, arg in _VARARG_SIZES.items():
        if name in methods:
            methods[name] = _varargs_method(methods[name], name, arg)
    methods["split"] = _split_method(methods["split"])


def checked_function(fn, name, params, input_kind=None, as_method=False):
    """``fn(input, ...)`` with the kinds of its arguments after ``input`` checked first (for
    a module's own functions: ``nn.functional.pad``); ``input_kind``: ``input`` checked
    too (``one_hot``), as argument 1; ``as_method``: positions counted as the method
    PyTorch's function calls counts them (``F.softmax`` -> ``input.softmax(dim)``)."""
    if input_kind is not None:
        return _plain_function(fn, name, (("input", input_kind),) + tuple(params))
    return _method(fn, name, params, True) if as_method else _function(fn, name, params)


def install_function_signatures(namespace):
    """Wrap the functions of the tables above (``namespace``: viewgrad's globals)."""
    for name, params in SIGNATURES.items():
        fn = namespace.get(name)
        if fn is not None and not name.endswith("_"):
            namespace[name] = _function(fn, name, params)
    for name, params in FUNCTIONS.items():
        if name in namespace:
            namespace[name] = _plain_function(namespace[name], name, params)
    for name in _VARARG_FACTORIES:
        if name in namespace:
            namespace[name] = _varargs_factory(namespace[name], name)
    if "split" in namespace:   # torch.split(x, ...) is Tensor.split(x, ...)
        namespace["split"] = _split_method(namespace["split"])
