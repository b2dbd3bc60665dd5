"""Note [one plain flag] (autograd/state.py): ``state.plain`` is always "grad mode on, no
inference mode, no anomaly mode, no saved-tensor hooks" (then 2 with blame on, 1 with it
off; else 0), however those were set."""
import itertools
import threading

import viewgrad as vg
from viewgrad.autograd.state import state


def _expected():
    if (state.grad_enabled and not state.inference and not state.anomaly
            and not state.saved_tensors_hooks):
        return 2 if state.blame else 1
    return 0


def test_plain_follows_every_combination_set_directly():
    fields = ("grad_enabled", "inference", "anomaly", "saved_tensors_hooks", "blame")
    values = {"grad_enabled": (True, False), "inference": (False, True),
              "anomaly": (False, True), "saved_tensors_hooks": ((), ((id, id),)),
              "blame": (True, False)}
    try:
        for combo in itertools.product(*(values[f] for f in fields)):
            for f, v in zip(fields, combo):
                setattr(state, f, v)
                assert state.plain == _expected()
    finally:
        for f in fields:
            if f in state.__dict__:
                delattr(state, f)   # back to the class defaults
                assert state.plain == _expected()
    assert state.plain == 2


def test_plain_follows_the_context_managers():
    assert state.plain
    with vg.no_grad():
        assert not state.plain
        with vg.enable_grad():
            assert state.plain
        assert not state.plain
    with vg.inference_mode():
        assert not state.plain
    with vg.autograd.set_detect_anomaly(True):
        assert not state.plain
    with vg.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        assert not state.plain
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(state.plain))   # inside backward: grad mode off
    (x * 2.0).sum().backward()
    assert seen == [0] and state.plain == 2


def test_plain_is_per_thread():
    seen = []
    with vg.no_grad():
        t = threading.Thread(target=lambda: seen.append(state.plain))
        t.start()
        t.join()
        assert not state.plain
    assert seen == [2] and state.plain == 2
