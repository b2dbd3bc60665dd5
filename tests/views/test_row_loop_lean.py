"""The row loop's speed tricks (issue 19), each against the teaching path and torch:

* Note [a select view in line] (autograd/inplace_lean.py): ``t[i]`` / ``t.select(d, i)``
  builds what ``make_view`` builds (Tensor, ViewInfo, chain, node, geometry);
* Note [lean in-place]: its nodes, saved tensors, blame marks and version bumps, built in
  line, equal the teaching path's (apply_inplace);
* Note [a base's facts, kept]: a base's facts follow its array (``.data =``, ``t_()``);
* Note [CopySlices' row kernels] (autograd/views_fast.py): CopySlices runs add/sub/mul/div
  kernels on the region itself: the same gradients, bit for bit, and the same errors as
  ``fn.apply_arrays`` on a copy of the region.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import viewgrad as vg
import viewgrad.autograd.views_fast as views_fast
import viewgrad.autograd.views_record as views_record
from viewgrad.autograd import blame
from viewgrad.autograd.graph import SavedTensor
from viewgrad.autograd.inplace_lean import set_lean_inplace
from viewgrad.autograd.views_fast import geometry, strides_of
from viewgrad.autograd.views_record import set_recording

from tests.helpers import torch_or_skip

from .programs import draw_program, run
from .test_lean_inplace import both_ways, signature

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


def _host(a):
    return np.asarray(a.get() if hasattr(a, "get") else a)


def _bits(t):
    """A tensor's exact value: dtype, shape and bytes."""
    a = _host(t._data if isinstance(t, vg.Tensor) else t)
    return (str(a.dtype), a.shape, a.tobytes())


def _where(w):
    """A blame mark as (node name or op, file, line, text): comparable across runs."""
    if w is None:
        return None
    name, frame = w
    return (name, None if frame is None else blame._resolve(frame))


def _bumps(vc):
    return [(op, None if fr is None else blame._resolve(fr), ver)
            for op, fr, _, ver in (vc.bumps or [])]


def view_signature(v, parent):
    """Everything make_view and select leave on a view, as plain data."""
    vi = v._view_info
    node = v._grad_fn
    return dict(
        base_is_parent_root=vi.base is (parent._base if parent._base is not None else parent),
        steps=[(fn.__name__, args) for fn, args in vi.view_fns],
        version=vi.version, meta=str(vi.creation_meta), made_by=vi.made_by,
        # the file and line (a mark's raw instruction offset may differ between two calls
        # from one line: Python 3.12 specializes the instruction after the first)
        where=None if vi.where is None else blame._resolve(vi.where),
        geom=vi.geom, storage=v._storage is parent._storage,
        own_storage_slot=v._storage_ is None,
        data=(_bits(v), _host(v._data).strides),
        shares_counter=v._version_counter is parent._version_counter,
        base=v._base is vi.base, node=None if node is None else (
            node.name(), [(e[0] is parent._grad_fn, None if e[0] is None else e[0].name(),
                          e[1]) for e in node.next_functions],
            sorted((k, repr(x)) for k, x in node._saved.items()), node._releasable),
        output_nr=v._output_nr, requires_grad=v.requires_grad, device=v._device,
        fields=_fields(v), vi_fields=_fields(vi), chain_fields=_fields(vi.chain),
        node_fields=None if node is None else _fields(node))


def _fields(o):
    """Which slots an object has set and what its __dict__ holds (names only): a field
    the lean path forgot, or added, shows here."""
    slots = [n for c in type(o).__mro__ for n in getattr(c, "__slots__", ())
             if n not in ("__dict__", "__weakref__")]
    return (type(o).__name__, sorted(n for n in slots if hasattr(o, n)),
            sorted(getattr(o, "__dict__", {})))


def _pointer_geometry(v):
    """The view's geometry read off its array (data pointers), not by arithmetic."""
    return (tuple(v._data.shape), strides_of(v._data), v.storage_offset())


# -- Note [a select view in line] -----------------------------------------------------------

def _select_cases():
    vg.manual_seed(0)
    x = vg.randn(3, 4, 5, requires_grad=True)
    plain = x.clone()                  # a non-view with a history
    restrided = x.clone()
    restrided.transpose_(0, 2)         # its array a transposed view: _storage_ set
    offset = x.clone()
    offset.as_strided_((2, 5), (5, 1), 7)   # a non-view at storage offset 7
    f32 = vg.randn(4, 3, dtype=vg.float32, requires_grad=True) * 2
    return x, [(plain, 0, 1), (plain, 1, -1), (plain, 2, 4), (plain, -1, 0),
               (restrided, 0, 2), (restrided, 1, 3), (offset, 0, 1), (offset, 1, 4),
               (f32, 0, 3), (f32, 1, 0)]


