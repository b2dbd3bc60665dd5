"""BLAS / torch thread pinning and reporting (threadpoolctl is not installed).

OpenBLAS, MKL and OpenMP read their thread count from the environment when the library
is loaded, i.e. when numpy (or torch) is first imported. So ``pin_env`` must run before
that; ``blas_info`` then asks the loaded OpenBLAS itself (through ctypes, the way
threadpoolctl does) which kernel it picked and how many threads it will use, so the
report states what really ran rather than what we asked for.
"""
from __future__ import annotations

import ctypes
import glob
import os
import sys

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
# Set on some processors of this workplace to work around old OpenBLAS bugs; they slow a
# current numpy. The README's benchmark command unsets them for that command only.
CORETYPE_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def pin_env(n: int = 1) -> bool:
    """Ask every BLAS/OpenMP runtime for ``n`` threads. Returns False (and changes
    nothing) when numpy is already imported, since the variables would come too late."""
    if "numpy" in sys.modules:
        return False
    for v in THREAD_VARS:
        os.environ[v] = str(n)
    return True


def unpinned_env() -> dict:
    """A copy of the environment without the thread variables (for the default-threads
    subprocess)."""
    env = dict(os.environ)
    for v in THREAD_VARS:
        env.pop(v, None)
    return env


def _openblas_lib():
    import numpy as np
    libdir = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
    for pattern in ("*openblas*.so*", "*openblas*.dylib", "*openblas*.dll"):
        hits = glob.glob(os.path.join(libdir, pattern))
        if hits:
            return ctypes.CDLL(hits[0])
    return None


def _call(lib, names, restype):
    for n in names:
        f = getattr(lib, n, None)
        if f is not None:
            f.restype = restype
            return f()
    return None


def set_blas_threads(n: int) -> bool:
    """Fallback when numpy was imported before ``pin_env``: set OpenBLAS' thread count
    through its C API."""
    lib = _openblas_lib()
    if lib is None:
        return False
    for name in ("scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_",
                 "openblas_set_num_threads"):
        f = getattr(lib, name, None)
        if f is not None:
            f.argtypes = [ctypes.c_int]
            f(n)
            return True
    return False


def blas_info() -> dict:
    """What numpy's BLAS really is right now: config string, kernel (core) name, threads."""
    info = {"env": {v: os.environ.get(v) for v in THREAD_VARS + CORETYPE_VARS}}
    try:
        lib = _openblas_lib()
    except Exception as e:  # pragma: no cover - exotic numpy builds
        info["error"] = repr(e)
        return info
    if lib is None:
        info["blas"] = "not OpenBLAS (no numpy.libs/*openblas*)"
        return info
    cfg = _call(lib, ("scipy_openblas_get_config64_", "openblas_get_config64_",
                      "openblas_get_config"), ctypes.c_char_p)
    core = _call(lib, ("scipy_openblas_get_corename64_", "openblas_get_corename64_",
                       "openblas_get_corename"), ctypes.c_char_p)
    nthr = _call(lib, ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_",
                       "openblas_get_num_threads"), ctypes.c_int)
    info["blas"] = "OpenBLAS"
    info["config"] = cfg.decode() if cfg else None
    info["corename"] = core.decode() if core else None
    info["num_threads"] = nthr
    return info


def torch_info(torch) -> dict:
    return {"version": torch.__version__, "num_threads": torch.get_num_threads(),
            "num_interop_threads": torch.get_num_interop_threads()}
