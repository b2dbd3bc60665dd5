"""Fixtures for the REPL tests: an isolated history file and tutorials folder, the cpu
device, and the tracer (the real one when this checkout has it, else
``fake_tracer.py``). Helpers to drive sessions are in ``replkit.py``."""
from __future__ import annotations

import pytest

from .replkit import close_sessions, real_tracer_available


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("VIEWGRAD_HISTORY", str(tmp_path / "history"))
    monkeypatch.setenv("VIEWGRAD_TUTORIALS", str(tmp_path / "no-tutorials"))
    monkeypatch.chdir(tmp_path)
    from viewgrad import backend
    from viewgrad.autograd import observe
    # the REPL is device-independent (tests are marked `once`); pin cpu so that a run whose
    # first device pass is another one still prints what a person sees by default
    pin = hasattr(backend, "set_default_device")
    if pin:
        previous = backend.get_default_device()
        backend.set_default_device("cpu")
    yield
    if pin:
        backend.set_default_device(previous)
    close_sessions()  # their tracers stop: no test may leave one recording (root conftest)


@pytest.fixture(autouse=True)
def tracer_backend(monkeypatch):
    """'real' or 'fake': which tracer the REPL under test talks to."""
    if real_tracer_available():
        return "real"
    from viewgrad_cli import tracing
    from . import fake_tracer

    def _module(name):
        if name in fake_tracer.MODULES:
            return fake_tracer.MODULES[name]
        raise tracing.TraceUnavailable(name)

    monkeypatch.setattr(tracing, "_module", _module)
    monkeypatch.setattr(tracing, "make_tracer", lambda ns: fake_tracer.FakeTracer(ns))
    return "fake"
