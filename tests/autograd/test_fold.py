"""Note [folded chains] and Note [a pack's run] (autograd/fold.py): a chain's nodes that
nothing but the next node can reach are kept as rows, and come back as nodes when asked.
Nothing may tell: every program runs twice, folding on (and forced after chosen ops) and
off, and everything observable is compared — the gradients bit for bit, the errors word
for word, and the graph walked node by node (names, edges, sequence numbers, saved
values), before and after the backward."""
import gc

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import viewgrad as vg
from viewgrad.autograd import fold as F

from ..helpers import saved_or_error, torch_or_skip

pytestmark = pytest.mark.host_only("the lean calls that fold are the host's (NumPy arrays)")


@pytest.fixture(autouse=True)
def _folding_back_on():
    yield
    F.set_folding(True)


def _fold(t):
    """Fold what lies below ``t``'s node now. The ticks' marks are dropped first: a
    marked node is never folded (its weak reference), so a mark left inside the chain
    by a tick would stop the walk there."""
    F._mark[0] = F._anchor[0] = None
    F.fold(t.grad_fn)


def _walk(t):
    """Every node under ``t`` (newest first, each once) as what it shows: name, edges,
    sequence number, saved values."""
    out, stack, seen = [], [t.grad_fn], set()
    top = t.grad_fn._sequence_nr()   # (sequence numbers are the process's: compare offsets)
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        vals = [(name, saved_or_error(fn, name)) for name in sorted(dir(type(fn)))
                if name.startswith("_saved_")]
        edges = [(None if f is None else f.name(), nr) for f, nr in fn.next_functions]
        seq = fn._sequence_nr()
        out.append((fn.name(), edges, seq if seq > 2 ** 62 else seq - top, vals))
        stack.extend(f for f, _ in fn.next_functions)
        gc.collect(0)
    return out




# The steps of a program: y is the chain's current tensor; `kept` what it holds on to.
# Every lean call that can make a foldable node is here (Note [lean ops], ops/lean.py):
# results saved (tanh, sigmoid, exp, sqrt, relu...), inputs saved (sin, log, erf, silu:
# 'history'), numbers (y * 1.01, 2.5 * y, y / 3.0, y ** 2.0), constants (y * c), nothing.
STEPS = ("tanh", "sigmoid", "exp", "muls", "adds", "mulc", "sin", "neg", "fold", "keep",
         "alias", "fold", "muls", "tanh", "relu", "sqrt", "log", "abs", "div", "pow", "rmul",
         "radd", "erf", "silu", "fn_tanh", "addc", "cos", "thook", "retain")


def _program(steps, x, c, kept, fold_on):
    y = x * 1.0
    for s in steps:
        if s == "tanh":
            y = y.tanh()
        elif s == "sigmoid":
            y = y.sigmoid()
        elif s == "exp":
            y = (y * 0.1).exp()
        elif s == "muls":
            y = y * 1.01
        elif s == "adds":
            y = y - 0.25
        elif s == "mulc":
            y = y * c
        elif s == "sin":
            y = y.sin()
        elif s == "neg":
            y = -y
        elif s == "relu":
            y = y.relu() + 0.5
        elif s == "sqrt":
            y = (y * y + 1.0).sqrt()
        elif s == "log":
            y = (y * y + 1.0).log()
        elif s == "abs":
            y = y.abs()
        elif s == "div":
            y = y / 3.0
        elif s == "pow":
            y = (y * 0.5) ** 2.0
        elif s == "rmul":
            y = 2.5 * y
        elif s == "radd":
            y = 0.5 + y
        elif s == "erf":
            y = vg.erf(y)
        elif s == "silu":
            y = vg.nn.functional.silu(y)
        elif s == "fn_tanh":
            y = vg.tanh(y)
        elif s == "addc":
            y = y + c
        elif s == "cos":
            y = vg.cos(y)
        elif s == "thook":   # a tensor hook on a tensor that is gone before the backward
            y.register_hook(lambda g: g * 1.5)
            y = y * 1.0
        elif s == "retain":
            y.retain_grad()
            kept.append(y)
        elif s == "keep":
            kept.append(y)
        elif s == "alias":   # shares y's version counter, not its node
            kept.append(y.detach())
        elif s == "fold" and fold_on:
            _fold(y)
    return y


