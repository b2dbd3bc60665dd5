"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode.

The switches live in ``autograd.state.state`` (per thread, as PyTorch's grad mode): the ops
read ``state.grad_enabled`` once per op on the hot path. Each mode is both a context
manager and a decorator, as in PyTorch; leaving it restores what the thread had before.
"""
from __future__ import annotations

import functools

from .state import state as _st

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled", "is_inference_mode_enabled"]


def is_grad_enabled() -> bool:
    """Whether ops record a graph in this thread (``torch.is_grad_enabled``)."""
    return _st.grad_enabled


def is_inference_mode_enabled() -> bool:
    """Whether this thread is in inference mode (``torch.is_inference_mode_enabled``)."""
    return _st.inference


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
        self._prev = (_st.grad_enabled, _st.inference)
        self._enter()
        return self

    def __exit__(self, *exc):
        _st.grad_enabled, _st.inference = self._prev
        return False


class _NoParamMode(_Mode):
    """A mode without arguments is also a bare decorator: ``@no_grad`` as ``@no_grad()``
    (as PyTorch allows)."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamMode):
    """Disable gradient recording: ops inside build no graph (``torch.no_grad``; also a
    decorator, with or without parentheses)."""

    # (an optimizer's step runs one per step: one read and one write each way. Only grad
    # mode is restored, as PyTorch's no_grad restores it: inference mode is set only by
    # inference_mode, which gives its own back)
    def __enter__(self):
        st = _st
        self._prev = st.grad_enabled
        st.grad_enabled = False
        return self

    def __exit__(self, *exc):
        _st.grad_enabled = self._prev
        return False


class enable_grad(_NoParamMode):
    """Enable gradient recording inside a no_grad block (``torch.enable_grad``)."""

    def _enter(self):
        _st.grad_enabled = True


class set_grad_enabled(_Mode):
    """Set grad mode on or off (``torch.set_grad_enabled``): as a function it sets it at
    once; as a context manager it restores the previous mode on exit."""

    def __init__(self, mode: bool):
        self._args = (mode,)
        self._mode = bool(mode)
        # Like PyTorch, calling it as a function (not in `with`) sets the mode at once.
        self._prev = (_st.grad_enabled, _st.inference)
        _st.grad_enabled = self._mode

    def _enter(self):
        _st.grad_enabled = self._mode

    def __enter__(self):
        self._enter()
        return self

    def __call__(self, fn):
        # ``@set_grad_enabled(False)``: making the decorator set the mode at once; as in
        # PyTorch, decorating gives it back (only calls of ``fn`` run with the mode)
        _st.grad_enabled = self._prev[0]
        return super().__call__(fn)


class inference_mode(_Mode):
    """Like no_grad; tensors made inside are inference tensors (see Tensor.is_inference).

    ``torch.inference_mode``: ``inference_mode(False)`` inside it turns it off again."""

    def __init__(self, mode: bool = True):
        self._args = (mode,)
        self._mode = bool(mode)

    def _enter(self):
        if self._mode:
            _st.grad_enabled = False
            _st.inference = True
        else:
            # PyTorch: inference_mode(False) re-enables grad mode as it was outside
            _st.inference = False
            _st.grad_enabled = True
