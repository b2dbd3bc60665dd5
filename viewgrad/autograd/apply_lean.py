"""A row's plain-backward step, specialized once per row (Note [lean apply]).

Note [lean apply]
A speed trick, fenced off here. ``FnNode.apply_arrays`` (nodes.py) is the general plain
backward step of a table row: it asks, every time a node runs, which of its shapes the
row has (one input or two, which kernel, what the kernel takes) before it calls the
row's array kernel (ops/fast.py). The answer depends only on the row, so for the two
commonest shapes it is given once, when the row gets its kernels (``OpDef.set_fast``),
as the node class's ``_lean_apply``, which the plain backward loop (engine_plain.py) tries first:

* ``one_result``: a one-input row whose kernel takes the saved result (tanh, exp,
  sigmoid, sqrt...);
* ``one_input``: a one-input row whose kernel takes its saved input (sin, cos, log,
  erf, silu, gelu...);
* ``first_of_two``: a two-input row whose second input needs no gradient (``y * 1.01``,
  ``y - 1.65``, ``y * c``), the first input's kernel alone; and, in the loop only (two
  edges end a chain run), ``both_of_two``: both inputs need one (``y * z``, ``h + f(h)``,
  ``a @ b``, ``y - y.mean(-1, keepdim=True)``), each input's kernel, nothing cast;
* ``one_attribute``: a one-input row whose kernel takes one saved value that is not a
  tensor's (``sum``: the input's shape), and that saves no tensor; ``attributes``: the
  same with several (``sum(dim)``, ``mean(dim)``: the shape, the dims, keepdim);
* ``input_and_attributes``: a one-input row whose kernel takes its saved input and saved
  values that are not tensors' (``leaky_relu``: the slope; ``hardtanh``: the bounds);
* ``nothing_saved``: a one-input row whose kernel takes nothing (``t``: TBackward0, the
  transpose of every linear layer's weight; ``neg``);
* ``result_and_attribute``: a one-input row whose kernel takes its saved result and one
  saved non-tensor value (``log_softmax``, ``softmax``: the dim).

Each asks what the general step would ask — freed saved values, a saved tensor modified
in place (its version), saved-tensor hooks, a broadcast or cast input — and answers
None for every case it does not cover: the loop then runs the general step itself,
which raises every error from where it always did (the same frames in a traceback), so
a node computes exactly what ``FnNode.apply_arrays`` computes. A node whose step answered
has its saved values released by the loop in line, as ``FnNode.release_variables`` does:
only FnNode classes may have a step (ops/nn_fast.py's relu/addmm/nll nodes are too).
tests/autograd/test_lean_apply.py runs programs both ways (``set_lean_apply(False)``
gives every node class the general step back) and compares gradients and errors.
"""
from __future__ import annotations

from .. import backend as B
from .graph import _InNode, SavedTensor, _saved_array as saved_array, _sum_to_array
from .code_copies import own_code
from .recording import _NOTHING_SAVED
from .saved_names import shown_geometry

__all__ = ["specialize", "install", "set_lean_apply"]

_HOST = B.HOST_ARRAY
_ARRAYS = B.ARRAY_TYPES
# Note [inline steps] (engine_chain.py): what a step does in its commonest case, for
# run_chain to do in line: its kind, its kernel (or ufunc), its marker
_RESULT, _NUMBER, _PASS = 1, 2, 3
_ST = SavedTensor
_IN = _InNode


def _as_array(r, g):
    """A kernel's answer as an array (a 0-d computation gives a NumPy scalar)."""
    return r if type(r) in _ARRAYS else B.xp_of(g).asarray(r)


def _on_lists(step, two):
    """A step as the plain loop calls it (``_lean_apply``): on its list of gradients,
    answering the list of input gradients (``two``: the second input's is None) or None."""
    def lean_apply(self, grads):
        g = grads[0]
        if g is None:
            return None
        r = step(self, g)
        if r is None:
            return None
        return [r, None] if two else [r]
    return lean_apply


