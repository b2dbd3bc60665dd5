"""The array module behind each device: NumPy on "cpu", CuPy on "cuda".

This package is the ONLY part of viewgrad that imports numpy (or cupy) for tensor data
(with the array backends ``strict.py`` and ``blas.py``). Every other module asks a
tensor's device for its array module (``dev.xp``) and calls that, so the CUDA path is the
same code as the CPU path. Everyone imports the package (``from .. import backend as
B``); its rooms are:

  * ``devices.py``  the devices, which one an array lives on, its array module (``xp_of``),
                    the array helpers that differ by device, Note [cached scalar operands];
  * ``dtypes.py``   dtype names, PyTorch's type promotion, casts, the default float dtype;
  * ``formats.py``  the memory formats (contiguous_format, channels_last...): their strides,
                    and the one a tensor's strides suggest;
  * ``strided.py``  PyTorch's result layouts and view strides on arrays (the arithmetic is
                    ``viewgrad/layouts.py``'s), arrays over a storage, broadcast shapes;
  * ``lapack.py``   linear algebra's errors, layouts and factorisations as PyTorch's;
  * ``host.py``     helpers for host copies: PyTorch's CPU random engine, .npz files;
  * ``ranges.py``   PyTorch's CPU arange and logspace values, bit for bit.
  * ``reductions.py`` sum, prod and mean whose floating-point warnings stay quiet (Note
                    [warnings from NumPy's own Python]), and ``quietly``.

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

import warnings

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

from .dtypes import *    # noqa: E402,F401,F403  (the package's names: each room's __all__)
from .devices import *   # noqa: E402,F401,F403
from .formats import *   # noqa: E402,F401,F403
from .strided import *   # noqa: E402,F401,F403
from .lapack import *    # noqa: E402,F401,F403
from .host import *      # noqa: E402,F401,F403
from .ranges import *    # noqa: E402,F401,F403
from .reductions import *  # noqa: E402,F401,F403
# (private names the rest of viewgrad reads, and the tests)
from .devices import _SCALAR_CACHE   # noqa: E402,F401  (Note [cached scalar operands])
from .dtypes import _DTYPE_ALIASES   # noqa: E402,F401
from .strided import _dev_of         # noqa: E402,F401
