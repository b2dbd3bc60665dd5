"""``x.untyped_storage()`` and ``x.storage()``: the memory a tensor's elements live in, as
PyTorch code asks about it — most often to see whether two tensors share it
(``a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()``: a view and its base
do, a clone does not).

viewgrad keeps a tensor's storage as an array (``Tensor._storage``: the base's array for a
view, its own otherwise). These objects read it; they are not a second way to write it.
``UntypedStorage`` counts bytes, ``TypedStorage`` (PyTorch's deprecated ``x.storage()``,
with its warning) counts elements of the tensor's dtype.
"""
from __future__ import annotations

from .. import backend as B
from .table import method
from .warn_once import warn_once

__all__ = ["UntypedStorage", "TypedStorage"]


class UntypedStorage:
    """The bytes under a tensor (``torch.UntypedStorage``), read-only here."""

    __slots__ = ("_array", "_device")

    def __init__(self, array, device):
        self._array = array
        self._device = device

    @property
    def device(self):
        return self._device

    def data_ptr(self):
        """The address of the storage's first byte (a view's storage starts where its
        base's does)."""
        return self._device.data_ptr(self._array)

    def nbytes(self):
        return int(self._array.size) * self._array.itemsize

    def size(self):
        return self.nbytes()

    def __len__(self):
        return self.nbytes()

    def element_size(self):
        return 1

    def is_shared(self):
        return False

    def is_pinned(self, device="cuda"):
        return False

    def resizable(self):
        return True

    def _bytes(self):
        return self._device.to_host(self._array).tobytes()

    def tolist(self):
        return list(self._bytes())

    def __getitem__(self, i):
        return self.tolist()[i]

    def __iter__(self):
        return iter(self.tolist())

    def _header(self):
        return f"torch.storage.UntypedStorage(device={self._device.type})"

    def __repr__(self):
        body = "\n".join(f" {v}" for v in self.tolist())
        return f"{body}\n[{self._header()} of size {len(self)}]"


class TypedStorage(UntypedStorage):
    """The elements under a tensor in its dtype (``torch.TypedStorage``, deprecated in
    PyTorch for ``untyped_storage()``)."""

    __slots__ = ()

    @property
    def dtype(self):
        return self._array.dtype   # (what Tensor.dtype is)

    def size(self):
        return int(self._array.size)

    def __len__(self):
        return self.size()

    def element_size(self):
        return self._array.itemsize

    def tolist(self):
        return self._device.to_host(self._array).reshape(-1).tolist()

    def _header(self):
        return (f"torch.storage.TypedStorage(dtype=viewgrad.{B.dtype_name(self.dtype)}, "
                f"device={self._device.type})")


@method("untyped_storage")
def untyped_storage(self):
    """The bytes this tensor's elements live in (``torch.Tensor.untyped_storage``): a
    view's is its base's, so ``data_ptr()`` tells whether two tensors share memory."""
    return UntypedStorage(self._storage, self._device)


@method("storage")
def storage(self):
    """The elements this tensor's storage holds, in its dtype (``torch.Tensor.storage``,
    deprecated there, with a warning given once per process: use ``untyped_storage()``)."""
    warn_once("typed_storage")
    return TypedStorage(self._storage, self._device)
