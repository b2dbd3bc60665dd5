"""Indexing: ``x[key]`` (getitem), index / index_put for advanced keys, alias.

Basic keys (ints, slices, None, Ellipsis) become a chain of view ops (select, slice,
unsqueeze: ops/views.py); advanced keys (tensors, lists, arrays, bools) copy, through
``IndexBackward0`` / ``IndexPutBackward0``. ``x[...] = v`` is in ops/inplace.py.
"""
from __future__ import annotations

import builtins as _builtins
import operator
from numbers import Integral as _Integral

from .. import backend as B
from ..tensor import Tensor
from .index_checks import check_advanced_key
from .table import defop, dispatch, dispatch_view, method, sum_to
from ..autograd.inplace_lean import lean_select
from .views import SELECT, select, slice, unsqueeze

__all__ = ["getitem", "index_put", "alias", "normalize_key", "split_integers"]

_builtin_slice = _builtins.slice


# Note [saved index tensors]
# ``x[idx]`` keeps the index's array in its key, not a copy. PyTorch's IndexBackward0 and
# IndexPutBackward0 save the index tensors themselves and check their versions at
# backward, so an index modified in place in between is refused ("modified by an inplace
# operation") instead of scattering the gradient to the wrong places. The index tensors
# of the key ride along as the attribute ``indices``, which the node saves as a tuple of
# SavedTensors (recording.py ``_save``); the formulas take it, so it is checked when they run.
# (A NumPy array or a list in the key is copied: PyTorch makes a tensor of it.)

def _index_fwd(self, key, indices=()):
    return self[key]


def _index_bwd(grad, self_shape, key, indices=()):
    from .factories import zeros
    return index_put(zeros(self_shape, dtype=grad.dtype, device=grad.device), key, grad,
                     accumulate=True)


def index_tensors(key):
    """The index Tensors of a ``__getitem__``/``__setitem__`` key (Note [saved index
    tensors])."""
    if isinstance(key, Tensor):
        return (key,)
    if isinstance(key, tuple):
        return tuple(k for k in key if isinstance(k, Tensor))
    return ()


def _index_put_fwd(self, values, key, accumulate, indices=()):
    out = self.copy()
    if accumulate:
        B.add_at(out, key, values)
    else:
        out[key] = values
    return out


INDEX = defop("index", "IndexBackward0", _index_fwd, attrs=("key", "indices"),
              self=_index_bwd)
INDEX_PUT = defop("index_put", "IndexPutBackward0", _index_put_fwd,
                  inputs=("self", "values"), attrs=("key", "accumulate", "indices"),
                  self=lambda grad, key, accumulate, indices: grad if accumulate else
                  index_put(grad, key, 0.0, False),
                  # (values' shape only, not values: PyTorch saves no values, so a
                  # values tensor modified in place afterwards is fine there, and here)
                  values=lambda grad, values_shape, key, indices: sum_to(
                      dispatch(INDEX, (grad,), (key, ())), values_shape))


def index_put(self, key, values, accumulate=False):
    if not isinstance(key, tuple):
        key = (key,)
    return dispatch(INDEX_PUT, (self, values), (_key_on_device(self, key), bool(accumulate),
                                                index_tensors(key)))


def _is_advanced(k):
    return isinstance(k, (Tensor, list)) or B.is_array(k) or isinstance(k, bool)


ALIAS = defop("alias", "AliasBackward0", lambda self: self[...], view=True,
              self=lambda grad: grad)


def alias(self):
    """A view of the whole tensor (``x[...]``)."""
    return dispatch_view(ALIAS, self, (), (alias, ()))


def _key_on_device(self, key):
    """Index arrays of a key moved to self's device: like PyTorch, indices may be on the
    cpu (tensors, lists, numpy arrays) or on the indexed tensor's device."""
    dev = self._device
    out = []
    for k in key:
        if isinstance(k, Tensor):
            if k._device is not dev:
                if k._device is not B.cpu:
                    raise RuntimeError(
                        f"indices should be either on cpu or on the same device as the "
                        f"indexed tensor ({dev.type}), got {k.device.type}")
                k = dev.from_host(k._data)
            else:
                k = k._data
        elif isinstance(k, list):
            k = dev.xp.asarray(k)
        elif B.is_host_array(k):   # a copy, as PyTorch makes a tensor of it
            k = dev.from_host(k) if dev is not B.cpu else k.copy()
        out.append(k)
    return tuple(out)