@pytest.mark.parametrize("case", range(10))
def test_select_in_line_builds_what_make_view_builds(case):
    def prog():
        x, cases = _select_cases()
        t, dim, i = cases[case]
        assert t._view_info is None
        v = t.select(dim, i)
        w = t[i] if dim == 0 else None
        sig = view_signature(v, t)
        sig["ptr"] = _pointer_geometry(v) == v._view_info.geom
        sig["getitem"] = None if w is None else view_signature(w, t)
        sig["graph"] = signature([v.grad_fn])
        (v.sum() * 2).backward()
        return sig, None if x.grad is None else _bits(x.grad)
    lean, teaching = both_ways(prog)
    assert lean == teaching
    assert lean[0]["ptr"]


def test_select_takes_make_view_outside_its_case():
    """A leaf, a view, an empty view, no_grad: the teaching path (same results)."""
    def prog():
        vg.manual_seed(1)
        x = vg.randn(3, 4, requires_grad=True)
        b = x.clone()
        out = [view_signature(x[1], x), view_signature(b[1][2], b[1]),
               view_signature(b.t()[0], b.t())]
        e = vg.zeros(3, 0, requires_grad=True).clone()
        out.append(view_signature(e[1], e))
        with vg.no_grad():
            out.append(view_signature(b[2], b))
        return out
    lean, teaching = both_ways(prog)
    assert lean == teaching


# -- Note [lean in-place]: saved tensors, blame marks, bumps ----------------------------------

def _helper(r, w):
    return r.mul_(w)


def _row_loop_marks(dtype):
    vg.manual_seed(2)
    x = vg.randn(4, 3, dtype=dtype, requires_grad=True)
    w = vg.randn(3, dtype=dtype, requires_grad=True)
    b = x.clone()
    for i in range(4):
        r = b[i]
        r.mul_(w)
        r.add_(0.5)
        r.sub_(w)
        r.div_(2.0)
        r.mul_(3)
        r *= w                        # __imul__ and __iadd__: the same methods
        r += 1.0
        _helper(r, w)                 # called from a function of the test: its line
    out = []
    stack, seen = [b.grad_fn], set()
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        inner = getattr(n, "fn", None)
        for node in (n, inner):
            if node is None:
                continue
            out.append(_fields(node))
            if not hasattr(node, "saved_items"):
                continue
            for k, v in node.saved_items():
                if isinstance(v, SavedTensor):
                    out.append((node.name(), k, v.saved_version, v.output_nr,
                                v.had_grad_fn, v.tensor is None, _where(v.where),
                                _fields(v)))
        stack.extend(e[0] for e in n.next_functions)
        if inner is not None:
            stack.extend(e[0] for e in inner.next_functions)
    return out, _bumps(b._version_counter), b._version


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_saved_tensors_blame_marks_and_bumps_are_the_teaching_paths(dtype):
    lean, teaching = both_ways(lambda: _row_loop_marks(getattr(vg, dtype)))
    assert lean == teaching
    marks, bumps, version = lean
    marks = [m for m in marks if len(m) == 8]
    assert marks and all(m[-2] is not None for m in marks)   # blame on: every mark is set
    assert bumps and all(b[1] is not None for b in bumps)
    assert [b[0] for b in bumps][-3:] == ["mul_", "add_", "mul_"] and version == 32
    assert blame.fmt_where((bumps[-1][1][0], bumps[-1][1][1], None)).endswith(
        "(return r.mul_(w))")
    assert blame.fmt_where((bumps[-2][1][0], bumps[-2][1][1], None)).endswith("(r += 1.0)")


def test_blame_off_marks_nothing_both_ways():
    prev = blame.is_blame_enabled()
    blame.set_blame(False)
    try:
        lean, teaching = both_ways(lambda: _row_loop_marks(vg.float64))
    finally:
        blame.set_blame(prev)
    assert lean == teaching
    assert all(m[-2] is None for m in lean[0] if len(m) == 8) and lean[1] == []


