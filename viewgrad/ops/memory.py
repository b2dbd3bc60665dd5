"""Copies and moves: clone, contiguous, to (dtype / device), detach, detach_, .data.

``detach()`` shares storage AND the version counter with its source (so a detached alias
modified in place still trips the saved-tensor check), while ``.data`` shares storage with a
NEW counter — which is exactly why ``.data`` is dangerous: it hides modifications from
autograd.
"""
from __future__ import annotations

from .. import backend as B
from ..tensor import Tensor, VersionCounter
from .args import torch_type_name
from .operands import type_name
from .table import defop, dispatch, method

__all__ = ["clone", "contiguous", "to", "parse_to", "detach", "detach_", "view_dtype",
           "real_part", "imag_part"]


def _clone_fwd(self, memory_format):
    # preserve_format keeps the layout of dense tensors (numpy's order='K'), as PyTorch
    # does; on the host, its strides exactly (a size-1 dim's too: backend.preserve_layout)
    return B.in_memory_format(self.copy(order="K"), memory_format, like=self)


CLONE = defop("clone", "CloneBackward0", _clone_fwd, attrs=("memory_format",),
              self=lambda grad: grad)


@method("clone")
def clone(self, *, memory_format=B.preserve_format):
    """A copy with its own memory and a history (CloneBackward0); ``memory_format`` lays
    it out (Note [memory formats], backend/formats.py)."""
    fmt = B.format_of(memory_format, "clone", B.preserve_format)
    if fmt is not B.preserve_format:
        B.format_strides(self.shape, fmt)   # (PyTorch's refusal of a rank it cannot lay out)
    return dispatch(CLONE, (self,), (fmt,))


@method("contiguous")
def contiguous(self, memory_format=B.contiguous_format):
    """Itself when already laid out in ``memory_format``, else a copy so laid out."""
    fmt = B.format_of(memory_format, "contiguous")
    if fmt is B.contiguous_format:
        if self._data.flags.c_contiguous:
            return self
    elif B.is_contiguous_as(tuple(self.shape), self.stride(), fmt):
        return self
    if fmt is B.preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return dispatch(CLONE, (self,), (fmt,))


def _to_dtype_fwd(self, dtype, dev, memory_format=B.preserve_format, _self_dtype=None,
                  _self_dev=None):
    # (a copy always; preserve_format: empty_like's layout, as PyTorch's)
    return B.in_memory_format(B.cast(self, dtype), memory_format, like=self)


# Like PyTorch's ToCopyBackward0 (which keeps only self's tensor options), the node keeps
# the source's dtype and device, never the source: modifying it in place afterwards is
# fine at backward (Note [hidden saved values]: PyTorch's node shows none of them)
TO_COPY = defop("to_copy", "ToCopyBackward0", _to_dtype_fwd,
                attrs=("dtype", "dev", "memory_format", "_self_dtype", "_self_dev"),
                self=lambda grad, _self_dtype, _self_dev: grad.to(_self_dtype).to(_self_dev))


def _to_device(self, dev):
    data = dev.from_host(self._device.to_host(self._data)) if dev is not B.cpu else \
        self._device.to_host(self._data)
    out = Tensor._make(data, dev)
    from ..autograd.state import state as _st
    if _st.grad_enabled:
        from .table import _edges, record
        edges = _edges((self,))
        if edges is not None:
            out._grad_fn = record(TO_COPY, (self,), out, (
                self.dtype, dev, B.preserve_format, self.dtype, self.device), edges)
    return out


# PyTorch's three signatures of ``to`` (its argument parser tries them in this order)
_TO_SIGNATURES = (
    "torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, "
    "bool copy = False, *, torch.memory_format memory_format = None",
    "torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None",
    "Tensor tensor, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None")
_TO_KEYWORDS = ("device", "dtype", "non_blocking", "copy", "memory_format")


def _a_dtype(a):
    return B.is_dtype_like(a) or (isinstance(a, str) and a in B._DTYPE_ALIASES)


def _a_device(a):
    return a is None or isinstance(a, (str, B.Device)) or (
        (isinstance(a, int) and not isinstance(a, bool))
        or (B.is_numpy_scalar(a) and a.dtype.kind in "iu"))


def _first_dtype(a):
    """The dtype ``to``'s first argument names, or None: a dtype, or (PyTorch's parser)
    a bool or a float standing for its Python type."""
    if _a_dtype(a):
        return a
    if isinstance(a, bool):
        return B.bool_
    if isinstance(a, float):
        return B.float64
    return None


def parse_to(args, kwargs, name="to"):
    """``(device, dtype, non_blocking, copy, memory_format)`` of a ``to(*args, **kwargs)``
    call, matched against PyTorch's signatures (``_TO_SIGNATURES``): ``to(tensor, ...)``,
    ``to(dtype, non_blocking, copy)``, ``to(device, dtype, non_blocking, copy)``, each with
    ``memory_format=`` by keyword; a combination none takes is PyTorch's TypeError (a
    ``True`` after a dtype is non_blocking, never a dtype)."""
    got = dict(kwargs)
    for k in got:
        if k not in _TO_KEYWORDS:
            raise _to_refusal(name, args, kwargs)
    first = args[0] if args else None
    if args and isinstance(first, Tensor):
        names, values = ("non_blocking", "copy"), args[1:]
        got_dt = {"dtype": first.dtype, "device": first.device}
    elif args and _first_dtype(first) is not None:
        names, values = ("non_blocking", "copy"), args[1:]
        got_dt = {"dtype": _first_dtype(first)}
    else:
        names, values, got_dt = ("device", "dtype", "non_blocking", "copy"), args, {}
    if len(values) > len(names) or (got_dt and ("dtype" in got or "device" in got)):
        raise _to_refusal(name, args, kwargs)
    for k, v in zip(names, values):
        if k in got:
            raise _to_refusal(name, args, kwargs)
        got[k] = v
    got.update(got_dt)
    device, dtype = got.get("device"), got.get("dtype")
    non_blocking, copy = got.get("non_blocking", False), got.get("copy", False)
    fmt = got.get("memory_format")
    if (not _a_device(device) or not (dtype is None or _a_dtype(dtype))
            or type(non_blocking) is not bool or type(copy) is not bool
            or not (fmt is None or type(fmt) is B.memory_format)):
        raise _to_refusal(name, args, kwargs)
    if isinstance(device, int) or B.is_numpy_scalar(device):
        device = f"cuda:{int(device)}"   # an accelerator's index
    return device, dtype, non_blocking, copy, fmt


