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

Devices are registered by name; ``device("cpu")`` returns the singleton. Three are known:

  * ``"cpu"``     numpy;
  * ``"cuda"``    CuPy (the ``cuda`` extra), when CuPy imports and a GPU is present;
  * ``"strict"``  a TEST device (``viewgrad/strict.py``): numpy underneath, but its arrays
                  refuse to be mixed with plain numpy arrays or converted to one, exactly
                  as CuPy's do. Running the test suite on it proves that no host code
                  leaks into the device path, so the CUDA path is the same code.
                  ``"strict_nostride"`` is the same without ``as_strided`` (it forces
                  view replay, DESIGN §4).

``set_default_device(name)`` (like ``torch.set_default_device``) picks the device that
factories use when called without ``device=``.

Host helpers (``host_array``, ``host_zeros``, ``host_allclose``, ``unravel_index``...) are
for code that works on HOST copies of data (gradcheck, printing): it calls these instead of
importing numpy, so that ``tests/test_no_numpy_leaks.py`` can check that no module but this
one (and the array backends) touches numpy.
"""
from __future__ import annotations

import contextlib
import warnings

import numpy as np
from numpy.lib.stride_tricks import as_strided as _np_as_strided

from . import layouts as _L

# Note [floating-point warnings]
# PyTorch computes 1/0, 0/0, log(0), sqrt(-1) and overflows silently (inf, nan); NumPy
# warns ("divide by zero encountered in divide"), and under ``python -W error`` that
# warning is an exception PyTorch never raises. ``np.errstate`` around every op would cost
# ~1.2 µs a call on the hot path, so the warnings are silenced by a filter instead, scoped
# to viewgrad's own modules (NumPy attributes a ufunc's warning to the frame that called
# it): the user's own NumPy code warns as before. A test that installs its own "error"
# filter in front (``warnings.simplefilter("error")``) still sees them.
warnings.filterwarnings(
    "ignore", message=r"(divide by zero|invalid value|overflow|underflow) encountered",
    category=RuntimeWarning, module=r"viewgrad(\.|$)")

__all__ = ["Device", "device", "register_device", "cpu", "host_numpy", "is_array",
           "float32", "float64", "int64", "int32", "bool_", "dtype_name", "to_dtype",
           "set_default_device", "get_default_device", "cuda_is_available", "xp_of",
           "device_of_array", "strided_view", "expand_view", "unfold_view", "diagonal_view",
           "host_array", "host_zeros", "host_allclose", "is_host_array", "unravel_index"]

# dtypes are numpy dtype objects on every device (cupy uses numpy's dtypes).
float32 = np.dtype("float32")
float64 = np.dtype("float64")
float16 = np.dtype("float16")
int64 = np.dtype("int64")
int32 = np.dtype("int32")
int16 = np.dtype("int16")
int8 = np.dtype("int8")
uint8 = np.dtype("uint8")
bool_ = np.dtype("bool")

_DTYPE_ALIASES = {
    "float32": float32, "float": float32, "float64": float64, "double": float64,
    "float16": float16, "half": float16, "int64": int64, "long": int64, "int32": int32,
    "int": int32, "int16": int16, "short": int16, "int8": int8, "uint8": uint8, "bool": bool_,
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


def quiet_divide(a, b):
    """``a / b`` without NumPy's warnings for 0/0 and x/0 (PyTorch's kernels give NaN and
    inf silently; CuPy does not warn either)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return a / b


def is_dtype_like(d) -> bool:
    """Whether ``d`` names a dtype as ``to``/``type`` take one: a dtype, a NumPy scalar
    type, or float/int/bool/complex."""
    return (isinstance(d, np.dtype) or d in (float, int, bool, complex)
            or (isinstance(d, type) and issubclass(d, np.generic)))


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
        from . import strict  # an array backend for tests (numpy underneath)
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


def python_scalar(x):
    """A NumPy scalar (``np.float64(2.5)``, ``np.int32(3)``) as an operand: the Python
    number it holds; anything else unchanged. PyTorch takes a NumPy scalar operand as a Python number — a
    weak scalar that keeps the tensor's dtype — where NumPy's own rules would make
    ``float32 * np.float64`` a float64."""
    if isinstance(x, np.generic):
        # (a NumPy bool PyTorch reads as the float 1.0 or 0.0: np.True_ - t is 1.0 - t)
        return float(x) if isinstance(x, np.bool_) else x.item()
    return x


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


