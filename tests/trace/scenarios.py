"""Canonical in-place scenarios shared by the trace and render tests.

Each builder runs one piece of user code under ``vg.trace(namespace=ns)`` and returns the
tracer; ``SCENARIOS`` says what the snapshots, the diff and the explanation must contain.
"""
import viewgrad as vg


def seed():
    a = vg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a.clone()
    x = b[2]
    y = vg.tensor(4.0, requires_grad=True)
    ns = dict(a=a, b=b, x=x, y=y)
    with vg.trace(namespace=ns) as tr:
        x.mul_(y)
    return tr


def spec_example():
    a = vg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = a.clone()
    x = b.select(0, 0)
    ns = dict(a=a, b=b, x=x)
    with vg.trace(namespace=ns) as tr:
        x *= 2
    return tr


def non_view():
    a = vg.tensor([1.0, 2.0], requires_grad=True)
    x = a * 2
    ns = dict(a=a, x=x)
    with vg.trace(namespace=ns) as tr:
        x.mul_(3)
    return tr


def base_with_views():
    a = vg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a.clone()
    v = b[0]
    w = b[1:]
    ns = dict(a=a, b=b, v=v, w=w)
    with vg.trace(namespace=ns) as tr:
        b.add_(1)
    return tr


def view_of_view():
    a = vg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    m = a.clone()
    r = m[0]
    s = r[1:]
    ns = dict(a=a, m=m, r=r, s=s)
    with vg.trace(namespace=ns) as tr:
        s.exp_()
    return tr


def stale_views():
    a = vg.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    b = a.clone()
    v = b[:2]
    w = b[2:]
    ns = dict(a=a, b=b, v=v, w=w)
    with vg.trace(namespace=ns) as tr:
        w.mul_(2)      # v goes stale
        v.add_(1)      # v's stale grad_fn is rebuilt by the op on v itself
    return tr


def setitem():
    a = vg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a.clone()
    ns = dict(a=a, c=c)
    with vg.trace(namespace=ns) as tr:
        c[0] = 5.0
    return tr


def optimizer_step():
    p = vg.tensor([1.0, 2.0], requires_grad=True)
    loss = (p * p).sum()
    loss.backward()
    lr = 0.1
    ns = dict(p=p, loss=loss)
    with vg.trace(namespace=ns) as tr:
        with vg.no_grad():
            p.sub_(lr * p.grad)
    return tr


def saved_result():
    a = vg.tensor([1.0, 2.0], requires_grad=True)
    z = a.exp()
    ns = dict(a=a, z=z)
    with vg.trace(namespace=ns) as tr:
        z.mul_(2)      # ExpBackward0 saved z: backward will now fail
    return tr


