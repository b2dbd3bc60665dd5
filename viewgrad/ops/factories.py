"""Tensor factories: tensor, zeros, ones, full, arange, linspace, eye, randn, rand, empty,
*_like, empty_strided, manual_seed.

Every factory takes ``dtype=`` (float32 by default for floating values, as PyTorch),
``device=`` and ``requires_grad=``. Random numbers come from one seeded generator on the
host (``manual_seed``), so a seed gives the same numbers on every device.
"""
from __future__ import annotations

import math
import numbers

from .. import backend as B
from ..tensor import Tensor
from .args import checked_scalar, torch_type_name

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "arange",
           "linspace", "eye", "randn", "rand", "randint", "zeros_like", "ones_like",
           "full_like", "empty_like", "rand_like", "randn_like", "empty_strided",
           "manual_seed", "logspace"]


def _finish(data, dev, requires_grad):
    return _with_grad(Tensor._make(data, dev), requires_grad)


def _with_grad(t, requires_grad):
    if requires_grad:
        if t.dtype.kind not in "fc":   # the constructors' wording (requires_grad_ has its own)
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients "
                f"(got {B.dtype_name(t.dtype)}); pass a float dtype, e.g. dtype=float32")
        t.requires_grad_(True)
    return t


def _shape(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for i, s in enumerate(size):
        # int(2.5) would silently truncate: PyTorch refuses any size that is not an int
        # (a bool after the first is taken as one there: ones(2, True) is 2 x 1)
        if (i == 0 and isinstance(s, bool)) or not hasattr(s, "__index__"):
            raise TypeError(f"size must be a tuple of ints, but found element of type "
                            f"{type(s).__name__}: {size!r}")
    shape = tuple(int(s) for s in size)
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(shape)}")
    return shape


def tensor(data, dtype=None, device=None, requires_grad=False):
    """Build a tensor from Python data (copies), inferring float32/int64/bool like PyTorch."""
    dev = B.device(device)
    if B.is_numpy_scalar(data):   # np.float64(2.5): a 0-d array of its dtype (PyTorch)
        data = B.host_array(data)
    if isinstance(data, Tensor):
        arr = data._device.to_host(data._data)
        dt = B.to_dtype(dtype) or arr.dtype
    else:
        if B.is_array(data):
            src_dev = B.device_of_array(data)
            arr = src_dev.to_host(data) if src_dev is not None else data
            dt = B.to_dtype(dtype) or arr.dtype
        elif (empty := _empty_shape(data)) is not None:
            dt = B.to_dtype(dtype) or empty[1]   # PyTorch reads no element when the
            arr = B.host_array([], dtype=dt).reshape(empty[0])   # shape holds a 0
        else:
            leaf_dt = None
            if _first_leaf_is_tensor(data):   # (tensors among the numbers: PyTorch's way)
                data, leaf_dt = _check_nested(data)
            elif dtype is None and isinstance(data, (list, tuple)):
                leaf_dt = B.sequence_dtype(data)   # (NumPy scalars among the numbers)
            try:
                dt = B.to_dtype(dtype) or leaf_dt or B.default_float_for(data)
            except (ValueError, TypeError) as e:
                data, leaf_dt = _check_nested(data)   # a ragged list: PyTorch's words
                if leaf_dt is None:   # (else a tensor stood among the numbers: read it)
                    raise TypeError(f"tensor(): could not infer a dtype from "
                                    f"{type(data).__name__} ({e})") from None
                dt = B.to_dtype(dtype) or leaf_dt
            arr = data
            if dtype is not None and _holds_none(data):   # numpy would make it NaN
                raise TypeError("'NoneType' object cannot be interpreted as an integer"
                                if dt.kind in "iu" else "must be real number, not NoneType")
    try:
        host = B.host_array(arr, dtype=dt, copy=True)
        if dtype is not None and dt.kind in "iu" and isinstance(arr, (list, tuple, float)):
            _check_floats_fit(arr, dt)
    except (ValueError, TypeError, OverflowError) as e:
        if dtype is None and dt.kind in "iu":   # an inferred int64 (PyTorch's ValueError)
            for item in _leaves(arr):
                if type(item) is int and not -2**63 <= item < 2**63:
                    raise _overflow(item) from None
        host = _checked_ints(arr, dt) if dt.kind in "iu" else None
        if host is None:
            _check_nested(arr)   # a ragged list (or a tensor inside one): PyTorch's words
        if host is None and dtype is not None:
            _refuse_leaf(arr)
        if host is None:
            raise ValueError(f"tensor(): cannot build a tensor from this data: {e} (nested "
                             "lists must be rectangular, with numbers only)") from None
    if host.dtype.kind not in "biufc":
        _refuse_data(data, host)
    return _finish(dev.from_host(host) if dev is not B.cpu else host, dev, requires_grad)


