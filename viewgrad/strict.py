"""The "strict" test device: numpy underneath, CuPy's manners on top.

There is no GPU on most machines that run viewgrad's tests, yet the CUDA path must be the
same code as the CPU path (DESIGN §10). This device proves it. Its arrays
(``StrictArray``) hold a numpy array but behave like CuPy arrays towards host code:

  * ``numpy.asarray(a)`` / ``numpy.array(a)`` raise ``TypeError`` ("Implicit conversion to a
    NumPy array is not allowed"), as CuPy does: a tensor's data never silently becomes a
    host array;
  * mixing a plain numpy array into an operation with a strict array (``a + host``,
    ``host * a``, ``xp.where(a, host, 0)``, ``a[host_index] = ...``) raises ``TypeError``;
  * results are never numpy scalars: ``a.sum()`` or ``a[0, 1]`` is a 0-d strict array, as
    on CuPy (``float(x)``, ``x.item()``, ``bool(x)`` convert explicitly);
  * arrays of the two strict devices (``strict``, ``strict_nostride``) refuse to mix, like
    arrays of two GPUs;
  * where numpy's API is wider than CuPy's, strict answers as CuPy: ``a.flags`` has only
    ``c_contiguous``, ``f_contiguous`` and ``owndata`` (no ``writeable``: CuPy arrays are
    always writable; ask ``backend.writeable(a)``), ``xp.indices`` takes no ``sparse=``,
    and a 0-d array takes no axis in a reduction (numpy lets ``axis=0`` through). These
    three are what the first run of the suite on a real GPU (an H100) found: every backward
    on cuda failed on ``flags.writeable``, which no test without a GPU could see.

The device's array module (``dev.xp``, a ``StrictNamespace``) is numpy's namespace wrapped
so that every function unwraps strict arguments, rejects plain numpy arrays and wraps the
results back. What a strict array allows on purpose, because CuPy allows it too:
``xp.asarray(host)`` (an explicit host-to-device copy), Python and numpy *scalars* as
operands, numpy ufuncs and functions applied to strict arrays (they dispatch back to the
device, as ``numpy.exp(cupy_array)`` does), ``.item()``, ``.tolist()``, iteration.

``strict_nostride`` has no ``as_strided`` at all (``Device.as_strided is None``): CopySlices
and stale views are then forced into view replay (DESIGN §4), and view ops fall back on
the namespace's (writeable, as on CuPy) ``broadcast_to``, ``diagonal`` and
``sliding_window_view``.

This module is an array BACKEND, like the ``backend`` package: it may use numpy freely.
"""
from __future__ import annotations

import operator

import numpy as np

__all__ = ["StrictArray", "StrictNamespace", "make_device", "HOST_CONVERSION_ERROR"]

_nd = np.ndarray
_generic = np.generic

HOST_CONVERSION_ERROR = (
    "Implicit conversion to a NumPy array is not allowed (device '{dev}', as on CuPy). "
    "Library code must use the device's array module (B.xp_of(arr) / tensor._device.xp), "
    "or copy to the host explicitly with tensor._device.to_host(arr) / tensor.cpu().")


class _CupyFlags:
    """What ``cupy.ndarray.flags`` has: three read-only booleans and their keys."""

    __slots__ = ("c_contiguous", "f_contiguous", "owndata")
    _KEYS = {"C_CONTIGUOUS": "c_contiguous", "F_CONTIGUOUS": "f_contiguous",
             "OWNDATA": "owndata"}

    def __init__(self, f):
        self.c_contiguous = f.c_contiguous
        self.f_contiguous = f.f_contiguous
        self.owndata = f.owndata

    def __getitem__(self, key):
        return getattr(self, self._KEYS[key])


