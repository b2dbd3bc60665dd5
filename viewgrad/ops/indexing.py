"""Indexing: ``x[key]`` (getitem), index / index_put for advanced keys, alias.

Basic keys (ints, slices, None, Ellipsis) become a chain of view ops (select, slice,
unsqueeze: ops/views.py); advanced keys (tensors, lists, arrays, bools) copy, through
``IndexBackward0`` / ``IndexPutBackward0``. ``x[...] = v`` is in ops/inplace.py.
"""
from __future__ import annotations

import builtins as _builtins
import operator
import warnings
from numbers import Integral as _Integral

from .. import backend as B
from ..tensor import Tensor
from .index_checks import check_advanced_key
from .table import defop, dispatch, dispatch_view, method, sum_to
from ..autograd.inplace_lean import lean_select
from .views import SELECT, select, slice, unsqueeze

__all__ = ["getitem", "index_put", "alias", "normalize_key", "split_integers", "torch_key",
           "legacy_masks"]

_builtin_slice = _builtins.slice


# Note [saved index tensors]
# ``x[idx]`` keeps the index's array in its key, not a copy. PyTorch's IndexBackward0 and
# IndexPutBackward0 save the index tensors themselves and check their versions at
# backward, so an index modified in place in between is refused ("modified by an inplace
# operation") instead of scattering the gradient to the wrong places. The index tensors
# of the key ride along as the attribute ``indices``, which the node saves as a tuple of
# SavedTensors (recording.py ``_save``); the formulas take it, so it is checked when they run.
# (A NumPy array or a list in the key is copied: PyTorch makes a tensor of it.)

# Note [an empty advanced index]
# PyTorch's index kernels check each index as they read it, so when the result (or what
# is put) has no element, no index is read and none is checked: ``x[:, [5]]`` of a (0, 3)
# tensor is an empty (0, 1) tensor, and ``x[:, [5]] = 1`` does nothing. NumPy checks them
# all first. ``check_advanced_key`` (index_checks.py) skips the bounds then, and the
# kernels below make the empty result, or write nothing, where NumPy would refuse. (An
# index into a dim of size 0 with a non-empty index shape raises in PyTorch before any
# kernel: that check stays.)

def _index_fwd(self, key, indices=()):
    try:
        r = self[key]
    except IndexError:
        geo = B.index_geometry(self, key) if B.is_host_array(self) else None
        if geo is None or 0 not in geo[0]:
            raise
        return B.xp_of(self).empty(geo[0], dtype=self.dtype)   # Note [an empty advanced index]
    # (PyTorch's strides, not NumPy's: Note [an advanced index's result layout])
    return B.index_layout(r, self, key)


def _index_bwd(grad, self_shape, _key, indices=()):
    from .factories import zeros
    return index_put(zeros(self_shape, dtype=grad.dtype, device=grad.device), _key, grad,
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
    shape = getattr(values, "shape", ())
    lead = 0
    while lead < len(shape) and shape[lead] == 1:
        lead += 1
    if lead:
        # leading size-1 dims of the values broadcast away, as PyTorch drops them; NumPy
        # refuses them when it puts through a mask ("boolean array indexing assignment")
        values = values.reshape(shape[lead:])
    try:
        if accumulate:
            B.add_at(out, key, values)
        else:
            out[key] = values
    except IndexError:
        geo = B.index_geometry(self, key) if B.is_host_array(self) else None
        if geo is None or 0 not in geo[0]:
            raise   # (an empty selection writes nothing: Note [an empty advanced index])
    return out


# (the key as given is viewgrad's own, for the formula: PyTorch shows only the index
# tensors, as ``indices``; Note [hidden saved values])
INDEX = defop("index", "IndexBackward0", _index_fwd, attrs=("_key", "indices"),
              self=_index_bwd)
INDEX_PUT = defop("index_put", "IndexPutBackward0", _index_put_fwd,
                  inputs=("self", "values"), attrs=("_key", "accumulate", "indices"),
                  self=lambda grad, _key, accumulate, indices: grad if accumulate else
                  index_put(grad, _key, 0.0, False),
                  # (values' shape only, not values: PyTorch saves no values, so a
                  # values tensor modified in place afterwards is fine there, and here)
                  values=lambda grad, _values_shape, _key, indices: _values_grad(
                      dispatch(INDEX, (grad,), (_key, ())), _values_shape))


def _values_grad(g, values_shape):
    """The indexed gradient back to the shape of the values put: a values tensor may have
    more dims than what it was put into — leading size-1 dims, which broadcasting drops —
    so those come back before the broadcast dims are summed."""
    extra = len(values_shape) - g.dim()
    if extra > 0:
        g = g.reshape((1,) * extra + tuple(g.shape))
    return sum_to(g, values_shape)


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
    if any(k is Ellipsis for k in out):
        taken = 0
        for k in out:
            if k is not None and k is not Ellipsis and type(k) is not bool:
                taken += k.ndim if B.is_array(k) and k.dtype.kind == "b" else 1
        if taken == self._data.ndim:
            # an Ellipsis that stands for no dim is no separator in PyTorch (it inserts
            # nothing), in NumPy it is: x[idx, ..., idx2] on a 2-D x keeps the advanced
            # dims where they are, as x[idx, idx2] does
            out = [k for k in out if k is not Ellipsis]
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


# Note [a key as PyTorch reads it]
# PyTorch reads an index key by its own rules before it indexes (python_variable_indexing's
# treatSequenceAsTuple and applySlicing, aten's TensorIndexing), and NumPy's differ:
# * a list (fewer than 32 items) holding a tensor, a sequence, a slice, Ellipsis or None
#   is a tuple of indices, with a deprecation warning; any other list is one index tensor;
#   a list or NumPy array that is not bool or uint8 is a long tensor (``x[[]]`` an empty
#   long index, an int16 or float array too, though an int16 tensor is refused);
# * a 0-d integer tensor (or 0-d NumPy integer array) is an integer: a select, a view —
#   even beside other index tensors; int8 and int16 too, whose 1-d tensors are refused;
# * a 0-d bool or uint8 tensor is a Python bool: a new dim of size 1 (True) or 0 (False);
# * a uint8 index tensor is a bool mask, deprecated ("indexing with dtype torch.uint8").
# ``torch_key`` rewrites a key to those terms, so the rest only meets ints, slices,
# None, Ellipsis, Python bools and long/int/bool arrays or tensors.

_SEQUENCE_AS_TUPLE = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be "
    "changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this "
    "will be interpreted as tensor index, x[torch.tensor(seq)], which will result either "
    "in an error or a different result")
