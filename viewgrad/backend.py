"""The array module behind each device: NumPy on "cpu", CuPy on "cuda".

This is the ONLY module of viewgrad that imports numpy (or cupy) for tensor data. Every
other module asks a tensor's device for its array module (``dev.xp``) and calls that, so
the CUDA path is the same code as the CPU path.

A ``Device`` bundles:
  * ``xp``          the array module (numpy, cupy, or a test stand-in);
  * ``as_strided``  the backend's as_strided (None when the backend has none: then
                    CopySlices and stale views must use view replay, see autograd/views.py);
  * ``to_host`` / ``from_host`` to move arrays across devices;
  * ``data_ptr``    the address of an array's first element (for storage offsets).

Devices are registered by name; ``device("cpu")`` returns the singleton.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided as _np_as_strided

__all__ = ["Device", "device", "register_device", "cpu", "host_numpy", "is_array",
           "float32", "float64", "int64", "int32", "bool_", "dtype_name", "to_dtype"]

# dtypes are numpy dtype objects on every device (cupy uses numpy's dtypes).
float32 = np.dtype("float32")
float64 = np.dtype("float64")
float16 = np.dtype("float16")
int64 = np.dtype("int64")
int32 = np.dtype("int32")
int8 = np.dtype("int8")
uint8 = np.dtype("uint8")
bool_ = np.dtype("bool")

_DTYPE_ALIASES = {
    "float32": float32, "float": float32, "float64": float64, "double": float64,
    "float16": float16, "half": float16, "int64": int64, "long": int64, "int32": int32,
    "int": int32, "int8": int8, "uint8": uint8, "bool": bool_,
}


def to_dtype(d):
    """Accept a numpy dtype, a string or a Python type; return a numpy dtype."""
    if d is None:
        return None
    if isinstance(d, np.dtype):
        return d
    if isinstance(d, str):
        try:
            return _DTYPE_ALIASES[d]
        except KeyError:
            raise TypeError(f"unknown dtype {d!r}; use one of {sorted(_DTYPE_ALIASES)}") from None
    if d is float:
        return float32
    if d is int:
        return int64
    if d is bool:
        return bool_
    return np.dtype(d)


def dtype_name(d) -> str:
    return np.dtype(d).name


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


def device(spec=None) -> Device:
    """Return the Device for ``spec`` ("cpu", "cuda", "cuda:0", a Device, or None → cpu)."""
    if spec is None:
        return cpu
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
    return dev


def _np_ptr(a):
    return a.__array_interface__["data"][0]


def _np_as_strided_writeable(a, shape, strides):
    return _np_as_strided(a, shape=shape, strides=strides, writeable=True)


def _make_cpu():
    return Device("cpu", np, _np_as_strided_writeable, lambda a: a, lambda a: np.asarray(a),
                  _np_ptr, (np.ndarray,))


cpu = _make_cpu()
# Every concrete array type of every device in use; anything else that an op returns (a
# numpy scalar from an op on 0-d arrays) is turned back into an array by ``ensure_array``.
ARRAY_TYPES = {np.ndarray}
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
    return Device("cuda", cupy, lambda a, shape, strides: cp_as_strided(a, shape, strides),
                  cupy.asnumpy, cupy.asarray, lambda a: a.data.ptr, (cupy.ndarray,))


_FACTORIES["cuda"] = _make_cuda


def cuda_is_available() -> bool:
    try:
        device("cuda")
        return True
    except RuntimeError:
        return False


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


def is_floating(d) -> bool:
    return np.dtype(d).kind == "f"


def result_type(*dts):
    return np.result_type(*dts)


def can_cast(frm, to) -> bool:
    return np.can_cast(frm, to, casting="same_kind")


def default_float_for(value) -> np.dtype:
    """dtype a Python value gets as a tensor (float32 default, like PyTorch)."""
    a = np.asarray(value)
    if a.dtype.kind == "f":
        return float32
    if a.dtype.kind == "b":
        return bool_
    if a.dtype.kind in "iu":
        return int64
    return a.dtype


class Generator:
    """The global random generator (seeded by manual_seed), on the host."""

    def __init__(self, seed=0):
        self.rng = np.random.default_rng(seed)

    def manual_seed(self, seed):
        self.rng = np.random.default_rng(seed)
        return self


default_generator = Generator(0)


_ndarray = np.ndarray


def xp_of(a):
    """The array module of array ``a`` (numpy for host arrays and Python scalars)."""
    if type(a) is _ndarray or not hasattr(a, "__array_namespace__") and not hasattr(
            a, "device"):
        return np
    dev = device_of_array(a)
    return dev.xp if dev is not None else np


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


def reshape_view(a, shape):
    """``a`` reshaped WITHOUT copying, or None when its strides do not allow it."""
    try:
        return np.reshape(a, shape, copy=False) if type(a) is _ndarray else \
            _generic_reshape_view(a, shape)
    except ValueError:
        return None


def _generic_reshape_view(a, shape):
    v = a.view()
    try:
        v.shape = shape
    except AttributeError:
        raise ValueError("needs a copy") from None
    return v


def ensure_array(x, dev):
    """Ops on 0-d numpy arrays return numpy scalars: make them 0-d arrays again."""
    return dev.xp.asarray(x)
