"""Copies and moves: clone, contiguous, to (dtype / device), detach, detach_, .data.

``detach()`` shares storage AND the version counter with its source (so a detached alias
modified in place still trips the saved-tensor check), while ``.data`` shares storage with a
NEW counter — which is exactly why ``.data`` is dangerous: it hides modifications from
autograd.
"""
from __future__ import annotations

from .. import backend as B
from ..tensor import Tensor, VersionCounter
from .operands import invalid_combination
from .table import defop, dispatch, method

__all__ = ["clone", "contiguous", "to", "detach", "detach_"]


def _clone_fwd(self, memory_format):
    xp = B.xp_of(self)
    if memory_format == "contiguous":
        return xp.ascontiguousarray(self).copy() if not self.flags.c_contiguous else self.copy()
    # "preserve": keep the layout of dense tensors (numpy's order='K'), as PyTorch does; on
    # the host, its strides exactly (a size-1 dim's too: backend.preserve_layout)
    return B.preserve_layout(self.copy(order="K"), self)


CLONE = defop("clone", "CloneBackward0", _clone_fwd, attrs=("memory_format",),
              self=lambda grad: grad)


@method("clone")
def clone(self, memory_format="preserve"):
    return dispatch(CLONE, (self,), (memory_format,))


@method("contiguous")
def contiguous(self):
    if self._data.flags.c_contiguous:
        return self
    return dispatch(CLONE, (self,), ("contiguous",))


def _to_dtype_fwd(self, dtype, dev):
    return B.preserve_layout(B.cast(self, dtype), self)   # (empty_like's layout, as PyTorch's)


TO_COPY = defop("to_copy", "ToCopyBackward0", _to_dtype_fwd, attrs=("dtype", "dev"),
                self=lambda grad, self: grad.to(self.dtype).to(self.device))


def _to_device(self, dev):
    data = dev.from_host(self._device.to_host(self._data)) if dev is not B.cpu else \
        self._device.to_host(self._data)
    out = Tensor._make(data, dev)
    from ..autograd.state import state as _st
    if _st.grad_enabled:
        from .table import _edges, record
        edges = _edges((self,))
        if edges is not None:
            out._grad_fn = record(TO_COPY, (self,), out, (self.dtype, dev), edges)
    return out


@method("to")
def to(self, *args, dtype=None, device=None, copy=False):
    for a in args:
        if isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        elif isinstance(a, (str, B.Device)) and not (isinstance(a, str) and a in B._DTYPE_ALIASES):
            device = a
        elif B.is_dtype_like(a) or isinstance(a, str):
            dtype = a
        elif a is None:   # PyTorch's parser: None, a bool, a float, an int all mean something
            continue
        elif isinstance(a, bool):
            dtype = B.bool_
        elif isinstance(a, float):
            dtype = B.float64
        elif isinstance(a, int) or (B.is_numpy_scalar(a) and a.dtype.kind in "iu"):
            device = f"cuda:{int(a)}"   # an accelerator's index
        else:
            raise TypeError(invalid_combination("to", args))
    out = self
    if device is not None:
        dev = B.device(device)
        if dev is not self._device:
            out = _to_device(out, dev)
    if dtype is not None:
        dt = B.to_dtype(dtype)
        if dt != out._data.dtype:
            out = dispatch(TO_COPY, (out,), (dt, out._device))
    if copy and out is self:
        out = clone(self)
    return out


def _caster(dt):
    def cast(self):
        return to(self, dt)
    return cast


for _name, _dt in [("float", B.float32), ("double", B.float64), ("half", B.float16),
                   ("long", B.int64), ("int", B.int32), ("bool", B.bool_)]:
    method(_name)(_caster(_dt))


@method("type_as")
def type_as(self, other):
    return to(self, other.dtype)


@method("cpu")
def cpu(self):
    return to(self, device="cpu")


@method("cuda")
def cuda(self, device=None):
    return to(self, device="cuda")


@method("detach")
def detach(self):
    """A new tensor sharing storage and the version counter, outside the graph."""
    out = Tensor._make(self._data, self._device)
    out._storage = self._storage
    out._version_counter = self._version_counter  # inference iff self is (a view of it)
    return out


@method("detach_")
def detach_(self):
    if self._base is not None:
        raise RuntimeError(
            "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
            "(DDP) for training, this is not supported; otherwise use x = x.detach().")
    self._grad_fn = None
    self._output_nr = 0
    self._requires_grad = False
    return self


def _get_data(self):
    out = Tensor._make(self._data, self._device)
    out._storage = self._storage
    return out  # a NEW version counter: modifications through .data go unseen


def _set_data(self, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
    if self.requires_grad and value._data.dtype.kind not in "fc":
        raise RuntimeError("data set to a tensor that requires gradients must be floating "
                           "point or complex dtype")
    self._data = value._data
    self._storage = value._storage
    self._device = value._device


Tensor.data = property(_get_data, _set_data)


@method("new_zeros")
def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    from .factories import zeros
    return zeros(*size, dtype=dtype or self.dtype, device=device or self.device,
                 requires_grad=requires_grad)


@method("new_ones")
def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    from .factories import ones
    return ones(*size, dtype=dtype or self.dtype, device=device or self.device,
                requires_grad=requires_grad)


@method("new_full")
def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    """A new tensor of ``size`` filled with ``fill_value``, with this tensor's dtype and
    device unless given, as ``torch.Tensor.new_full``."""
    from .factories import full
    return full(size, fill_value, dtype=dtype or self.dtype, device=device or self.device,
                requires_grad=requires_grad)


@method("new_empty")
def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    """A new uninitialised tensor of ``size`` with this tensor's dtype and device unless
    given, as ``torch.Tensor.new_empty`` (viewgrad fills it with zeros)."""
    from .factories import zeros
    return zeros(*size, dtype=dtype or self.dtype, device=device or self.device,
                 requires_grad=requires_grad)


@method("new_tensor")
def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    from .factories import tensor
    return tensor(data, dtype=dtype or self.dtype, device=device or self.device,
                  requires_grad=requires_grad)
