"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode.

The state is a module global (``enabled``) read once per op on the hot path. Each mode is
both a context manager and a decorator, as in PyTorch.
"""
from __future__ import annotations

import functools

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled", "is_inference_mode_enabled"]

enabled = True          # grad mode
inference = False       # inference mode (implies grad mode off)
warn_nonleaf_grad = True


def is_grad_enabled() -> bool:
    return enabled


def is_inference_mode_enabled() -> bool:
    return inference


class _Mode:
    """Base: subclasses say what to set in ``_enter``; state is restored on exit."""

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(*self._args):
                return fn(*args, **kwargs)
        return wrapper

    _args = ()

    def __enter__(self):
        global enabled, inference
        self._prev = (enabled, inference)
        self._enter()
        return self

    def __exit__(self, *exc):
        global enabled, inference
        enabled, inference = self._prev
        return False


class no_grad(_Mode):
    """Disable gradient recording: ops inside build no graph."""

    def _enter(self):
        global enabled
        enabled = False


class enable_grad(_Mode):
    def _enter(self):
        global enabled
        enabled = True


class set_grad_enabled(_Mode):
    def __init__(self, mode: bool):
        global enabled
        self._args = (mode,)
        self._mode = bool(mode)
        # Like PyTorch, calling it as a function (not in `with`) sets the mode at once.
        self._prev = (enabled, inference)
        enabled = self._mode

    def _enter(self):
        global enabled
        enabled = self._mode

    def __enter__(self):
        global enabled
        self._enter()
        return self


class inference_mode(_Mode):
    """Like no_grad; tensors made inside are inference tensors (see Tensor.is_inference)."""

    def __init__(self, mode: bool = True):
        self._args = (mode,)
        self._mode = bool(mode)

    def _enter(self):
        global enabled, inference
        if self._mode:
            enabled = False
            inference = True
