"""Property-based tests: thousands of random programs of views and in-place ops.

Programs mix views (also made under no_grad / inference_mode), in-place ops (aliasing
operands too), operands modified after an op used them, custom Functions that mark_dirty,
and multi-output views used after their base was modified in place. Each program either
matches the oracle or raises one of the documented errors:
  * against PyTorch (values, gradients, _version, shape and strides of every live tensor,
    grad_fn names;
    when there is an error: the same exception type and message at the same STEP), in
    geometry and in view-replay mode;
  * against finite differences (gradcheck over all leaves), in both modes, and the two
    modes must give the same gradients.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import viewgrad as vg
from tests.helpers import short, torch_or_skip

from .programs import DOCUMENTED, draw_program, run, weights

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


def _set_replay(M, on):
    if M is vg:
        vg.autograd.set_view_replay(on)
    else:
        M._C._set_view_replay_enabled(on)


def execute(M, program, leaf_values, replay):
    """("ok", loss, grads, versions, names) or ("error", step, type, category, message):
    ``step`` is the index of the program step that raised; len(program) while building
    the loss, +1 while reading versions and grad_fn names, +2 in backward."""
    _set_replay(M, replay)
    at = [0]
    try:
        leaves = [M.tensor(v, dtype=M.float64, requires_grad=True) for v in leaf_values]
        try:
            loss, live = run(M, program, leaves, at)
            at[0] += 1
            names = [short(t.grad_fn.name()) if t.grad_fn is not None else None for t in live]
            # each live tensor's version and layout (strides decide what .view() accepts)
            versions = [(t._version, tuple(t.shape), tuple(t.stride())) for t in live]
            at[0] += 1
            loss.backward()
        except Exception as e:  # noqa: BLE001 - where and what it raised IS the result
            return ("error", at[0], type(e).__name__, _category(str(e)), str(e))
        grads = [None if l.grad is None else np.asarray(l.grad.detach().cpu().numpy()) for l in leaves]
        return ("ok", float(loss.item()), grads, versions, names)
    finally:
        _set_replay(M, False)


def _category(msg):
    for d in DOCUMENTED:
        if d in msg:
            return d
    return msg


def check_against_torch(data):
    torch = torch_or_skip()
    program, leaf_values, _ = draw_program(data, st, vg)
    replay = data.draw(st.booleans(), label="replay")
    ours = execute(vg, program, leaf_values, replay)
    theirs = execute(torch, program, leaf_values, replay)
    if ours[0] == "error" or theirs[0] == "error":
        # the same error (exception type, documented message) at the same step
        assert ours[:4] == theirs[:4], (program, ours, theirs)
        assert ours[3] in DOCUMENTED, ours[4]
        return
    _, loss, grads, versions, names = ours
    _, tloss, tgrads, tversions, tnames = theirs
    assert versions == tversions, (program, versions, tversions)
    assert names == tnames, (program, names, tnames)
    np.testing.assert_allclose(loss, tloss, rtol=1e-10, atol=1e-10)
    for g, tg in zip(grads, tgrads):
        assert (g is None) == (tg is None)
        if g is not None:
            np.testing.assert_allclose(g, tg, rtol=1e-9, atol=1e-10)


@pytest.mark.once  # thousands, on the first device pass
@settings(max_examples=1500, **SETTINGS)
@given(st.data())
def test_thousands_of_random_programs_match_torch(data):
    check_against_torch(data)


@settings(max_examples=200, **SETTINGS)  # on every device pass
@given(st.data())
def test_random_programs_match_torch(data):
    check_against_torch(data)


@settings(max_examples=300, **SETTINGS)
@given(st.data())
def test_random_programs_match_finite_differences(data):
    program, leaf_values, errored = draw_program(data, st, vg, max_steps=6,
                                                differentiable_only=True)
    results = [execute(vg, program, leaf_values, replay) for replay in (False, True)]
    if errored or results[0][0] == "error":
        assert results[0][:4] == results[1][:4]
        assert results[0][3] in DOCUMENTED, results[0][4]
        return
    # the two CopySlices modes agree
    for g0, g1 in zip(results[0][2], results[1][2]):
        if g0 is not None:
            np.testing.assert_allclose(g0, g1, rtol=1e-12, atol=1e-12)
    leaves = [vg.tensor(v, dtype=vg.float64, requires_grad=True) for v in leaf_values]
    used = [l for l, g in zip(leaves, results[0][2]) if g is not None]
    if not used:
        return

    def f(*ls):
        it = iter(ls)
        full = [next(it) if g is not None else l for l, g in zip(leaves, results[0][2])]
        return run(vg, program, full)[0]

    for replay in (False, True):
        vg.autograd.set_view_replay(replay)
        try:
            assert vg.autograd.gradcheck(f, used, atol=1e-6, rtol=1e-4)
        finally:
            vg.autograd.set_view_replay(False)


# -- double backward ----------------------------------------------------------------------

def execute_second_order(M, program, leaf_values, replay):
    """("ok", first-order grads, second-order grads) of the program's loss, the second
    order being d/dleaf of sum(grad * w) over the first-order gradients (create_graph);
    ("nograd",) when no first-order gradient has a history; or ("error", type, message)."""
    _set_replay(M, replay)
    try:
        leaves = [M.tensor(v, dtype=M.float64, requires_grad=True) for v in leaf_values]
        try:
            loss, _live = run(M, program, leaves)
            gs = M.autograd.grad(loss, leaves, create_graph=True, allow_unused=True)
            s = None
            for k, g in enumerate(gs):
                if g is not None and g.requires_grad:
                    term = (g * M.tensor(weights(tuple(g.shape), k + 7), dtype=M.float64)).sum()
                    s = term if s is None else s + term
            if s is None:
                return ("nograd",)
            ggs = M.autograd.grad(s, leaves, allow_unused=True)
        except Exception as e:  # noqa: BLE001 - what it raised IS the result
            return ("error", type(e).__name__, _category(str(e)))
        as_np = [None if g is None else np.asarray(g.detach().cpu().numpy(force=True))
                 for g in gs + ggs]
        return ("ok", as_np)
    finally:
        _set_replay(M, False)


def check_second_order_against_torch(data):
    torch = torch_or_skip()
    program, leaf_values, _ = draw_program(data, st, vg)
    replay = data.draw(st.booleans(), label="replay")
    ours = execute_second_order(vg, program, leaf_values, replay)
    theirs = execute_second_order(torch, program, leaf_values, replay)
    if {ours[0], theirs[0]} == {"ok", "nograd"}:
        # torch's zero_()/fill_() gradients are ZeroTensors that need no gradient; ours
        # are zeros with a history, whose second-order gradients are zeros too
        ok = ours if ours[0] == "ok" else theirs
        assert all(g is None or not g.any() for g in ok[1][len(ok[1]) // 2:]), program
        return
    assert ours[0] == theirs[0], (program, ours, theirs)
    if ours[0] != "ok":
        assert ours[1:] == theirs[1:], (program, ours, theirs)   # the same documented error
        return
    for g, tg in zip(ours[1], theirs[1]):
        if g is None and tg is None:
            continue
        g = np.zeros_like(tg) if g is None else g   # (an unused input: None or zeros)
        tg = np.zeros_like(g) if tg is None else tg
        np.testing.assert_allclose(g, tg, rtol=1e-8, atol=1e-9, err_msg=str(program))


@pytest.mark.once
@settings(max_examples=1500, **SETTINGS)
@given(st.data())
def test_thousands_of_random_programs_double_backward_as_torch(data):
    """Second-order gradients through views, in-place ops, CopySlices and regenerated
    view grad_fns (Note [a result saved in place on a view]) match torch's."""
    check_second_order_against_torch(data)


