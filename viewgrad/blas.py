"""NumPy's own BLAS, for the one routine NumPy does not expose: axpy, ``y += a * x`` in
one pass over memory with one rounding per element (a fused multiply-add).

Note [alpha as one fused multiply-add]
PyTorch computes ``add(self, other, alpha=a)`` and ``sub`` as ``fma(a, other, self)``:
its vectorized CPU kernel rounds once. So does every optimizer step written with alpha,
``p.add_(g, alpha=-lr)``. NumPy has no fused multiply-add ufunc: ``self + other * a``
rounds twice, which gives a different float32 result from PyTorch's in about a quarter
of the elements when ``a`` is 2.5. It also needs memory for the product, so an optimizer
step makes two passes over each parameter where PyTorch makes one.

The BLAS that NumPy's wheels carry (scipy-openblas) has ``saxpy``/``daxpy``. They compute
``y + a*x`` with the CPU's FMA instruction wherever the CPU has one, which is also where
PyTorch uses it. That gives PyTorch's bits, in one pass.

The routine is looked up by name through the extension module NumPy itself loaded, so
it is the very library NumPy's matmul runs on. Where no known name is there (NumPy built
on Accelerate or MKL, or from source), or the routine fails a check at load, ``AXPY`` is
None. The callers then keep the two-rounding formula.

Used by ops/pointwise.py (the ``add_alpha``/``sub_alpha`` rows, and a number ``other``
with alpha, which PyTorch wraps as a 0-d tensor), ops/inplace.py (Note [an update with
alpha, under no_grad]) and ops/binary.py (lerp with a number weight: PyTorch's vector
loop is ``fma(w, end - self, self)``, or ``fma(w - 1, end - self, end)``).

PyTorch also fuses where no axpy fits: ``addcmul`` is ``fma(value * t1, t2, self)`` and
lerp with a tensor weight one fma per element. For float32 that one rounding is computed
exactly in float64 (``fma_float32``); float64 keeps the two-rounding formula.

tests/ops/test_alpha_fma_vs_torch.py checks the bits against torch and against exact
arithmetic.
"""
from __future__ import annotations

import ctypes
import threading

import numpy as np

__all__ = ["AXPY", "axpy_into", "axpy_dense", "add_scaled", "fma_float32"]

# Note [axpy's blocks and threads]
# OpenBLAS's axpy kernel runs the elements in blocks (32 float32s on Haswell and Zen) with
# FMA, and the last ``n % block`` elements in a C loop that rounds twice. PyTorch rounds
# once everywhere, so the tail is run as one padded block of its own. With more than one
# BLAS thread, axpy over 10,000 elements splits the array between threads at arbitrary
# points, and each part has a tail; so then the calls go in chunks of at most 8,192
# elements (one thread each). The block size is measured when this module loads (a
# block of elements where one rounding and two give different numbers), and the
# routine is not used if no block size works.

# (axpy name, get-num-threads name, C integer type of n and the strides): scipy-openblas64
# (NumPy >= 2 wheels), scipy-openblas32, an OpenBLAS built with 64-bit integers.
_NAMES = (("scipy_cblas_{}axpy64_", "scipy_openblas_get_num_threads64_", ctypes.c_int64),
          ("scipy_cblas_{}axpy", "scipy_openblas_get_num_threads", ctypes.c_int32),
          ("cblas_{}axpy64_", "openblas_get_num_threads64_", ctypes.c_int64))
_CHUNK = 8192       # elements per call with more than one BLAS thread (OpenBLAS: <= 10,000)
# x = 1 + 2**-k, a = 1 - 2**-k, y = -1: one rounding gives -2**-2k, two give 0
_PROBE_K = {"f": 13, "d": 27}


def _find():
    """({'f': (saxpy, block), 'd': (daxpy, block)}, threads function or None, largest n);
    None when NumPy's BLAS has no known axpy or no block size gives one rounding."""
    try:
        from numpy._core import _multiarray_umath as mod
    except ImportError:   # NumPy 1.x
        try:
            from numpy.core import _multiarray_umath as mod
        except ImportError:
            return None
    try:
        # dlsym on this handle also searches the libraries the module links: the BLAS
        lib = ctypes.CDLL(mod.__file__)
    except OSError:
        return None
    for pattern, threads_name, cint in _NAMES:
        fns = {}
        for char, cfloat in (("f", ctypes.c_float), ("d", ctypes.c_double)):
            fn = getattr(lib, pattern.format("s" if char == "f" else "d"), None)
            if fn is None:
                break
            fn.restype = None
            fn.argtypes = [cint, cfloat, ctypes.c_void_p, cint, ctypes.c_void_p, cint]
            block = _block(fn, char)
            if block is None:
                break
            fns[char] = (fn, block)
        if len(fns) == 2:
            threads = getattr(lib, threads_name, None)
            if threads is not None:
                threads.restype, threads.argtypes = ctypes.c_int, []
            return fns, threads, (1 << (8 * ctypes.sizeof(cint) - 1)) - 1
    return None


