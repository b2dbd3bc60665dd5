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
