"""``python -m viewgrad`` is the ``viewgrad`` command."""
import sys

try:
    from viewgrad_cli.main import main
except ImportError:  # a source checkout that is not installed: cli/ sits next to viewgrad/
    import importlib.util
    import os
    _cli = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "cli")
    _spec = importlib.util.spec_from_file_location(
        "viewgrad_cli", os.path.join(_cli, "__init__.py"), submodule_search_locations=[_cli])
    _mod = importlib.util.module_from_spec(_spec)
    sys.modules["viewgrad_cli"] = _mod
    _spec.loader.exec_module(_mod)
    from viewgrad_cli.main import main

sys.exit(main())
