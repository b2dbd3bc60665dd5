"""Devices: the array module behind each one (NumPy on "cpu", CuPy on "cuda", the test
device "strict"), the registry and the default device, which device an array lives on and
its array module (``xp_of``), and the few array helpers whose right call differs by device
(scatter-adds, fill values, writeability). Also Note [cached scalar operands]: the 0-d
operands the hottest ops multiply by instead of a Python float."""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided as _np_as_strided

__all__ = ["quiet_divide", "host_numpy", "Device", "register_device", "set_default_device",
           "get_default_device", "device", "cpu", "HOST_ARRAY", "host_ufunc",
           "scalar_operand", "ARRAY_TYPES", "cuda_is_available", "cuda_unavailable_reason",
           "writeable", "exact_fill_value", "is_array", "device_of_array", "from_python",
           "xp_of", "add_at", "multiply_at", "ensure_array", "synchronize"]


def quiet_divide(a, b):
    """``a / b`` without NumPy's warnings for 0/0 and x/0 (PyTorch's kernels give NaN and
    inf silently; CuPy does not warn either)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return a / b


def host_numpy():
    """numpy itself, for code that must build host arrays (e.g. reading .npz files)."""
    return np


class Device:
    """One compute device: its name and its array module."""

    __slots__ = ("type", "index", "xp", "as_strided", "to_host", "from_host",
                 "data_ptr", "array_types", "__weakref__")

    def __init__(self, type, xp, as_strided, to_host, from_host, data_ptr, array_types,
                 index=None):
        self.type = type
        self.index = index
        self.xp = xp
        self.as_strided = as_strided
        self.to_host = to_host
        self.from_host = from_host
        self.data_ptr = data_ptr
        self.array_types = array_types

    def __repr__(self):
        return f"device(type='{self.type}')"

    def __str__(self):
        return self.type

    def __eq__(self, other):
        if isinstance(other, Device):
            return other is self or other.type == self.type
        if isinstance(other, str):
            return other.split(":")[0] == self.type
        return NotImplemented

    def __hash__(self):
        return hash(self.type)


_DEVICES: dict[str, Device] = {}
_FACTORIES = {}


def register_device(name: str, factory):
    """Register a device factory: a callable returning a Device (called lazily)."""
    _FACTORIES[name] = factory
    _DEVICES.pop(name, None)


_default = [None]   # the default device's name (None: cpu); see set_default_device


def set_default_device(spec):
    """Make ``spec`` the device that factories use when no ``device=`` is given (like
    ``torch.set_default_device``). ``None`` means "cpu" again. The device is created now,
    so an unusable one (cuda without a GPU) fails here, not at the first factory."""
    if spec is None:
        _default[0] = None
        return
    dev = device(spec)
    _default[0] = None if dev is cpu else dev


def get_default_device() -> "Device":
    """The device factories use without ``device=`` (cpu unless set_default_device)."""
    return _default[0] or cpu


def device(spec=None) -> Device:
    """Return the Device for ``spec`` ("cpu", "cuda", "cuda:0", a Device, or None → the
    default device, cpu unless ``set_default_device`` was called)."""
    if spec is None:
        return _default[0] or cpu
    if isinstance(spec, Device):
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"expected a device name like 'cpu' or 'cuda', got {spec!r}")
    name = spec.split(":")[0]
    dev = _DEVICES.get(name)
    if dev is not None:
        return dev
    factory = _FACTORIES.get(name)
    if factory is None:
        raise RuntimeError(
            f"Expected one of {', '.join(sorted(_FACTORIES))} device type at start of device "
            f"string: {spec}")
    dev = factory()
    _DEVICES[name] = dev
    ARRAY_TYPES.update(dev.array_types)
    for t in dev.array_types:
        _XP_BY_TYPE[t] = dev.xp
    return dev


def _np_ptr(a):
    return a.__array_interface__["data"][0]


def _np_as_strided_writeable(a, shape, strides):
    return _np_as_strided(a, shape=shape, strides=strides, writeable=True)


def _make_cpu():
    return Device("cpu", np, _np_as_strided_writeable, lambda a: a, lambda a: np.asarray(a),
                  _np_ptr, (np.ndarray,))


cpu = _make_cpu()


# Note [cached scalar operands]
# A speed trick for the hottest elementwise ops and their array kernels (fenced off in
# ``scalar_operand``; the math reads ``x * 1.01`` as always). NumPy multiplies a float32
# array by a Python float through its slow "weak scalar" path: on 8 elements ``a * 1.01``
# costs about twice ``a * z`` with ``z`` a 0-d float32 array. Both compute the same bits:
# NumPy first casts the weak Python float to the array's dtype, which is what the cached
# 0-d array holds (and what PyTorch does with a wrapped number on a float tensor). Only
# host float32/float64 arrays and finite non-zero Python floats take it: no ints (their
# overflow checks), no -0.0/0.0 (equal keys, different signs), no float16 (PyTorch computes
# it in float32); the cached arrays are read-only and the cache is bounded.
_SCALAR_CACHE = {np.dtype(np.float32): {}, np.dtype(np.float64): {}}
_SCALAR_CACHE_MAX = 1024


HOST_ARRAY = np.ndarray  # the host array type (ops compare types with it, never import numpy)


def host_ufunc(name):
    """NumPy's ufunc ``name``: what a row's forward computes on a host array, called by
    ``dispatch`` without the row's Python forward (Note [host ufuncs] in ops/table.py)."""
    return getattr(np, name)