def is_numpy_scalar(x) -> bool:
    """``np.float64(2.5)`` and friends: ``tensor()`` keeps their dtype, as PyTorch does."""
    return isinstance(x, np.generic)


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


def cast(a, dtype):
    """``a.astype(dtype)`` as PyTorch casts: silently. NaN, inf and out-of-range floats cast
    to integers as C does (numpy warns "invalid value encountered in cast"; PyTorch not).
    On a GPU a float goes to uint8 through int64, as PyTorch's CUDA kernels do
    (-1.7 -> 255 there and on the CPU), where CuPy's own cast would saturate (-1.7 -> 0)."""
    with np.errstate(invalid="ignore", over="ignore"):
        if type(a) is not _ndarray and a.dtype.kind == "f" and np.dtype(dtype) == np.uint8:
            return a.astype(np.int64).astype(np.uint8)
        return a.astype(dtype)


def dtype_limits(d) -> tuple:
    """(lowest, highest) finite value of a numeric dtype ``d`` (PyTorch's scalar overflow
    check in fill_)."""
    d = np.dtype(d)
    if d.kind == "f":
        info = np.finfo(d)
        return float(info.min), float(info.max)
    info = np.iinfo(d)
    return int(info.min), int(info.max)


# Note [wrapped integer scalars]: PyTorch casts a Python int operand to the op's integer
# computation dtype as C does, wrapping around: ``uint8_tensor + -1`` adds 255 (mod 256),
# ``uint8_tensor < -1`` compares with 255 (True everywhere), ``int32_tensor + 2**40`` adds 0.
# NumPy refuses an out-of-range Python int (OverflowError) or compares mathematically, so
# integer paths pass their Python ints through ``wrap_int_scalar`` first. Only ints beyond
# 64 bits are refused, with PyTorch's words. Float paths never get here.
_INT_RANGES: dict = {}


def wrap_int_scalar(v, dtype):
    """The Python int ``v`` as the integer dtype ``dtype`` holds it after C's wrap-around
    cast (Note [wrapped integer scalars]); ``v`` itself when it fits."""
    r = _INT_RANGES.get(dtype)
    if r is None:
        info = np.iinfo(dtype)
        r = _INT_RANGES[dtype] = (int(info.min), int(info.max), int(info.bits))
    lo, hi, bits = r
    if lo <= v <= hi:
        return v
    if not -(1 << 63) <= v < (1 << 64):
        raise OverflowError("int too big to convert")
    v &= (1 << bits) - 1
    return v - (1 << bits) if lo < 0 and v > hi else v


def is_floating(d) -> bool:
    return np.dtype(d).kind == "f"


def result_type(*dts):
    return np.result_type(*dts)


# Note [type promotion]: PyTorch's rules, not NumPy's. Categories bool < integer < floating
# < complex. Operands come in three tiers: dimensioned tensors, 0-d tensors, Python
# scalars. The result's category is the highest category present; its dtype comes from the
# highest tier that has an operand of that category (a Python float only picks the
# default float dtype). So float32 * int64 tensor -> float32 (NumPy: float64), int64
# tensor * 2.5 -> float32 (NumPy: float64), float32 * float64 0-d tensor -> float32.
_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def promote_types(a, b):
    """``torch.promote_types``: the higher category wins as is; within one category the
    wider type (uint8 with int8 gives int16, as in NumPy)."""
    a, b = np.dtype(a), np.dtype(b)
    ca, cb = _CATEGORY[a.kind], _CATEGORY[b.kind]
    if ca != cb:
        if ca == 3 or cb == 3:  # complex with float: keep the float's precision
            c, f = (a, b) if ca == 3 else (b, a)
            return np.promote_types(c, f) if f.kind == "f" else c
        return a if ca > cb else b
    return np.promote_types(a, b)


# The default float dtype (``torch.set_default_dtype``): what Python floats become and what
# factories make without dtype=. Only float32 and float64 are allowed, as in PyTorch.
_default_float = [float32]


def default_float() -> np.dtype:
    """The default float dtype (float32 unless ``set_default_float`` changed it)."""
    return _default_float[0]


def set_default_float(d) -> None:
    d = to_dtype(d)
    if d not in (float32, float64):
        raise TypeError("only floating-point types are supported as the default type "
                        f"(got {d}; use float32 or float64)")
    _default_float[0] = d