def _run(steps, fold_on, ending):
    F.set_folding(fold_on)
    x = vg.tensor(np.linspace(-1.5, 2.0, 6), requires_grad=True)
    c = vg.tensor(np.linspace(0.5, 1.5, 6))
    kept = []
    y = _program(steps, x, c, kept, fold_on)
    if fold_on:
        _fold(y)
    out = {}
    try:
        if ending == "walk_first":
            out["walk"] = _walk(y)
            y.sum().backward()
        elif ending == "plain":
            y.sum().backward()
        elif ending == "twice":   # the second through a freed graph
            s = y.sum()
            s.backward()
            out["after"] = _walk(y)
            s.backward()
        elif ending == "retained":
            s = y.sum()
            s.backward(retain_graph=True)
            s.backward()
        elif ending == "modified":   # a saved value modified through an alias
            for k in kept:
                if not k.requires_grad:
                    k.add_(1.0)
            y.sum().backward()
        elif ending == "kept_too":   # the kept tensors feed the loss too: a graph, not a chain
            loss = y.sum()
            for k in kept:
                loss = loss + k.sum() * 0.5
            loss.backward()
        elif ending == "grad":
            inputs = [x] + [k for k in kept if k.requires_grad]
            gs = vg.autograd.grad(y.sum(), inputs, allow_unused=True)
            out["gs"] = [None if g is None else g.tolist() for g in gs]
        elif ending == "double":
            (g,) = vg.autograd.grad(y.sum(), [x], create_graph=True)
            (g * g).sum().backward()
        elif ending == "hooks":   # hooks on nodes reached by walking the (folded) chain
            calls = []
            fn = y.grad_fn
            for i in range(len(steps)):
                nf = fn.next_functions
                if not nf or nf[0][0] is None or not hasattr(nf[0][0], "register_hook"):
                    break
                fn = nf[0][0]
                if i % 5 == 2:
                    fn.register_hook(lambda gi, go, i=i: calls.append(i))
            y.sum().backward()
            out["calls"] = calls
        out["grad"] = None if x.grad is None else x.grad.tolist()
        out["kept"] = [None if k.grad is None else k.grad.tolist() for k in kept
                       if k.requires_grad and k.grad_fn is not None and k._retains_grad]
    except RuntimeError as e:
        out["error"] = str(e)
    if ending != "twice" and "error" not in out:
        out["after"] = _walk(y)
    return out


ENDINGS = ("walk_first", "plain", "twice", "retained", "modified", "kept_too", "grad",
           "double", "hooks")


@settings(max_examples=200, deadline=None)
@given(steps=st.lists(st.sampled_from(STEPS), min_size=1, max_size=40),
       ending=st.sampled_from(ENDINGS))
def test_folded_programs_cannot_be_told_apart(steps, ending):
    assert _run(steps, True, ending) == _run(steps, False, ending)


@pytest.mark.parametrize("ending", ENDINGS)
def test_long_chains_fold_by_themselves(ending):
    # ~1,200 nodes: the lean calls' ticks fold them (no forced fold)
    steps = ["tanh", "muls", "adds", "mulc", "sigmoid", "exp", "keep", "alias", "sin"] * 130
    steps = [s for s in steps if s not in ("keep", "alias")] + ["keep", "alias", "tanh"]
    assert _run(steps, True, ending) == _run(steps, False, ending)


def _chain(n, x, c):
    y = x * 1.0
    for i in range(n):
        k = i % 5
        if k == 0:
            y = y.tanh()
        elif k == 1:
            y = y * 1.01
        elif k == 2:
            y = y - 0.25
        elif k == 3:
            y = y * c
        else:
            y = y.sigmoid()
    return y


