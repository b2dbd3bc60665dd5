"""No module of viewgrad but the array backends touches numpy (or cupy) directly.

DESIGN §10: "No tensor code calls numpy directly outside backend.py, so the CUDA path is
the same code." This test reads the source of every module under ``viewgrad/`` (with
``ast``, nothing is imported) and fails on:

  * ``import numpy`` / ``from numpy... import`` / ``import cupy`` / ``cupyx`` (also through
    ``__import__`` or ``importlib.import_module``);
  * any use of a name ``np``, ``numpy``, ``cupy`` or ``cp`` (e.g. ``np.zeros``), however it
    was bound;
  * an attribute ``.np``, ``.cupy`` or ``.cupyx`` (numpy reached through another
    module: ``B.np.empty``);
  * calls to ``backend.host_numpy()``, the one escape hatch to host numpy.

Exempt: the array backends themselves (the ``backend/`` package, ``strict.py``,
``blas.py``), and the tiny
ALLOWLIST below of host-side code that never sees a device array. What to do instead:
use the device's array module (``B.xp_of(arr)``, ``tensor._device.xp``), or a backend
helper (``B.expand_view``, ``B.host_zeros``, ``B.unravel_index``, ...), adding one to
the backend package when none fits.
"""
import ast
import pathlib

import pytest

pytestmark = pytest.mark.once   # reads source files: the same on every device pass

ROOT = pathlib.Path(__file__).resolve().parent.parent / "viewgrad"

BACKENDS = {"strict.py", "blas.py"}
BACKEND_PACKAGE = "backend/"   # every room of the backend package (devices, dtypes, ...)
ALLOWLIST = {
    # path relative to viewgrad/ -> why it may use host numpy (via B.host_numpy() only)
    "printing.py": "formats a HOST copy of the data (dev.to_host) with numpy's "
                   "array2string; it never sees a device array",
    "ops/streams.py": "draws PyTorch's CPU random streams into HOST arrays (the numbers "
                      "are made on the host, as PyTorch's are); ops/random.py copies them "
                      "to the device",
}
BANNED_MODULES = ("numpy", "cupy", "cupyx")
BANNED_NAMES = {"np", "numpy", "cupy", "cp", "cupyx"}
# (not ``.numpy``: Tensor.numpy() is a method; nor ``.cp``)
BANNED_ATTRIBUTES = {"np", "cupy", "cupyx"}


def _banned_module(name):
    return name is not None and name.split(".")[0] in BANNED_MODULES


def leaks(source, filename="<src>", allow_host_numpy=False):
    """[(line, what)] of every direct numpy/cupy use in ``source``."""
    found = []
    tree = ast.parse(source, filename)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if _banned_module(a.name):
                    found.append((node.lineno, f"import {a.name}"))
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and _banned_module(node.module):
                found.append((node.lineno, f"from {node.module} import ..."))
        elif isinstance(node, ast.Call):
            f = node.func
            fname = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            if fname in ("__import__", "import_module") and node.args and isinstance(
                    node.args[0], ast.Constant) and isinstance(node.args[0].value, str) and \
                    _banned_module(node.args[0].value):
                found.append((node.lineno, f"{fname}({node.args[0].value!r})"))
            if fname == "host_numpy" and not allow_host_numpy:
                found.append((node.lineno, "host_numpy() outside the allowlist"))
        elif isinstance(node, ast.Name) and node.id in BANNED_NAMES and not allow_host_numpy:
            found.append((node.lineno, f"name {node.id!r}"))
        elif isinstance(node, ast.Attribute) and node.attr in BANNED_ATTRIBUTES:
            # numpy reached through another module (``B.np.empty``): a back door
            found.append((node.lineno, f"attribute {node.attr!r}"))
    return sorted(set(found))


def _modules():
    for p in sorted(ROOT.rglob("*.py")):
        rel = p.relative_to(ROOT).as_posix()
        if rel not in BACKENDS and not rel.startswith(BACKEND_PACKAGE):
            yield rel


def test_the_scan_sees_leaks():
    bad = ("import numpy as np\nfrom numpy.lib.stride_tricks import as_strided\n"
           "import cupy\nx = np.zeros(3)\nm = __import__('numpy')\n"
           "h = B.host_numpy()\ny = B.np.empty(3)\n")
    what = [w for _, w in leaks(bad)]
    assert "import numpy" in what and "import cupy" in what
    assert "from numpy.lib.stride_tricks import ..." in what
    assert "name 'np'" in what and "__import__('numpy')" in what
    assert "host_numpy() outside the allowlist" in what
    assert "attribute 'np'" in what
    assert leaks("import numbers\nfrom .backend import xp_of\nx = xp_of(a).zeros(3)\n") == []


@pytest.mark.parametrize("rel", list(_modules()))
def test_no_numpy_outside_backend(rel):
    src = (ROOT / rel).read_text(encoding="utf-8")
    found = leaks(src, rel, allow_host_numpy=rel in ALLOWLIST)
    if rel in ALLOWLIST:
        # even allowlisted modules get host numpy only through backend.host_numpy()
        found = [(ln, w) for ln, w in found if w.startswith(("import", "from", "__import__",
                                                               "import_module"))]
    assert not found, (
        f"viewgrad/{rel} uses numpy/cupy directly:\n" +
        "\n".join(f"  line {ln}: {w}" for ln, w in found) +
        "\nOnly viewgrad/backend/ (and the strict test backend) may: use the device's "
        "array module (B.xp_of(arr) or tensor._device.xp) or a backend helper instead — "
        "see tests/test_no_numpy_leaks.py's docstring.")