def finfo_fields(d) -> dict:
    """bits, eps, max, min, tiny (= smallest_normal) and resolution of a float dtype."""
    f = np.finfo(to_dtype(d))
    return {"bits": int(f.bits), "eps": float(f.eps), "max": float(f.max),
            "min": float(f.min), "tiny": float(f.tiny), "smallest_normal": float(f.tiny),
            "resolution": float(str(f.resolution))}   # 1e-06, not float32(1e-06)


def iinfo_fields(d) -> dict:
    """bits, max and min of an integer (or bool) dtype."""
    d = to_dtype(d)
    if d == bool_:
        return {"bits": 8, "max": 1, "min": 0}
    f = np.iinfo(d)
    return {"bits": int(f.bits), "max": int(f.max), "min": int(f.min)}


LinAlgError = np.linalg.LinAlgError   # what numpy (and CuPy) raise for a singular matrix


def lu_zero_pivot(a) -> int:
    """The 1-based position of the first zero pivot of the LU factorisation with partial
    pivoting (LAPACK's getrf) of the host matrix ``a``, or 0 if there is none."""
    u = np.array(a, dtype=a.dtype if a.dtype.kind == "f" else np.float64)
    n = u.shape[0]
    for k in range(n):
        p = k + int(np.argmax(np.abs(u[k:, k])))
        if u[p, k] == 0:
            return k + 1
        u[[k, p]] = u[[p, k]]
        u[k + 1:, k:] -= np.outer(u[k + 1:, k] / u[k, k], u[k, k:])
    return 0


def first_non_pd_minor(a) -> int:
    """The order of the first leading minor of the host matrix ``a`` (lower triangle
    read) whose Cholesky factorisation fails, or 0 if ``a`` is positive-definite."""
    for k in range(1, a.shape[0] + 1):
        try:
            np.linalg.cholesky(a[:k, :k])
        except np.linalg.LinAlgError:
            return k
    return 0


def _scalar_dtype(v):
    if isinstance(v, bool):
        return bool_
    if isinstance(v, int):
        return int64
    if isinstance(v, float):
        return _default_float[0]
    return np.dtype("complex64")


def _fold(dtypes):
    r = None
    for d in dtypes:
        r = d if r is None else promote_types(r, d)
    return r


def _combine(higher, lower):
    """PyTorch's combine_categories: ``higher`` is the higher-priority tier's result."""
    if higher is None:
        return lower
    if lower is None or higher.kind == "c":
        return higher
    if lower.kind == "c":
        return np.promote_types(higher, lower) if higher.kind == "f" else lower
    if higher.kind == "f":
        return higher
    if higher.kind == "b" or lower.kind == "f":
        return promote_types(higher, lower)
    return higher


def torch_result_type(dim_dtypes, zero_dim_dtypes, scalars):
    """``torch.result_type`` over dimensioned tensors' dtypes, 0-d tensors' dtypes and
    Python scalars (see Note [type promotion])."""
    wrapped = _fold([_scalar_dtype(v) for v in scalars])
    return _combine(_fold(dim_dtypes), _combine(_fold(zero_dim_dtypes), wrapped))


def can_cast(frm, to) -> bool:
    return np.can_cast(frm, to, casting="same_kind")


def default_float_for(value) -> np.dtype:
    """dtype a Python value gets as a tensor (float32 default, like PyTorch)."""
    a = np.asarray(value)
    if a.dtype.kind == "f":
        return _default_float[0]
    if a.dtype.kind == "b":
        return bool_
    if a.dtype.kind in "iu":
        return int64
    if a.dtype.kind == "c":   # the default complex dtype goes with the default float
        return np.dtype("complex64" if _default_float[0] == np.float32 else "complex128")
    return a.dtype


def host_mt19937(seed: int):
    """PyTorch's CPU engine, a 32-bit Mersenne Twister, started the way ``at::mt19937``
    starts it: ``init_genrand`` with the seed's low 32 bits. Returns numpy's MT19937 bit
    generator in that state; ``random_raw(n)`` then gives the engine's next n 32-bit
    outputs, the same as PyTorch's ``generator->random()`` (ops/streams.py turns them
    into PyTorch's numbers)."""
    key = np.empty(624, dtype=np.uint32)
    x = seed & 0xFFFFFFFF
    for i in range(624):  # Knuth's initialisation, as std::mt19937's constructor
        key[i] = x
        x = (1812433253 * (x ^ (x >> 30)) + i + 1) & 0xFFFFFFFF
    bg = np.random.MT19937()
    bg.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": 624}}
    return bg