class StrictArray:
    """A numpy array that refuses host numpy. One subclass per strict device."""

    __slots__ = ("_a",)
    _device_name = "strict"
    _ns = None               # the device's StrictNamespace (set by make_device)
    __array_priority__ = 2000

    def __init__(self, a):
        if type(a) is not _nd:
            raise TypeError(f"StrictArray wraps a plain numpy array, got {type(a).__name__}")
        object.__setattr__(self, "_a", a)

    # -- what it refuses ------------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        raise TypeError(HOST_CONVERSION_ERROR.format(dev=self._device_name))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        # e.g. np.float32(2) * a, or np.exp(a): computed on the device, as CuPy does; a
        # plain numpy array among the operands is refused by _unwrap.
        cls = type(self)
        inputs = _unwrap(inputs, cls)
        out = kwargs.pop("out", None)
        if out is not None:
            getattr(ufunc, method)(*inputs, out=_unwrap(out, cls), **_unwrap(kwargs, cls))
            return out[0] if len(out) == 1 else out
        return _wrap(getattr(ufunc, method)(*inputs, **_unwrap(kwargs, cls)), cls)

    def __array_function__(self, func, types, args, kwargs):
        # np.where(a, 1.0, b) -> the device's where (CuPy dispatches np.* to cupy.*); a
        # plain numpy array in the arguments is refused by the namespace's unwrap.
        fn = self._ns._lookup_function(func)
        if fn is None:
            return NotImplemented
        return fn(*args, **kwargs)

    # -- array attributes -----------------------------------------------------------------
    @property
    def shape(self):
        return self._a.shape

    @shape.setter
    def shape(self, value):
        # in-place reshape without copying; AttributeError when a copy would be needed
        self._a.shape = value

    @property
    def dtype(self):
        return self._a.dtype

    @property
    def ndim(self):
        return self._a.ndim

    @property
    def size(self):
        return self._a.size

    @property
    def itemsize(self):
        return self._a.itemsize

    @property
    def nbytes(self):
        return self._a.nbytes

    @property
    def strides(self):
        return self._a.strides

    @property
    def flags(self):
        # CuPy's Flags: c_contiguous, f_contiguous and owndata, nothing else (no
        # ``writeable``: a CuPy array is always writable), so host-only flags fail here
        return _CupyFlags(self._a.flags)

    @property
    def T(self):
        return type(self)(self._a.T)

    @property
    def mT(self):
        return type(self)(self._a.mT)

    @property
    def device(self):
        return self._device_name

    @property
    def data(self):
        raise AttributeError("StrictArray.data: the raw buffer is not exposed (use "
                             "Device.data_ptr(array) for its address)")

    def __getattr__(self, name):
        # Every other ndarray method (sum, reshape, astype, copy, max, transpose, ...):
        # unwrap the arguments, call numpy's method, wrap the result. Dunder names and the
        # host interfaces are NOT forwarded: numpy would read __array_interface__ and
        # convert the array silently.
        if name.startswith("__") or name in _NOT_FORWARDED:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        attr = getattr(self._a, name)
        cls = type(self)
        if callable(attr):
            a = self._a

            def method(*args, **kwargs):
                _refuse_axis_of_0d(name, a, args, kwargs, 0)
                return _wrap(attr(*_unwrap(args, cls), **_unwrap(kwargs, cls)), cls)
            method.__name__ = name
            return method
        return _wrap(attr, cls)

    def __setattr__(self, name, value):
        if name == "shape":
            self._a.shape = value
            return
        raise AttributeError(f"cannot set attribute {name!r} of a {type(self).__name__}")

    # -- explicit conversions (allowed, as on CuPy) ---------------------------------------
    def item(self, *args):
        return self._a.item(*args)

    def tolist(self):
        return self._a.tolist()

    def get(self):
        """A host copy (CuPy's ``ndarray.get()``)."""
        return self._a.copy()

    def __bool__(self):
        return bool(self._a)

    def __float__(self):
        return float(self._a)

    def __int__(self):
        return int(self._a)

    def __complex__(self):
        return complex(self._a)

    def __index__(self):
        return operator.index(self._a)

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        cls = type(self)
        for row in self._a:
            yield _wrap(row, cls)

    def __repr__(self):
        return f"{type(self).__name__}({self._a!r})"

    __str__ = __repr__

    def __format__(self, spec):
        return format(self._a.item() if self._a.ndim == 0 else repr(self), spec)

    def __copy__(self):
        return type(self)(self._a.copy())

    def __deepcopy__(self, memo):
        return type(self)(self._a.copy())

    def __reduce__(self):
        raise TypeError("strict device arrays are not pickled (copy to the host first)")

    # -- indexing ---------------------------------------------------------------------------
    def __getitem__(self, key):
        cls = type(self)
        return _wrap(self._a[_unwrap_key(key, cls)], cls)

    def __setitem__(self, key, value):
        cls = type(self)
        self._a[_unwrap_key(key, cls)] = _unwrap(value, cls)

    __hash__ = None


