"""Note [a wrapped node kept as a record] (autograd/views_record.py): a row's CopySlices
keeps its wrapped node, and the little graph only that node reaches, as numbers and
arrays, and builds them when asked. Nothing may tell: every program runs with records on
and off, and everything observable is compared — gradients bit for bit, errors word for
word, the graph walked node by node (names, edges, sequence offsets, saved values, or the
error reading one raises), before and after the backward — on random row loops with
every ending a user can give them, and on the cases that must not be kept."""
import gc
import threading
import weakref

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import viewgrad as vg
from viewgrad.autograd import views_record as R
from viewgrad.autograd.views import CopySlices

from ..helpers import both_ways, graph_order, saved_or_error, torch_or_skip

pytestmark = pytest.mark.host_only("the lean in-place path that keeps records is the host's")
SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


def _both(prog):
    return both_ways(R.set_recording, prog)


def walk(roots):
    """Every node under ``roots`` (CopySlices' wrapped nodes and what they reach too), as
    what it shows: name, edges (as node indices), sequence offset, saved values."""
    order, index = graph_order(roots)
    top = max(n._sequence_nr() for n in order if n._sequence_nr() < 2 ** 62)
    out = []
    for n in order:
        seq = n._sequence_nr()
        vals = [(k, saved_or_error(n, k)) for k in sorted(dir(type(n)))
                if k.startswith("_saved_")]
        entry = [n.name(), seq if seq > 2 ** 62 else seq - top,
                 [(index.get(id(f)), nr) for f, nr in n.next_functions], vals]
        if isinstance(n, CopySlices):
            entry += [index[id(n.fn)], n.view_sizes, n.view_strides, n.view_offset,
                      n.freed, [s for s in n.view_fns]]
        out.append(entry)
    return out


def _bits(t):
    return None if t is None else np.asarray(t._data).tobytes().hex()


# -- random row loops --------------------------------------------------------------------

OPS = ("mul_w", "add_s", "sub_w", "div_s", "div_w", "add_w", "mul_s", "mul_h", "add_h")
EXTRAS = ("none", "keep_view", "hold_fn", "hook_fn", "weakref_fn", "retain_grad",
          "metadata", "modify_w", "walk_now")
ENDINGS = ("backward", "walk_then_backward", "backward_then_walk", "twice", "retain",
           "grad", "double", "modify_after", "hooks", "anomaly", "replay_after")


@st.composite
def row_programs(draw, ending):
    rows = draw(st.integers(2, 4))
    width = draw(st.integers(1, 4))
    steps = draw(st.lists(st.tuples(
        st.integers(0, rows - 1), st.sampled_from((0, 1)),
        st.lists(st.sampled_from(OPS), min_size=1, max_size=4),
        st.sampled_from(EXTRAS)), min_size=1, max_size=6))
    w_grad = draw(st.booleans())
    seed = draw(st.integers(0, 10 ** 6))
    return rows, width, steps, ending, w_grad, seed


def run_program(prog):
    rows, width, steps, ending, w_grad, seed = prog
    rng = np.random.default_rng(seed)
    x = vg.tensor(rng.uniform(0.5, 2.0, (rows, width)), requires_grad=True)
    w = vg.tensor(rng.uniform(0.5, 2.0, width), requires_grad=w_grad)
    u = vg.tensor(rng.uniform(0.5, 2.0, width), requires_grad=True)
    h = u * 1.5                          # an operand with a history
    b = x * 1.25
    kept, held, out = [], [], []
    for i, dim, ops, extra in steps:
        r = b[i] if dim == 0 or width < 2 else b.select(1, min(i, width - 1))
        wi = w if dim == 0 or width < 2 else w[:1].expand(rows).clone()
        hi = h if dim == 0 or width < 2 else h[:1].expand(rows).clone()
        for k, name in enumerate(ops):
            if extra == "hold_fn" and k == 1:
                held.append(r.grad_fn)
            elif extra == "hook_fn" and k == 1:
                r.grad_fn.register_hook(lambda gi, go: None)
            elif extra == "weakref_fn" and k == 1:
                held.append(weakref.ref(r.grad_fn))
            elif extra == "metadata" and k == 1:
                r.grad_fn.metadata["k"] = 1
            elif extra == "retain_grad" and k == 1:
                r.retain_grad()
            {"mul_w": lambda: r.mul_(wi), "add_s": lambda: r.add_(0.5),
             "sub_w": lambda: r.sub_(wi), "div_s": lambda: r.div_(2.0),
             "div_w": lambda: r.div_(wi), "add_w": lambda: r.add_(wi),
             "mul_s": lambda: r.mul_(3.0), "mul_h": lambda: r.mul_(hi),
             "add_h": lambda: r.add_(hi)}[name]()
        if extra == "keep_view":
            kept.append(r)
        elif extra == "modify_w" and not w.requires_grad:
            w.mul_(1.0)                   # a saved operand modified: backward raises
        elif extra == "walk_now":
            out.append(walk([b.grad_fn]))
    loss = (b * vg.arange(float(rows * width)).reshape(rows, width)).sum()
    if kept:
        loss = loss + sum(v.sum() for v in kept)
    leaves = [x, w, u] if w.requires_grad else [x, u]

    def grads():
        return [_bits(t.grad) for t in (x, w, u)] + [_bits(v.grad) for v in kept
                                                      if v._retains_grad]

    try:
        if ending == "walk_then_backward":
            out.append(walk([loss.grad_fn]))
            loss.backward()
        elif ending == "backward":
            loss.backward()
        elif ending == "backward_then_walk":
            loss.backward()
            out.append(walk([b.grad_fn]))
        elif ending == "twice":
            loss.backward()
            out.append(grads())
            loss.backward()
        elif ending == "retain":
            loss.backward(retain_graph=True)
            out.append(grads())
            loss.backward()
        elif ending == "grad":
            out.append([_bits(g) for g in vg.autograd.grad(loss, leaves, allow_unused=True)])
        elif ending == "double":
            gs = vg.autograd.grad(loss * loss, leaves, create_graph=True)
            sum((g * g).sum() for g in gs).backward()
        elif ending == "modify_after":
            u.data.mul_(1.0)
            if w.requires_grad:
                with vg.no_grad():
                    w.mul_(1.0)           # bumps w's version: a saved w is now stale
            else:
                w.mul_(1.0)
            loss.backward()
        elif ending == "hooks":
            fn = b.grad_fn
            seen = []
            fn.register_hook(lambda gi, go: seen.append(len(gi)))
            fn.fn.register_prehook(lambda go: seen.append("pre"))
            loss.backward()
            out.append(seen)
        elif ending == "anomaly":
            with vg.autograd.detect_anomaly():
                loss.backward()
        elif ending == "replay_after":
            prev = vg.autograd.set_view_replay(True)
            try:
                loss.backward()
            finally:
                vg.autograd.set_view_replay(prev)
    except RuntimeError as e:
        out.append(("error", str(e)))
    out.append(grads())
    return out


