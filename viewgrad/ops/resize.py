"""``Tensor.resize_`` and ``Tensor.resize_as_``: a tensor's shape changed in place, over
its own storage, as PyTorch does it (Note [resize_ over a storage]).

Autograd has no part in it: a tensor that requires grad cannot be resized (PyTorch's
error, in no_grad too), so no node is ever recorded; the version moves when the shape
does, as an in-place op moves it, so a saved tensor resized afterwards fails its check.
"""
from __future__ import annotations

import operator
import sys

from .. import backend as B
from ..layouts import row_major_strides
from ..tensor import Size, Tensor
from .table import method

__all__ = ["resize_", "resize_as_"]


# Note [resize_ over a storage]
# PyTorch's ``t.resize_(*size)`` keeps t's storage and storage offset and gives t the
# contiguous strides of the new size; the elements already there keep their places in
# memory (so ``arange(6).resize_(2, 2)`` reads 0, 1, 2, 3). A size equal to t's changes
# nothing (not even the version). When the new size needs more memory than the storage
# has after the offset, PyTorch grows the storage itself, and every tensor over it (its
# base, its views, a ``detach()``) follows, their values kept. NumPy arrays cannot move
# under their views, so viewgrad grows a storage only when nothing else holds it: it
# asks the storage array's reference count, which every NumPy view of it and every
# tensor over it raises. Otherwise it refuses, saying why, rather than let the tensors
# part ways silently. A ``from_numpy`` tensor's storage is the NumPy array's memory,
# which PyTorch does not grow either ("not resizable": ``_storage_not_resizable``).

def _sizes(size):
    """``resize_``'s sizes as a tuple of ints: given as ints, or as one tuple, list or
    Size, with PyTorch's TypeError for anything else."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    out = []
    for n in size:
        if isinstance(n, bool) or not hasattr(n, "__index__"):
            raise TypeError(f"resize_(): argument 'size' (position 1) must be tuple of ints, "
                            f"not {type(n).__name__}")
        out.append(operator.index(n))
    for n in out:
        if n < 0:
            raise RuntimeError(f"numel: integer multiplication overflow (resize_ was given "
                               f"the size {tuple(out)}: every size must be 0 or more)")
    return tuple(out)


def _flat(storage):
    """The storage array as a 1-D view in memory order, or None (not dense)."""
    if storage.flags.c_contiguous:
        return storage.reshape(-1)
    if storage.flags.f_contiguous:
        return storage.reshape(-1, order="F")
    return None


def _held_by_others(self):
    """Whether anything but ``self`` holds its storage array (Note [resize_ over a
    storage]): its own references are this function's local and getrefcount's argument,
    and self's (``_data`` itself or as its base, and ``_storage_``). Its caller holds
    none."""
    storage = self._storage
    data = self._data
    own = 2 + (data is storage or getattr(data, "base", None) is storage)
    own += self.__dict__.get("_storage_") is storage
    own += data is storage   # (the local ``data``, when it is the storage itself)
    return sys.getrefcount(storage) > own


@method("resize_")
def resize_(self, *size, memory_format=None):
    """Resize ``self`` in place to ``size`` over its storage (Note [resize_ over a
    storage]); returns self."""
    shape = _sizes(size)
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if memory_format is not None:
        raise RuntimeError(f"resize_: viewgrad has no memory formats (got {memory_format!r}); "
                           "it lays the resized tensor out contiguously: leave "
                           "memory_format out")
    if shape == self._data.shape:
        return self
    resize_storage(self, shape)
    self._version_counter.bump("resize_")
    return self


def resize_storage(self, shape):
    """``resize_``'s work without its version bump: an ``out=`` argument is resized and
    written by one op, which bumps its version once (``args.with_out``); nor its refusal
    of a tensor that requires grad (PyTorch resizes such an ``out`` under no_grad)."""
    vc = self._version_counter
    if vc.inference:
        vc.bump("resize_")   # (outside inference mode: PyTorch's error for an update)
    dev = self._device
    offset = self.storage_offset()
    numel = 1
    for n in shape:
        numel *= n
    need = offset + numel if numel else 0
    if need > self._storage.size and (self._storage_not_resizable or (
            self._base is not None and self._base._storage_not_resizable)):
        raise RuntimeError("Trying to resize storage that is not resizable (it is the "
                           "memory of the NumPy array given to from_numpy); resize a clone "
                           "instead: t = t.clone().resize_(...)")
    if need > self._storage.size and _held_by_others(self):
        raise RuntimeError(
            f"resize_: the size {tuple(shape)} needs {need} elements of storage from "
            f"offset {offset}, and the storage has {self._storage.size}. PyTorch would grow "
            "the storage under every tensor that shares it; here other tensors hold it (a "
            "base, a view, a detach(), a NumPy array given to from_numpy, or a value saved "
            "for backward) and NumPy arrays cannot move under them. Resize a clone "
            "instead: t = t.clone().resize_(...)")
    storage = self._storage
    flat = _flat(storage)
    if flat is None or dev.as_strided is None:
        raise RuntimeError(
            f"resize_: this tensor's storage is not dense on device '{dev.type}', or the "
            "device has no as_strided, so viewgrad cannot lay a new size over it; resize a "
            "contiguous clone instead: t = t.clone().resize_(...)")
    if need > flat.size:
        grown = dev.xp.empty((need,), dtype=flat.dtype)
        grown[:flat.size] = flat   # (the elements there keep their places; the rest is new)
        storage = flat = grown
    strides = tuple(s * flat.itemsize for s in row_major_strides(shape))
    self._data = B.strided_in(dev, flat, shape, strides, offset)
    self._storage = storage


@method("resize_as_")
def resize_as_(self, the_template, memory_format=None):
    """``self.resize_(the_template.size())``."""
    if not isinstance(the_template, Tensor):
        raise TypeError(f"resize_as_(): argument 'the_template' (position 1) must be Tensor, "
                        f"not {type(the_template).__name__}")
    return resize_(self, Size(the_template.shape), memory_format=memory_format)