def normalize_key(self, key):
    """Return ('basic', key-tuple) or ('advanced', array-key) for a __getitem__ key.
    A single slice (``x[:]``) is kept as a slice; in tuples full slices are skipped and an
    index that selects everything is an alias, as PyTorch does."""
    if isinstance(key, _builtin_slice):
        return "single-slice", key
    if not isinstance(key, tuple):
        key = (key,)
    if any(_is_advanced(k) for k in key):
        check_advanced_key(tuple(self._data.shape), key)   # (PyTorch's words, not NumPy's)
        return "advanced", _key_on_device(self, key)
    return "basic", key


# Note [integers beside advanced indices]
# NumPy counts an integer in a key with arrays as one more advanced index: it broadcasts
# with them, and an integer between two of them (or an array beside a slice that follows
# an integer) decides where the advanced dims go. PyTorch applies the integers first, as
# selects (views), and indexes what is left with the tensors. ``x[2, None, idx]`` is
# (1, 3, k) in PyTorch and (k, 1, 3) in NumPy. ``split_integers`` gives the two steps of
# PyTorch's way: the integers (a basic key, every other dim kept) and the rest.

def split_integers(key):
    """``(integers, rest)`` for a tuple key with both integers and advanced indices, or
    None (Note [integers beside advanced indices])."""
    ints = [isinstance(k, _Integral) and not isinstance(k, bool) for k in key]
    if not any(ints) or not any(_is_advanced(k) for k in key):
        return None
    first = tuple(k if i else (Ellipsis if k is Ellipsis else _builtin_slice(None))
                  for k, i in zip(key, ints) if k is not None and not isinstance(k, bool))
    return first, tuple(k for k, i in zip(key, ints) if not i)


def _basic_steps(self, key, alias_self=True):
    n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_real > self.dim():
        raise IndexError(f"too many indices for tensor of dimension {self.dim()}")
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    t, dim = self, 0
    for k in key:
        if k is Ellipsis:
            dim += self.dim() - n_real
            # dims skipped by the ellipsis stay
            continue
        if k is None:
            t = unsqueeze(t, dim)
            dim += 1
        elif isinstance(k, _builtin_slice):
            if k.step is not None and k.step <= 0:
                raise ValueError("step must be greater than zero")
            if k.indices(t._data.shape[dim]) != (0, t._data.shape[dim], 1):
                t = slice(t, dim, k.start, k.stop, k.step or 1)  # full slices are skipped
            dim += 1
        else:
            try:
                i = operator.index(k)
            except TypeError:
                raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), None and "
                                 f"long or byte Variables are valid indices (got "
                                 f"{type(k).__name__})") from None
            n = t._data.shape[dim]
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for dimension {dim} with size "
                                 f"{n}")
            t = select(t, dim, i)
    if t is self and alias_self:
        t = alias(self)  # a[...] is still a view: AliasBackward0
    return t


def _single_slice(self, k):
    if self.dim() == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if k.step is not None and k.step <= 0:
        raise ValueError("step must be greater than zero")
    return slice(self, 0, k.start, k.stop, k.step or 1)


@method("__getitem__")
def getitem(self, key):
    d = self._data
    if type(key) is int and d.ndim and -d.shape[0] <= key < d.shape[0]:
        # t[i]: what _basic_steps would do, without the walk: select(self, 0, key), whose
        # checks have just passed (Note [a select view in line])
        i = key if key >= 0 else key + d.shape[0]
        out = lean_select(SELECT, self, d[i, ...], 0, i, (select, (0, i)))
        return out if out is not None else select(self, 0, key)
    kind, k = normalize_key(self, key)
    if kind == "basic":
        return _basic_steps(self, k)
    if kind == "single-slice":
        return _single_slice(self, k)
    steps = split_integers(key) if isinstance(key, tuple) else None
    if steps is not None:   # Note [integers beside advanced indices]
        return getitem(_basic_steps(self, steps[0], alias_self=False), steps[1])
    try:
        return dispatch(INDEX, (self,), (k, index_tensors(key)))
    except IndexError as e:
        raise IndexError(f"index out of range: {e}") from None