def _block(fn, char):
    """The smallest block size whose multiples ``fn`` runs with one rounding (checked at
    two lengths and an unaligned start), or None (a wrong integer width, no FMA...)."""
    k = _PROBE_K[char]
    one = np.ones(1, char)
    x1, a = one + np.ldexp(one, -k), float((one - np.ldexp(one, -k))[0])
    want = -np.ldexp(one, -2 * k)[0]
    try:
        for block in (8, 16, 32, 64, 128):
            ok = True
            for n, skip in ((block, 0), (3 * block + 5, 1)):
                x = np.full(n + skip, x1[0], char)
                y = np.full(n + skip, -1.0, char)
                fn(n, a, x[skip:].ctypes.data, 1, y[skip:].ctypes.data, 1)
                m = n - n % block
                ok = ok and bool((y[skip:skip + m] == want).all()) and y[0] == (
                    -1.0 if skip else want)
            if ok:
                return block
    except Exception:   # noqa: BLE001 - a foreign call that fails in any way: unused
        return None
    return None


_FOUND = _find()
AXPY = None if _FOUND is None else _FOUND[0]   # {'f': (saxpy, block), 'd': (...)}, or None
_THREADS = None if _FOUND is None else _FOUND[1]
_MAX_N = 0 if _FOUND is None else _FOUND[2]


_char, _addressof = ctypes.c_char, ctypes.addressof
# axpy_dense's dtypes, asked by identity (Note [dtypes by identity], ops/lean.py)
_F32, _F64 = np.dtype("float32"), np.dtype("float64")
_DENSE_F = None if AXPY is None else AXPY["f"]
_DENSE_D = None if AXPY is None else AXPY["d"]


def _address(a):
    """The address of contiguous array ``a``'s first element (``a.ctypes.data`` costs
    three times as much; it is the way for a read-only array)."""
    try:
        return _addressof(_char.from_buffer(a))
    except (TypeError, ValueError, BufferError):   # read-only, or not C-ordered
        return a.ctypes.data


def axpy_into(y, a, x):
    """``y += a * x`` with one rounding, in y's memory; False (nothing done) unless y and
    x are host float32/float64 arrays of one dtype, shape and dense layout (both C, or
    both Fortran, order) that do not overlap (Note [axpy's blocks and threads])."""
    if AXPY is None or type(y) is not np.ndarray or type(x) is not np.ndarray:
        return False
    entry = AXPY.get(y.dtype.char)
    if entry is None or x.dtype != y.dtype or x.shape != y.shape:
        return False
    if type(a) is not float:
        try:
            a = float(a)   # a NumPy number or an int (ctypes takes Python numbers only)
        except (TypeError, ValueError, OverflowError):
            return False
    try:
        # both writeable and row-major (from_buffer refuses anything else): the addresses
        # at once, without the flags objects (Note [an update in one call])
        return _axpy_at(y, a, x, entry, _addressof(_char.from_buffer(y)),
                        _addressof(_char.from_buffer(x)))
    except (TypeError, ValueError, BufferError):
        pass
    yfl, xfl = y.flags, x.flags
    if not (yfl.writeable and ((yfl.c_contiguous and xfl.c_contiguous)
                               or (yfl.f_contiguous and xfl.f_contiguous))):
        return False
    if not y.size:
        return True
    return _axpy_at(y, a, x, entry, _address(y), _address(x))


