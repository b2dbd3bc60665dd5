"""Note [every thread plain] (autograd/state.py): the gate the lean paths read first, the
set ``odd_threads``, is empty only while every thread's ``plain`` is 2, so a thread that is not plain
(no_grad, inference mode, anomaly mode, saved-tensor hooks, blame off, a backward
running) is never taken for a plain one, whatever the other threads do; and a thread that
ends while not plain does not keep the gate shut."""
import gc
import threading

import numpy as np
import pytest

import contextlib
import os

import viewgrad as vg
from viewgrad.autograd.graph import _NO_BLAME
from viewgrad.autograd.state import odd_threads, state


def _gate():
    """What the gate says, as the lean paths read it: 2 (every thread plain) or 0."""
    return 0 if odd_threads else 2


@contextlib.contextmanager
def _blame_off():
    vg.autograd.set_blame(False)
    try:
        yield
    finally:
        vg.autograd.set_blame(True)


# each mode that makes a thread not plain, made when entered (set_detect_anomaly(True)
# takes effect when called, as PyTorch's does)
_MODES = {"no_grad": vg.no_grad, "inference_mode": vg.inference_mode,
          "anomaly": lambda: vg.autograd.set_detect_anomaly(True),
          "hooks": lambda: vg.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t),
          "blame_off": _blame_off}


def _history():
    """A float32 tensor with a history: the lean paths' input."""
    return vg.tensor(np.linspace(-1, 1, 8, dtype=np.float32), requires_grad=True) * 1.0


def _lean_ops(y, c):
    """One op through each lean path that asks the gate: a number, a constant, a unary
    method, a reduction, a linear layer, cross-entropy."""
    outs = [y * 1.01, y - 1.65, y * c, y.tanh(), y.exp(), y.sum()]
    h = vg.nn.functional.linear(y.reshape(2, 4), vg.ones(3, 4, requires_grad=True),
                                vg.zeros(3, requires_grad=True))
    outs += [h, vg.nn.functional.cross_entropy(h, vg.tensor([0, 2]))]
    return outs


def test_the_gate_follows_this_thread():
    assert _gate() == 2
    with vg.no_grad():
        assert _gate() == 0
        with vg.enable_grad():
            assert _gate() == 2
        assert _gate() == 0
    assert _gate() == 2
    for mode in _MODES.values():
        with mode():
            assert _gate() == 0
        assert _gate() == 2
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(_gate()))   # a backward runs: grad mode off
    (x * 2.0).sum().backward()
    assert seen == [0] and _gate() == 2


@pytest.mark.parametrize("mode", sorted(_MODES))
def test_a_thread_not_plain_records_as_itself_while_another_records(mode):
    """One thread sits in ``mode`` while this one records: each gets its own answer from
    every lean path (the gate is shut while the other thread is not plain)."""
    inside, done = threading.Event(), threading.Event()
    theirs, errors = [], []
    y0, c = _history(), vg.full((8,), 2.0)

    def worker():
        try:
            with _MODES[mode]():
                inside.set()
                done.wait(10)
                theirs.extend(_lean_ops(_history() if mode != "no_grad" else y0, c))
        except BaseException as e:   # (reported below)
            errors.append(e)
            inside.set()

    t = threading.Thread(target=worker)
    t.start()
    assert inside.wait(10)
    try:
        assert _gate() == 0   # the other thread is not plain
        ours = _lean_ops(_history(), c)
        assert all(o.grad_fn is not None for o in ours)
    finally:
        done.set()
        t.join(10)
    assert not errors, errors
    if mode in ("no_grad", "inference_mode"):
        assert all(o.grad_fn is None for o in theirs)
    else:   # recorded, through the teaching path (which marks anomaly / skips blame)
        assert all(o.grad_fn is not None for o in theirs)
    if mode == "blame_off" and type(ours[3]._data) is np.ndarray:
        # no blame mark where a plain thread's lean path puts one (host arrays: the lean
        # paths' device)
        assert theirs[3].grad_fn._swhere is _NO_BLAME
        assert ours[3].grad_fn._swhere is not _NO_BLAME
    assert _gate() == 2


