"""Docstrings for the learner, attached at import: ``add_docstr`` and the ``vg.*`` functions.

Every public Tensor method and ``vg.*`` function has a docstring written for someone who
knows PyTorch a little and is learning autograd: what it does, what autograd records, and
the PyTorch equivalent where viewgrad differs. The REPL shows it with ``x?`` and
``help(x)``. Tensor methods are documented in ``_tensor_docs.py``; the functions below are
those that are not also Tensor methods (``vg.exp`` *is* ``Tensor.exp``: one docstring).

``tests/test_docstrings.py`` fails when a public name has none: add yours in the op's
source (it wins over the entries here) or here.
"""
from __future__ import annotations

import inspect

from ._tensor_docs import TENSOR

FUNCTIONS = {
    "Tensor": "A multi-dimensional array that autograd can record: its data (on a device), "
              "its version counter (shared with its views), its view metadata and its "
              "``grad``/``grad_fn``. Make one with ``vg.tensor(data)``, not ``vg.Tensor``, "
              "as in PyTorch.",
    # -- factories ------------------------------------------------------------------------
    "as_tensor": "``data`` as a tensor, sharing memory with a NumPy array of the right dtype "
                 "and device when it can (else a copy), as ``torch.as_tensor``.",
    "zeros": "A tensor of zeros: ``vg.zeros(2, 3)`` or ``vg.zeros((2, 3))``; "
             "``requires_grad=True`` makes it a leaf.",
    "ones": "A tensor of ones: ``vg.ones(2, 3)``; ``requires_grad=True`` makes it a leaf.",
    "full": "A tensor of the given ``size`` filled with ``fill_value``.",
    "empty": "A tensor of the given size whose values are whatever the memory held "
             "(uninitialised, as ``torch.empty``): fill it before reading.",
    "arange": "``start, start+step, …`` up to (not including) ``end``; "
              "``vg.arange(5)`` is ``[0, 1, 2, 3, 4]`` (int64 for whole numbers).",
    "linspace": "``steps`` evenly spaced values from ``start`` to ``end`` inclusive.",
    "eye": "The identity matrix ``n`` × ``m`` (``m`` defaults to ``n``).",
    "randn": "Samples of the standard normal distribution: ``vg.randn(3, 4)``. "
             "``vg.manual_seed(0)`` makes them repeatable — and the same numbers as "
             "``torch.manual_seed(0); torch.randn(3, 4)`` (PyTorch's CPU stream).",
    "rand": "Uniform samples in ``[0, 1)``: ``vg.rand(3, 4)``.",
    "randint": "Random integers in ``[low, high)`` of the given ``size`` "
               "(``vg.randint(10, size=(3,))`` uses ``low=0``).",
    "zeros_like": "Zeros with the shape, dtype and device of ``t``.",
    "ones_like": "Ones with the shape, dtype and device of ``t``.",
    "full_like": "``fill_value`` with the shape, dtype and device of ``t``.",
    "empty_like": "Uninitialised memory with the shape, dtype and device of ``t``.",
    "rand_like": "Uniform samples with the shape, dtype and device of ``t``.",
    "randn_like": "Normal samples with the shape, dtype and device of ``t``.",
    # -- functions over several tensors -----------------------------------------------------
    "cat": "Joins tensors along an existing dimension ``dim`` (a copy; ``CatBackward0`` "
           "splits the gradient back).",
    "stack": "Joins tensors along a new dimension ``dim`` (a copy).",
    "addmm": "``beta * input + alpha * (mat1 @ mat2)`` (``AddmmBackward0``, what "
             "``nn.Linear`` records in PyTorch).",
    # -- devices and modes -------------------------------------------------------------------
    "cuda_is_available": "True when CuPy and a GPU are usable (``vg.cuda.is_available()``).",
    "is_grad_enabled": "True unless inside ``vg.no_grad()``/``vg.inference_mode()`` (or "
                       "``set_grad_enabled(False)``): whether operations are recorded.",
    "enable_grad": "Context manager (or decorator) that turns recording back on inside a "
                   "``no_grad`` block, as ``torch.enable_grad``.",
    "set_grad_enabled": "``with vg.set_grad_enabled(False):`` turns recording off (True: "
                        "on); called plainly, it sets the mode until changed. As "
                        "``torch.set_grad_enabled``.",
    "is_tensor": "True when ``x`` is a ``vg.Tensor``.",
    "numel": "The number of elements of ``x`` (``x.numel()``).",
}


def add_docstr(obj, doc: str) -> None:
    """Give ``obj`` (a function, class or property) the docstring ``doc`` unless it has one
    (a docstring in the source wins). Like ``torch._C._add_docstr``, applied at import."""
    if getattr(obj, "__doc__", None):
        return
    try:
        obj.__doc__ = doc
    except (AttributeError, TypeError):  # a built-in that cannot take one: nothing to do
        pass


def _apply() -> None:
    from . import Tensor
    import viewgrad as vg
    for name, doc in TENSOR.items():
        attr = inspect.getattr_static(Tensor, name, None)
        if attr is None:
            continue  # not (or no longer) a method: tests/test_docstrings.py says so
        target = attr if isinstance(attr, property) else getattr(Tensor, name)
        add_docstr(target, doc)
        inner = getattr(target, "__wrapped__", None) if inspect.isfunction(target) else None
        while inspect.isfunction(inner):   # the op a named form (or a lean method) wraps
            add_docstr(inner, doc)
            inner = getattr(inner, "__wrapped__", None)
    for name, doc in FUNCTIONS.items():
        obj = getattr(vg, name, None)
        if obj is not None:
            add_docstr(obj, doc)
    # the named forms of an op (ops/operands.py: ``Tensor.divide_`` wraps ``div_``): the
    # op's docstring, once it has one
    for obj in [*vars(Tensor).values(), *vars(vg).values()]:
        inner = getattr(obj, "__wrapped__", None) if inspect.isfunction(obj) else None
        while inspect.isfunction(inner) and not inner.__doc__:   # (a lean method's wrapper)
            inner = getattr(inner, "__wrapped__", None)
        if inner is not None and getattr(inner, "__doc__", None):
            add_docstr(obj, inner.__doc__)


_apply()
