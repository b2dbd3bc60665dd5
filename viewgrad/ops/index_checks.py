"""PyTorch's errors for an advanced index (``x[idx]``, ``x[mask]``, ``x[idx] = v``),
raised before NumPy sees the key so that its own words never reach the user:

* an index tensor of another dtype: "tensors used as indices must be long, int, byte or
  bool tensors";
* a boolean mask whose shape is not that of the dims it indexes: "The shape of the mask
  [3] at index 0 does not match the shape of the indexed tensor [2, 3] at index 0" — the
  indexed tensor being what the key's integers and slices leave of self, as PyTorch
  applies them first;
* an integer index out of range: "index 5 is out of bounds for dimension 0 with size 2",
  the dimension counted among the key's index tensors (a mask counts one per dim), as
  PyTorch's index kernel numbers them.
"""
from __future__ import annotations

import builtins as _builtins

from .. import backend as B
from ..tensor import Tensor

__all__ = ["check_advanced_key"]


def _as_array(k):
    if isinstance(k, Tensor):
        return k._data
    if isinstance(k, list):
        return B.cpu.xp.asarray(k)
    if B.is_array(k):
        return k
    return None


def check_advanced_key(shape, key):
    """Raise PyTorch's IndexError for the first bad index tensor of ``key`` (a tuple) on a
    tensor of ``shape``; a key this check does not read (a Python bool, too many
    indices) is left to the indexing itself."""
    arrays = [None if (k is None or k is Ellipsis or isinstance(k, (int, _builtins.slice)))
              else _as_array(k) for k in key]
    if any(isinstance(k, bool) for k in key) or any(
            a is None and k is not None and k is not Ellipsis
            and not isinstance(k, (int, _builtins.slice)) for a, k in zip(arrays, key)):
        return
    used = sum(a.ndim if a is not None and a.dtype.kind == "b" else 1
               for a, k in zip(arrays, key) if k is not None and k is not Ellipsis)
    if used > len(shape):
        return
    after, starts, d = [], [], 0   # what the basic part leaves, where each element starts
    for a, k in zip(arrays, key):
        starts.append(len(after))
        if k is Ellipsis:
            m = len(shape) - used
            after.extend(shape[d:d + m])
            d += m
        elif k is None:
            after.append(1)
        elif isinstance(k, int):
            d += 1   # (an integer removes its dim)
        elif isinstance(k, _builtins.slice):
            after.append(len(range(*k.indices(shape[d]))))
            d += 1
        else:
            m = a.ndim if a.dtype.kind == "b" else 1
            after.extend(shape[d:d + m])
            d += m
    after.extend(shape[d:])
    # in PyTorch's order: the dtypes, the masks' shapes (expandTensors), the broadcast
    # (expand_outplace), an indexed dim of size 0 (AdvancedIndex), the bounds (the kernel)
    for a in arrays:
        if a is not None and a.dtype.kind not in "iub":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    indexed = set()
    for a, k, s in zip(arrays, key, starts):
        if a is None:
            continue
        if a.dtype.kind == "b":
            for j in range(a.ndim):
                if a.shape[j] != after[s + j]:
                    raise IndexError(f"The shape of the mask {list(a.shape)} at index {j} does "
                                     f"not match the shape of the indexed tensor {after} at "
                                     f"index {s + j}")
                indexed.add(s + j)
        else:
            indexed.add(s)
    # the index tensors broadcast together (a mask: its positions, one tensor per dim)
    shapes = []
    for a in arrays:
        if a is not None:
            shapes += [[int(a.sum())]] * a.ndim if a.dtype.kind == "b" else [list(a.shape)]
    try:
        common = B.broadcast_shapes(*map(tuple, shapes))
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together "
                         f"with shapes {', '.join(map(str, shapes))}") from None
    if 0 not in common and any(after[i] == 0 for i in indexed):
        raise IndexError("index is out of bounds for dimension with size 0")
    if 0 in common or any(n == 0 for i, n in enumerate(after) if i not in indexed):
        return   # Note [an empty advanced index]: no index is read, none is checked
    ordinal = 0
    for a, k, s in zip(arrays, key, starts):
        if a is None:
            continue
        if a.dtype.kind == "b":
            ordinal += a.ndim
            continue
        n = after[s]
        if a.size:
            bad = (a < -n) | (a >= n)
            if bool(bad.any()):
                v = int(a.reshape(-1)[bad.reshape(-1)][0])
                raise IndexError(f"index {v} is out of bounds for dimension {ordinal} with "
                                 f"size {n}")
        ordinal += 1