@pytest.mark.parametrize("ending", ENDINGS)
def test_random_row_loops_are_the_same_with_records_and_without(ending):
    @settings(max_examples=60, **SETTINGS)
    @given(row_programs(ending))
    def check(prog):
        on, off = _both(lambda: run_program(prog))
        assert on == off

    check()


def test_the_row_loop_keeps_records_and_errors_are_the_same():
    """The loops above do keep records (else the comparison says nothing), and a stale
    saved operand raises the same words from a record as from a node."""
    def prog():
        x = vg.randn(4, 3, requires_grad=True)
        w = vg.randn(3)
        b = x * 1
        for i in range(4):
            r = b[i]
            r.mul_(w)
            r.add_(0.5)
        kinds = [type(b.grad_fn) is R.RecordedCopySlices,
                 type(b.grad_fn.next_functions[0][0]) is R.RecordedCopySlices]
        w.add_(1.0)
        try:
            b.sum().backward()
        except RuntimeError as e:
            return kinds, str(e)
    on, off = _both(prog)
    assert on[0] == [True, True] and off[0] == [False, False]
    assert on[1] == off[1] and "modified by an inplace operation" in on[1]


def test_what_must_stay_a_node_is_not_kept():
    """A view node someone holds (or hooks, or refers to weakly) is the node the wrapped
    node's edge leads to, the very object."""
    x = vg.randn(3, 2, requires_grad=True)
    w = vg.randn(2, requires_grad=True)
    b = x * 1
    r = b[0]
    g = r.grad_fn
    r.mul_(w)
    assert b.grad_fn.fn.next_functions[0][0] is g
    r2 = b[1]
    ref = weakref.ref(r2.grad_fn)
    r2.mul_(w)
    assert type(b.grad_fn) is CopySlices and b.grad_fn.fn.next_functions[0][0] is ref()
    r3 = b[2]
    r3.mul_(w)
    assert type(b.grad_fn) is R.RecordedCopySlices
    fn = b.grad_fn.fn          # built now: the same object from now on
    assert type(b.grad_fn) is CopySlices and b.grad_fn.fn is fn


def test_tracked_objects_per_row_stay_few():
    """The point of it (issue 19): a count, not a time."""
    x = vg.randn(64, 16, requires_grad=True)
    w = vg.randn(16, requires_grad=True)

    def build():
        b = x.clone()
        for i in range(64):
            r = b[i]
            r.mul_(w)
            r.add_(0.5)
        return b

    def count():
        build()
        gc.collect()
        gc.disable()
        try:
            before = len(gc.get_objects())
            keep = build()
            gc.collect()
            gc.collect()
            n = len(gc.get_objects()) - before
        finally:
            gc.enable()
        del keep
        return n / 64

    assert count() < 12
    prev = R.set_recording(False)
    try:
        assert count() > 20
    finally:
        R.set_recording(prev)


def test_threads_build_their_own_and_agree():
    x = vg.randn(32, 8, dtype=vg.float64, requires_grad=True)
    w = vg.randn(8, dtype=vg.float64, requires_grad=True)
    b = x * 1
    for i in range(32):
        r = b[i]
        r.mul_(w)
        r.add_(0.5)
    errors, fns = [], []

    def read():
        try:
            n = b.grad_fn
            while isinstance(n, CopySlices):
                fns.append((id(n), n.fn))
                n = n.next_functions[0][0]
        except Exception as e:   # pragma: no cover - the failure it reports
            errors.append(e)

    ts = [threading.Thread(target=read) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors
    by_node = {}
    for k, fn in fns:
        by_node.setdefault(k, set()).add(id(fn))
    assert all(len(v) == 1 for v in by_node.values())   # one wrapped node per CopySlices


def test_the_record_loop_matches_torch():
    torch = torch_or_skip()
    rng = np.random.default_rng(3)
    xv, wv = rng.standard_normal((16, 8)), rng.uniform(0.5, 1.5, 8)
    out = []
    for M in (vg, torch):
        x = M.tensor(xv, requires_grad=True)
        w = M.tensor(wv, requires_grad=True)
        b = x.clone()
        for i in range(16):
            r = b[i]
            r.mul_(w)
            r.add_(0.5)
            r.div_(w)
        b.sum().backward()
        out.append((x.grad.detach().numpy(), w.grad.detach().numpy()))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-12, atol=1e-12)