def axpy_dense(y, a, x):
    """``axpy_into(y, a, x)`` for an optimizer's update (Note [an update in one call]):
    the same answer, with the commonest case (two writeable row-major host arrays of
    NumPy's builtin float32 or float64 dtype and one shape, a nonzero ``a``, whole
    blocks, memory apart, one BLAS call) made in this body."""
    dt = y.dtype
    entry = _DENSE_F if dt is _F32 else _DENSE_D if dt is _F64 else None
    if entry is None or x.dtype is not dt or x.shape != y.shape or a == 0.0:
        return axpy_into(y, a, x)
    try:
        yp = _addressof(_char.from_buffer(y))
        xp = _addressof(_char.from_buffer(x))
    except (TypeError, ValueError, BufferError):
        return axpy_into(y, a, x)
    fn, block = entry
    n = y.size
    nbytes = y.nbytes
    if (n % block or n > _MAX_N or (n > _CHUNK and (_THREADS is None or _THREADS() != 1))
            or (xp < yp + nbytes and yp < xp + nbytes)):
        return _axpy_at(y, a, x, entry, yp, xp)   # a tail, threads, overlap: as always
    fn(n, a, xp, 1, yp, 1)
    return True


# Note [an update in one call]
# An optimizer's ``p.sub_(g, alpha=lr)`` comes here once per parameter per step, after a
# step's big matrix products have pushed the interpreter's own data out of the CPU's
# caches, so each attribute read and call costs several times what it costs in a loop of
# small updates. The common case, two writeable row-major arrays, is recognised by
# ctypes itself: ``c_char.from_buffer`` accepts exactly those (and refuses an empty, a
# read-only or a strided array) and gives the address that BLAS needs in the same call.
# Everything else is asked of the flags, as before. ``axpy_dense`` (the update's entry,
# ops/inplace.py) goes one step further for NumPy's builtin float dtypes, asked by
# identity: whole blocks, one thread's call, memory apart, so one BLAS call in its own
# body; any other case is axpy_into's or _axpy_at's, the same answers.

def _axpy_at(y, a, x, entry, yp, xp):
    """axpy_into's call: ``y += a * x`` for dense arrays of one layout at addresses yp,
    xp (y's elements, then x's, in memory order)."""
    n = y.size
    if n > _MAX_N:
        return False
    if a == 0.0:
        # BLAS returns at once for a zero alpha; fma(0, x, y) is y + (0 * x), NaN where x
        # is infinite or NaN and +0 for y = -0: exact in NumPy, one rounding of nothing
        np.add(y, x * 0.0, out=y)
        return True
    nbytes = y.nbytes
    if xp < yp + nbytes and yp < xp + nbytes:
        return False   # overlapping memory: axpy's order of writes would show
    fn, block = entry
    m = n - n % block
    if m <= _CHUNK or (_THREADS is not None and _THREADS() == 1):
        if m:
            fn(m, a, xp, 1, yp, 1)
    else:
        size = y.itemsize
        for i in range(0, m, _CHUNK):
            fn(min(_CHUNK, m - i), a, xp + i * size, 1, yp + i * size, 1)
    if m < n:   # the tail (in memory order: both dense, in one order) as a padded block
        pads = getattr(_PADS, y.dtype.char, None) or _new_pads(y.dtype, block)
        size = y.itemsize
        tail, r = m * size, (n - m) * size
        _memmove(pads[0], xp + tail, r)
        _memmove(pads[1], yp + tail, r)
        fn(block, a, pads[0], 1, pads[1], 1)   # what lies past r in the pads is unused
        _memmove(yp + tail, pads[1], r)
    return True


_PADS = threading.local()   # per thread, per dtype char: (x pad address, y pad address, pads)
_memmove = ctypes.memmove


def _new_pads(dtype, block):
    px, py = np.zeros(block, dtype), np.zeros(block, dtype)
    pads = (_address(px), _address(py), px, py)   # the arrays keep the memory alive
    setattr(_PADS, dtype.char, pads)
    return pads


def add_scaled(a, b, alpha):
    """``a + alpha * b`` (broadcast) with one rounding per element, as a new array in
    the dtype of the two (float32 with float64 is float64, as an in-place op's promoted
    computation is); None when a and b are not host float32/float64 arrays or there is
    no BLAS."""
    if AXPY is None or type(a) is not np.ndarray or type(b) is not np.ndarray:
        return None
    dt = a.dtype
    if b.dtype != dt:
        if b.dtype.char not in AXPY:
            return None
        dt = np.promote_types(dt, b.dtype)
        b = b.astype(dt, copy=False)
    if dt.char not in AXPY:
        return None
    shape = a.shape if a.shape == b.shape else np.broadcast_shapes(a.shape, b.shape)
    out = np.empty(shape, dt)
    np.copyto(out, a)
    if b.shape != shape or not b.flags.c_contiguous:
        b = np.ascontiguousarray(np.broadcast_to(b, shape))
    return out if axpy_into(out, alpha, b) else None