def test_saved_tensor_hooks_and_anomaly_take_the_teaching_path_with_the_same_result():
    def prog():
        vg.manual_seed(3)
        x = vg.randn(3, 4, requires_grad=True)
        w = vg.randn(4, requires_grad=True)
        packed = []
        b = x.clone()
        with vg.autograd.graph.saved_tensors_hooks(lambda t: packed.append(1) or t,
                                                   lambda t: t):
            b[0].mul_(w)
        with vg.autograd.detect_anomaly():
            b[1].mul_(w)
        sig = signature([b.grad_fn])
        b.sum().backward()
        return sig, len(packed), x.grad.tolist(), w.grad.tolist()
    lean, teaching = both_ways(prog)
    assert lean == teaching and lean[1] == 2


# -- Note [a base's facts, kept] -------------------------------------------------------------

def test_facts_follow_the_bases_array():
    def prog():
        vg.manual_seed(4)
        x = vg.randn(4, 3, requires_grad=True)
        w = vg.randn(3, requires_grad=True)
        b = x.clone()
        b[0].mul_(w)
        sigs = [signature([b.grad_fn])]
        with vg.no_grad():
            b.data = vg.randn(2, 6)      # another array, another shape
        v = b[1]
        sigs.append(view_signature(v, b))
        sigs.append(_pointer_geometry(v) == v._view_info.geom)
        c = x.clone()
        c.t_()                             # c's array is now a transposed view
        u = c[2]
        u.add_(vg.ones(4) * w.sum())
        sigs.append(view_signature(u, c))
        sigs.append(_pointer_geometry(u) == u._view_info.geom)
        sigs.append(signature([c.grad_fn]))
        c.sum().backward()
        return sigs, x.grad.tolist(), w.grad.tolist()
    lean, teaching = both_ways(prog)
    assert lean == teaching
    assert lean[0][2] and lean[0][4]


# -- Note [CopySlices' row kernels] ------------------------------------------------------------

