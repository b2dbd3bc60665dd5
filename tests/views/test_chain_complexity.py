"""N chained views cost O(N), not O(N²) (issue 15: each view used to copy its parent's
whole view_fn chain, so 10,000 live chained views took 430 MB).

Complexity checks, never wall-clock: the memory the live views hold, per view, must not
grow with N; and the chain a view stores must be one link, shared with its parent.
"""
import gc
import tracemalloc

import pytest

import viewgrad as vg
from viewgrad.autograd.views import set_view_replay, is_view_replay_enabled


def _chain(n, how):
    b = vg.zeros(2 * n + 8, requires_grad=True).clone()
    views = []
    v = b
    for _ in range(n):
        v = v[1:] if how == "slice" else v.view(-1)
        views.append(v)
    return b, views


def _bytes_per_view(n, how):
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        b, views = _chain(n, how)
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    del b, views
    return (after - before) / n


@pytest.mark.parametrize("how", ["slice", "view"])
@pytest.mark.parametrize("replay", [False, True])
def test_chained_views_memory_is_linear(how, replay):
    prev = is_view_replay_enabled()
    set_view_replay(replay)
    try:
        small = _bytes_per_view(150, how)
        large = _bytes_per_view(1200, how)
    finally:
        set_view_replay(prev)
    # linear: the same bytes per view at 8x the length (quadratic would be ~8x more)
    assert large < 1.5 * small, (small, large)


def test_a_view_stores_one_link_shared_with_its_parent():
    b, views = _chain(50, "slice")
    v1, v2 = views[-2], views[-1]
    assert v2._view_info.chain.parent is v1._view_info.chain
    fns = v2._view_info.view_fns
    assert len(fns) == 50                        # still readable as the whole chain
    assert v2._view_info.replay(b).shape == v2.shape


def test_inplace_on_a_deep_chained_view_backward():
    # CopySlices and the stale views of a 300-deep chain still work (both modes)
    for replay in (False, True):
        prev = is_view_replay_enabled()
        set_view_replay(replay)
        try:
            x = vg.ones(700, requires_grad=True)
            b = x.clone()
            v = b
            for _ in range(300):
                v = v[1:]
            v.mul_(3)
            assert views_ok(b, v)
            b.sum().backward()
            assert x.grad[:300].tolist() == [1.0] * 300
            assert x.grad[300:].tolist() == [3.0] * 400
        finally:
            set_view_replay(prev)


def views_ok(b, v):
    name = type(b.grad_fn).__name__
    return name == "CopySlices" and len(b.grad_fn.view_fns) == 300
