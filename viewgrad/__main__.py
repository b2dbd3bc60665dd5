"""``python -m viewgrad`` is the ``viewgrad`` command (the installed ``viewgrad_cli``)."""
import sys

try:
    from viewgrad_cli.main import main
except ImportError as e:  # viewgrad imported from a folder without being installed
    if e.name not in ("viewgrad_cli", "viewgrad_cli.main"):
        raise
    sys.exit("python -m viewgrad: the command line (package viewgrad_cli) is not installed; "
             "install viewgrad with `pip install -e .` in its checkout")

sys.exit(main())