def one_result(kernel, name):
    """The lean step of a one-input row whose kernel takes its saved result ``name``:
    ``(step, lean_apply)`` — ``step(node, g)`` gives the input's gradient array or None
    (Note [chain run], engine_chain.py); ``lean_apply`` is the same step on the loop's
    list of gradients."""
    host = getattr(kernel, "host", None)   # Note [a kernel that is one ufunc] (ops/fast.py)

    def step(self, g):
        saved = self._sdict
        if type(saved) is _IN:   # Note [saved values in the node] (graph.py)
            if self._svc.version == 0:   # (a result is saved at version 0)
                if host is not None and type(g) is _HOST:
                    r = host(g, self._sv)
                else:
                    r = kernel(g, self._sv)
                return r if type(r) is _HOST else _as_array(r, g)
            return None
        if saved is not None:
            v = saved[name]
            # a saved result with no hooks, unmodified: Note [one saved result] (nodes.py)
            if v.version_counter.version == v.saved_version and v.hooks is None:
                r = kernel(g, v.data)
                return r if type(r) is _HOST else _as_array(r, g)
        return None
    # Note [inline steps] (engine_chain.py): the run does this case itself
    step.inline = (_RESULT, host if host is not None else kernel, None)
    return step, _on_lists(step, False)


def one_input(kernel, name):
    """The lean step of a one-input row whose kernel takes its saved input ``name``, as
    ``one_result``'s: the checks of Note [kernel arguments in line] (nodes.py) — no hooks,
    unmodified, still attached when it had a history."""
    def step(self, g):
        saved = self._sdict
        if type(saved) is _IN:   # Note [saved values in the node] (graph.py)
            t = self._sv
            if self._svc.version != self._sver or (
                    saved.kind == "history" and t._grad_fn is None):
                return None
            r = kernel(g, t._data)
            return r if type(r) is _HOST else _as_array(r, g)
        if saved is not None:
            d = saved_array(saved[name])
            if d is not None:
                r = kernel(g, d)
                return r if type(r) is _HOST else _as_array(r, g)
        return None
    return step, _on_lists(step, False)


def one_attribute(kernel, name):
    """The lean step of a one-input row whose kernel takes one saved non-tensor value
    (``sum``: the input's shape), as ``one_result``'s."""
    def step(self, g):
        saved = self._sdict
        if saved is not None and type(saved) is not _IN:
            v = saved[name]
            if type(v) is not _ST:   # (a Tensor attribute: the general step unpacks it)
                r = kernel(g, v)
                return r if type(r) is _HOST else _as_array(r, g)
        return None
    return step, _on_lists(step, False)


def attributes(kernel, names):
    """The lean step of a one-input row whose kernel takes several saved non-tensor values
    (``names``), as ``one_attribute``'s."""
    def step(self, g):
        saved = self._sdict
        if saved is not None and type(saved) is not _IN:
            args = [saved[n] for n in names]
            for v in args:
                if type(v) is _ST:   # (a Tensor attribute: the general step unpacks it)
                    return None
            r = kernel(g, *args)
            return r if type(r) is _HOST else _as_array(r, g)
        return None
    return step, _on_lists(step, False)


def input_and_attributes(kernel, names):
    """The lean step of a one-input row whose kernel takes its saved input ``names[0]``
    and saved attributes (``names[1:]``: values, or a tensor attribute such as
    log_sigmoid's buffer, its array when unmodified), as ``one_input``'s (a dict of saved
    values only)."""
    name, rest = names[0], names[1:]

    def step(self, g):
        saved = self._sdict
        if saved is not None and type(saved) is not _IN:
            d = saved_array(saved[name])
            if d is not None:
                args = [saved[n] for n in rest]
                for i, v in enumerate(args):
                    if type(v) is _ST:
                        v = args[i] = saved_array(v)
                        if v is None:
                            return None   # (modified, or hooked: the general step)
                r = kernel(g, d, *args)
                return r if type(r) is _HOST else _as_array(r, g)
        return None
    return step, _on_lists(step, False)


def nothing_saved(kernel):
    """The lean step of a one-input row whose kernel takes only the gradient, as
    ``one_result``'s (a node released by a retain_graph=False backward: the general step)."""
    same = getattr(kernel, "identity", False)   # Note [a kernel that is one ufunc] (ops/fast.py)

    def step(self, g):
        if self._sdict is not None:
            if same and type(g) is _HOST:
                return g
            r = kernel(g)
            return r if type(r) is _HOST else _as_array(r, g)
        return None
    return step, _on_lists(step, False)


