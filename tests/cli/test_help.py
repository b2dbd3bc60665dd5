"""Help at the prompt: ``x?``, ``help(x)``, and the signature of the call being typed."""
import pytest

import viewgrad as vg
from viewgrad_cli import help as helpmod
from viewgrad_cli.session import fresh_namespace

from .replkit import new_session

pytestmark = pytest.mark.once


def test_question_mark_shows_signature_and_docstring():
    s, buf = new_session()
    s.handle("t = vg.ones(2, requires_grad=True)")
    s.handle("t.add_?")
    out = buf.getvalue()
    assert "t.add_" in out and "add_(other, alpha=1)" in out and "CopySlices" in out
    s.handle("?vg.tensor")
    assert "tensor(data, dtype=None, device=None, requires_grad=False)" in buf.getvalue()
    assert s.errors == 0


def test_question_mark_on_a_property_shows_the_property_without_running_it():
    s, buf = new_session()
    s.handle("a = vg.tensor([1., 2., 3.], requires_grad=True); b = a.clone(); v = b[1:]")
    s.handle("b.mul_(2)")  # v is stale now
    old = s.namespace["v"]._grad_fn
    start = len(buf.getvalue())
    s.handle("v.grad_fn?")
    out = buf.getvalue()[start:]
    assert "a Node (not computed)" in out and "regenerates" in out  # Tensor.grad_fn's doc
    assert s.namespace["v"]._grad_fn is old


def test_help_function_and_other_expressions():
    s, buf = new_session()
    s.handle("help(vg.Tensor.view)")
    assert "ViewBackward0" in buf.getvalue()
    s.handle("help()")
    assert "object?" in buf.getvalue()
    s.handle("(1 + 2)?")  # not a name: evaluated, as typed
    assert "int" in buf.getvalue()
    s.handle("undefined_name?")
    assert "NameError" in buf.getvalue()


def test_help_requests_are_recognised_only_when_meant():
    assert helpmod.help_request("x?") == "x"
    assert helpmod.help_request("  ?vg.tensor ") == "vg.tensor"
    assert helpmod.help_request("x.mul_??") == "x.mul_"
    for text in ("print('why?')", "x = 1", ":help ?", "a ? b\nc?", "?"):
        assert helpmod.help_request(text) is None, text


@pytest.mark.parametrize("text, name, current", [
    ("vg.tensor(", "tensor", "data"),
    ("vg.tensor([1, (2, 3)], ", "tensor", "dtype"),
    ("t.sum(keepdim=", "sum", "keepdim"),
    ("print(t.add(1, ", "add", "alpha"),
    ("vg.zeros(2, 3, ", "zeros", "*size"),
    ("t.mul_(')', ", "mul_", None),   # past its last parameter
])
def test_signature_of_the_call_being_typed(text, name, current):
    ns = fresh_namespace()
    ns["t"] = vg.ones(2)
    got = helpmod.call_signature(text, ns)
    assert got is not None and got[0] == name
    params = list(got[1].parameters.values())
    assert (None if got[2] is None else str(params[got[2]]).split("=")[0]) == current
    frags = helpmod.signature_fragments(text, ns)
    assert "".join(f for _, f in frags).startswith(f" {name}(")


def test_no_signature_outside_a_call_or_for_what_would_need_running_code():
    ns = fresh_namespace()

    class C:
        calls = 0

        @property
        def f(self):
            C.calls += 1
            return print

    ns["c"] = C()
    assert helpmod.call_signature("x = (1, 2", ns) is None
    assert helpmod.call_signature("vg.tensor(1)", ns) is None
    assert helpmod.call_signature("s = 'vg.tensor(", ns) is None
    assert helpmod.call_signature("c.f(", ns) is None and C.calls == 0