def scalar_operand(a, value):
    """``value`` (a Python float) as the operand that computes ``a <op> value`` fastest:
    a cached read-only 0-d array of ``a``'s dtype when that gives the same bits, else
    ``value`` itself (Note [cached scalar operands])."""
    if type(a) is not np.ndarray or type(value) is not float:
        return value
    c = _SCALAR_CACHE.get(a.dtype)
    if c is None:
        return value
    z = c.get(value)
    if z is None:
        if not (0.0 < abs(value) < 1e30) or len(c) >= _SCALAR_CACHE_MAX:
            return value
        z = c[value] = np.array(value, dtype=a.dtype)
        z.flags.writeable = False
    return z


# Every concrete array type of every device in use; anything else that an op returns (a
# numpy scalar from an op on 0-d arrays) is turned back into an array by ``ensure_array``.
ARRAY_TYPES = {np.ndarray}
_XP_BY_TYPE = {np.ndarray: np}      # concrete array type -> its array module
_DEVICES["cpu"] = cpu
_FACTORIES["cpu"] = lambda: cpu


def _make_cuda():
    try:
        import cupy  # noqa: F401  (optional: the `cuda` extra)
    except Exception as e:  # ImportError, or CUDA libraries missing
        raise RuntimeError(
            "device 'cuda' needs CuPy and a GPU: install viewgrad with the `cuda` extra "
            f"(pip install 'viewgrad[cuda]') on a machine with an NVIDIA GPU ({e})") from None
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:
        raise RuntimeError(f"CuPy is installed but no CUDA GPU is usable: {e}") from None
    if n == 0:
        raise RuntimeError("CuPy is installed but no CUDA GPU is present")
    from cupy.lib.stride_tricks import as_strided as cp_as_strided

    def from_host(h):
        h = np.asarray(h)
        if h.ndim == 0:   # CuPy makes a 0-d array by fill(): see exact_fill_value
            return cupy.asarray(h.reshape(1)).reshape(())
        return cupy.asarray(h)
    return Device("cuda", cupy, lambda a, shape, strides: cp_as_strided(a, shape, strides),
                  cupy.asnumpy, from_host, lambda a: a.data.ptr, (cupy.ndarray,))


_FACTORIES["cuda"] = _make_cuda


def _make_strict(name, with_as_strided):
    def factory():
        from .. import strict  # an array backend for tests (numpy underneath)
        return strict.make_device(name, with_as_strided=with_as_strided)
    return factory


_FACTORIES["strict"] = _make_strict("strict", True)
_FACTORIES["strict_nostride"] = _make_strict("strict_nostride", False)


def cuda_is_available() -> bool:
    try:
        device("cuda")
        return True
    except RuntimeError:
        return False


def cuda_unavailable_reason() -> str | None:
    """None when device "cuda" works, else why not (for skip messages)."""
    try:
        device("cuda")
        return None
    except RuntimeError as e:
        return str(e)


