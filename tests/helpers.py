"""Shared test helpers: the optional PyTorch oracle, graph printing."""
import pytest


def torch_or_skip():
    """PyTorch is a test-only oracle: skip (saying why) when it is not installed."""
    try:
        import torch
    except Exception as e:  # ImportError or a broken install
        pytest.skip(f"PyTorch oracle not installed ({e.__class__.__name__}): "
                    "pip install torch==2.13.0 to run the differential tests")
    return torch


def torch_device_like(device):
    """Where the torch oracle runs for a check whose answer is the kernel's own: a float
    cast to an integer from NaN, inf or out of range is undefined in C, and CPU and GPU
    kernels answer differently (in PyTorch as here). On the cuda pass that oracle is torch
    on CUDA (skipped, saying why, when torch has none); everywhere else torch on the CPU."""
    torch = torch_or_skip()
    if device != "cuda":
        return "cpu"
    if not torch.cuda.is_available():
        pytest.skip("on the cuda pass, undefined float-to-integer casts are compared with "
                    "torch on CUDA, and this torch has no CUDA")
    return "cuda"


def graph_nodes(t):
    """The nodes of ``t``'s graph, each once, newest first (a depth-first walk)."""
    stack, seen = [t.grad_fn], set()
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        yield fn
        stack.extend(f for f, _ in fn.next_functions)


def graph_order(roots):
    """(nodes, {id(node): its index}) of the graphs under ``roots`` (grad_fns), each
    node once, in depth-first order; a CopySlices' wrapped node (``fn``) and what it
    reaches are walked too."""
    index, order, stack = {}, [], [r for r in roots if r is not None][::-1]
    while stack:
        n = stack.pop()
        if n is None or id(n) in index:
            continue
        index[id(n)] = len(order)
        order.append(n)
        inner = getattr(n, "fn", None)
        nexts = [e[0] for e in n.next_functions] + ([inner] if inner is not None else [])
        stack.extend(reversed(nexts))
        if inner is not None:
            stack.extend(e[0] for e in inner.next_functions)
    return order, index


def saved_or_error(fn, name):
    """What reading ``fn.<name>`` shows: a Tensor's values, another value's repr, or the
    words of the error it raises (a freed graph's)."""
    import viewgrad as vg
    try:
        v = getattr(fn, name)
        return v.tolist() if isinstance(v, vg.Tensor) else repr(v)
    except (RuntimeError, AttributeError) as e:
        return str(e)


def saved_values(fn):
    """``(name, value)`` of every ``_saved_*`` attribute ``fn`` has, by name."""
    for name in sorted(dir(type(fn))):
        if name.startswith("_saved_"):
            try:
                yield name, getattr(fn, name)
            except AttributeError:
                continue


def short(name):
    """A node name without the C++ namespace: PyTorch's hand-written nodes (and
    viewgrad's, which copy their name()) are 'torch::autograd::CopySlices'."""
    return name.rsplit("::", 1)[-1]


def graph_text(t, label="t"):
    """The graph under ``t.grad_fn`` as indented text of node names (iterative DFS)."""
    lines = []
    fn = t.grad_fn
    if fn is None:
        return f"{label}: <leaf>"
    stack = [(fn, 0, None)]
    seen = set()
    while stack:
        node, depth, nr = stack.pop()
        if node is None:
            continue
        name = short(node.name())
        extra = ""
        if name == "CopySlices" and hasattr(node, "fn"):
            extra = f" (fn={node.fn.name()})"
        lines.append("  " * depth + name + extra)
        if id(node) in seen:
            continue
        seen.add(id(node))
        for e in reversed(node.next_functions):
            if e is not None and e[0] is not None:
                stack.append((e[0], depth + 1, e[1]))
    return f"{label}:\n" + "\n".join(lines)


# -- differential runs: the same code run with M = viewgrad and M = torch ------------------

class _Wording(str):
    """An error message that equals another when one starts with the other: viewgrad
    keeps PyTorch's sentence and may add what to do instead."""

    def __eq__(self, other):
        return isinstance(other, str) and (self.startswith(other) or other.startswith(self))

    __hash__ = str.__hash__


def wording(msg):
    """PyTorch's wording of an error message: the first line, library names normalized,
    without the tensor type spelling (viewgrad writes 'float32 [2]' where torch writes
    'torch.FloatTensor [2]') and without the anomaly-mode hint. viewgrad may add teaching
    lines after the first (equality is by prefix, see _Wording)."""
    msg = msg.split("\n")[0].split(" Hint:")[0]
    return _Wording(msg.replace("torch.", "viewgrad.").replace("viewgrad.FloatTensor",
                                                                "float32"))


def error_wording(e):
    """(type name, PyTorch's wording) of an exception a scenario caught itself."""
    return (type(e).__name__, wording(str(e)))


def _plain(v):
    """Tensors as (dtype name, shape, numpy array), dtypes as names, containers walked."""
    import numpy as np
    if isinstance(v, (tuple, list)):
        return tuple(_plain(x) for x in v)
    if hasattr(v, "detach") and hasattr(v, "dtype") and hasattr(v, "shape"):
        return (str(v.dtype).rsplit(".", 1)[-1], tuple(v.shape),
                np.asarray(v.detach().cpu().numpy()))
    if hasattr(v, "itemsize") and not hasattr(v, "shape"):
        return str(v).rsplit(".", 1)[-1]  # a dtype
    return v


