"""Fixtures for the REPL tests: an isolated history file and tutorials folder, and the cpu
device. Helpers to drive sessions are in ``replkit.py``."""
from __future__ import annotations

import pytest

from .replkit import close_sessions


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("VIEWGRAD_HISTORY", str(tmp_path / "history"))
    monkeypatch.setenv("VIEWGRAD_TUTORIALS", str(tmp_path / "no-tutorials"))
    monkeypatch.chdir(tmp_path)
    from viewgrad import backend
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
