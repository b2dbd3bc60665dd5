"""Every public Tensor method/property and every ``vg.*`` function or class has a docstring
written for a learner (the REPL shows it with ``x?`` and ``help(x)``).

Adding an op? Give it a docstring in its source, or an entry in ``viewgrad/_tensor_docs.py``
(Tensor methods) / ``viewgrad/_docs.py`` (``vg.*`` functions): what it does, whether it is
a view or a copy, what autograd records, and the PyTorch equivalent where viewgrad differs.
"""
import inspect
import types

import pytest

import viewgrad as vg
from viewgrad import _docs, _tensor_docs

pytestmark = pytest.mark.once


def _doc(owner, name):
    attr = inspect.getattr_static(owner, name)
    if isinstance(attr, (staticmethod, classmethod)):
        attr = attr.__func__
    return (getattr(attr, "__doc__", None) or "").strip()


def _public(names):
    return sorted(n for n in names if not n.startswith("_"))


def test_every_public_tensor_method_has_a_docstring():
    missing = [n for n in _public(dir(vg.Tensor)) if len(_doc(vg.Tensor, n)) < 20]
    assert not missing, (
        f"{len(missing)} public Tensor methods/properties have no docstring: {missing}. "
        "Write one for a learner (what it does, view or copy, the PyTorch equivalent) in "
        "the op's source or in viewgrad/_tensor_docs.py")


def test_every_vg_function_has_a_docstring():
    missing = []
    for name in _public(dir(vg)):
        obj = getattr(vg, name)
        if isinstance(obj, types.ModuleType) and not callable(obj):
            continue  # submodules: their module docstring is checked by their own tests
        if not (callable(obj) or isinstance(obj, type)):
            continue  # dtypes (vg.float32) are values, not functions
        doc = (inspect.getdoc(obj) or "").strip()
        if isinstance(obj, type) and doc == (inspect.getdoc(type) or ""):
            doc = ""
        if len(doc) < 20:
            missing.append(name)
    assert not missing, (
        f"vg.* functions without a docstring: {missing}. Write one in the source or in "
        "viewgrad/_docs.py (FUNCTIONS)")


def test_every_docs_entry_names_something_that_exists():
    # an op renamed or removed leaves its entry behind: say so, rather than keep dead text
    stale = [n for n in _tensor_docs.TENSOR if inspect.getattr_static(vg.Tensor, n, None) is None]
    stale += [f"vg.{n}" for n in _docs.FUNCTIONS if getattr(vg, n, None) is None]
    assert not stale, f"docstring entries for names that do not exist: {stale}"


def test_a_shared_function_reads_the_same_from_both_sides():
    assert vg.exp.__doc__ == vg.Tensor.exp.__doc__ and "ExpBackward0" in vg.exp.__doc__
    assert "view" in vg.Tensor.transpose.__doc__ and "swapaxes" in vg.Tensor.transpose.__doc__


def test_add_docstr_keeps_a_docstring_written_in_the_source():
    def f():
        """mine"""
    _docs.add_docstr(f, "theirs")
    assert f.__doc__ == "mine"

    def g():
        pass
    _docs.add_docstr(g, "theirs")
    assert g.__doc__ == "theirs"
