"""Anomaly mode: remember where each node was created, and show it when its backward fails.

``with detect_anomaly():`` (or ``set_detect_anomaly(True)``) makes every new node store the
forward stack in ``node.metadata["traceback_"]``. When that node's backward raises (or,
with ``check_nan``, returns NaN), a warning prints "Error detected in XBackward0.
Traceback of forward call that caused the error: ...", as PyTorch does.
"""
from __future__ import annotations

import os
import traceback
import warnings

from .state import state as _st

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled"]



def _set(mode, check_nan=True):
    _st.anomaly = bool(mode)
    _st.anomaly_check_nan = bool(check_nan)


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on in this thread (``torch.is_anomaly_enabled``)."""
    return _st.anomaly


def is_anomaly_check_nan_enabled() -> bool:
    return _st.anomaly_check_nan


class detect_anomaly:
    """Context manager (and decorator) that turns anomaly detection on."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan

    def __enter__(self):
        self.prev = (_st.anomaly, _st.anomaly_check_nan)
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", stacklevel=2)
        _set(True, self.check_nan)
        return self

    def __exit__(self, *exc):
        _set(*self.prev)
        return False

    def __call__(self, fn):
        def wrapper(*a, **k):
            with detect_anomaly(self.check_nan):
                return fn(*a, **k)
        return wrapper


class set_detect_anomaly:
    """``set_detect_anomaly(True)`` turns it on now; also usable as a context manager."""

    def __init__(self, mode: bool, check_nan: bool = True):
        self.prev = (_st.anomaly, _st.anomaly_check_nan)
        _set(mode, check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _set(*self.prev)
        return False


_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def record_forward_stack(node):
    """Store the user's forward stack (viewgrad's own innermost frames dropped)."""
    frames = traceback.extract_stack()
    while frames and frames[-1].filename.startswith(_PKG):
        frames.pop()
    node.metadata["traceback_"] = "".join(traceback.format_list(frames))


def _warn(node):
    tb = (node._metadata or {}).get("traceback_")
    if tb is None:
        warnings.warn(f"Error detected in {node.name()}. No forward pass information available. "
                      "Enable detect anomaly during forward pass for more information.",
                      stacklevel=3)
    else:
        warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that "
                      f"caused the error:\n{tb}", stacklevel=3)


def run_with_anomaly(node, inputs):
    try:
        outputs = node.apply(inputs)
    except Exception:
        _warn(node)
        raise
    if _st.anomaly_check_nan:
        for i, g in enumerate(outputs):
            if g is not None and g._data.dtype.kind == "f" and bool(
                    g._device.xp.isnan(g._data).any()):
                _warn(node)
                raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th "
                                   "output.")
    return outputs