@settings(max_examples=150, **SETTINGS)  # on every device pass
@given(st.data())
def test_random_programs_double_backward_as_torch(data):
    check_second_order_against_torch(data)


def test_a_result_saved_in_place_on_a_view_survives_a_double_backward():
    """``v.tanh_()`` on a view saves v; a double backward through it once raised "Trying
    to backward through the graph a second time" (its TanhBackward0 was reached twice)."""
    x = vg.tensor(np.linspace(-1, 1, 12).reshape(3, 4), requires_grad=True)
    b = x.clone()
    v = b.select(0, 2)
    v.tanh_()
    w = v.tanh()
    (g,) = vg.autograd.grad((w * 2.0).sum(), x, create_graph=True)
    (gg,) = vg.autograd.grad((g * 3.0).sum(), x)
    t1 = np.tanh(np.linspace(-1, 1, 12).reshape(3, 4)[2])
    t2 = np.tanh(t1)
    d1, d2 = 1 - t1 ** 2, 1 - t2 ** 2
    # d/dx of 6 * d2 * d1, with t1 = tanh(x), t2 = tanh(t1)
    expected = 6 * (-2 * t2 * d2 * d1 * d1 + d2 * (-2 * t1 * d1))
    gg = gg.cpu().numpy()
    assert np.allclose(gg[2], expected) and not gg[:2].any()


# -- float32 -----------------------------------------------------------------------------

def execute_float32(M, program, leaf_values):
    """execute()'s result in float32 (the lean calls and steps take float32 too), with each
    live tensor's dtype."""
    at = [0]
    leaves = [M.tensor(v, dtype=M.float32, requires_grad=True) for v in leaf_values]
    try:
        loss, live = run(M, program, leaves, at)
        names = [short(t.grad_fn.name()) if t.grad_fn is not None else None for t in live]
        versions = [t._version for t in live]
        dtypes = [str(t.dtype).rsplit(".", 1)[-1] for t in live]
        loss.backward()
    except Exception as e:  # noqa: BLE001 - where and what it raised IS the result
        return ("error", at[0], type(e).__name__, _category(str(e)))
    grads = [None if l.grad is None else np.asarray(l.grad.detach().cpu().numpy())
             for l in leaves]
    return ("ok", float(loss.item()), grads, versions, names, dtypes)


@settings(max_examples=300, **SETTINGS)
@given(st.data())
def test_random_programs_in_float32_match_torch(data):
    torch = torch_or_skip()
    program, leaf_values, _ = draw_program(data, st, vg)
    ours = execute_float32(vg, program, leaf_values)
    theirs = execute_float32(torch, program, leaf_values)
    if ours[0] == "error" or theirs[0] == "error":
        assert ours == theirs, (program, ours, theirs)
        return
    assert ours[3:] == theirs[3:], (program, ours[3:], theirs[3:])
    np.testing.assert_allclose(ours[1], theirs[1], rtol=2e-4, atol=2e-4)
    for g, tg in zip(ours[2], theirs[2]):
        assert (g is None) == (tg is None)
        if g is not None:
            assert g.dtype == tg.dtype
            np.testing.assert_allclose(g, tg, rtol=2e-3, atol=2e-3, err_msg=str(program))
