"""``python -m viewgrad`` is the ``viewgrad`` command."""
import sys

from viewgrad_cli.main import main

sys.exit(main())