# name -> (builder, expectations for event 0 (or the listed event))
SCENARIOS = {
    "seed": dict(
        build=seed, event=0, op="mul_", tensor="x",
        before={"x": "SelectBackward0", "b": "CloneBackward0", "y": None},
        after={"x": "AsStridedBackward0", "b": "CopySlices", "y": None},
        after_edges={"b": ["CloneBackward0", "AccumulateGrad"],
                     "x": ["CopySlices"]},
        wrapped="MulBackward0",
        added=["AsStridedBackward0", "CopySlices", "MulBackward0"],
        removed=["SelectBackward0"], stale=[],
        summary="x.mul_(y): x is a view of b → b.grad_fn is now CopySlices(MulBackward0)",
        explain=["b₀ = b", "x₀ = x", "x₁ = x₀ * y", "b₁ = b₀.select_scatter(x₁, 0, 2)",
                 "x₂ = b₁.select(0, 2)", "x = x₂", "b = b₁"]),
    "spec_example": dict(
        build=spec_example, event=0, op="mul_", tensor="x",
        before={"x": "SelectBackward0", "b": "CloneBackward0"},
        after={"x": "AsStridedBackward0", "b": "CopySlices"},
        after_edges={"b": ["CloneBackward0"]},
        wrapped="MulBackward0",
        added=["AsStridedBackward0", "CopySlices", "MulBackward0"],
        removed=["SelectBackward0"], stale=[],
        summary="x.mul_(2): x is a view of b → b.grad_fn is now CopySlices(MulBackward0)",
        explain=["b₀ = b", "x₀ = x", "x₁ = x₀ * 2", "b₁ = b₀.select_scatter(x₁, 0, 0)",
                 "x₂ = b₁.select(0, 0)", "x = x₂", "b = b₁"]),
    "non_view": dict(
        build=non_view, event=0, op="mul_", tensor="x",
        before={"x": "MulBackward0"}, after={"x": "MulBackward0"},
        after_edges={"x": ["MulBackward0"]},
        added=["MulBackward0"], removed=[], stale=[],
        summary="x.mul_(3): x.grad_fn is now MulBackward0 (its edge 0 is the old "
                "MulBackward0)",
        explain=["x₀ = x", "x₁ = x₀ * 3", "x = x₁"]),
    "base_with_views": dict(
        build=base_with_views, event=0, op="add_", tensor="b",
        before={"b": "CloneBackward0", "v": "SelectBackward0", "w": "SliceBackward0"},
        after={"b": "AddBackward0", "v": "SelectBackward0", "w": "SliceBackward0"},
        after_edges={"b": ["CloneBackward0"]},
        added=["AddBackward0"], removed=[], stale=["v", "w"],
        summary="b.add_(1): b.grad_fn is now AddBackward0 (its edge 0 is the old "
                "CloneBackward0); 2 other views went stale",
        explain=["b₀ = b", "b₁ = b₀ + 1", "b = b₁", "v = b₁.select(0, 0)",
                 "w = b₁.slice(0, 1, 3, 1)"]),
    "view_of_view": dict(
        build=view_of_view, event=0, op="exp_", tensor="s",
        before={"s": "SliceBackward0", "r": "SelectBackward0", "m": "CloneBackward0"},
        after={"s": "AsStridedBackward0", "r": "SelectBackward0", "m": "CopySlices"},
        after_edges={"m": ["CloneBackward0"]},
        wrapped="ExpBackward0",
        added=["AsStridedBackward0", "CopySlices", "ExpBackward0"],
        removed=["SliceBackward0"], stale=["r"],
        summary="s.exp_(): s is a view of m → m.grad_fn is now CopySlices(ExpBackward0); "
                "1 other view went stale",
        explain=["m₀ = m", "s₀ = s", "s₁ = s₀.exp()", "m₀_view1 = m₀.select(0, 0)",
                 "m₀_view1_new = m₀_view1.slice_scatter(s₁, 0, 1, 3, 1)",
                 "m₁ = m₀.select_scatter(m₀_view1_new, 0, 0)",
                 "s₂ = m₁.select(0, 0).slice(0, 1, 3, 1)", "s = s₂", "m = m₁",
                 "r = m₁.select(0, 0)"]),
    "stale_views": dict(
        build=stale_views, event=1, op="add_", tensor="v",
        # the op reads v's history first, which rebuilds v's stale grad_fn (as PyTorch)
        before={"v": "AsStridedBackward0", "w": "AsStridedBackward0", "b": "CopySlices"},
        after={"v": "AsStridedBackward0", "w": "AsStridedBackward0", "b": "CopySlices"},
        after_edges={"b": ["CopySlices"]},
        wrapped="AddBackward0",
        added=["AsStridedBackward0", "CopySlices", "AddBackward0"],
        removed=["AsStridedBackward0"], stale=["w"],
        summary="v.add_(1): v is a view of b → b.grad_fn is now CopySlices(AddBackward0); "
                "1 other view went stale",
        explain=["b₀ = b", "v₀ = v", "v₁ = v₀ + 1", "b₁ = b₀.slice_scatter(v₁, 0, 0, 2, 1)",
                 "v₂ = b₁.slice(0, 0, 2, 1)", "v = v₂", "b = b₁",
                 "w = b₁.slice(0, 2, 4, 1)"]),
    "setitem": dict(
        build=setitem, event=0, op="__setitem__", tensor="c.select(0, 0)",
        before={"c": "CloneBackward0", "c.select(0, 0)": "SelectBackward0"},
        after={"c": "CopySlices", "c.select(0, 0)": "AsStridedBackward0"},
        after_edges={"c": ["CloneBackward0"]},
        wrapped="CopyBackwards",   # a 0-d destination: copy_ of the number's 0-d tensor
        added=["AsStridedBackward0", "CopySlices", "CopyBackwards"],
        removed=["SelectBackward0"], stale=[],
        summary="c.select(0, 0) = 5.0: c.select(0, 0) is a view of c → c.grad_fn is now "
                "CopySlices(CopyBackwards)",
        explain=["c₀ = c", "view₀ = c₀.select(0, 0)", "view₁ = vg.full_like(view₀, 5.0)",
                 "c₁ = c₀.select_scatter(view₁, 0, 0)", "view₂ = c₁.select(0, 0)",
                 "c = c₁"]),
    "optimizer_step": dict(
        build=optimizer_step, event=0, op="sub_", tensor="p",
        before={"p": None}, after={"p": None}, after_edges={},
        added=[], removed=[], stale=[],
        summary="p.sub_(lr * p.grad): under no_grad: the graph is unchanged; p's version "
                "0 → 1",
        explain=["p₀ = p", "p₁ = p₀ - (lr * p.grad)", "p = p₁"]),
    "saved_result": dict(
        build=saved_result, event=0, op="mul_", tensor="z",
        before={"z": "ExpBackward0"}, after={"z": "MulBackward0"},
        after_edges={"z": ["ExpBackward0"]},
        added=["MulBackward0"], removed=[], stale=[],
        summary="1 saved tensor is now out of date",
        explain=["z₀ = z", "z₁ = z₀ * 2", "z = z₁"]),
}