def result_and_attribute(kernel, attr):
    """The lean step of a one-input row whose kernel takes its saved result and the saved
    non-tensor value ``attr``, as ``one_result``'s (a dict of saved values only: the
    general step makes one from the node's slots)."""
    def step(self, g):
        saved = self._sdict
        if saved is not None and type(saved) is not _IN:
            v = saved["result"]
            a = saved[attr]
            # a saved result with no hooks, unmodified (Note [one saved result], nodes.py)
            if (type(v) is _ST and v.tensor is None and v.hooks is None and type(a) is not _ST
                    and v.version_counter.version == v.saved_version):
                r = kernel(g, v.data, a)
                return r if type(r) is _HOST else _as_array(r, g)
        return None
    return step, _on_lists(step, False)


def first_of_two(kernel, names, other_names):
    """The lean step of a two-input row whose second input needs no gradient: the first
    input's ``kernel`` (taking ``names``), then the version checks of what the second
    input's formula would take (``other_names``); ``(step, lean_apply)`` as
    ``one_result``'s. Names after the first are sizes or strides, handed over as saved."""
    name = names[0] if names else None
    more = tuple(names[1:])   # (values after the first: a matrix's sizes and strides)
    number = _IN("number", name)   # (the markers are shared: Note [saved values in the node])
    host = getattr(kernel, "host", None)   # Note [a kernel that is one ufunc] (ops/fast.py)
    same = getattr(kernel, "identity", False)

    def step(self, g):
        saved = self._sdict
        if more and type(saved) is _IN:
            return None   # (a lean call's node keeps one value: not this row's)
        if saved is number:   # x * 1.01: the cached operand the forward used
            if host is not None and type(g) is _HOST:
                r = host(g, self._sarg)
            else:
                r = kernel(g, self._sarg)
            return r if type(r) is _HOST else _as_array(r, g)
        if type(saved) is _IN and saved.name == name:
            # Note [saved values in the node] (graph.py): a lean call's node, whose one
            # value saved is the kernel's; its second edge is none, nothing was broadcast
            # or cast (the lean calls take no such case)
            if saved.kind == "input":   # the constant Tensor, unmodified
                if self._svc.version != self._sver:
                    return None
                v = self._sv._data
            else:   # the number, as the cached operand the forward used
                v = self._sarg
            if host is not None and type(g) is _HOST and type(v) is _HOST:
                r = host(g, v)
            else:
                r = kernel(g, v)
            return r if type(r) is _HOST else _as_array(r, g)
        edges = self.next_functions
        if (saved is None or edges[1][0] is not None or edges[0][0] is None
                or self._shapes is not None or self._dtypes is not None):
            return None
        if type(saved) is _IN:   # (a value the kernel does not take: the dict, made now)
            saved = self._saved
        if name is None:
            r = g if same and type(g) is _HOST else kernel(g)
        else:
            v = saved[name]
            if type(v) is _ST:
                # a saved input, unmodified, no hooks, still attached: the checks of
                # Note [kernel arguments in line] (nodes.py)
                t = v.tensor
                if (v.hooks is not None or v.version_counter.version != v.saved_version
                        or t is None or (v.had_grad_fn and t._grad_fn is None)):
                    return None
                v = t._data
            r = kernel(g, v, *[saved[d] for d in more]) if more else kernel(g, v)
            if type(r) is not _HOST:
                r = _as_array(r, g)
        for d in other_names:   # _check_saved, in line: a stale one raises all the same
            v = saved.get(d)
            if type(v) is _ST:
                v.unpack_data()
        return r
    if not more and host is not None:   # Note [inline steps]
        step.inline = (_NUMBER, host, number)
    elif name is None and same and not other_names:
        step.inline = (_PASS, None, _NOTHING_SAVED)
    return step, _on_lists(step, True)


def both_of_two(fast, lean_first):
    """The loop's lean step of a two-input row with a kernel per input (``fast``): both
    inputs' kernels when both need a gradient, nothing was cast and every saved tensor
    they take is unmodified, unhooked and attached (the checks of Note [kernel arguments
    in line], nodes.py), each gradient summed back to a broadcast input's shape as the
    general step sums it; ``lean_first`` (first_of_two's) when the second needs none;
    otherwise None."""
    (k0, names0), (k1, names1) = fast

    def lean_apply(self, grads):
        e1 = self.next_functions[1][0]
        if e1 is None:
            return lean_first(self, grads)
        g = grads[0]
        saved = self._sdict
        if (g is None or saved is None or type(saved) is _IN or self._dtypes is not None
                or self.next_functions[0][0] is None):
            return None
        args = []
        for names in (names0, names1):
            a = [g]
            for n in names:
                v = saved[n]
                if type(v) is _ST:
                    v = saved_array(v)
                    if v is None:
                        return None   # (modified, hooked or detached: the general step raises)
                a.append(v)
            args.append(a)
        r0 = k0(*args[0])
        r1 = k1(*args[1])
        shapes = self._shapes
        if shapes is not None:   # an input was broadcast: its gradient summed back to it
            if r0.shape != shapes[0]:
                r0 = _sum_to_array(r0, shapes[0])
            if r1.shape != shapes[1]:
                r1 = _sum_to_array(r1, shapes[1])
        return [r0 if type(r0) is _HOST else _as_array(r0, g),
                r1 if type(r1) is _HOST else _as_array(r1, g)]
    return lean_apply


