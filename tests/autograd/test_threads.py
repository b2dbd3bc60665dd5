"""Grad mode, inference mode, anomaly mode and the tracer's slots are per thread
(``autograd.state``), as PyTorch's grad mode is thread-local.

Two threads are interleaved step by step with events, so each step runs while the other
thread is inside its ``no_grad`` / ``inference_mode`` / ``backward`` / tracer block.
"""
import threading

import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip


def _interleave(lib, inference):
    """Thread B enters no_grad (or inference_mode) and waits there; meanwhile the main
    thread records a graph and runs a backward; then B records (inside its block) and
    leaves. Returns what each side saw."""
    inside, done_a = threading.Event(), threading.Event()
    seen = {}

    def b():
        mode = lib.inference_mode() if inference else lib.no_grad()
        with mode:
            inside.set()
            done_a.wait(10)
            x = lib.ones(2, requires_grad=True)
            seen["b_in_block"] = (lib.is_grad_enabled(), (x * 2).requires_grad)
        seen["b_after"] = lib.is_grad_enabled()

    t = threading.Thread(target=b)
    t.start()
    assert inside.wait(10)
    x = lib.ones(2, requires_grad=True)
    y = (x * 3).sum()
    seen["a_while_b_in_block"] = (lib.is_grad_enabled(), y.requires_grad)
    y.backward()
    seen["a_grad"] = x.grad.tolist()
    done_a.set()
    t.join(10)
    seen["a_end"] = lib.is_grad_enabled()
    return seen


@pytest.mark.parametrize("inference", [False, True], ids=["no_grad", "inference_mode"])
def test_grad_mode_is_per_thread_like_torch(inference):
    torch = torch_or_skip()
    assert _interleave(vg, inference) == _interleave(torch, inference)
    assert _interleave(vg, inference)["a_while_b_in_block"] == (True, True)


def test_backward_in_one_thread_does_not_stop_recording_in_another():
    """The engine turns grad mode off while it runs: in this thread only."""
    started, go_on = threading.Event(), threading.Event()
    seen = {}

    class Slow(vg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            started.set()
            go_on.wait(10)  # the other thread records while this backward is running
            seen["in_backward"] = vg.is_grad_enabled()
            return g

    x = vg.ones(2, requires_grad=True)
    t = threading.Thread(target=lambda: Slow.apply(x).sum().backward())
    t.start()
    assert started.wait(10)
    z = vg.ones(2, requires_grad=True) * 2
    seen["other_thread"] = (vg.is_grad_enabled(), z.grad_fn is not None)
    go_on.set()
    t.join(10)
    assert seen == {"in_backward": False, "other_thread": (True, True)}
    assert x.grad.tolist() == [1.0, 1.0]


def test_new_thread_starts_with_defaults_and_anomaly_is_per_thread():
    seen = {}

    def other():
        seen["modes"] = (vg.is_grad_enabled(), vg.is_inference_mode_enabled(),
                         vg.autograd.is_anomaly_enabled())

    with vg.no_grad(), vg.autograd.set_detect_anomaly(True):
        t = threading.Thread(target=other)
        t.start()
        t.join(10)
        assert not vg.is_grad_enabled() and vg.autograd.is_anomaly_enabled()
    assert seen["modes"] == (True, False, False)


def test_tracer_records_only_its_own_thread():
    a = vg.tensor([1.0, 2.0], requires_grad=True)
    x, y = a * 1, a * 1
    with vg.trace() as tr:
        t = threading.Thread(target=lambda: y.mul_(2))
        t.start()
        t.join(10)
        x.add_(1)
    assert [e.op for e in tr.events] == ["add_"]
