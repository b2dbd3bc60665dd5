"""How a node's saved values read as PyTorch's ``grad_fn._saved_<name>`` attributes.

Every row of the derivatives table gets a node class (``OpDef`` in nodes.py) with one
property per name its formulas save: ``_saved_self``, ``_saved_dim``, ``_saved_result``...
and ``_raw_saved_<name>`` (the SavedTensor itself) where PyTorch has one, that is for a
saved tensor. This module builds those properties (``saved_attributes``) and says how each
value reads: a saved input unpacks to the very Tensor, a saved output to a fresh Tensor
whose grad_fn is the node, a size under PyTorch's name (``_saved_self_sym_sizes``), a
freed node's non-tensor arguments from what it kept, and a few arguments as PyTorch's
binding shows them (Note [saved arguments as PyTorch shows them]).
"""
from __future__ import annotations

from .. import backend as B
from ..tensor import Tensor
from .graph import ERR_FREED, SavedTensor
from .recording import _per_input

__all__ = ["saved_attributes", "shown_name", "shown_geometry", "int64_as_shown", "show_given", "show_as",
           "alias_property"]


def saved_attributes(name, formulas, inputs, result_name=None):
    """``{attribute name: property}`` for the node class of row ``name``: one
    ``_saved_<d>`` (and ``_raw_saved_<d>``) per name ``d`` its formulas take, PyTorch's
    names for sizes, ``result_name`` for the saved result where PyTorch names it."""
    ns = {}
    for _, deps, _ in formulas:
        for d in deps:
            if d[0] == "_":
                continue   # Note [hidden saved values]
            geometry = shown_geometry(d, inputs)
            if geometry is not None:
                # PyTorch's names for an input's saved sizes and strides (strides read ()
                # where the input needs no gradient: strides_or_error)
                alias = "_saved_" + geometry
                ns[alias] = _saved_property(d, False, alias, tuple, missing=(
                    () if d.endswith("_strides") else _NO_DEFAULT))
                if name.startswith("mean") and d == "self_shape":   # (and a mean's count)
                    ns["_saved_self_sym_numel"] = _saved_property(
                        d, False, "_saved_self_sym_numel", _numel)
                continue
            shown = result_name if d == "result" and result_name else d
            ns["_saved_" + shown] = _saved_property(d, False, "_saved_" + shown)
            ns["_raw_saved_" + shown] = _saved_property(d, True, "_raw_saved_" + shown)
            if name == "linalg_svd" and d == "S":   # PyTorch's S.sym_size(-1), saved
                ns["_saved_S_sym_argsize_minus_1"] = _saved_property(
                    d, False, "_saved_S_sym_argsize_minus_1", lambda v: v.shape[-1])
    return ns


def shown_geometry(name, inputs):
    """PyTorch's name (without ``_saved_``) for a saved name that is an input's size,
    ``<input>_shape`` (``self_sym_sizes``), or strides, ``<input>_strides``
    (``mat2_sym_strides``); None for any other name."""
    if name.endswith("_shape") and name[:-6] in inputs:
        return name[:-6] + "_sym_sizes"
    if name.endswith("_strides") and name[:-8] in inputs:
        return name[:-8] + "_sym_strides"
    return None


# Note [hidden saved values]
# A formula parameter whose name starts with an underscore is saved as the same name
# without it would be (``_eps``: an attribute; ``_bias_shape``: bias's size) but shows no
# ``_saved_`` attribute, nor an entry in a tracer's picture: what a row keeps for its own
# formulas where PyTorch's node saves something else instead (LayerNorm keeps eps to
# recompute rstd differentiably, where PyTorch saves rstd itself and no eps; copysign's
# other keeps only its size, as PyTorch's ``other_info``). A row shows such a value
# under PyTorch's name, when PyTorch shows it, with ``alias_property``.

def alias_property(key, shown, then=None):
    """The property ``shown`` (an attribute name) reading the saved value ``key`` as
    ``then`` makes it: PyTorch's name for a hidden value (Note [hidden saved values])."""
    return _saved_property(key, False, shown, then)


def _saved_tuple(v):
    """Whether ``v`` is a tuple of SavedTensors (an attribute that was a tuple of Tensors:
    the index tensors of ``x[idx]``, Note [saved index tensors])."""
    return type(v) is tuple and len(v) > 0 and type(v[0]) is SavedTensor


_NUMBER_DTYPES = {float: "float64", int: "int64", bool: "bool", complex: "complex128"}


# Note [saved arguments as PyTorch shows them]
# Two saved arguments read differently from how viewgrad keeps them, because PyTorch's
# kernels take them differently: a loss's ``reduction`` is ATen's enum (0 'none',
# 1 'mean', 2 'sum'), and an int64 argument such as ``ignore_index`` is shown as the
# unsigned 64-bit number of its bits (-100 reads 18446744073709551516: PyTorch's Python
# binding of int64 saved values). The rows keep the string and the signed int, which
# their formulas use; ``_saved_<name>`` shows PyTorch's.
_REDUCTION_ENUM = {"none": 0, "mean": 1, "sum": 2}


def int64_as_shown(v):
    """A saved int64 argument as PyTorch's ``grad_fn._saved_<name>`` shows it: a negative
    one comes out as the unsigned 64-bit number of the same bits."""
    return v + 2 ** 64 if type(v) is int and v < 0 else v


# Note [dims as given]
# An op normalises a dim before it records it: -1 becomes ndim - 1, a list of dims is
# sorted, and the formulas use those. PyTorch's node keeps the dims as the caller gave
# them: ``x.sum((-1, 0)).grad_fn._saved_dim`` is ``(18446744073709551615, 0)`` (a negative
# int64 read as unsigned, Note [saved arguments as PyTorch shows them]) and
# ``x.mean((2, 1))`` keeps ``(2, 1)``. So an op that was given a dim hands it to
# ``show_given`` after recording; when it is not what the node keeps, the node's
# ``_shown`` holds it as PyTorch shows it, and ``_saved_<name>`` reads it there first.
# Only what is shown changes: the formulas never see it.