def test_a_folded_chain_keeps_no_tracked_object_per_node():
    # the reason for folding (Note [folded chains]): a long live chain adds next to nothing
    # the collector must walk; without folding, ~3.5 objects a node
    x = vg.tensor(np.linspace(-1.5, 2.0, 8), requires_grad=True)
    c = vg.tensor(np.linspace(0.5, 1.5, 8))
    n = 5000
    for on, most, least in ((True, 0.3, 0.0), (False, 1e9, 2.0)):
        F.set_folding(on)
        _chain(10, x, c)
        gc.collect()
        before = len(gc.get_objects())
        y = _chain(n, x, c)
        _fold(y)   # (the ticks leave up to 2 * EVERY newest nodes as they are)
        gc.collect()
        per_node = (len(gc.get_objects()) - before) / n
        assert least <= per_node <= most, (on, per_node)
        y.sum().backward()
        del y


def test_rows_come_back_as_the_same_nodes_every_time():
    x = vg.tensor(np.linspace(-1.5, 2.0, 8), requires_grad=True)
    c = vg.tensor(np.linspace(0.5, 1.5, 8))
    y = _chain(50, x, c)
    _fold(y)
    assert type(F._raw_get(y.grad_fn)) is F.Pack
    a = y.grad_fn.next_functions[0][0]
    assert a is y.grad_fn.next_functions[0][0]
    assert type(y.grad_fn).__name__ == y.grad_fn.name() == "SigmoidBackward0"
    b = a.next_functions[0][0]
    assert b is a.next_functions[0][0] and b._sequence_nr() == a._sequence_nr() - 1


def test_a_held_node_is_not_folded():
    x = vg.tensor(np.linspace(-1.5, 2.0, 8), requires_grad=True)
    y = x * 1.0
    for _ in range(10):
        y = y.tanh()
    held = y.grad_fn
    for _ in range(10):
        y = y * 1.01
    _fold(y)
    fn, nodes = y.grad_fn, []
    while fn is not None and fn.next_functions:
        fn = fn.next_functions[0][0]
        nodes.append(fn)
    assert any(n is held for n in nodes)


def test_a_modified_saved_result_raises_the_same_words():
    def run(on):
        F.set_folding(on)
        x = vg.tensor(np.linspace(-1.5, 2.0, 8), requires_grad=True)
        y = x.tanh()
        alias = y.detach()
        for _ in range(20):
            y = y * 1.01
        if on:
            _fold(y)
            assert type(F._raw_get(y.grad_fn)) is F.Pack
        alias.add_(1.0)
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        return str(e.value)
    a, b = run(True), run(False)
    assert a == b and "TanhBackward0" in a and "is at version 1" in a


def test_saved_result_of_a_row_reads_back():
    x = vg.tensor(np.linspace(-1.5, 2.0, 8), requires_grad=True)
    y = x.tanh()
    want = y.tolist()
    for _ in range(5):
        y = y * 1.01
    _fold(y)
    fn = y.grad_fn
    for _ in range(5):
        fn = fn.next_functions[0][0]
    assert fn.name() == "TanhBackward0"
    assert fn._saved_result.tolist() == want
    assert fn._saved_result._version == 0
    y.sum().backward()
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        fn._saved_result


def _holders(t):
    """How many holders of folded rows lie under ``t`` (read through the raw slots:
    reading next_functions would make the rows nodes again)."""
    n, fn = 0, t.grad_fn
    while fn is not None:
        e = F._raw_get(fn)
        if type(e) is F.Pack:
            n += 1
            fn = e.parent[0][0]
        else:
            fn = e[0][0] if e else None
    return n


def test_short_chains_never_fold():
    # a chain of fewer than EVERY * ANCHOR nodes, built again and again (the chain
    # benchmark's shape): never asked to fold, so its nodes stay objects
    x = vg.tensor(np.linspace(-1.5, 2.0, 8), requires_grad=True)
    c = vg.tensor(np.linspace(0.5, 1.5, 8))
    for _ in range(30):
        y = _chain(200, x, c)
        assert _holders(y) == 0
        y.sum().backward()
    long = _chain(3 * F.EVERY * F.ANCHOR, x, c)
    assert _holders(long) >= 1


