"""Unmodified PyTorch programs — seeded only with ``torch.manual_seed`` / a
``torch.Generator``, as their authors wrote them (the autograd tutorial, d2l's linear
regression from scratch and concise, pytorch/examples' MNIST net on synthetic digits,
word_language_model's LSTM, makemore's MLP with BatchNorm by hand and sampling, a WGAN-GP
step, a nanoGPT block) — print the same output on viewgrad as on PyTorch: the same
initial weights, dropout masks, shuffles and samples (ops/streams.py), the same numbers,
the same tensor printing. Numbers are compared to 4 significant digits of relative
tolerance (float32 sums run in another order) and object addresses are ignored.
PyTorch is the oracle (skipped, saying why, when it is not installed)."""
import io
import pathlib
import re
import runpy
import sys
from contextlib import redirect_stdout

import pytest

from ..helpers import torch_or_skip

pytestmark = pytest.mark.once

HERE = pathlib.Path(__file__).parent / "seeded"
PROGRAMS = sorted(p.name for p in HERE.glob("*.py"))
_NUM = re.compile(r"-?\d+\.\d+(?:e[+-]?\d+)?|-?\d+e[+-]?\d+")


def _output(path, on_viewgrad):
    buf = io.StringIO()
    with redirect_stdout(buf):
        if on_viewgrad:
            from viewgrad.compat import torch_imports
            with torch_imports():
                runpy.run_path(str(path), run_name="__main__")
        else:
            runpy.run_path(str(path), run_name="__main__")
    return re.sub(r" at 0x[0-9a-f]+", "", buf.getvalue())


@pytest.mark.parametrize("name", PROGRAMS)
def test_seeded_program_prints_what_pytorch_prints(name):
    torch_or_skip()
    theirs = _output(HERE / name, False)
    ours = _output(HERE / name, True)
    assert _NUM.sub("#", ours) == _NUM.sub("#", theirs), "the text around the numbers differs"
    for a, b in zip(_NUM.findall(ours), _NUM.findall(theirs)):
        assert float(a) == pytest.approx(float(b), rel=1e-4, abs=1e-5), (a, b)
