"""Completion offers names and attributes from the live namespace, tensor methods included."""
import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

import viewgrad as vg
from viewgrad_cli.commands_colon import COMMANDS
from viewgrad_cli.completion import ReplCompleter
from viewgrad_cli.session import fresh_namespace

# the REPL does not depend on the test pass's device: run it in the first pass only
pytestmark = pytest.mark.once


def complete(text, ns=None):
    ns = ns if ns is not None else fresh_namespace()
    c = ReplCompleter(lambda: ns, COMMANDS)
    return [x.text for x in c.get_completions(Document(text, len(text)), CompleteEvent(True))]


def test_tensor_methods_offered():
    ns = fresh_namespace()
    ns["a"] = vg.tensor([1.0, 2.0], requires_grad=True)
    got = complete("a.mu", ns)
    assert "mul_" in got and "mul" in got
    allm = complete("a.", ns)
    for name in ("clone", "backward", "grad_fn", "requires_grad", "add_", "view", "retain_grad"):
        assert name in allm
    assert not any(n.startswith("_") for n in allm)  # private only after typing "_"
    assert "_version" in complete("a._v", ns)


def test_meta_does_not_read_properties():
    # a non-leaf's .grad warns in PyTorch; opening the menu must not trigger it
    import warnings
    ns = fresh_namespace()
    ns["b"] = vg.tensor([1.0], requires_grad=True) * 2
    c = ReplCompleter(lambda: ns, COMMANDS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        comps = list(c.get_completions(Document("b.gr", 4), CompleteEvent(True)))
    metas = {x.text: x.display_meta_text for x in comps}
    assert metas["grad"] == "property" and metas["grad_fn"] == "property"


def test_names_modules_and_chains():
    ns = fresh_namespace()
    ns["my_tensor"] = vg.ones(2)
    assert "my_tensor" in complete("my_", ns)
    assert "tensor" in complete("vg.ten", ns)
    assert "no_grad" in complete("vg.autograd.no_", ns)
    assert "print" in complete("pri", ns)
    assert "lambda" in complete("lamb", ns)
    assert complete("x = my_tensor.sum().", ns) == []  # never calls what the user typed
    assert complete("undefined_thing.", ns) == []
    assert complete("'abc'.", ns) == []


def test_colon_commands_and_their_arguments(tmp_path):
    assert ":show" in complete(":sh")
    assert set(complete(":")) >= {":help", ":graph", ":svg", ":trace", ":tutorial", ":quit"}
    assert complete(":trace o") == ["on", "off"]
    ns = fresh_namespace()
    ns["base"] = vg.ones(2)
    assert "base" in complete(":graph ba", ns)
    assert "clone" in complete(":graph base.cl", ns)
    (tmp_path / "trace1.json").write_text("[]")
    assert any("trace1.json".startswith(x) or x.endswith("json") for x in complete(":load tra"))


def test_event_numbers_for_show():
    from types import SimpleNamespace
    evs = [SimpleNamespace(op="mul_"), SimpleNamespace(op="add_")]
    c = ReplCompleter(fresh_namespace, COMMANDS, lambda: evs)
    got = [(x.text, x.display_meta_text)
           for x in c.get_completions(Document(":show ", 6), CompleteEvent(True))]
    assert got == [("1", "add_"), ("0", "mul_")]


class _Spy:
    """A class whose property, __getattr__ and __dir__ count every call (and would loop
    forever if we let them: here they just count)."""
    calls = 0

    @property
    def p(self):
        _Spy.calls += 1
        return self

    def __getattr__(self, name):
        _Spy.calls += 1
        raise AttributeError(name)

    def __dir__(self):
        _Spy.calls += 1
        return ["from_dir"]

    def method(self):
        return 1


def test_completion_never_runs_a_property_getattr_or_dir():
    ns = fresh_namespace()
    ns["c"] = _Spy()
    ns["c"].own = 5
    _Spy.calls = 0
    assert complete("c.p.", ns) == []        # the property's value is not known: no menu
    got = complete("c.", ns)
    assert {"p", "method", "own"} <= set(got) and "from_dir" not in got
    assert complete("c.nothing.", ns) == []  # no __getattr__ either
    assert complete("c.own.real", ns) == ["real"]   # a plain value in __dict__ is followed
    assert _Spy.calls == 0


def test_a_looping_property_cannot_freeze_completion():
    import threading

    class Loop:
        @property
        def p(self):
            while True:
                pass

    ns = fresh_namespace()
    ns["c"] = Loop()
    got = []
    th = threading.Thread(target=lambda: got.append(complete("c.p.", ns)), daemon=True)
    th.start()
    th.join(10)
    assert not th.is_alive() and got == [[]]


def test_completing_a_stale_views_grad_fn_does_not_regenerate_it():
    ns = fresh_namespace()
    a = vg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a.clone()
    v = b[1:]
    b.mul_(2)                                  # v's grad_fn is now stale
    ns["v"] = v
    old = v._grad_fn
    got = complete("v.grad_fn.", ns)
    assert {"name", "next_functions", "register_hook"} <= set(got)  # from the class Node
    assert v._grad_fn is old                   # not regenerated by the menu
    assert v.grad_fn is not old                # (reading it for real does regenerate it)
    meta = {x.text: x.display_meta_text
            for x in ReplCompleter(lambda: ns, COMMANDS).get_completions(
                Document("v.grad_fn.na", 12), CompleteEvent(True))}
    assert meta == {"name": "method"}


def test_properties_with_annotations_are_followed_by_type():
    class Inner:
        def hello(self):
            pass

    class Outer:
        @property
        def inner(self) -> Inner:
            raise AssertionError("the getter must not run")

    ns = fresh_namespace()
    ns["o"] = Outer()
    assert complete("o.inner.he", ns) == ["hello"]
