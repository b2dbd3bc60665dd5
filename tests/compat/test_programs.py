"""PyTorch-style programs (``programs/*.py``) give PyTorch's numbers on viewgrad.

Each program runs with ``import torch`` resolved to viewgrad (``viewgrad.compat``), then
on real PyTorch, from the same seed (``harness.py`` says how programs are written and
compared). Skipped, with the reason, when PyTorch is not installed.
"""
import pathlib

import pytest

from .harness import check_program

pytestmark = pytest.mark.once   # the programs use the default device; one pass is enough

PROGRAMS = sorted(p for p in (pathlib.Path(__file__).parent / "programs").glob("*.py")
                  if not p.name.startswith("_"))


def test_there_are_enough_programs():
    assert len(PROGRAMS) >= 30, [p.name for p in PROGRAMS]


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_program_gives_torchs_numbers(path):
    pytest.importorskip("torch", reason="PyTorch (the test-only oracle) is not installed")
    check_program(path, seed=0)


def test_the_comparison_can_fail():
    import numpy as np
    from .harness import compare, normalize_error, to_plain
    compare(to_plain({"a": [1.0, np.ones(2)]}), to_plain({"a": [1.0, np.ones(2)]}))
    for ours, theirs in [({"a": 1.0}, {"a": 1.1}), ({"a": np.ones(2)}, {"a": np.zeros(2)}),
                         ({"a": "x"}, {"a": "y"}), ({"a": 1}, {"b": 1}),
                         ({"e": RuntimeError("one thing")}, {"e": RuntimeError("another")})]:
        with pytest.raises(AssertionError):
            compare(to_plain(ours), to_plain(theirs))
    assert normalize_error("... [torch.FloatTensor [3]], which is output 0 of Exp, is at "
                           "version 1; expected version 0 instead. Hint: x") == \
        normalize_error("... [float32 [3]], which is output 0 of ExpBackward0, is at "
                        "version 1; expected version 0 instead. Hint: y\nblame")