def torch_linspace(start, end, steps: int, dtype):
    """``steps`` values from ``start`` to ``end`` as PyTorch's CPU kernel computes them (a
    host array of ``dtype``): step = (end - start) / (steps - 1) rounded to the dtype;
    the first half as start + step * i, the second half as end - step * (steps - 1 - i),
    each with one rounding (PyTorch's fused multiply-add; extended precision here) — so
    ``linspace(-1, 1, 7)[3]`` is PyTorch's -2.9802e-08, not 0."""
    dtype = np.dtype(dtype)
    start, end = dtype.type(start), dtype.type(end)   # PyTorch casts the ends first
    if steps == 1:
        return np.array([start], dtype=dtype)
    if dtype.kind == "f":
        step = np.longdouble((end - start) / dtype.type(steps - 1))  # in the dtype
    else:
        step = np.longdouble((float(end) - float(start)) / (steps - 1))
    i = np.arange(steps, dtype=np.longdouble)
    out = np.where(np.arange(steps) < steps // 2, np.longdouble(start) + step * i,
                   np.longdouble(end) - step * (steps - 1 - i))
    return out.astype(dtype)


def host_rng(seed):
    """A host random bit generator (numpy's PCG64) started from ``seed`` (None: from the
    system's entropy). viewgrad draws random numbers on the host and copies them to the
    device (ops/random.py), so a seed gives the same numbers on every device."""
    return np.random.default_rng(seed)


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


def linalg_raises(a):
    """A context in which the linear algebra of ``a``'s device raises ``LinAlgError`` for a
    singular or non-positive-definite matrix: numpy does by itself, CuPy only when asked
    (it returns inf/nan otherwise, where PyTorch raises)."""
    if type(a) is _ndarray:
        return _NO_CONTEXT
    dev = device_of_array(a)
    if dev is not None and dev.type == "cuda":
        import cupyx
        return cupyx.errstate(linalg="raise")
    return _NO_CONTEXT


_NO_CONTEXT = contextlib.nullcontext()


# Note [result layouts]
# Strides are behaviour: they decide whether ``.view()`` works and what ``.stride()`` and
# ``is_contiguous()`` say, so a result is laid out as PyTorch lays it out, not as NumPy
# happens to. Five rules, one helper each, applied by the ops that need them:
# * a kernel that writes a fresh tensor: row-major (``row_major``: softmax, cumsum, cat...);
#   a reduction: row-major with canonical strides along kept dims of size 1
#   (``fresh_row_major``, through ops.table.fresh_results);
# * a clone-then-write kernel, clone() and to(dtype): the input's own layout, as
#   ``empty_like`` keeps it (``layout_like``, ``preserve_layout``: flip, sort, the
#   scatters);
# * an elementwise op: TensorIterator's layout, its dims ordered by its operands' strides,
#   the first operand first (``iterator_layout``: dispatch's elementwise rows, the lean
#   unary and binary calls, where, lerp, the comparisons, the logical and bitwise ops;
#   Note [an elementwise result's layout], layouts.py);
# * a view: PyTorch's strides (``reshape_view``: computeStride; ``unsqueeze_view``);
# * a LAPACK result: batched column-major (``lapack_layout``: inv, solve, qr, svd...);
# * channels_last kept where PyTorch keeps a suggested memory format (``is_channels_last``:
#   cat, stack, batch_norm).
# tests/ops/test_result_layout_vs_torch.py and test_linalg_layout_vs_torch.py compare
# strides with torch op by op; the random view programs compare every live tensor's.

def is_channels_last(a):
    """Whether 4-D array ``a`` is laid out NHWC (PyTorch's channels_last), not NCHW: a
    kernel that keeps a suggested memory format (cat, batch_norm) keeps that one."""
    n, c, h, w = a.shape
    st, it = a.strides, a.itemsize
    return (not a.flags.c_contiguous and st[1] == it and st[3] == c * it
            and st[2] == w * c * it and (n == 1 or st[0] == h * w * c * it))


def row_major(a):
    """``a`` row-major (copied only when it is not): PyTorch's layout for the result of a
    kernel that writes a fresh contiguous tensor (softmax, cumsum, roll, masked_fill...),
    where NumPy's ufuncs would follow a transposed input's layout."""
    return a if a.flags.c_contiguous else xp_of(a).ascontiguousarray(a)