def specialize(op):
    """The lean step for ``op``'s node class, or None (the general one runs)."""
    if op.nondiff:
        return None
    if op.fast1 is not None:
        kernel, names = op.fast1
        plan = op.plan1
        if names == ("result",) and plan == (("result", 1, 0),):
            return one_result(kernel, "result")
        if len(names) == 1 and plan == ((names[0], 0, 0),):
            return one_input(kernel, names[0])
        if not names and not plan:
            return nothing_saved(kernel)
        if (len(names) == 2 and names[0] == "result" and plan[:1] == (("result", 1, 0),)
                and len(plan) == 2 and plan[1][0] == names[1] and plan[1][1] in (2, 3)):
            return result_and_attribute(kernel, names[1])
        if names and all(kind in (2, 3) for _, kind, _ in plan):
            # (every value saved: not a tensor's)
            return one_attribute(kernel, names[0]) if len(names) == 1 else attributes(
                kernel, names)
        kinds = {n: kind for n, kind, _ in plan}
        if (len(names) > 1 and plan[:1] == ((names[0], 0, 0),)
                and all(kinds.get(n) in (2, 3) for n in names[1:])):
            return input_and_attributes(kernel, names)
        return None
    if op.fast2 is not None and len(op.inputs) == 2:
        kernel, names, other_names = op.fast2
        first = first_of_two(kernel, names, other_names) if len(names) <= 1 or (
            _values_only(op, names[1:])) else (None, None)
        if op.fast[1][0] is not None:   # a kernel for each input
            return first[0], both_of_two(op.fast, first[1] or _none)
        return first if first[0] is not None else None
    return None


def _values_only(op, names):
    """Whether ``names`` are all sizes or strides of ``op``'s inputs (values, not tensors:
    first_of_two hands them to the kernel as saved)."""
    return all(shown_geometry(n, op.inputs) is not None for n in names)


def _none(self, grads):
    return None


_INSTALLED = {}   # node class -> its lean step
_enabled = [True]


def install(op, chain_only=False):
    """Give ``op``'s node class its lean step when it has a shape above; ``chain_only``:
    a class with a ``_lean_apply`` of its own (ReluNode: Note [relu's backward in place],
    ops/nn_fast.py) gets only the step of Note [chain run] (engine_chain.py), which
    makes a new array, and keeps its own for the loop."""
    lean = specialize(op)
    if lean is None:
        _INSTALLED.pop(op.node_cls, None)
        return
    if chain_only:
        lean = (lean[0], None)   # (the class's own _lean_apply stays)
    for f in lean:   # Note [a code object per row] (code_copies.py)
        if f is not None:
            own_code(f)
    _INSTALLED[op.node_cls] = lean
    if _enabled[0]:
        _put(op.node_cls, lean)


def _put(cls, lean):
    cls._chain_step = None if lean[0] is None else staticmethod(lean[0])
    how = getattr(lean[0], "inline", None)   # Note [inline steps] (engine_chain.py)
    cls._chain_inline = None if how is None else how + (bool(cls.OP.kept), lean[0])
    if lean[1] is not None:
        cls._lean_apply = lean[1]


def set_lean_apply(enabled: bool) -> bool:
    """Turn the lean steps on or off (tests compare both); returns the previous setting."""
    prev = _enabled[0]
    _enabled[0] = bool(enabled)
    for cls, lean in _INSTALLED.items():
        if enabled:
            _put(cls, lean)
        elif "_chain_step" in cls.__dict__:
            del cls._chain_step   # Node's: always None
            del cls._chain_inline
            if lean[1] is not None:
                del cls._lean_apply
    return prev