_NUMBER_LEAF = object()


def _first_leaf_is_tensor(data):
    """Whether nested lists ``data`` hold a Tensor where their first number would be (the
    one walk of the first elements that is cheap: a list of numbers goes to NumPy as it
    is, and a tensor elsewhere among them makes NumPy fail, which ``_check_nested`` reads)."""
    while isinstance(data, (list, tuple)) and data:
        data = data[0]
    return isinstance(data, Tensor)


def _shape_along_first(data):
    """The shape of nested lists read along their first elements, as PyTorch reads it
    (an empty list ends it)."""
    shape, d = [], data
    while isinstance(d, (list, tuple)):
        shape.append(len(d))
        if not d:
            break
        d = d[0]
    return shape


def _check_nested(data):
    """``(data, dtype)`` for nested lists as PyTorch reads them: a ragged list is refused
    ("expected sequence of length 2 at dim 1 (got 1)": the lengths along the first
    elements are the shape every list must have); a one-element tensor among the numbers
    stands for its number (any of its dims dropped), a larger one is refused; with tensors
    among the leaves, the dtype is what the leaves' dtypes promote to (a tensor's own, a
    Python number's default), else None."""
    if not isinstance(data, (list, tuple)):
        return data, None
    shape = _shape_along_first(data)
    found = []   # the leaves' dtypes
    tensors = []   # (any tensor among them)

    def walk(x, dim):
        if isinstance(x, Tensor):
            if x.numel() != 1:
                raise ValueError("only one element tensors can be converted to Python scalars"
                                 " (to make one tensor of several, use viewgrad.stack)")
            found.append(x.dtype)
            tensors.append(x)
            return x.item()
        if not isinstance(x, (list, tuple)):
            if isinstance(x, (bool, numbers.Number)):
                found.append(B.default_float_for(x))
            return x
        if dim < len(shape) and len(x) != shape[dim]:
            raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got "
                             f"{len(x)})")
        return [walk(e, dim + 1) for e in x]
    out = walk(data, 0)
    if not tensors:
        return data, None
    dt = found[0]
    for f in found[1:]:
        dt = B.promote_types(dt, f)
    return out, dt


def _refuse_leaf(data):
    """PyTorch's TypeError for nested lists given with a dtype where something that is not
    a number stands in a number's place (found at the depth of the first number)."""
    depth, d = 0, data
    while isinstance(d, (list, tuple)) and d:
        d, depth = d[0], depth + 1

    def walk(x, k):
        if k == depth:
            return _NUMBER_LEAF if isinstance(x, numbers.Number) or B.is_numpy_scalar(x) else x
        if not isinstance(x, (list, tuple)):
            return _NUMBER_LEAF   # a shorter branch: the ragged-list error says so
        for e in x:
            r = walk(e, k + 1)
            if r is not _NUMBER_LEAF:
                return r
        return _NUMBER_LEAF
    bad = walk(data, 0)
    if bad is _NUMBER_LEAF:
        return
    if isinstance(bad, str) and bad is data:
        raise TypeError("new(): invalid data type 'str'")
    raise TypeError(f"must be real number, not {type(bad).__name__}")


def _holds_none(data) -> bool:
    """Whether Python data (nested lists/tuples) holds a None."""
    if data is None:
        return True
    return isinstance(data, (list, tuple)) and any(_holds_none(d) for d in data)


def _checked_ints(data, dt):
    """Python numbers that numpy refused to store as integer dtype ``dt``: PyTorch's checked
    conversion decides (NaN, inf, 300 into uint8: its RuntimeError; -1 into uint8 wraps).
    None when the data is not a rectangular list of numbers (the caller's error says so)."""
    try:
        flat = B.host_array(data, copy=True)
    except (ValueError, TypeError):
        return None
    if flat.dtype.kind not in "biufcO":
        return None
    vals = []
    items = list(_leaves(data)) if isinstance(data, (list, tuple)) else flat.ravel().tolist()
    if len(items) != flat.size:
        return None
    for item in items:   # (Python's own numbers: an int among floats still wraps)
        v, ok = checked_scalar(item, dt)
        if not ok:
            if not isinstance(item, numbers.Number):
                return None
            raise RuntimeError(f"value cannot be converted to type {B.dtype_name(dt)} without "
                               f"overflow ({item!r} does not fit: pick a wider dtype, e.g. "
                               "dtype=viewgrad.float64)")
        vals.append(v)
    return B.host_array(vals, dtype=dt).reshape(flat.shape)