def _without_row_kernels(fn, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(views_fast, "_row_kernels", lambda *args: None)
        prev = set_recording(False)   # (a record runs the row's kernels itself)
        try:
            return fn()
        finally:
            set_recording(prev)


def _row_program(dtype, w_requires, scalar):
    x = vg.tensor(np.linspace(-2, 2, 20).reshape(5, 4), dtype=dtype, requires_grad=True)
    w = vg.tensor([0.5, -1.25, 2.0, 3.5], dtype=dtype, requires_grad=w_requires)
    v = vg.tensor([1.5, 0.75, -0.5, 2.25], dtype=dtype, requires_grad=True)
    u = vg.tensor([0.25, 1.0, -3.0, 0.5], dtype=dtype, requires_grad=True)
    extra = u * 2.0    # u's AccumulateGrad is older than the loop: it runs last
    b = x.clone()
    for i in range(5):
        r = b[i]
        r.mul_(w if not scalar else 1.5)
        if i == 2:
            # u's gradient here is the region itself (AddBackward0's identity kernel):
            # handed on as a copy, since mul_'s CopySlices writes the region before
            # u's input buffer is summed
            r.add_(u)
        r.add_(0.5)
        r.add_(v)
        r.sub_(w if not scalar else 0.25)
        r.div_(v if i % 2 else 3.0)
        r.mul_(v)
    ((b * vg.arange(20.0, dtype=dtype).reshape(5, 4)).sum() + extra.sum()).backward()
    return [_bits(t.grad) if t.grad is not None else None for t in (x, w, v, u)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("w_requires", [True, False])
@pytest.mark.parametrize("scalar", [False, True])
@pytest.mark.parametrize("records", [True, False])
def test_row_kernels_give_apply_arrays_gradients_bit_for_bit(dtype, w_requires, scalar,
                                                               records, monkeypatch):
    calls = []
    # Note [a wrapped node kept as a record]: a record runs the kernels itself
    real = views_record._row_from_record if records else views_fast._row_kernels

    def counting(*args):
        res = real(*args)
        calls.append(res is not None)
        return res

    if records:
        monkeypatch.setattr(views_record.RecordedCopySlices, "_row", staticmethod(counting))
    else:
        monkeypatch.setattr(views_fast, "_row_kernels", counting)
    prev = set_recording(records)
    try:
        fast = _row_program(getattr(vg, dtype), w_requires, scalar)
    finally:
        set_recording(prev)
    monkeypatch.undo()
    assert calls and all(calls)   # every CopySlices of the loop took the row kernels
    slow = _without_row_kernels(lambda: _row_program(getattr(vg, dtype), w_requires, scalar),
                                monkeypatch)
    assert fast == slow
    # and the teaching path (Tensors, CopySlices.apply) agrees too
    prev = set_lean_inplace(False)
    try:
        teaching = _without_row_kernels(
            lambda: _row_program(getattr(vg, dtype), w_requires, scalar), monkeypatch)
    finally:
        set_lean_inplace(prev)
    assert fast == teaching


@pytest.mark.parametrize("scalar", [False, True])
def test_row_kernels_match_torch(scalar):
    torch = torch_or_skip()

    def prog(M, x0, w0, v0):
        x = M.tensor(x0, requires_grad=True)
        w = M.tensor(w0, requires_grad=True)
        v = M.tensor(v0, requires_grad=True)
        b = x.clone()
        for i in range(x0.shape[0]):
            r = b[i]
            r.mul_(w if not scalar else 1.5)
            r.add_(0.5)
            r.add_(v)
            r.sub_(w if not scalar else 0.25)
            r.div_(v if i % 2 else 3.0)
        (b * b).sum().backward()
        return [None if t.grad is None else np.asarray(t.grad.detach().numpy() if M is torch
                                                      else _host(t.grad._data))
                for t in (x, w, v)]
    rng = np.random.default_rng(3)
    args = (rng.standard_normal((6, 5)).astype(np.float32),
            (0.5 + rng.random(5)).astype(np.float32), (0.5 + rng.random(5)).astype(np.float32))
    ours, theirs = prog(vg, *args), prog(torch, *args)
    for a, b in zip(ours, theirs):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-6)


def _errors(kind):
    vg.manual_seed(5)
    x = vg.randn(3, 4, requires_grad=True)
    w = vg.randn(4, requires_grad=True)
    b = x.clone()
    if kind == "saved operand modified":
        w2 = w * 1
        b[1].mul_(w2)
        w2.add_(1)                    # MulBackward0 saved w2: backward refuses
        loss = b.sum()
    elif kind == "saved self modified":
        r = b[1]
        r.div_(w)                     # DivBackward0 saved a clone of self and w ...
        with vg.no_grad():
            w.add_(1)                 # ... w modified
        loss = b.sum()
    else:                             # backward twice, the graph freed
        b[1].mul_(w)
        b[2].add_(w)
        loss = b.sum()
        loss.backward()
    try:
        loss.backward()
    except RuntimeError as e:
        return str(e)
    return None


@pytest.mark.parametrize("kind", ["saved operand modified", "saved self modified", "freed"])
def test_row_kernels_raise_the_same_errors(kind, monkeypatch):
    fast = _errors(kind)
    slow = _without_row_kernels(lambda: _errors(kind), monkeypatch)
    assert fast is not None and fast == slow


def test_row_kernels_retain_graph_twice_same_gradients(monkeypatch):
    def prog():
        x = vg.randn(3, 4, requires_grad=True)
        w = vg.randn(4, requires_grad=True)
        b = x.clone()
        for i in range(3):
            b[i].mul_(w).add_(w).sub_(1.0)
        loss = (b * b).sum()
        loss.backward(retain_graph=True)
        first = (_bits(x.grad), _bits(w.grad))
        loss.backward()
        return first, _bits(x.grad), _bits(w.grad)
    vg.manual_seed(0)
    fast = prog()
    vg.manual_seed(0)
    slow = _without_row_kernels(prog, monkeypatch)
    assert fast == slow


@pytest.mark.once
@settings(max_examples=100, **SETTINGS)
@given(st.data())
def test_random_programs_same_gradients_with_and_without_row_kernels(data):
    program, leaf_values, _ = draw_program(data, st, vg)

    def go():
        at = [0]
        try:
            leaves = [vg.tensor(v, dtype=vg.float64, requires_grad=True) for v in leaf_values]
            loss, live = run(vg, program, leaves, at)
            loss.backward()
            return ("ok", [None if l.grad is None else _bits(l.grad) for l in leaves])
        except Exception as e:  # noqa: BLE001 - what and where it raised is the result
            return ("error", at[0], type(e).__name__, str(e))

    fast = go()
    real = views_fast._row_kernels
    views_fast._row_kernels = lambda *args: None
    try:
        slow = go()
    finally:
        views_fast._row_kernels = real
    assert fast == slow, program
