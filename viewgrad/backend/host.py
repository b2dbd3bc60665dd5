"""Host helpers: for code that works on host copies of data (gradcheck, printing, the
random streams, files), never on device arrays — PyTorch's CPU random engine and
``linspace``, and .npz files and archives (nothing is pickled). They exist so that no
module outside the backends needs to import numpy (tests/test_no_numpy_leaks.py)."""
from __future__ import annotations

import numpy as np

from .dtypes import float64

__all__ = ["host_mt19937", "torch_linspace", "host_rng", "is_host_array", "host_array",
           "host_zeros", "host_allclose", "unravel_index", "save_npz", "load_npz",
           "save_archive", "load_archive"]


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
    each with one rounding (PyTorch's fused multiply-add, emulated exactly: backend/
    ranges.py), or for float16 a rounding after each operation, as c10::Half's — so
    ``linspace(-1, 1, 7)[3]`` is PyTorch's -2.9802e-08, not 0."""
    dtype = np.dtype(dtype)
    if dtype == np.float16:   # (a double reaches c10::Half through float: two roundings)
        start, end = np.float32(start), np.float32(end)
    start, end = dtype.type(start), dtype.type(end)   # PyTorch casts the ends first
    if steps == 1:
        return np.array([start], dtype=dtype)
    if dtype.kind == "f":
        step = np.longdouble((end - start) / dtype.type(steps - 1))  # in the dtype
    else:
        step = np.longdouble((float(end) - float(start)) / (steps - 1))
    first = np.arange(steps) < steps // 2
    if dtype != np.float16:   # float32 fuses in float32, float64 and the integers in double
        from .ranges import _fma32, _fma64
        fma, acc = (_fma32, np.float32) if dtype == np.float32 else (_fma64, np.float64)
        i = np.arange(steps).astype(acc)
        st = acc(step)
        with np.errstate(all="ignore"):
            out = np.where(first, fma(st, i, acc(start)),
                           fma(-st, acc(steps - 1) - i, acc(end)))
        return out.astype(dtype)
    # float16: c10::Half's operators compute in float and round each result to Half, an
    # int operand becoming a Half first: no fusing, a rounding per operation
    f32, h = np.float32, (lambda x: np.asarray(x, dtype=np.float32).astype(np.float16))
    s, e = start, end
    st = h(f32(h(f32(e) - f32(s))) / f32(h(steps - 1)))
    up = h(f32(s) + f32(h(f32(st) * f32(h(np.arange(steps))))))
    down = h(f32(e) - f32(h(f32(st) * f32(h(steps - 1 - np.arange(steps))))))
    return np.where(first, up, down)


def host_rng(seed):
    """A host random bit generator (numpy's PCG64) started from ``seed`` (None: from the
    system's entropy). viewgrad draws random numbers on the host and copies them to the
    device (ops/random.py), so a seed gives the same numbers on every device."""
    return np.random.default_rng(seed)


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