def fma_float32(a, b, c):
    """``a * b + c`` for float32 arrays (broadcast) with one rounding, exactly (Note [one
    rounding of a float32 fma]); None unless a, b and c are host float32 arrays."""
    if not all(type(v) is np.ndarray and v.dtype == np.float32 for v in (a, b, c)):
        return None
    shape = a.shape
    if not (b.shape == shape and c.shape == shape and a.flags.c_contiguous
            and b.flags.c_contiguous and c.flags.c_contiguous):
        a, b, c = (np.ascontiguousarray(np.broadcast_to(v, np.broadcast_shapes(
            a.shape, b.shape, c.shape))) for v in (a, b, c))
    out = np.empty(a.shape, np.float32)
    af, bf, cf, of = a.reshape(-1), b.reshape(-1), c.reshape(-1), out.reshape(-1)
    n = af.size
    m = min(n, _FMA_BLOCK)
    r = np.empty(m, np.float64)   # one block's float64 sums, and their bits
    bits, t = r.view(np.uint64), np.empty(m, np.uint64)
    mid, tiny = np.empty(m, bool), np.empty(m, bool)
    for i in range(0, n, _FMA_BLOCK):
        j = min(i + _FMA_BLOCK, n)
        k = j - i
        rk, bk, tk, mk, nk = r[:k], bits[:k], t[:k], mid[:k], tiny[:k]
        np.multiply(af[i:j], bf[i:j], out=rk, dtype=np.float64)   # exact: 24 + 24 bits
        np.add(rk, cf[i:j], out=rk, dtype=np.float64)             # rounded once, to 53
        of[i:j] = rk                                              # rounded to 24
        np.bitwise_and(bk, _LOW29, out=tk)
        np.equal(tk, _MIDPOINT, out=mk)          # on a float32 midpoint
        np.bitwise_and(bk, _NO_SIGN, out=tk)
        np.subtract(tk, _ONE_EXP, out=tk)        # (0 wraps round: exact zeros are left)
        np.less(tk, _BELOW_FLOAT32, out=nk)      # a float32 subnormal (its own midpoints)
        np.logical_or(mk, nk, out=mk)
        if mk.any():
            _round_once(af[i:j], bf[i:j], cf[i:j], rk, of[i:j], mk)
    return out


# Note [one rounding of a float32 fma]
# The product of two float32s is exact in float64 (24 + 24 bits), so ``a * b + c`` in
# float64 is rounded once, to 53 bits, and then again to float32's 24: the two roundings
# give the one correct rounding except where the float64 sum lands exactly on a float32
# midpoint (or in float32's subnormal range, whose midpoints lie elsewhere) while the exact
# sum does not: there the second rounding ties to even. So each block of elements is
# rounded twice at full speed, and only those candidates (rarely any) are redone: the
# float64 sum's error is recovered exactly (Knuth's TwoSum) and the sum nudged one float64
# step the way the error points before its one rounding to float32. Blocks of 16,384
# keep the float64 temporaries in the CPU's cache (an Adam step on a 512 x 512 weight:
# 1.2 ms per fma against 17 ms for whole-array passes, measured in bench/README.md).

_FMA_BLOCK = 16384
_LOW29, _MIDPOINT = np.uint64(0x1FFFFFFF), np.uint64(0x10000000)
_NO_SIGN, _ONE_EXP = np.uint64(0x7FFFFFFFFFFFFFFF), np.uint64(1 << 52)
_BELOW_FLOAT32 = np.uint64(896 << 52)   # float64 exponents below float32's smallest normal


def _round_once(a, b, c, r, out, where):
    """Redo ``out[where] = fl32(a * b + c)`` with one rounding, for the candidates
    ``where`` of Note [one rounding of a float32 fma] (``r``: the float64 sums)."""
    idx = np.nonzero(where)
    f64 = np.float64
    p = a[idx].astype(f64) * b[idx].astype(f64)
    s = c[idx].astype(f64)
    rr = r[idx]
    bv = rr - s
    err = (s - (rr - bv)) + (p - bv)
    with np.errstate(invalid="ignore", over="ignore"):
        nudged = np.where(err != 0, np.nextafter(rr, np.copysign(np.inf, err)), rr)
    out[idx] = nudged.astype(np.float32)