def test_this_thread_not_plain_while_others_are():
    """The converse: this thread in no_grad, another plain thread records meanwhile; the
    ops here must not record, although the other thread's may."""
    with vg.no_grad():
        assert _gate() == 0
        outs = []
        t = threading.Thread(target=lambda: outs.extend(_lean_ops(_history(), vg.ones(8))))
        t.start()
        t.join(10)
        assert all(o.grad_fn is not None for o in outs)
        y = _history()
        assert all(o.grad_fn is None for o in _lean_ops(y, vg.ones(8)))
    assert _gate() == 2


def test_a_thread_that_ends_not_plain_opens_the_gate_again():
    def worker():
        vg.set_grad_enabled(False)   # and never back: the thread just ends

    t = threading.Thread(target=worker)
    t.start()
    t.join(10)
    gc.collect()
    assert _gate() == 2
    assert all(o.grad_fn is not None for o in _lean_ops(_history(), vg.ones(8)))


def test_many_threads_switching_never_record_in_no_grad():
    """Threads entering and leaving no_grad over and over, each checking what its own ops
    record, in and out of the block (a lost update of the gate would let one record)."""
    errors = []
    c = vg.ones(8)

    def worker(seed):
        rng = np.random.default_rng(seed)
        try:
            for _ in range(60):
                y = _history()
                if rng.random() < 0.5:
                    with vg.no_grad():
                        bad = [o for o in (y * 1.01, y.tanh(), y * c) if o.grad_fn is not None]
                else:
                    bad = [o for o in (y * 1.01, y.tanh(), y * c) if o.grad_fn is None]
                if bad:
                    errors.append(bad)
        except BaseException as e:
            errors.append(e)

    ts = [threading.Thread(target=worker, args=(s,)) for s in range(6)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(30)
    assert not errors, errors[:3]
    gc.collect()
    assert _gate() == 2 and state.plain == 2


def _in_a_forked_child_while(hold, check):
    """Fork while a thread runs ``hold(ready, done)`` (it sets ``ready`` once in place);
    the child runs ``check()`` under a 5 s alarm (a deadlock kills it) and reports its
    truth through its exit code. Returns the child's wait status as exit ok or not."""
    import signal
    ready, done = threading.Event(), threading.Event()
    t = threading.Thread(target=hold, args=(ready, done))
    t.start()
    assert ready.wait(10)
    try:
        pid = os.fork()
        if pid == 0:   # the child: never return into pytest
            code = 1
            try:
                signal.alarm(5)
                code = 0 if check() else 1
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    finally:
        done.set()
        t.join(10)


_FORK = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork (POSIX)")


@_FORK
def test_a_forked_child_starts_the_gate_from_its_one_thread():
    """A thread sits in no_grad while the process forks: the child has only the forking
    thread, so its gate is open — ops there record, and no_grad still shuts it."""
    def hold(ready, done):
        with vg.no_grad():
            ready.set()
            done.wait(10)

    def check():
        ok = _gate() == 2
        with vg.no_grad():
            ok = ok and _gate() == 0 and (_history() * 1.01).grad_fn is None
        return ok and _gate() == 2 and (_history() * 1.01).grad_fn is not None

    assert _in_a_forked_child_while(hold, check)
    assert _gate() == 2


@_FORK
def test_a_forked_child_can_switch_modes_while_another_thread_switches():
    """Another thread entering and leaving no_grad as the process forks: the child (where
    that thread does not exist) starts from its own side and can enter and leave
    no_grad (no lock to be left held: the gate is the set)."""
    def hold(ready, done):
        ready.set()
        while not done.is_set():
            with vg.no_grad():
                pass

    def check():
        with vg.no_grad():
            ok = (_history() * 1.01).grad_fn is None and _gate() == 0
        return ok and (_history() * 1.01).grad_fn is not None and _gate() == 2

    assert _in_a_forked_child_while(hold, check)
