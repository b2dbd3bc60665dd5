"""Every test runs on every test device (DESIGN §10, issue 8).

The session-scoped, autouse fixture ``device`` is parametrized over the devices of this
run, so ONE ``python -m pytest`` runs the whole suite once per device: first every test on
``cpu``, then every test on ``strict`` (pytest groups the items by the session-scoped
parameter), then on ``cuda``. While a device's pass runs it is the *default device*
(``viewgrad.backend.set_default_device``), so tests that never name a device — ``vg.tensor``,
``vg.randn``, ``vg.zeros``... — build their tensors on it.

* ``strict`` (``viewgrad/strict.py``) is numpy underneath with CuPy's manners: any host
  numpy leaking into the device path fails the test. It is what proves the CUDA path on
  machines without a GPU.
* ``cuda`` runs when CuPy and a GPU are usable; elsewhere its pass is left out, and the
  reason is shown in the report header and by the skipped ``tests/test_devices.py::
  test_cuda_pass`` (one line, not one skip per test).
* ``VIEWGRAD_TEST_DEVICES=cpu`` (a comma-separated list; also ``strict_nostride``, the
  strict device without ``as_strided``) picks the devices of a run.

A test that does not depend on the pass's device (it names its devices itself, or reads
source files) is marked ``@pytest.mark.once``: it runs in the first pass only and is
deselected in the others (counted as "deselected" in the summary).

Property-based (hypothesis) tests run their full ``max_examples`` in the first pass; in
the other passes they run a fraction of them (``VIEWGRAD_DEVICE_PASS_EXAMPLES``, default
0.2, at least 10). They are derandomized, so the device passes replay the first programs
of the cpu pass: enough to catch host code leaking into the device path (which any
program touching the op shows), without doubling the suite's slowest tests.

A test that only makes sense on the host (it checks numpy interop such as ``from_numpy``
memory sharing) is marked ``@pytest.mark.host_only("why")``: it runs on cpu and is skipped
on the other devices with that reason. Tests that need a specific device take the
``device`` fixture (its value is the device name of the current pass) or name devices
explicitly.
"""
import math
import os

import pytest

from viewgrad import backend as B

_DEFAULT_DEVICES = "cpu,strict,cuda"


def _unavailable(name):
    """None when device ``name`` can be used here, else why not."""
    try:
        B.device(name)
        return None
    except RuntimeError as e:
        return str(e)


REQUESTED = [d.strip() for d in os.environ.get("VIEWGRAD_TEST_DEVICES", _DEFAULT_DEVICES)
             .split(",") if d.strip()]
UNAVAILABLE = {d: why for d in REQUESTED if (why := _unavailable(d)) is not None}
DEVICES = [d for d in REQUESTED if d not in UNAVAILABLE]


def pytest_report_header(config):
    lines = [f"viewgrad test devices: {', '.join(DEVICES)} (VIEWGRAD_TEST_DEVICES="
             f"{','.join(REQUESTED)})"]
    lines += [f"viewgrad device '{d}' pass skipped: {why}" for d, why in UNAVAILABLE.items()]
    return lines


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "once: device-independent test, run in the first device pass only")
    config.addinivalue_line(
        "markers", "host_only(reason): run only on the cpu pass (numpy interop tests); "
        "skipped with the reason on the other devices")


@pytest.fixture(scope="session", autouse=True, params=DEVICES)
def device(request):
    """The device of this pass (its name); it is also the default device meanwhile."""
    name = request.param
    B.set_default_device(name)
    yield name
    B.set_default_device(None)


_FRACTION = float(os.environ.get("VIEWGRAD_DEVICE_PASS_EXAMPLES", "0.2"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """Fewer hypothesis examples in the passes after the first (see the module doc)."""
    fn = getattr(item.obj, "__func__", item.obj)
    conf = getattr(fn, "_hypothesis_internal_use_settings", None)
    dev = _pass_device(item)
    if conf is None or dev is None or dev == DEVICES[0] or _FRACTION >= 1:
        return (yield)
    from hypothesis import settings
    fn._hypothesis_internal_use_settings = settings(
        conf, max_examples=max(10, math.ceil(conf.max_examples * _FRACTION)))
    try:
        return (yield)
    finally:
        fn._hypothesis_internal_use_settings = conf


def _pass_device(item):
    callspec = getattr(item, "callspec", None)
    return callspec.params.get("device") if callspec is not None else None


def pytest_collection_modifyitems(config, items):
    first = DEVICES[0] if DEVICES else None
    keep, dropped = [], []
    for item in items:
        dev = _pass_device(item)
        if dev is not None and dev != first and item.get_closest_marker("once") is not None:
            dropped.append(item)
            continue
        keep.append(item)
        marker = item.get_closest_marker("host_only")
        if marker is not None and dev is not None and dev != "cpu":
            reason = marker.args[0] if marker.args else marker.kwargs.get("reason", "")
            item.add_marker(pytest.mark.skip(
                reason=f"host-only test, not run on '{dev}': {reason}"))
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


@pytest.fixture(autouse=True)
def _isolated_global_state():
    """Each test leaves viewgrad's global state as it found it: no tracer left recording
    (every later in-place op would be snapshotted: slow, and memory grows), and every
    switch of ``autograd.state`` at its default (grad mode on; inference, view replay and
    anomaly off; blame on). A test that leaks gets the state reset AND fails, naming what
    it left behind, so the leak is fixed where it happens."""
    from viewgrad.autograd.state import state, AutogradState
    yield
    leaks = []
    if state.inplace_observer is not None or state.backward_observer is not None or \
            state.view_observer is not None:
        leaks.append("a tracer still recording (stop it, or use `with vg.trace():`)")
        from viewgrad.trace import tracer as T
        for tr in list(T._HUB.tracers):
            T._HUB.remove(tr)
    for name, what in (("grad_enabled", "grad mode left off"),
                       ("inference", "inference mode left on"),
                       ("view_replay", "view replay left on"), ("anomaly", "anomaly mode left on"),
                       ("blame", "blame left off"),
                       ("inplace_observer", None), ("backward_observer", None),
                       ("view_observer", None)):
        if getattr(state, name) != getattr(AutogradState, name):
            if what is not None:
                leaks.append(what)
            setattr(state, name, getattr(AutogradState, name))
    if leaks:
        pytest.fail("test left global state behind: " + "; ".join(leaks))


@pytest.fixture(autouse=True)
def _warnings_not_yet_given():
    """Each test starts as a fresh process would: none of PyTorch's once-per-process
    warnings given yet (Note [warnings given once], viewgrad/ops/warn_once.py), so a test
    that expects one sees it whatever ran before."""
    from viewgrad.ops import warn_once
    warn_once._given.clear()
    yield
