"""Repository-level pytest setup.

When the package is not installed (running from a checkout with PYTHONPATH=.), make the
top-level `cli/` folder importable under its installed name `viewgrad_cli`.
"""
import importlib.util
import os
import sys

_ROOT = os.path.dirname(os.path.abspath(__file__))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)
try:
    import viewgrad_cli  # noqa: F401  (installed)
except ImportError:
    _spec = importlib.util.spec_from_file_location(
        "viewgrad_cli", os.path.join(_ROOT, "cli", "__init__.py"),
        submodule_search_locations=[os.path.join(_ROOT, "cli")])
    _mod = importlib.util.module_from_spec(_spec)
    sys.modules["viewgrad_cli"] = _mod
    _spec.loader.exec_module(_mod)