def writeable(a) -> bool:
    """Whether array ``a`` may be written to. NumPy says so per array (a broadcast view or
    a cached scalar is read-only); CuPy's flags have no ``writeable``: every CuPy array
    is writable."""
    return getattr(a.flags, "writeable", True)


def exact_fill_value(a, value):
    """``value`` as it should be written into (or fill) arrays of ``a``'s device. CuPy
    fills by memset when the value equals 0, so a -0. would come out +0. (PyTorch keeps
    it): on a device, a negative zero goes as a 0-d array, copied bit for bit."""
    if (type(a) is _ndarray or type(value) is not float or value != 0
            or not np.signbit(value)):
        return value
    return device_of_array(a).from_host(np.array(value, dtype=a.dtype))


def is_array(x) -> bool:
    """True when ``x`` is an array of any registered backend that is already created."""
    if isinstance(x, np.ndarray):
        return True
    for dev in _DEVICES.values():
        if isinstance(x, dev.array_types):
            return True
    return False


def device_of_array(x) -> Device | None:
    for dev in _DEVICES.values():
        if dev is not cpu and isinstance(x, dev.array_types):
            return dev
    if isinstance(x, np.ndarray):
        return cpu
    return None


def from_python(data, dtype, dev: Device):
    """Build an array on ``dev`` from Python data (lists, scalars, numpy arrays)."""
    if dev is cpu:
        return np.asarray(data, dtype=dtype)
    return dev.from_host(np.asarray(data, dtype=dtype))


_ndarray = np.ndarray


def xp_of(*arrays):
    """The array module of the arrays given (numpy for host arrays and Python scalars).

    With several arguments the first device array decides, so ``xp_of(2.0, x)`` is x's
    module: a forward whose first operand may be a Python scalar passes all of them."""
    for a in arrays:
        t = type(a)
        if t is _ndarray:
            return np
        xp = _XP_BY_TYPE.get(t)
        if xp is not None:
            return xp
        if hasattr(a, "shape") and hasattr(a, "dtype") and not isinstance(a, np.generic):
            dev = device_of_array(a)
            if dev is not None:
                return dev.xp
    return np


def add_at(out, index, values):
    """out[index] += values, accumulating repeated indices (np.add.at / cupyx)."""
    if type(out) is _ndarray:
        np.add.at(out, index, values)
        return out
    dev = device_of_array(out)
    if dev is not None and dev.type == "cuda":
        import cupyx
        cupyx.scatter_add(out, index, values)
        return out
    dev.xp.add.at(out, index, values)
    return out


def multiply_at(out, index, values):
    """out[index] *= values, repeated indices multiplying in turn (np.multiply.at). ``index``
    is a tuple of integer arrays (one per axis of ``out``, broadcasting together)."""
    if type(out) is _ndarray:
        np.multiply.at(out, index, values)
        return out
    # CuPy has no multiply.at: the products go in rounds of plain fancy-index updates,
    # round k taking the k-th occurrence of every target, so no round writes one element
    # twice, and each target's factors still come in the order they were given
    xp = device_of_array(out).xp
    idx = xp.broadcast_arrays(*index)
    shape = idx[0].shape
    lin = xp.ravel_multi_index(tuple(xp.where(i < 0, i + n, i).ravel()
                                     for i, n in zip(idx, out.shape)), out.shape)
    vals = xp.broadcast_to(values, shape).ravel()
    order = xp.argsort(lin, kind="stable")
    ranked = lin[order]
    rank = xp.arange(ranked.size) - xp.searchsorted(ranked, ranked, side="left")
    flat = out.reshape(-1) if out.flags.c_contiguous else out.copy().reshape(-1)
    for k in range(int(rank.max()) + 1 if rank.size else 0):
        take = order[rank == k]
        flat[lin[take]] *= vals[take]
    if not out.flags.c_contiguous:
        out[...] = flat.reshape(out.shape)
    return out


def ensure_array(x, dev):
    """Ops on 0-d numpy arrays return numpy scalars: make them 0-d arrays again."""
    return dev.xp.asarray(x)


def synchronize(spec=None):
    """Wait until the device has finished its queued work (CuPy runs kernels
    asynchronously: time a GPU step only after this). A no-op on host devices."""
    dev = device(spec)
    if dev.type == "cuda":
        import cupy
        cupy.cuda.runtime.deviceSynchronize()