def _empty_shape(data):
    """``(shape, dtype)`` for nested lists whose shape (read along the first elements, as
    PyTorch reads it) holds a 0 and that hold numbers only: PyTorch then builds an empty
    tensor without visiting the rest (``tensor([[], [1, 2]])`` is 2 x 0, float32; complex
    among the numbers makes it complex). None otherwise."""
    if not isinstance(data, (list, tuple)):
        return None
    shape = _shape_along_first(data)
    if 0 not in shape[1:]:
        return None
    leaves = []

    def walk(x):
        if isinstance(x, (list, tuple)):
            return all(walk(e) for e in x)
        leaves.append(x)
        return isinstance(x, numbers.Number)
    if not walk(data):
        return None
    cx = any(isinstance(x, complex) for x in leaves)
    return tuple(shape), B.default_float_for(1j) if cx else B.default_float()


def _check_floats_fit(data, dt):
    """PyTorch's checked conversion of Python floats stored into integer dtype ``dt``:
    NaN, inf and values outside its range are refused (NumPy would wrap or truncate)."""
    flat = B.host_array(data, copy=False)
    if flat.dtype.kind != "f":
        return
    lo, hi = B.dtype_limits(dt)
    if not bool(((flat >= lo) & (flat <= hi)).all()):   # (NaN fails both)
        _checked_ints(data, dt)   # its error, or (-1 among floats: ints wrap) its check


def _leaves(data):
    if isinstance(data, (list, tuple)):
        for d in data:
            yield from _leaves(d)
    else:
        yield data


def _overflow(item):
    return ValueError(f"Overflow when unpacking long long: {item} does not fit in int64 (use "
                      "a float, e.g. float(x))")


def _refuse_data(data, host):
    """Raise PyTorch's error for data that is not numbers (None, strings, objects, ints
    past 64 bits) instead of making a tensor of Python objects."""
    if B.is_array(data):
        raise TypeError(f"can't convert an array of type {host.dtype} to a tensor: only "
                        "numbers and bool are supported (convert it with .astype first)")
    for item in host.ravel().tolist() if host.ndim else [host.item()]:
        if item is None:
            raise RuntimeError("Could not infer dtype of NoneType (a tensor holds numbers: "
                               "replace None with a number, e.g. float('nan'))")
        if isinstance(item, int) and not -2**63 <= item < 2**64:
            raise _overflow(item)
        if isinstance(item, dict):   # PyTorch's own wording for a mapping
            raise RuntimeError("Could not infer dtype of dict")
        if not isinstance(item, (int, float, complex, bool)):
            raise TypeError(f"new(): invalid data type '{type(item).__name__}' (a tensor "
                            "holds numbers and bool only)")
    raise TypeError(f"new(): invalid data type '{host.dtype}' (a tensor holds numbers and "
                    "bool only)")


def as_tensor(data, dtype=None, device=None):
    if isinstance(data, Tensor):
        # itself, or a conversion that keeps its history (ToCopyBackward0), as PyTorch's
        if dtype is None or data.dtype == B.to_dtype(dtype):
            return data if device is None else data.to(device)
        return data.to(dtype=dtype) if device is None else data.to(device=device, dtype=dtype)
    if B.is_array(data) and B.device_of_array(data) is B.device(device) and (
            dtype is None or data.dtype == B.to_dtype(dtype)):
        return Tensor._make(data, B.device(device))
    return tensor(data, dtype=dtype, device=device)


def from_numpy(a):
    """Share memory with a numpy array (like torch.from_numpy)."""
    if not B.is_host_array(a):
        raise TypeError(f"expected np.ndarray (got {type(a).__name__})")
    t = Tensor._make(a, B.cpu)
    t._storage_not_resizable = True   # (its owner's memory: Note [resize_ over a storage])
    return t


def _fill(kind, size, dtype, device, requires_grad, value=None, layout=None):
    dev = B.device(device)
    shape = _shape(size)
    dt = B.to_dtype(dtype) or B.default_float()
    xp = dev.xp
    if kind == "zeros":
        a = xp.zeros(shape, dtype=dt)
    elif kind == "ones":
        a = xp.ones(shape, dtype=dt)
    elif kind == "empty":
        a = xp.empty(shape, dtype=dt)
    else:   # PyTorch's full is empty().fill_(value): -2 wraps into uint8, -2.5 is refused
        a = xp.full(shape, _number_as(value, dt), dtype=dt)
        v = B.exact_fill_value(a, value)
        if v is not value:
            a[...] = v
    if layout is not None:
        a = layout(a)
    return _finish(a, dev, requires_grad)