# Reductions and the like whose axis is their first argument as methods (a.sum(0)) and
# their second as functions (xp.sum(a, 0)). numpy lets a 0-d array take axis 0 or -1
# there, as if it were 1-d; CuPy refuses (AxisError), and so does this device.
_AXIS_FIRST = frozenset({
    "sum", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "mean", "std", "var",
    "any", "all", "cumsum", "cumprod", "nansum", "nanprod", "nanmax", "nanmin", "nanmean",
    "nanargmax", "nanargmin", "nanstd", "nanvar", "median", "nanmedian", "sort", "argsort",
    "ptp", "count_nonzero", "cummax", "cummin", "flip", "logsumexp"})


def _refuse_axis_of_0d(name, a, args, kwargs, first):
    if getattr(a, "ndim", 1) != 0 or name not in _AXIS_FIRST:
        return
    axis = kwargs.get("axis", args[first] if len(args) > first else None)
    if axis is None or axis == ():
        return
    raise np.exceptions.AxisError(f"axis {axis!r} is out of bounds for array of dimension 0 "
                                  "(a 0-d array takes no axis on CuPy, as on this device)")


_NOT_FORWARDED = frozenset({"ctypes", "base", "tobytes", "tofile", "dump", "dumps",
                            "__array_interface__", "__array_struct__"})


def _binary(name):
    op = getattr(operator, name)

    def f(self, other):
        cls = type(self)
        return _wrap(op(self._a, _unwrap(other, cls)), cls)
    f.__name__ = f"__{name}__"
    return f


def _reflected(name):
    op = getattr(operator, name)

    def f(self, other):
        cls = type(self)
        return _wrap(op(_unwrap(other, cls), self._a), cls)
    f.__name__ = f"__r{name}__"
    return f


def _inplace(name):
    op = getattr(operator, f"i{name.rstrip('_')}")

    def f(self, other):
        cls = type(self)
        op(self._a, _unwrap(other, cls))    # in place on the shared buffer
        return self
    f.__name__ = f"__i{name}__"
    return f


def _unary(name):
    op = getattr(operator, name)

    def f(self):
        return _wrap(op(self._a), type(self))
    f.__name__ = f"__{name}__"
    return f


for _n in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and_",
           "or_", "xor", "lshift", "rshift"):
    _d = _n.rstrip("_")
    setattr(StrictArray, f"__{_d}__", _binary(_n))
    setattr(StrictArray, f"__r{_d}__", _reflected(_n))
    setattr(StrictArray, f"__i{_d}__", _inplace(_n))
for _n in ("lt", "le", "gt", "ge", "eq", "ne"):
    setattr(StrictArray, f"__{_n}__", _binary(_n))
for _n in ("neg", "pos", "abs", "invert"):
    setattr(StrictArray, f"__{_n}__", _unary(_n))
StrictArray.__hash__ = None


# -- unwrap / wrap ---------------------------------------------------------------------------

def _host_error(cls, what):
    return TypeError(
        f"Unsupported type {what}: a plain numpy (host) array was mixed with arrays of device "
        f"'{cls._device_name}' (CuPy refuses this the same way). Build it on the device with "
        "the device's array module (tensor._device.xp / backend.xp_of(arr)), or move it "
        "explicitly with dev.from_host(...).")


def _unwrap(x, cls):
    """Strict arrays of ``cls`` -> numpy arrays, recursively through tuples/lists/dicts.
    A plain numpy array, or an array of another strict device, is an error."""
    t = type(x)
    if t is cls:
        return x._a
    if t is tuple or t is list:
        return t(_unwrap(v, cls) for v in x)
    if t is dict:
        return {k: _unwrap(v, cls) for k, v in x.items()}
    if isinstance(x, StrictArray):
        raise TypeError(
            f"arrays of devices '{x._device_name}' and '{cls._device_name}' were mixed in one "
            "operation; move them to one device first")
    if isinstance(x, _nd):
        raise _host_error(cls, repr(type(x)))
    return x


def _unwrap_key(key, cls):
    # index keys may hold ints, slices, None, Ellipsis, lists and device index arrays
    return _unwrap(key, cls)