def fresh_row_major(a):
    """``a`` as PyTorch allocates a reduction's result: row-major, with the canonical
    strides along dims of size 1 too (NumPy keeps an input's strides there, and follows a
    permuted input's layout)."""
    if a.ndim > 1 and (not a.flags.c_contiguous or 1 in a.shape):
        return a.copy()   # (a copy is laid out afresh: row-major, canonical strides)
    return a


def layout_like(a, ref):
    """``a`` (``ref``'s shape) laid out as ``ref`` is: PyTorch's ``empty_like`` and
    ``clone()`` keep a transposed or permuted layout, so a flip, a sort or a scatter of a
    transposed tensor is transposed too (NumPy's ``empty_like`` keeps it the same way; on
    the host, exactly PyTorch's strides: ``preserve_layout``)."""
    if type(a) is _ndarray and type(ref) is _ndarray:
        return preserve_layout(a, ref)
    if ref.flags.c_contiguous or a.shape != ref.shape:
        return a
    out = xp_of(a).empty_like(ref, dtype=a.dtype)
    out[...] = a
    return out


def iterator_layout(r, operands, common=None, keep_first=False):
    """``r``, the host result of an elementwise op, laid out as PyTorch's TensorIterator
    allocates it for ``operands`` (their arrays in order, None for a Python number; an
    operand whose dtype is not ``common``, the computation's, is seen as its copy in that
    dtype, except the first with ``keep_first``, where's condition): Note [an elementwise
    result's layout]. A copy only when NumPy laid it out otherwise."""
    if r.ndim < 2 or type(r) is not _ndarray:
        return r
    # the commonest case: every operand row-major (a size-1 dim's stride as well, when the
    # result has one: only there can it count; no empty dim), and so the result
    shape = r.shape
    ones = 1 in shape
    if not ones or 0 not in shape:
        for a in operands:
            if a is not None and not (row_major_exactly(a) if ones else a.flags.c_contiguous):
                break
        else:
            return r if r.flags.c_contiguous else np.ascontiguousarray(r)
    seen = []
    for i, a in enumerate(operands):
        if a is None or not a.ndim:
            seen.append(None)   # a number, or a 0-d tensor: no dims to order
        elif common is not None and a.dtype != common and not (keep_first and i == 0):
            seen.append((a.shape, preserved_strides(a)))   # (promoted by a.to(common))
        else:
            seen.append((a.shape, _elem_strides(a)))
    return _laid_out(r, _L.iterator_strides(r.shape, seen))


def _laid_out(r, strides):
    """``r`` with these element strides: itself, or a copy into a fresh buffer so laid out."""
    item = r.itemsize
    if r.strides == tuple(s * item for s in strides):
        return r
    # (over a buffer only it holds, its base: a copy that owns its memory, as
    # AccumulateGrad and CopySlices ask: autograd/accumulate.py owns_memory)
    out, _ = empty_strided(cpu, r.shape, strides, r.dtype)
    out[...] = r
    return out


