"""Run a PyTorch-style program twice — on viewgrad through ``import torch`` resolution and
on real PyTorch (the test-only oracle) — and compare what it reports.

A program (``programs/*.py``) is a plain PyTorch script with ``import torch``. It gets a
global ``SEED`` and builds every random input with NumPy from it (``rng =
np.random.default_rng(SEED)``), so both runs see the same numbers; parameters that
PyTorch would initialise randomly are overwritten from ``rng`` too. It stores what to
compare in a dict ``RESULTS`` (tensors, numbers, strings, nested lists/tuples/dicts), and
may set ``TOL`` (relative tolerance, default 1e-4) for long float32 training loops.

Error messages are compared by their PyTorch core (``normalize_error``): viewgrad's
message must contain PyTorch's, up to the spelling of dtypes (``[float32 [3]]`` for
``[torch.FloatTensor [3]]``), node names (``ExpBackward0`` where PyTorch 2.13 writes
``Exp``) and the hint, which names viewgrad's API and adds the blamed lines.
"""
from __future__ import annotations

import math
import re
import runpy

import numpy as np

_DTYPES = {"FloatTensor": "float32", "DoubleTensor": "float64", "LongTensor": "int64",
           "IntTensor": "int32", "BoolTensor": "bool", "HalfTensor": "float16"}


def run_program(path, on_viewgrad: bool, seed: int = 0) -> dict:
    """The program's globals after running it (on viewgrad, or on the real torch)."""
    if on_viewgrad:
        from viewgrad.compat import torch_imports
        with torch_imports():
            return runpy.run_path(str(path), init_globals={"SEED": seed},
                                  run_name="__program__")
    return runpy.run_path(str(path), init_globals={"SEED": seed}, run_name="__program__")


def normalize_error(msg: str) -> str:
    msg = msg.split(" Hint:")[0].split("\n")[0]
    msg = re.sub(r"torch\.(\w+Tensor)", lambda m: _DTYPES.get(m.group(1), m.group(1)), msg)
    msg = re.sub(r"of (\w+?)Backward\d\b", r"of \1", msg)
    return msg.strip()


def to_plain(v):
    """Tensors (either library's) to numpy arrays, containers recursively."""
    if hasattr(v, "detach") and hasattr(v, "shape") and not isinstance(v, np.ndarray):
        return np.asarray(v.detach().cpu().numpy())
    if isinstance(v, dict):
        return {k: to_plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [to_plain(x) for x in v]
    if isinstance(v, BaseException):
        return ("error", type(v).__name__, normalize_error(str(v)))
    return v


def compare(ours, theirs, tol=1e-4, where="RESULTS"):
    """Assert viewgrad's results equal PyTorch's (floats within ``tol``)."""
    if isinstance(theirs, dict):
        assert isinstance(ours, dict), f"{where}: {type(ours).__name__}, torch gave a dict"
        assert sorted(ours) == sorted(theirs), f"{where}: keys {sorted(ours)} != " \
                                               f"{sorted(theirs)}"
        for k in theirs:
            compare(ours[k], theirs[k], tol, f"{where}[{k!r}]")
    elif isinstance(theirs, tuple) and theirs and theirs[0] == "error":
        assert isinstance(ours, tuple) and ours[0] == "error", \
            f"{where}: torch raised {theirs[1]}: {theirs[2]!r}; viewgrad gave {ours!r}"
        assert ours[1] == theirs[1], f"{where}: {ours[1]} raised, torch raised {theirs[1]}"
        assert theirs[2] in ours[2], f"{where}: error message\n  viewgrad: {ours[2]!r}\n" \
                                     f"  torch:    {theirs[2]!r}"
    elif isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), \
            f"{where}: {ours!r} vs torch {theirs!r}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            compare(a, b, tol, f"{where}[{i}]")
    elif isinstance(theirs, np.ndarray):
        ours = np.asarray(ours)
        assert ours.shape == theirs.shape, f"{where}: shape {ours.shape} != torch " \
                                           f"{theirs.shape}"
        if theirs.dtype.kind in "fc":
            np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol, err_msg=where)
        else:
            np.testing.assert_array_equal(ours, theirs, err_msg=where)
    elif isinstance(theirs, float):
        assert isinstance(ours, (float, int)), f"{where}: {ours!r} vs torch {theirs!r}"
        assert math.isclose(ours, theirs, rel_tol=tol, abs_tol=tol) or (
            math.isnan(ours) and math.isnan(theirs)), f"{where}: {ours!r} vs torch {theirs!r}"
    else:
        assert ours == theirs, f"{where}: {ours!r} vs torch {theirs!r}"


def check_program(path, seed: int = 0):
    ours_ns = run_program(path, on_viewgrad=True, seed=seed)
    theirs_ns = run_program(path, on_viewgrad=False, seed=seed)
    assert "RESULTS" in theirs_ns, f"{path.name} sets no RESULTS"
    compare(to_plain(ours_ns["RESULTS"]), to_plain(theirs_ns["RESULTS"]),
            theirs_ns.get("TOL", 1e-4))
