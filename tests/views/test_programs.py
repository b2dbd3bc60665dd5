"""Property-based tests: thousands of random programs of views and in-place ops.

Programs mix views (also made under no_grad / inference_mode), in-place ops (aliasing
operands too), operands modified after an op used them, custom Functions that mark_dirty,
and multi-output views used after their base was modified in place. Each program either
matches the oracle or raises one of the documented errors:
  * against PyTorch (values, gradients, _version of every live tensor, grad_fn names;
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

from .programs import DOCUMENTED, draw_program, run

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
            versions = [t._version for t in live]
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