def _wrap(r, cls):
    """numpy results -> strict arrays of ``cls``; numpy scalars become 0-d arrays (CuPy
    never returns numpy scalars from array operations)."""
    t = type(r)
    if t is _nd:
        return cls(r)
    if isinstance(r, _generic):
        return cls(np.asarray(r))
    if t is tuple or t is list:
        return t(_wrap(v, cls) for v in r)
    if isinstance(r, _nd):          # numpy subclasses (matrix, memmap): make plain
        return cls(np.asarray(r).view(_nd))
    return r


# -- the array module ------------------------------------------------------------------------

class _UfuncProxy:
    """A numpy ufunc (``xp.add``) whose call and methods (``at``, ``reduce``, ...) run on
    strict arrays."""

    __slots__ = ("_uf", "_cls")

    def __init__(self, uf, cls):
        self._uf = uf
        self._cls = cls

    def __call__(self, *args, **kwargs):
        cls = self._cls
        out = kwargs.get("out")
        r = self._uf(*_unwrap(args, cls), **_unwrap(kwargs, cls))
        if out is not None:
            return out
        return _wrap(r, cls)

    def at(self, a, indices, b=None):
        cls = self._cls
        if b is None:
            self._uf.at(_unwrap(a, cls), _unwrap(indices, cls))
        else:
            self._uf.at(_unwrap(a, cls), _unwrap(indices, cls), _unwrap(b, cls))

    def __getattr__(self, name):
        attr = getattr(self._uf, name)
        cls = self._cls
        if callable(attr):
            return lambda *a, **k: _wrap(attr(*_unwrap(a, cls), **_unwrap(k, cls)), cls)
        return attr

    def __repr__(self):
        return f"<strict ufunc {self._uf.__name__}>"


def _writeable_broadcast_to(a, shape):
    # CuPy's broadcast_to is a writeable view; numpy's is read-only. Writes to stride-0
    # dims are caught earlier by check_inplace's overlap test, as in PyTorch.
    a = np.asarray(a)
    shape = tuple(shape)
    lead = len(shape) - a.ndim
    b = np.broadcast_to(a, shape)
    strides = (0,) * lead + tuple(st if s == shape[lead + i] else 0
                                  for i, (s, st) in enumerate(zip(a.shape, a.strides)))
    return np.lib.stride_tricks.as_strided(a, shape, strides, writeable=True) \
        if b.size else b.copy()


def _writeable_diagonal(a, offset=0, axis1=0, axis2=1):
    d = np.diagonal(a, offset, axis1, axis2)
    d.setflags(write=True)   # numpy's diagonal view is read-only; CuPy's is writeable
    return d


class StrictNamespace:
    """numpy's namespace, wrapped for strict arrays of one device (``dev.xp``)."""

    def __init__(self, cls, module=np, path="numpy"):
        self._cls = cls
        self._module = module
        self._path = path
        self._cache = {}
        self.ndarray = cls

    def __repr__(self):
        return f"<array module of device '{self._cls._device_name}' ({self._path})>"

    def _wrap_callable(self, fn):
        cls = self._cls
        name = getattr(fn, "__name__", "")

        def call(*args, **kwargs):
            if args:
                _refuse_axis_of_0d(name, args[0], args[1:], kwargs, 0)
            return _wrap(fn(*_unwrap(args, cls), **_unwrap(kwargs, cls)), cls)
        call.__name__ = getattr(fn, "__name__", "function")
        call.__doc__ = getattr(fn, "__doc__", None)
        return call

    def _lookup_function(self, func):
        """The wrapped version of numpy function ``func`` (for __array_function__)."""
        mod = getattr(func, "__module__", "") or ""
        name = getattr(func, "__name__", None)
        if name is None or not mod.startswith("numpy"):
            return None
        ns = self
        for part in mod.split(".")[1:]:
            if part.startswith("_"):     # numpy._core.fromnumeric -> numpy
                break
            ns = getattr(ns, part, None)
            if not isinstance(ns, StrictNamespace):
                ns = self
                break
        try:
            return getattr(ns, name)
        except AttributeError:
            return None

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        cache = self._cache
        if name in cache:
            return cache[name]
        cls = self._cls
        if self._module is np:
            special = _SPECIAL.get(name)
            if special is not None:
                v = special(cls)
                cache[name] = v
                return v
        attr = getattr(self._module, name)
        if isinstance(attr, np.ufunc):
            v = _UfuncProxy(attr, cls)
        elif isinstance(attr, type):            # dtypes, errstate, finfo...: as they are
            v = attr
        elif type(attr).__name__ == "module":   # np.linalg, np.lib, np.lib.stride_tricks
            v = StrictNamespace(cls, attr, f"{self._path}.{name}")
        elif callable(attr):
            v = self._wrap_callable(attr)
        else:                                   # pi, inf, newaxis
            v = attr
        if self._path == "numpy.lib.stride_tricks" and name in _STRIDE_TRICKS:
            v = _STRIDE_TRICKS[name](cls)
        cache[name] = v
        return v