def test_threads_folding_their_own_chains():
    import threading
    c = vg.tensor(np.linspace(0.5, 1.5, 8))

    def grad(through_grad):
        x = vg.tensor(np.linspace(-1.5, 2.0, 8), requires_grad=True)
        y = _chain(3000, x, c).sum()
        if through_grad:   # (the general engine: the rows come back as nodes)
            return vg.autograd.grad(y, [x])[0].tolist()
        y.backward()   # (the plain loop: the packs' runs)
        return x.grad.tolist()
    F.set_folding(False)
    want = grad(False)
    F.set_folding(True)
    got, errors = [], []

    def work(k):
        try:
            for i in range(3):
                got.append(grad((i + k) % 2 == 0))
        except Exception as e:   # pragma: no cover - reported below
            errors.append(repr(e))
    threads = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(got) == 9 and all(g == want for g in got)


def test_a_long_folded_chain_against_torch():
    torch = torch_or_skip()
    xs = np.linspace(-1.5, 2.0, 8)
    cs = np.linspace(0.5, 1.5, 8)
    x = vg.tensor(xs, requires_grad=True)
    y = _chain(5000, x, vg.tensor(cs))
    assert _holders(y) >= 1
    y.sum().backward()
    tx = torch.tensor(xs, requires_grad=True)
    tc = torch.tensor(cs)
    t = tx * 1.0
    for i in range(5000):
        k = i % 5
        t = t.tanh() if k == 0 else t * 1.01 if k == 1 else t - 0.25 if k == 2 else \
            t * tc if k == 3 else t.sigmoid()
    t.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=0)


def test_a_node_with_a_weak_reference_or_metadata_stays_itself():
    import weakref
    x = vg.tensor(np.linspace(-1.5, 2.0, 8), requires_grad=True)
    c = vg.tensor(np.linspace(0.5, 1.5, 8))
    y = _chain(20, x, c)
    weak = weakref.ref(y.grad_fn)
    y = _chain(20, y, c)
    tagged = y.grad_fn
    tagged.metadata["tag"] = 7
    del tagged
    y = _chain(20, y, c)
    _fold(y)
    assert weak() is not None
    fn, found, tags = y.grad_fn, False, []
    while fn is not None and fn.next_functions:
        fn = fn.next_functions[0][0]
        found = found or fn is weak()
        if fn is not None and fn.metadata:
            tags.append(fn.metadata["tag"])
    assert found and tags == [7]


# the same chain written every way a PyTorch user writes it: each lean path ticks
STYLES = {
    "methods": lambda y, c: y.tanh() * 1.01 - 0.25,
    "functions": lambda y, c: vg.sigmoid(vg.tanh(y)) * c,
    "named_methods": lambda y, c: y.tanh().mul(1.01).sub(0.25).div(1.01),
    "functional": lambda y, c: vg.mul(vg.nn.functional.tanh(y), c),
    "reflected": lambda y, c: 2.5 * vg.exp(y * 0.1) - 2.5,
}


@pytest.mark.parametrize("offset", range(4))
@pytest.mark.parametrize("style", sorted(STYLES))
def test_every_way_of_writing_a_long_chain_folds(style, offset):
    # (offset: the ticks fall every 64 sequence numbers, so on the same op of a chain
    # whose period divides 64, whichever that op is: one that saves nothing too)
    from viewgrad.autograd.graph import next_sequence_nr
    f = STYLES[style]
    c = vg.tensor(np.linspace(0.5, 1.5, 8))

    def run(on):
        F.set_folding(on)
        for _ in range(offset):
            next_sequence_nr()
        x = vg.tensor(np.linspace(-1.5, 2.0, 8), requires_grad=True)
        y = x * 1.0
        for _ in range(400):
            y = f(y, c)
        held = _holders(y)
        y.sum().backward()
        return held, x.grad.tolist()
    (folded, a), (unfolded, b) = run(True), run(False)
    assert folded >= 1 and unfolded == 0 and a == b