def raised(fn):
    """What ``fn()`` raised, warnings silenced: (exception type name, its first line), or
    None when it returned."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - we compare exceptions
            return type(e).__name__, str(e).split("\n")[0]
    return None


def torch_and_viewgrad(fn):
    """``[fn(torch), fn(viewgrad)]`` (skipping when torch is absent), warnings silenced:
    each what it returned, or (exception type name, message) for what it raised."""
    import warnings
    import viewgrad as vg
    out = []
    for M in (torch_or_skip(), vg):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                out.append(fn(M))
            except Exception as e:  # noqa: BLE001 - the same type and words are the point
                out.append((type(e).__name__, str(e)))
    return out


def outcome(M, fn, warn_filter=None):
    """Run ``fn(M)`` (M = viewgrad or torch) and describe what happened as plain data:
    ("raise", exception type name, message) or ("ok", value) where tensors become
    (dtype name, shape, numpy array) and containers are walked. With ``warn_filter``, one
    more item: the sorted UserWarnings whose text contains it."""
    import warnings
    with warnings.catch_warnings(record=warn_filter is not None) as caught:
        if warn_filter is not None:
            warnings.simplefilter("always")
        try:
            out = ("ok", _plain(fn(M)))
        except Exception as e:  # noqa: BLE001 - we compare exceptions too
            out = ("raise", type(e).__name__, str(e))
    if warn_filter is None:
        return out
    warned = tuple(sorted({str(x.message).split(" (Triggered")[0] for x in caught
                           if issubclass(x.category, UserWarning)
                           and warn_filter in str(x.message)}))
    return out + (warned,)


def assert_same_as_torch(fn, match=None, rtol=1e-6, atol=1e-6, wording_too=False,
                         warn_filter=None):
    """``fn(M)`` behaves the same with M = viewgrad and M = torch (skipping when torch is
    absent): both raise the same exception type (whose message contains ``match`` when
    given; with ``wording_too``, viewgrad's first line starts with PyTorch's, see
    ``wording``), or both return equal values: tensors of the same dtype and shape with
    values within rtol/atol, everything else equal. With ``warn_filter``: the same
    UserWarnings containing it. Returns viewgrad's outcome."""
    import numpy as np
    import viewgrad as vg
    torch = torch_or_skip()
    theirs = outcome(torch, fn, warn_filter)
    ours = outcome(vg, fn, warn_filter)
    if warn_filter is not None:
        assert ours[-1] == theirs[-1], f"warnings differ: {ours[-1]} / {theirs[-1]}"
        ours, theirs = ours[:-1], theirs[:-1]
    if theirs[0] == "raise" or ours[0] == "raise":
        assert ours[0] == theirs[0] == "raise", f"viewgrad: {ours!r}\ntorch: {theirs!r}"
        assert ours[1] == theirs[1], f"exception types differ: {ours} / {theirs}"
        if match is not None:
            assert match in theirs[2], theirs[2]
            assert match in ours[2], ours[2]
        if wording_too:
            assert wording(ours[2]) == wording(theirs[2]), (ours[2], theirs[2])
        return ours

    def same(a, b):
        if isinstance(b, tuple) and len(b) == 3 and isinstance(b[2], np.ndarray):
            assert a[0] == b[0], f"dtype {a[0]} != torch's {b[0]}"
            assert a[1] == b[1], f"shape {a[1]} != torch's {b[1]}"
            np.testing.assert_allclose(a[2], b[2], rtol=rtol, atol=atol, equal_nan=True)
        elif isinstance(b, tuple):
            assert isinstance(a, tuple) and len(a) == len(b), (a, b)
            for x, y in zip(a, b):
                same(x, y)
        else:
            assert a == b or (a != a and b != b), (a, b)

    same(ours[1], theirs[1])
    return ours


# -- module comparisons with the torch oracle (tests/nn: rnn, attention, layers_extra) ----

def load_from_torch(ours, theirs):
    """Copy a torch module's (randomly initialised) state into viewgrad's by state_dict;
    the keys must be the same, in the same order."""
    import viewgrad as vg
    sd = {k: vg.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()}
    assert list(sd) == list(ours.state_dict())
    ours.load_state_dict(sd)


def assert_close_torch(ours, theirs, what, tol=1e-7):
    """A viewgrad tensor equals a torch tensor (float64 tolerances by default)."""
    import numpy as np
    np.testing.assert_allclose(ours.detach().cpu().numpy(), theirs.detach().numpy(),
                               rtol=tol, atol=1e-9, err_msg=what)


def both_ways(switch, run):
    """``[run() with switch(True), run() with switch(False)]`` for a speed trick's switch
    (``set_lean_views``, ``set_lean_dims``...: each takes the new setting and returns the
    previous one, which is given back after each run)."""
    out = []
    for on in (True, False):
        prev = switch(on)
        try:
            out.append(run())
        finally:
            switch(prev)
    return out


def general_steps(monkeypatch):
    """A list the test's plain backwards fill with the name of every node that runs the
    general step (``FnNode.apply_arrays``) instead of its lean one: empty when every lean
    step answered (Note [lean apply])."""
    from viewgrad.autograd.nodes import FnNode
    seen = []
    real = FnNode.apply_arrays
    monkeypatch.setattr(FnNode, "apply_arrays",
                        lambda self, grads: seen.append(self.name()) or real(self, grads))
    return seen