def _asarray(cls):
    def asarray(a, dtype=None, order=None, copy=None):
        """A device array from device arrays, Python data or a HOST array (an explicit
        host-to-device copy, as ``cupy.asarray(numpy_array)``)."""
        if type(a) is cls:
            r = np.asarray(a._a, dtype=dtype, order=order, copy=copy)
            return a if r is a._a else cls(r)
        if isinstance(a, (tuple, list)):
            a = _unwrap_host_ok(a, cls)
        elif isinstance(a, StrictArray):
            _unwrap(a, cls)     # raises: another strict device
        r = np.array(a, dtype=dtype, order=order if order else "K", copy=True)
        return cls(r.view(_nd) if type(r) is not _nd else r)
    return asarray


def _unwrap_host_ok(x, cls):
    t = type(x)
    if t is cls:
        return x._a
    if t is tuple or t is list:
        return t(_unwrap_host_ok(v, cls) for v in x)
    return x


def _array(cls):
    asarray = _asarray(cls)

    def array(a, dtype=None, copy=True, order="K", ndmin=0):
        if type(a) is cls:
            r = np.array(a._a, dtype=dtype, copy=copy, order=order, ndmin=ndmin)
            return a if r is a._a else cls(r)
        r = asarray(a, dtype=dtype)
        return cls(np.array(r._a, copy=False, ndmin=ndmin)) if ndmin else r
    return array


def _special_fn(fn):
    def make(cls):
        def call(*args, **kwargs):
            return _wrap(fn(*_unwrap(args, cls), **_unwrap(kwargs, cls)), cls)
        call.__name__ = fn.__name__
        return call
    return make


def _as_strided(cls):
    def as_strided(x, shape=None, strides=None, writeable=True):
        return cls(np.lib.stride_tricks.as_strided(_unwrap(x, cls), shape, strides,
                                                   writeable=writeable))
    return as_strided


def _cupy_indices(dimensions, dtype=int):
    # CuPy's signature: numpy's ``sparse=`` is not there
    return np.indices(dimensions, dtype=dtype)


_SPECIAL = {
    "indices": _special_fn(_cupy_indices),
    "asarray": _asarray,
    "array": _array,
    "asanyarray": _asarray,
    "broadcast_to": _special_fn(_writeable_broadcast_to),
    "diagonal": _special_fn(_writeable_diagonal),
}
_STRIDE_TRICKS = {
    "as_strided": _as_strided,
}


# -- the devices -----------------------------------------------------------------------------

def make_device(name="strict", with_as_strided=True):
    """Build a strict Device named ``name``; ``with_as_strided=False`` gives a backend with
    no as_strided (forced view replay)."""
    from .backend import Device
    cls = type(f"StrictArray_{name}", (StrictArray,), {"__slots__": (), "_device_name": name})
    cls.__module__ = __name__
    ns = StrictNamespace(cls)
    cls._ns = ns

    def to_host(a):
        if type(a) is not cls:
            _unwrap(a, cls)   # raises for host arrays / other devices
        return a._a.copy()

    def from_host(h):
        return ns.asarray(h)

    def data_ptr(a):
        return a._a.__array_interface__["data"][0]

    def as_strided(a, shape, strides):
        return cls(np.lib.stride_tricks.as_strided(_unwrap(a, cls), shape, strides,
                                                   writeable=True))

    return Device(name, ns, as_strided if with_as_strided else None, to_host, from_host,
                  data_ptr, (cls,))