_UINT8_MASK = ("indexing with dtype torch.uint8 is now deprecated, please use a dtype "
               "torch.bool instead.")


def _is_sequence(k):
    return (isinstance(k, (Tensor, list, tuple, range, str, bytes)) or B.is_array(k))


def _sequence_as_tuple(key):
    # (treatSequenceAsTuple: NumPy's old heuristic, kept by PyTorch)
    return len(key) < 32 and any(
        _is_sequence(k) or isinstance(k, _builtin_slice) or k is None or k is Ellipsis
        for k in key)


def _dtype_of(k):
    return k._data.dtype if isinstance(k, Tensor) else k.dtype


def _one_index(k):
    """One element of a key tuple, in PyTorch's terms (Note [a key as PyTorch reads it])."""
    t = type(k)
    if t is int or t is _builtin_slice or k is None or k is Ellipsis or t is bool:
        return k   # (the common keys, as they are: no array questions)
    if isinstance(k, list):
        k = B.cpu.xp.asarray(k)
    if B.is_array(k) and k.dtype.kind not in "b" and k.dtype != "uint8":
        # a list or NumPy array becomes a long tensor unless it is bool or uint8 (PyTorch's
        # indexing_tensor_from_data): [] is an empty long index, [0.7, 1.2] is [0, 1]
        k = k.astype("int64")
    if not (isinstance(k, Tensor) or B.is_array(k)):
        return k
    dt = _dtype_of(k)
    if k.ndim == 0 and dt.kind in "iub":
        if dt.kind == "b" or dt.itemsize == 1 and dt.kind == "u":
            return bool(k.item())
        return int(k.item())
    if dt.kind == "u" and dt.itemsize == 1:
        warnings.warn(_UINT8_MASK, UserWarning, stacklevel=4)
        return (Tensor._make(k._data != 0, k._device) if isinstance(k, Tensor)
                else k != 0)
    if dt.kind == "u" or dt.kind == "i" and dt.itemsize < 4:
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return k


def torch_key(key):
    """A ``__getitem__``/``__setitem__`` key as PyTorch reads it (Note [a key as PyTorch
    reads it]): a tuple when it has more than one index or any index that is not a plain
    int, slice, None or Ellipsis; else the key itself."""
    if isinstance(key, list):
        if not _sequence_as_tuple(key):
            return _one_index(key)
        warnings.warn(_SEQUENCE_AS_TUPLE, UserWarning, stacklevel=3)
        key = tuple(key)
    if isinstance(key, tuple):
        return tuple(_one_index(k) for k in key)
    return _one_index(key)


def legacy_masks(indices):
    """``index_put_``'s indices: uint8 tensors are bool masks there too, with the warning
    (a 0-d tensor stays an index tensor: index_put_ does no selects)."""
    out = []
    for k in indices:
        if isinstance(k, Tensor) and k._data.dtype.kind == "u" and k._data.dtype.itemsize == 1:
            warnings.warn(_UINT8_MASK, UserWarning, stacklevel=3)
            k = Tensor._make(k._data != 0, k._device)
        out.append(k)
    return tuple(out)


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
    first = []
    for k, i in zip(key, ints):
        if i or k is Ellipsis:
            first.append(k)
        elif k is not None and not isinstance(k, bool):
            # a k-d bool mask stands for the k dims it indexes; None and a bool, for none
            first += [_builtin_slice(None)] * _mask_dims(k)
    return tuple(first), tuple(k for k, i in zip(key, ints) if not i)


def _mask_dims(k):
    """How many of self's dims an index takes: a bool mask its ndim, any other one."""
    if (isinstance(k, Tensor) or B.is_array(k)) and _dtype_of(k).kind == "b":
        return k.ndim
    return 1


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
    key = torch_key(key)   # Note [a key as PyTorch reads it]
    if type(key) is int:
        return _basic_steps(self, (key,))
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
