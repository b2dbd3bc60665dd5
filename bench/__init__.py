"""viewgrad benchmarks (issue 9): viewgrad vs hand-written NumPy vs PyTorch CPU.

Run from the repository root::

    python -m bench            # full run, BLAS pinned to 1 thread, + a default-threads pass
    python -m bench --quick    # small sizes, a few rounds (< 60 s; the smoke test uses it)

``bench/run.py`` is the runner (argument parsing, thread pinning, printing, JSON);
``bench/harness.py`` the interleaved timer; ``bench/workloads.py`` the workloads, each with
its viewgrad, NumPy and torch versions of the same math; ``bench/profile.py`` the cProfile
helper. Nothing here is a timed test: ``tests/bench`` only checks that the engines agree.

This package must not import numpy at import time: the runner has to set the BLAS thread
environment variables before numpy loads OpenBLAS.
"""