def _need_size(fn, size):
    """PyTorch's refusal of ``ones()`` with no size at all (``ones(())`` is a 0-d tensor)."""
    if not size:
        raise TypeError(f'{fn}() missing 1 required positional arguments: "size"')


def zeros(*size, dtype=None, device=None, requires_grad=False):
    _need_size("zeros", size)
    flat = size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    if any(hasattr(s, "__index__") and not isinstance(s, bool) and int(s) < 0 for s in flat):
        raise RuntimeError("zeros: Dimension size must be non-negative.")   # (its own words)
    return _fill("zeros", size, dtype, device, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False):
    _need_size("ones", size)
    return _fill("ones", size, dtype, device, requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False,
          memory_format=B.contiguous_format):
    _need_size("empty", size)
    fmt = B.format_of(memory_format, "empty")
    if fmt is B.preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    return _fill("empty", size, dtype, device, requires_grad,
                 layout=None if fmt is B.contiguous_format else
                 lambda a: B.in_memory_format(a, fmt))


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    if dtype is None:
        dtype = B.default_float_for(fill_value)
    return _fill("full", (size,), dtype, device, requires_grad, fill_value)


def _like(kind, t, dtype, device, requires_grad, value=None, memory_format=None):
    return _fill(kind, (tuple(t.shape),), dtype or t.dtype, device or t.device,
                 requires_grad, value, like_layout(t, device, memory_format))


def like_layout(t, device, memory_format, fn="empty_like"):
    """How a ``*_like(t)`` factory lays out its fresh array (for ``_fill``): by default
    (preserve_format) as PyTorch's ``empty_like(t)``, ``t``'s own strides when dense, else
    dense ones in ``t``'s order; or in the ``memory_format`` given (Note [memory
    formats], backend/formats.py). A copy to another device is row-major."""
    fmt = B.format_of(memory_format, fn, B.preserve_format)
    if fmt is not B.preserve_format:
        return lambda a: B.in_memory_format(a, fmt)
    if device is not None and B.device(device) is not t._device:
        return None
    like = t._data
    return lambda a: B.in_memory_format(a, fmt, like=like)