def _elem_strides(a):
    item = a.itemsize
    return tuple(s // item for s in a.strides)


def _row_major_bytes(a):
    """The byte strides of a fresh row-major array like ``a`` (remembered per shape and
    item size: the check runs for every keepdim-shaped operand)."""
    key = (a.shape, a.itemsize)
    st = _ROW_MAJOR.get(key)
    if st is None:
        if len(_ROW_MAJOR) > 4096:
            _ROW_MAJOR.clear()
        st = _ROW_MAJOR[key] = tuple(s * a.itemsize for s in _L.row_major_strides(a.shape))
    return st


_ROW_MAJOR = {}


def preserved_strides(a):
    """The element strides of PyTorch's ``empty_like(a)`` (memory_format=preserve: what
    ``clone()`` and ``to(dtype)`` lay out): ``a``'s own when it is non-overlapping and
    dense, else dense ones in its order."""
    st = _elem_strides(a)
    if _L.non_overlapping_and_dense(a.shape, st):
        return st
    return _L.dense_strides(a.shape, st)


def preserve_layout(r, like):
    """``r`` (``like``'s shape) laid out as PyTorch's ``empty_like(like)`` lays out a copy
    (``preserved_strides``): clone(), to(dtype)."""
    if type(r) is not _ndarray or not r.ndim or r.shape != like.shape:
        return r
    if row_major_exactly(like):
        return r if r.flags.c_contiguous else np.ascontiguousarray(r)
    return _laid_out(r, preserved_strides(like))


def lapack_layout(a):
    """``a`` laid out as LAPACK writes a matrix, and as PyTorch returns the result of a
    linear-algebra kernel (an inverse, a solve, a factor): each matrix column-major, the
    batch dims outermost (strides ``(..., 1, m)``). So ``Q.is_contiguous()`` is False and
    ``Q.view(-1)`` refuses, as in PyTorch; a 0-d or 1-d array is returned as it is."""
    if a.ndim < 2:
        return a
    xp = xp_of(a)
    return xp.swapaxes(xp.swapaxes(a, -1, -2).copy(), -1, -2)


def inv(a):
    """``xp.linalg.inv(a)`` factorising ``a`` itself on every device (LU with partial
    pivoting), as LAPACK and PyTorch's kernels do. CuPy hands a C-ordered matrix to
    cuSOLVER as it lies in memory, that is transposed, and the pivots of the transpose
    differ: a singular float32 matrix then meets no exactly zero pivot and comes back as a
    huge finite "inverse" where PyTorch raises. So on CUDA: inv(A) = inv(Aᵀ laid out
    C-ordered)ᵀ, whose factorisation is A's."""
    if type(a) is not _ndarray:
        dev = device_of_array(a)
        if dev is not None and dev.type == "cuda":
            xp = dev.xp
            t = xp.ascontiguousarray(xp.swapaxes(a, -1, -2))
            return xp.swapaxes(xp.linalg.inv(t), -1, -2)
    return xp_of(a).linalg.inv(a)


def unsqueeze_view(a, k):
    """``a`` with a dim of size 1 inserted at ``k``, a view with PyTorch's stride for it
    (inferUnsqueezeGeometry: 1 at the end, else the size times the stride of the dim it
    comes before). NumPy's reshape picks another for a transposed array (``x.t()``
    unsqueezed last: 12 where PyTorch says 1); its other strides are PyTorch's."""
    shape = a.shape
    r = a.reshape(shape[:k] + (1,) + shape[k:])
    want = a.itemsize if k == len(shape) else shape[k] * a.strides[k]
    if r.strides[k] == want or type(r) is not _ndarray:
        return r
    st = r.strides
    return _np_as_strided(r, r.shape, st[:k] + (want,) + st[k + 1:],
                          writeable=r.flags.writeable)


def reshape_view(a, shape):
    """``a`` reshaped WITHOUT copying, or None when its strides do not allow it; on the
    host, with PyTorch's strides (layouts.view_strides: a new size-1 dim of a tensor that
    is not row-major gets its own there)."""
    try:
        if type(a) is not _ndarray:
            return _generic_reshape_view(a, shape)
        r = np.reshape(a, shape, copy=False)
    except ValueError:
        return None
    if row_major_exactly(a):   # (row-major strides in, row-major strides out: the same)
        return r
    item = a.itemsize
    want = _L.view_strides(a.shape, _elem_strides(a), tuple(shape))
    if want is None:
        return None   # (PyTorch's chunks disagree with NumPy's: its refusal)
    want = tuple(s * item for s in want)
    if r.strides == want:
        return r
    return _np_as_strided(r, r.shape, want, writeable=r.flags.writeable)


def row_major_exactly(a):
    """Whether host array ``a`` is row-major with the row-major stride of every dim, a
    size-1 dim's too (NumPy's flag ignores those)."""
    return a.flags.c_contiguous and (1 not in a.shape or a.strides == _row_major_bytes(a))


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


def empty_strided(dev, size, stride, dt):
    """(array, buffer): an uninitialised array with the given strides (in elements) over a
    fresh 1-D buffer that it alone uses (factories.empty_strided, CopySlices, AccumulateGrad)."""
    extent = 1 + sum((sz - 1) * st for sz, st in zip(size, stride)) if all(size) else 0
    buf = dev.xp.empty((max(extent, 1),), dtype=dt)
    if dev.as_strided is not None:   # (on the host, an array whose base is the buffer)
        a = strided_in(dev, buf, tuple(size), tuple(s * dt.itemsize for s in stride), 0)
    else:
        a = dev.xp.empty(size, dtype=dt)
    return a, buf


def strided_in(dev, flat, size, strides, offset):
    """The array of geometry (size, strides in bytes) starting ``offset`` elements into the
    1-D array ``flat`` (a storage). On the CPU, numpy's C constructor (one call; it checks
    the bounds, and anything it refuses goes the general way); elsewhere the device's
    as_strided — numpy's own as_strided is Python code, ~10x slower per call."""
    if dev is cpu and type(flat) is np.ndarray and flat.flags.c_contiguous:
        try:
            return np.ndarray(size, flat.dtype, buffer=flat, offset=offset * flat.itemsize,
                              strides=strides)
        except (TypeError, ValueError):
            pass
    return dev.as_strided(flat[offset:], size, strides)


def broadcast_shapes(*shapes) -> tuple:
    """The broadcast of shapes (tuples of ints): host arithmetic, the same on every device
    (not every array module has ``broadcast_shapes``). ValueError when they don't broadcast."""
    return tuple(np.broadcast_shapes(*shapes))


def broadcast_error(name, sa, sb):
    """PyTorch's broadcasting error (``infer_size``) for shapes ``sa`` and ``sb`` that do
    not broadcast: the first dim from the right where they differ and neither is 1,
    numbered in the broadcast result; plus what to do."""
    sa, sb = list(sa), list(sb)
    n = max(len(sa), len(sb))
    for i in range(n - 1, -1, -1):
        da = sa[i - n + len(sa)] if i - n + len(sa) >= 0 else 1
        db = sb[i - n + len(sb)] if i - n + len(sb) >= 0 else 1
        if da != db and da != 1 and db != 1:
            break
    return RuntimeError(
        f"The size of tensor a ({da}) must match the size of tensor b ({db}) at non-singleton "
        f"dimension {i} ({name} of shapes {sa} and {sb}: reshape or unsqueeze one of them)")


def shapes_error(name, shapes):
    """``broadcast_error`` for the first of ``shapes`` (taken in order, each against the
    broadcast of those before it, as PyTorch's TensorIterator does) that does not
    broadcast; None when they all do."""
    shape = None
    for s in shapes:
        s = tuple(s)
        if shape is not None:
            try:
                s = tuple(np.broadcast_shapes(shape, s))
            except ValueError:
                return broadcast_error(name, shape, s)
        shape = s
    return None


def checked_broadcast(name, *shapes) -> tuple:
    """``broadcast_shapes``, with PyTorch's error (``shapes_error``) when they do not."""
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise shapes_error(name, shapes) from None


def synchronize(spec=None):
    """Wait until the device has finished its queued work (CuPy runs kernels
    asynchronously: time a GPU step only after this). A no-op on host devices."""
    dev = device(spec)
    if dev.type == "cuda":
        import cupy
        cupy.cuda.runtime.deviceSynchronize()


# -----------------------------------------------------------------------------------
# Strided views for view ops' forwards (expand, unfold, diagonal). With the device's
# as_strided they are exact, writeable views (numpy's own broadcast_to/diagonal are
# read-only); on a backend without as_strided they fall back on the array module's view
# functions, which the backend must make writeable.
# -----------------------------------------------------------------------------------

def _dev_of(a) -> Device:
    dev = device_of_array(a)
    if dev is None:
        raise TypeError(f"expected an array of a viewgrad device, got {type(a).__name__}")
    return dev


def strided_view(a, shape, strides):
    """A writeable view of ``a``'s memory with ``shape`` and byte ``strides``."""
    dev = _dev_of(a)
    if dev.as_strided is None:
        raise RuntimeError(
            f"device '{dev.type}' has no as_strided: views with arbitrary strides cannot be "
            "made on it (use view ops such as select, narrow, expand, unfold instead)")
    return dev.as_strided(a, tuple(shape), tuple(strides))


def expand_view(a, shape):
    """``a`` broadcast to ``shape`` as a WRITEABLE view (stride 0 on expanded dims), so an
    in-place write reaches check_inplace's overlap error as in PyTorch."""
    dev = _dev_of(a)
    shape = tuple(shape)
    if dev.as_strided is None:
        return dev.xp.broadcast_to(a, shape)
    # PyTorch's inferExpandGeometry: a kept dim keeps its stride, an expanded one gets 0;
    # a new leading dim of size 1 gets the stride it would have if contiguous over the
    # dims after it (not 0), so ones(3).expand(1, 3).stride() == (3, 1) as in PyTorch.
    lead = len(shape) - a.ndim
    strides = [0] * len(shape)
    nxt = 0  # stride * size of the dim after the current one (bytes; 0 past the last)
    for i in range(len(shape) - 1, -1, -1):
        if i >= lead:
            s, st = a.shape[i - lead], a.strides[i - lead]
        else:
            s, st = 1, nxt
        if s != shape[i]:
            st = 0
        strides[i] = st
        nxt = shape[i] * st
    return dev.as_strided(a, shape, tuple(strides))


def unfold_view(a, dim, size, step):
    """All windows of length ``size`` every ``step`` along ``dim`` (window dim last)."""
    dev = _dev_of(a)
    if dev.as_strided is None:
        w = dev.xp.lib.stride_tricks.sliding_window_view(a, size, axis=dim, writeable=True)
        return w[(slice(None),) * dim + (slice(None, None, step),)]
    shape = list(a.shape)
    strides = list(a.strides)
    n = (shape[dim] - size) // step + 1
    new_shape = shape[:dim] + [n] + shape[dim + 1:] + [size]
    new_strides = strides[:dim] + [strides[dim] * step] + strides[dim + 1:] + [strides[dim]]
    return dev.as_strided(a, tuple(new_shape), tuple(new_strides))


def diagonal_view(a, offset, dim1, dim2):
    """The diagonal of dims (dim1, dim2) as a writeable view, diagonal dim last."""
    dev = _dev_of(a)
    xp = dev.xp
    if dev.as_strided is None:
        return xp.diagonal(a, offset, dim1, dim2)
    b = xp.moveaxis(a, (dim1, dim2), (-2, -1))
    start = b[..., :, offset:] if offset >= 0 else b[..., -offset:, :]
    n = max(0, min(start.shape[-2], start.shape[-1]))
    st = b.strides
    return dev.as_strided(start, b.shape[:-2] + (n,), st[:-2] + (st[-2] + st[-1],))


# -----------------------------------------------------------------------------------
# Host helpers: for code that works on host copies (dev.to_host(...)), never on device
# arrays. They exist so that no other module needs to import numpy.
# -----------------------------------------------------------------------------------

def is_host_array(a) -> bool:
    """True for a plain numpy array (what ``from_numpy`` accepts)."""
    return isinstance(a, np.ndarray)


def host_array(data, dtype=None, copy=True):
    """A host (numpy) array built from Python data or a host array (1e40 as float32 is inf,
    silently, as in PyTorch)."""
    with np.errstate(over="ignore"):
        return np.array(data, dtype=dtype, copy=copy)


def host_zeros(shape, dtype=float64):
    return np.zeros(shape, dtype=dtype)


def host_allclose(a, b, rtol=1e-5, atol=1e-8) -> bool:
    return bool(np.allclose(a, b, rtol=rtol, atol=atol))


def unravel_index(flat: int, shape) -> tuple:
    """The index tuple of element ``flat`` of a row-major array of ``shape`` (Python ints)."""
    idx = []
    for s in reversed(tuple(shape)):
        flat, r = divmod(flat, s)
        idx.append(r)
    return tuple(reversed(idx))


def save_npz(path, arrays: dict):
    """Write host arrays to an .npz file (arrays only: nothing is pickled)."""
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def load_npz(path) -> dict:
    """{name: host array} read from an .npz file, refusing pickled objects."""
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def save_archive(file, meta: str, arrays: dict):
    """Write a JSON string and host arrays as one .npz archive (``file``: a path or a
    binary file object). The JSON is stored as UTF-8 bytes in a uint8 array named
    ``__meta__``: nothing is pickled."""
    np.savez(file, __meta__=np.frombuffer(meta.encode("utf-8"), dtype=np.uint8), **arrays)


def load_archive(file):
    """(meta JSON string or None, {name: host array}) read from an .npz archive, refusing
    pickled objects. Raises ValueError when ``file`` is not an .npz archive."""
    import zipfile
    try:
        with np.load(file, allow_pickle=False) as z:
            if not isinstance(z, np.lib.npyio.NpzFile):
                raise ValueError("not an .npz archive")
            arrays = {k: z[k] for k in z.files}
    except (zipfile.BadZipFile, OSError, EOFError) as e:
        raise ValueError(f"not an .npz archive: {e}") from None
    except ValueError:
        raise ValueError("it holds pickled data") from None
    if not all(isinstance(a, np.ndarray) for a in arrays.values()):
        raise ValueError("a zip file whose members are not .npy arrays (PyTorch's torch.save "
                         "writes such a zip around a pickle)")
    meta = arrays.pop("__meta__", None)
    return (None if meta is None else meta.tobytes().decode("utf-8")), arrays