def show_given(out, name, given, kept):
    """Let the node of ``out`` (a Tensor, or the first of a tuple of them) show ``given``
    (an int or a sequence of ints, as the caller gave it) as its saved ``name``, where it
    keeps ``kept`` (Note [dims as given]); returns ``out``."""
    t = out
    if type(out) is not Tensor and isinstance(out, tuple):
        t = out[0] if out else None
    fn = getattr(t, "_grad_fn", None)
    if fn is None or given is None:
        return out
    shown = (int64_as_shown(int(given)) if not isinstance(given, (tuple, list))
             else tuple(int64_as_shown(int(d)) for d in given))
    if shown != kept:
        if fn._shown is None:
            fn._shown = {}
        fn._shown[name] = shown
    return out


def show_as(out, name, value):
    """Let the node of ``out`` show ``value`` as its saved ``name``: an argument PyTorch
    keeps as the caller gave it where viewgrad keeps what it made of it (a dim or a
    correction not given: None; an ``ord`` given as the int 2) (Note [dims as given]);
    returns ``out``."""
    fn = getattr(out, "_grad_fn", None)
    if fn is not None:
        if fn._shown is None:
            fn._shown = {}
        fn._shown[name] = value
    return out


_AS_TORCH_SHOWS = {
    "reduction": lambda v: _REDUCTION_ENUM.get(v, v) if type(v) is str else v,
    "ignore_index": int64_as_shown,
    # embedding's padding_idx: None is ATen's -1
    "padding_idx": lambda v: int64_as_shown(-1 if v is None else v),
}


_NO_DEFAULT = object()


def _saved_property(key, raw, shown=None, then=None, missing=_NO_DEFAULT):
    """The property ``_saved_<key>`` (``raw``: ``_raw_saved_<key>``, the SavedTensor);
    ``shown``: the attribute's own name when it is another name for ``key``'s value
    (PyTorch's ``_saved_self_sym_sizes``), ``then``: what to make of that value;
    ``missing``: what it reads where the node did not save ``key``."""
    def get(self):
        saved = self._saved
        if saved is None:
            kept = self._kept   # Note [what a freed node keeps]
            if kept is not None and key not in kept and missing is not _NO_DEFAULT:
                return missing
            if kept is None or key not in kept:
                if key in self.OP.inputs and not _was_saved(self, key):
                    return None   # never saved, so never freed: PyTorch's None
                raise RuntimeError(ERR_FREED)
            saved = kept
        if key not in saved:
            if missing is not _NO_DEFAULT:
                return missing
            if key in self.OP.inputs:
                return None   # an input saved only for a gradient not asked: PyTorch's None
            raise AttributeError(f"'{type(self).__name__}' object has no attribute "
                                 f"'{shown or ('_raw' if raw else '') + '_saved_' + key}'")
        v = saved[key]
        if self._shown is not None and key in self._shown and not raw:
            return self._shown[key]   # Note [dims as given]
        if raw and type(v) is not SavedTensor and key not in self.OP.inputs and not (
                _saved_tuple(v) or (v is None and key in _TENSOR_ARGUMENTS)):
            # PyTorch has _raw_saved_ names for what it saves as tensors (a loss's weight,
            # None or not; an input, a Python number given for it too), none for a dim
            raise AttributeError(f"'{type(self).__name__}' object has no attribute "
                                 f"'{shown or '_raw_saved_' + key}'")
        if then is not None:
            return then(v)
        if key in _AS_TORCH_SHOWS:   # Note [saved arguments as PyTorch shows them]
            return _AS_TORCH_SHOWS[key](v)
        if not raw and type(v) in _NUMBER_DTYPES and key in self.OP.inputs:
            # a Python number given for a tensor input (``x * 1.01``): PyTorch saves it
            # wrapped, as a 0-d tensor of double, long, bool or complex double
            return Tensor._make(B.cpu.xp.asarray(v, _NUMBER_DTYPES[type(v)]), B.cpu)
        if type(v) is SavedTensor:
            v._set_node(self)
            return v if raw else v.unpack(self)
        if _saved_tuple(v):   # IndexBackward0's indices
            return v if raw else tuple(s.unpack(self) for s in v)
        return v
    return property(get)


# the arguments PyTorch saves as (optional) tensors, which viewgrad keeps as attributes
_TENSOR_ARGUMENTS = frozenset(("weight", "pos_weight", "bias", "running_mean", "running_var",
                               "total_weight"))


def shown_name(n, node):
    """Whether ``dir(node)`` lists ``n``: a ``_raw_saved_`` name only where the node
    saved a tensor under it (PyTorch's nodes have none for a dim or a flag)."""
    if not n.startswith("_raw_saved_"):
        return True
    try:
        getattr(node, n)
    except AttributeError:
        return False
    except Exception:   # noqa: BLE001 - freed, or stale: the name is there all the same
        return True
    return True


def _was_saved(node, key):
    """Whether ``node`` saved input ``key``: its row's plan for the inputs that had an
    edge, which is what recording saved (Note [what a node saves])."""
    op = node.OP
    try:
        edges = _per_input(node.next_functions, op.nondiff) if op.nondiff else \
            node.next_functions
        plan = op.save_plan(tuple(e[0] is not None for e in edges))
    except Exception:   # noqa: BLE001 - a node this cannot read: say it was (freed)
        return True
    return any(name == key for name, _, _ in plan)


def _numel(shape):
    n = 1
    for k in shape:
        n *= k
    return n