def zeros_like(t, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _like("zeros", t, dtype, device, requires_grad, memory_format=memory_format)


def ones_like(t, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _like("ones", t, dtype, device, requires_grad, memory_format=memory_format)


def empty_like(t, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _like("empty", t, dtype, device, requires_grad, memory_format=memory_format)


def full_like(t, fill_value, dtype=None, device=None, requires_grad=False,
              memory_format=None):
    return _like("full", t, dtype, device, requires_grad, fill_value, memory_format)


def empty_strided(size, stride, dtype=None, device=None, requires_grad=False):
    """An uninitialised tensor with the given strides (in elements)."""
    dev = B.device(device)
    dt = B.to_dtype(dtype) or B.default_float()
    size = tuple(int(s) for s in size)
    stride = tuple(int(s) for s in stride)
    return _with_grad(Tensor._empty_strided(size, stride, dt, dev), requires_grad)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    """``[start, end)`` by ``step``, as PyTorch's CPU ``arange`` computes it (its length,
    its values bit for bit: backend/ranges.py)."""
    if end is None:
        start, end = 0, start
    if dtype is None:   # bools count as integers here (PyTorch's set_to_integral_dtype)
        dtype = B.int64 if all(isinstance(v, int) for v in (start, end, step)) \
            else B.default_float()
    dt = B.to_dtype(dtype)
    if dt.kind in "bc":
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{torch_type_name(dt)}'")
    n, start, step = _arange_size(start, end, step, dt)
    dev = B.device(device)
    host = B.torch_arange(start, step, n, dt)
    return _finish(host if dev is B.cpu else dev.from_host(host), dev, requires_grad)


def _arange_size(start, end, step, dt):
    """``(length, start, step)`` of ``arange`` for dtype ``dt`` by PyTorch's rules
    (aten/src/ATen/native/RangeUtils.h): the bounds are checked in double; the length is
    ceil((end - start) / step) in double, except for int64, where start, end and step are
    first truncated to int64 and the length is an integer division (so arange(-0.3, 6,
    dtype=int64) has 6 elements where int32's has 7). The values of every integer dtype
    come from the truncated start and step (arange(4, -5, -0.3, dtype=int8) is thirty 4s)."""
    ds, de, dstep = float(start), float(end), float(step)
    if not (dstep > 0 or dstep < 0):
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(ds) and math.isfinite(de)):
        raise RuntimeError(f"unsupported range: {ds:g} -> {de:g}")
    if not ((dstep > 0 and de >= ds) or (dstep < 0 and de <= ds)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dt.kind == "f":
        return int(math.ceil((de - ds) / dstep)), start, step
    s, e, st = (_to_int64(v) for v in (start, end, step))
    if dt == B.int64:
        if st == 0:   # (a step such as -0.3 truncated: TORCH_CHECK_VALUE's ValueError)
            raise ValueError("step must be nonzero")
        sgn = (st > 0) - (st < 0)
        return (e - s + st - sgn) // st, s, st   # (same signs: floor is C's truncation)
    return int(math.ceil((de - ds) / dstep)), s, st


def _to_int64(v):
    """A Python number as PyTorch's ``Scalar::to<int64_t>`` gives it: truncated toward
    zero, or its overflow error."""
    v, ok = checked_scalar(v, B.int64)
    if not ok:
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    return int(v)


def _range_end(v, dt, kernel):
    """``linspace``/``logspace``'s ``start`` or ``end`` as ``Scalar::to<T>`` converts it
    for dtype ``dt`` (an int wraps into an unsigned dtype, a float out of range is an
    error): PyTorch converts the ends before computing the step."""
    if dt.kind == "b":
        raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for 'Bool'")
    if dt.kind == "c":
        return complex(v)
    return _number_as(v, dt)


def _number_as(v, dt):
    """``v`` as PyTorch's checked ``Scalar::to<T>`` gives it for ``dt``, or its error."""
    from .pointwise import number_as   # (pointwise imports much: not at load time)
    return number_as(v.item() if isinstance(v, Tensor) else v, dt)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    dev = B.device(device)
    dt = B.to_dtype(dtype) or B.default_float()
    if int(steps) < 0:
        raise RuntimeError("number of steps must be non-negative")
    steps = int(steps)
    if steps <= 1:   # (PyTorch: no kernel; start filled in, else nothing converted)
        return full((1,), start, dtype=dt, device=dev, requires_grad=requires_grad) \
            if steps else _finish(dev.xp.empty((0,), dtype=dt), dev, requires_grad)
    start, end = _range_end(start, dt, "linspace"), _range_end(end, dt, "linspace")
    host = B.torch_linspace(start, end, steps, dt)
    return _finish(host if dev is B.cpu else dev.from_host(host), dev, requires_grad)


def logspace(start, end, steps, base=10.0, dtype=None, device=None, requires_grad=False):
    """``steps`` values from ``base**start`` to ``base**end``, evenly spaced on a log scale
    (``vg.logspace(0, 2, 3)`` is ``[1, 10, 100]``), as ``torch.logspace`` computes them
    (backend/ranges.py: an integer dtype truncates the ends first, so
    ``logspace(3.3, -2.5, 3, dtype=int64)`` is ``[1000, 3, 0]``)."""
    dev = B.device(device)
    dt = B.to_dtype(dtype) or B.default_float()
    steps = int(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if steps <= 1:   # PyTorch fills with pow(base, start) in double, ends not converted
        return full((1,), float(base) ** float(start), dtype=dt, device=dev,
                    requires_grad=requires_grad) if steps else \
            _finish(dev.xp.empty((0,), dtype=dt), dev, requires_grad)
    s, e = _range_end(start, dt, "logspace"), _range_end(end, dt, "logspace")
    if dt.kind == "c":   # (complex ends: NumPy's own powers)
        exps = B.host_array([s + (e - s) * i / (steps - 1) for i in range(steps)], dtype=dt)
        host = (complex(base) ** exps).astype(dt)
    else:
        host = B.torch_logspace(s, e, steps, float(base), dt)
    return _finish(host if dev is B.cpu else dev.from_host(host), dev, requires_grad)


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    for name, v in (("n", n), ("m", m)):
        if v is not None and v < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {v}")
    dev = B.device(device)
    return _finish(dev.xp.eye(n, m, dtype=B.to_dtype(dtype) or B.default_float()), dev, requires_grad)


# The random factories live with the generator in ops/random.py; they are factories too.
from .random import (manual_seed, rand, rand_like, randint, randn,  # noqa: E402,F401
                     randn_like)
