"""Repository-level pytest setup: the checkout's root is importable (``tests.cli.replkit``
and the other test helpers are imported as ``tests.…``). viewgrad and its command line
(``viewgrad_cli``) are imported as installed (``pip install -e '.[test]'``)."""
import os
import sys

_ROOT = os.path.dirname(os.path.abspath(__file__))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)
