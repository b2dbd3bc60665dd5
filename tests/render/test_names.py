"""Pictures name tensors after the user's code: variables, module paths, ``params=``;
saved tensors as ``x @v0`` everywhere; no internal ids in user-facing text."""
import re

from rich.console import Console

import viewgrad as vg
from viewgrad.render.dot import draw


def _text(renderable, width=140):
    con = Console(record=True, width=width, color_system=None)
    con.print(renderable)
    return con.export_text()


def _mlp():
    vg.manual_seed(0)
    model = vg.nn.Sequential(vg.nn.Linear(3, 2), vg.nn.Tanh(), vg.nn.Linear(2, 1))
    x = vg.randn(4, 3)
    loss = model(x).sum()
    return model, x, loss


def test_parameters_are_named_by_module_path_from_the_namespace():
    model, x, loss = _mlp()
    src = vg.viz.draw(loss).source              # the caller's variables: model, x, loss
    for name in ("model.0.weight", "model.0.bias", "model.2.weight", "model.2.bias"):
        assert f"leaf {name}" in src
    assert "<B>loss</B>" in src and "saved mat1: x @v" in src
    assert not re.search(r"leaf t\d+", src)


def test_params_as_torchviz_make_dot_takes_them():
    model, x, loss = _mlp()
    src = draw(loss, namespace={}, params=dict(model.named_parameters())).source
    assert "leaf 0.weight" in src and "leaf 2.bias" in src
    anonymous = draw(loss, namespace={}).source        # nobody holds them: short ids
    assert re.search(r"leaf t\d+", anonymous) and "0.weight" not in anonymous


def test_terminal_names_and_no_internal_ids():
    model, x, loss = _mlp()
    con = Console(record=True, width=140, color_system=None)
    vg.viz.show(loss, console=con)
    out = con.export_text()
    assert "model.0.weight.grad" in out or "→ model.0.weight" in out
    assert not re.search(r"#n\d+", out)


def test_saved_tensor_named_after_its_tensor_and_version_everywhere():
    a = vg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 1
    z = b.exp()
    with vg.trace() as tr:
        z.mul_(2)
    ev = tr.events[0]
    texts = [s.text() for n in ev.after.nodes for s in n.saved]
    assert "saved result: z @v0 (now v1) ✗" in texts
    term = _text(ev)
    assert "saved result: z @v0 (now v1) ✗" in term
    assert "saved result: z @v0 (now v1) ✗" in draw(ev).source
    assert not re.search(r"#n\d+|\bn\d+\b", ev.diff.summary())
    y = vg.tensor([1.0, 2.0], requires_grad=True)
    w = y.clone()
    with vg.trace() as tr:
        w.mul_(y)
    saved = {s.name: s.text() for n in tr.events[0].after.nodes for s in n.saved}
    assert saved == {"self": "saved self: w @v0", "other": "saved other: y @v0"}


def test_notation_never_collides():
    """versions are @vN, explain's copies are subscripted, user variables stay as written"""
    b = vg.tensor([1.0, 2.0, 3.0], requires_grad=True).clone()
    v1 = b[1]
    with vg.trace() as tr:
        v1.mul_(2)
    ev = tr.events[0]
    text = ev.explain()
    assert "b₀ = b" in text and "v1₀ = v1" in text and "v1₁ = v1₀ * 2" in text
    assert "version: v1 @v0 → @v1" in ev.diff.summary()
    assert "@v1" in draw(ev).source and not re.search(r"\bv1 ?=", draw(ev).source)