def _to_refusal(name, args, kwargs):
    def kind(v):
        if isinstance(v, Tensor):
            return "Tensor"
        return "torch.dtype" if B.is_dtype_like(v) and not isinstance(v, type) else \
            type_name(v)
    got = [kind(a) for a in args] + [f"{k}={kind(v)}" for k, v in kwargs.items()]
    lines = [f"{name}() received an invalid combination of arguments - got "
             f"({', '.join(got)}), but expected one of:"]
    lines += [f" * ({sig})" for sig in _TO_SIGNATURES]
    return TypeError("\n".join(lines))


@method("to")
def to(self, *args, **kwargs):
    """A copy on another device, of another dtype or in another memory format (one
    ToCopyBackward0), or the tensor itself when it already is all that was asked and no
    ``copy=True`` (a memory format the strides already suggest counts as kept)."""
    device, dtype, _, copy, fmt = parse_to(args, kwargs)
    fmt = B.preserve_format if fmt is None else fmt
    dev = self._device if device is None else B.device(device)
    dt = self._data.dtype if dtype is None else B.to_dtype(dtype)
    kept = fmt is B.preserve_format or B.suggest_memory_format(
        tuple(self.shape), self.stride()) is fmt
    if dev is self._device and dt == self._data.dtype and not copy and kept:
        return self
    if fmt is not B.preserve_format:
        B.format_strides(self.shape, fmt)   # (PyTorch's refusal of a rank it cannot lay out)
    out = self
    if dev is not self._device:
        out = _to_device(out, dev)   # (a copy already: then only a dtype or a format)
        if dt == out._data.dtype and kept:
            return out
    return dispatch(TO_COPY, (out,), (dt, out._device, fmt, out.dtype, out.device))


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


# Note [a view as another dtype]
# ``x.view(dtype)`` reads the same bytes as another dtype: a tensor over x's memory that
# shares x's version counter, as ``detach()`` does, and like it outside the graph: PyTorch
# declares the op not differentiable, so the result has no grad_fn, does not require
# grad and is no autograd view (``_base`` is None) — even for x's own dtype. An in-place
# op on it still moves x's version, so a saved x is refused at backward. Between element
# sizes, the last dim is rescaled and PyTorch's checks come first (its messages, its
# order); NumPy's ``ndarray.view`` then gives the same geometry.

def view_dtype(self, dtype):
    """``self.view(dtype)`` (Note [a view as another dtype])."""
    new = B.to_dtype(dtype)
    a = self._data
    old = a.dtype
    if new.itemsize != old.itemsize:
        what = f"to view {torch_type_name(old)} as {torch_type_name(new)} (different element sizes)"
        if a.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        st = self.stride()
        if new.itemsize > old.itemsize:
            ratio = new.itemsize // old.itemsize
            if a.shape[-1] % ratio:
                raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but "
                                   f"got {a.shape[-1]}")
            if self.storage_offset() % ratio:
                raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} "
                                   f"{what}, but got {self.storage_offset()}")
        if st[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {st[-1]}")
        if new.itemsize > old.itemsize:
            for i, s in enumerate(st[:-1]):
                if s % ratio:
                    raise RuntimeError(f"self.stride({i}) must be divisible by {ratio} "
                                       f"{what}, but got {s}")
    r = a.view(new)
    if not r.size and new.itemsize != old.itemsize and B.is_host_array(r):
        # (an empty tensor's strides are PyTorch's own, rescaled as a full one's would be)
        st = list(self.stride())
        k = new.itemsize / old.itemsize
        st = [int(s / k) for s in st[:-1]] + [1]
        r = B.strided_view(r, r.shape, [s * new.itemsize for s in st])
    return _alias_of(self, r)


def real_part(self):
    """``x.real``: x itself for a real dtype (PyTorch returns self); a complex tensor's real
    parts, over its memory and sharing its version counter (Note [a view as another
    dtype]: viewgrad has no complex gradients, so no history to keep)."""
    if self._data.dtype.kind != "c":
        return self
    return _alias_of(self, self._data.real)


def imag_part(self):
    """``x.imag``: a complex tensor's imaginary parts (as ``real_part``); PyTorch's error
    for a real dtype."""
    if self._data.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return _alias_of(self, self._data.imag)


def _alias_of(self, data):
    out = Tensor._make(data, self._device)
    out._storage = self._storage
    out._version_counter = self._version_counter
    return out


@method("detach_")
def detach_(self):
    from ..autograd.state import state as _st
    if _st.inference:
        # inference mode skips autograd's kernels, detach_'s included: PyTorch changes
        # nothing (a view is not refused either)
        return self
    if self._base is not None:
        raise RuntimeError(
            "Can't detach views in-place. Use detach() instead. If you are using "
            "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as "
            "True, gradients are views of DDP buckets, and hence detach_() cannot be called on "
            "these gradients. To fix this error, please refer to the Optimizer.zero_grad() "
            "function in torch/optim/optimizer.py as the solution.")
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
