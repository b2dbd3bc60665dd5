"""Nodes made from the derivatives table: OpDef and FnNode.

``ops/table.py`` declares every op once with ``defop`` (the derivatives table); this module
is the graph side of a row:

* ``OpDef`` resolves a row's backward formulas, what they need saved (``save_plan``) and a
  ``FnNode`` subclass named as PyTorch names the node (``MulBackward0``);
* ``FnNode.apply`` runs the formulas in backward (viewgrad ops, so double backward works),
  or their array kernels (``ops/fast.py``) in a plain backward.

Recording a call — ``record(op, inputs, out, attrs, edges)``, which builds the node: its
edges ``(node, input_nr)``, its sequence number, its saved tensors — is recording.py, with
``sum_to``, which reduces a broadcast gradient back to its input's shape. How the saved
values read as ``grad_fn._saved_<name>`` is saved_names.py.

autograd never imports ops: the ops package fills ``OPS`` and calls ``record``.
"""
from __future__ import annotations

import inspect

from .. import backend as B
from ..tensor import Tensor
from .graph import (Node, SavedTensor, ERR_FREED, _InNode, get_saved as _get_saved,
                    set_saved as _set_saved, _sum_to_array)
from .apply_lean import install as _install_lean_apply
from .recording import _differentiable, _per_input, sum_to
from .saved_names import (saved_attributes, shown_geometry as _shown_geometry,
                          shown_name as _shown_name)
from .state import state as _st

__all__ = ["OpDef", "defop", "OPS", "FnNode"]

OPS: dict[str, "OpDef"] = {}  # op name -> OpDef (the derivatives table)
_make = Tensor._make
_ARRAYS = B.ARRAY_TYPES


class FnNode(Node):
    """A node made from a table entry. ``_saved``: {name: SavedTensor | value}."""

    __slots__ = ("_sdict", "_releasable", "_sv", "_svc", "_sver", "_sarg", "_swhere")
    # ``_saved`` is the dict of saved values: a property over the slot ``_sdict``, which
    # a lean call may leave for later (Note [saved values in the node], graph.py)
    _saved = property(_get_saved, _set_saved)
    OP: "OpDef" = None
    _kept = None   # what a released node keeps (Note [what a freed node keeps])
    # a subclass with its own ``_lean_apply`` that the row's chain step may join (Note
    # [lean apply], apply_lean.py: ``install(op, chain_only=True)``)
    _own_lean_apply = False
    _shown = None   # dims as the caller gave them (Note [dims as given], saved_names.py)
    # The inputs' shapes, only when some input was broadcast (set on the instance then)
    _shapes = None
    # The inputs' dtypes, only when some input's dtype differs from the output's (a float32
    # x times a float64 w): each gradient is cast back to its input's dtype, as PyTorch's
    # validate_outputs does, so a float32 leaf never receives a float64 .grad.
    _dtypes = None
    # None: not asked yet whether its class may be folded (fold._register answers once)
    _fold_i = None

    def __dir__(self):
        return [n for n in super().__dir__() if _shown_name(n, self)]

    def apply(self, grads):
        op = self.OP
        saved = self._sdict
        if type(saved) is _InNode:   # Note [saved values in the node]: made now
            saved = self._saved
        if saved is None:
            raise RuntimeError(ERR_FREED)
        if op.fast is not None and not _st.grad_enabled and grads[0] is not None:
            # Plain backward on Tensors (e.g. while a tracer watches): the array kernels
            # of apply_arrays, wrapped. A kernel that hands the incoming gradient on
            # unchanged gives back the same Tensor, so AccumulateGrad sees it is shared.
            g = grads[0]
            garr = g._data
            return [None if r is None else g if r is garr else _make(r, g._device)
                    for r in self.apply_arrays([garr])]
        grad = grads if op.multi_output else grads[0]
        # no gradient arrived at all (only a multi-output node's output without one was
        # used: slogdet's sign): PyTorch's "any_grad_defined", every gradient undefined,
        # after the saved values are unpacked (a stale one raises all the same)
        nothing = grad is None or (op.multi_output and all(g is None for g in grads))
        out = []
        edges = self.next_functions
        if op.nondiff:
            edges = _per_input(edges, op.nondiff)
        shapes = self._shapes
        for i, (formula, deps, _) in enumerate(op.formulas):
            if edges[i][0] is None or formula is None or nothing:
                if formula is not None:
                    _check_saved(saved, deps)
                out.append(None)
                continue
            args = [_unpack(saved[d], self) for d in deps]
            g = formula(grad, *args)
            if shapes is not None and g is not None and g._data.shape != shapes[i]:
                g = sum_to(g, shapes[i])
            out.append(g)
        if self._dtypes is not None:
            _cast_to_inputs(out, self._dtypes)
        return _differentiable(out, op.nondiff) if op.nondiff else out

    def apply_arrays(self, grads):
        """Plain backward on bare arrays: the array kernels of ops/fast.py (a row without
        one for some input runs its viewgrad formula for that input, wrapped)."""
        op = self.OP
        saved = self._sdict
        if type(saved) is _InNode:   # Note [saved values in the node]: made now
            saved = self._saved
        g = grads[0]
        one = op.fast1
        if one is not None and g is not None and saved is not None:
            # a one-input row with an array kernel (tanh, exp, relu, sum...): the loop
            # below for one input
            k, names = one
            if len(names) == 1:
                v = saved[names[0]]
                if (type(v) is SavedTensor and v.tensor is None and v.hooks is None
                        and v.version_counter.version == v.saved_version):
                    r = k(g, v.data)   # a saved result, unmodified: Note [one saved result]
                else:
                    r = k(*_kernel_args(self, saved, names, g))
            else:
                r = k(*_kernel_args(self, saved, names, g)) if names else k(g)
            if type(r) not in _ARRAYS:
                r = B.xp_of(g).asarray(r)
            return [r]
        fast = op.fast
        if fast is None or g is None or saved is None:
            return Node.apply_arrays(self, grads)   # wraps, runs apply (which raises if freed)
        edges = self.next_functions
        two = op.fast2
        if (two is not None and edges[1][0] is None and edges[0][0] is not None
                and self._shapes is None and self._dtypes is None):
            # x <op> number, or an operand that needs no gradient (y * c): the loop below
            # for its two inputs, the first's kernel alone
            k, names, other_names = two
            if not names:
                r = k(g)
            elif len(names) == 1 and type(saved[names[0]]) is float:
                r = k(g, saved[names[0]])   # the Python number operand (x * 1.01)
            else:
                r = k(*_kernel_args(self, saved, names, g))
            if type(r) not in _ARRAYS:
                r = B.xp_of(g).asarray(r)
            for d in other_names:   # _check_saved, in line
                v = saved.get(d)
                if type(v) is SavedTensor:
                    v.unpack_data()
            return [r, None]
        out = []
        if op.nondiff:
            edges = _per_input(edges, op.nondiff)
        shapes = self._shapes
        i = -1
        for k, names in fast:
            i += 1
            if edges[i][0] is None:
                for d in op.formulas[i][1]:   # _check_saved, in line
                    v = saved.get(d)
                    if type(v) is SavedTensor:
                        v.unpack_data()
                out.append(None)
                continue
            if k is None:  # no kernel for this input: the viewgrad formula, on Tensors
                f, fdeps, _ = op.formulas[i]
                r = None if f is None else f(_make(g), *[_unpack(saved[d], self)
                                                          for d in fdeps])
                if r is not None and shapes is not None and r._data.shape != shapes[i]:
                    r = sum_to(r, shapes[i])
                out.append(None if r is None else r._data)
                continue
            r = k(*_kernel_args(self, saved, names, g)) if names else k(g)
            if shapes is not None and r.shape != shapes[i]:
                r = _sum_to_array(r, shapes[i])
            if type(r) not in _ARRAYS:
                r = B.xp_of(g).asarray(r)
            out.append(r)
        if self._dtypes is not None:
            dtypes = self._dtypes
            for j, r in enumerate(out):
                if r is not None and dtypes[j] is not None and r.dtype != dtypes[j]:
                    out[j] = r.astype(dtypes[j])
        return _differentiable(out, op.nondiff) if op.nondiff else out

    def release_variables(self):
        if self._releasable:
            if self.OP.kept:
                keep_attributes(self)
            self._sdict = self._sv = None   # (_saved = None)

    def saved_items(self):
        """[(name, SavedTensor-or-value)] of what this node saved, for pictures: an
        input's size and strides under PyTorch's names (``self_sym_sizes``), without the
        hidden values (Note [hidden saved values], saved_names.py)."""
        inputs = self.OP.inputs
        items = [(_shown_geometry(k, inputs) or k, v)
                 for k, v in (self._saved or {}).items() if k[0] != "_"]
        for _, v in items:
            if type(v) is SavedTensor:
                v._set_node(self)
        return items

    @property
    def saved_tensors(self):
        return tuple(v.unpack(self) for v in (self._saved or {}).values()
                     if type(v) is SavedTensor)


# Note [saved outputs of a multi-output node]
# A multi-output row may name its outputs (``multi_output=("Q", "R")``); a formula that
# takes one of those names gets that output. Like a single output's ``result`` it is saved
# whatever needs a gradient (PyTorch saves outputs unconditionally), as an output: its
# array and version counter, not the Tensor (which would make the cycle node -> output ->
# node), with its output number set before ``record`` saves it (``_multi`` in
# ops/stats.py). So modifying Q in place before backward raises PyTorch's error, "output 0
# of LinalgQrBackward0", and modifying the input A does not (the decompositions save only
# their outputs); ``grad_fn._saved_Q`` unpacks to a Tensor whose grad_fn is the node
# itself, which is how a double backward differentiates through the formula.
# tests/autograd/test_saved_outputs_vs_torch.py runs the same programs in both.

# Note [what a freed node keeps]
# A backward without retain_graph frees what a node saved (``_saved`` becomes None: a
# second backward through it raises). PyTorch frees the saved *tensors* only: the dims,
# sizes, alphas and other non-tensor arguments stay readable, ``grad_fn._saved_dim`` after
# ``backward()`` is still the dim. So a node whose row saves such values (``OP.kept``: the
# names a formula takes that are neither an input nor the result) keeps them, as they
# were, in ``_kept`` when it is released; ``_saved_<name>`` reads them there. A Python
# number given for a tensor input (``x * 1.01``'s other) is an input: PyTorch saves it as
# a tensor, and frees it.

def keep_attributes(node):
    """Put what ``node`` saved that is not a tensor into ``node._kept``, before its saved
    values are released (Note [what a freed node keeps])."""
    saved = node._sdict
    if saved and type(saved) is not _InNode:   # (a number in the slots is an input's)
        kept = {}
        for k in node.OP.kept:   # (a loop, not a comprehension: it runs on every release)
            if k not in saved:
                continue
            v = saved[k]
            if type(v) is SavedTensor:
                continue
            if type(v) is tuple and v and type(v[0]) is SavedTensor:   # (_saved_tuple)
                continue
            kept[k] = v
        node._kept = kept


def _kernel_args(node, saved, names, g):
    """``[g, *saved arrays]`` for an array kernel: SavedTensor.unpack_data's checks in
    line for the usual case (Note [kernel arguments in line]), the method otherwise."""
    args = [g]
    for d in names:
        v = saved[d]
        if type(v) is SavedTensor:
            if v.hooks is None and v.version_counter.version == v.saved_version:
                t = v.tensor
                if t is None:
                    v = v.data
                elif not v.had_grad_fn or t._grad_fn is not None:
                    v = t._data
                else:
                    v = v.unpack_data(node)   # detached in place: raises
            else:
                v = v.unpack_data(node)       # hooks, or modified in place: raises
        args.append(v)
    return args


# Note [one saved result]
# A speed trick for a plain backward: a one-input row whose kernel takes one saved value
# (tanh, exp, sigmoid: their result) hands it to the kernel directly when it is a saved
# result with no hooks and an unchanged version — the case in which ``_kernel_args``
# (below) would give the same array; every other case goes through ``_kernel_args``.

# Note [kernel arguments in line]
# A speed trick for a plain backward: ``_kernel_args`` repeats the three checks of
# ``SavedTensor.unpack_data`` (saved-tensor hooks, the version, detached in place) without
# calling it, and hands every unusual case to that method, which raises PyTorch's errors.




def _check_saved(saved, deps):
    """PyTorch unpacks every saved tensor of a node that runs, even one whose gradient no
    edge needs (``y = nograd_view.tanh(); y.tanh_()``): a stale one raises all the same."""
    for d in deps:
        v = saved.get(d)
        if type(v) is SavedTensor:
            v.unpack_data()
        elif type(v) is tuple and v and type(v[0]) is SavedTensor:   # _saved_tuple
            for s in v:
                s.unpack_data()


def _cast_to_inputs(grads, dtypes):
    for i, g in enumerate(grads):
        if g is not None and dtypes[i] is not None and g._data.dtype != dtypes[i]:
            grads[i] = g.to(dtypes[i])


def _unpack(v, node):
    if type(v) is SavedTensor:
        return v.unpack(node)
    if type(v) is tuple and v and type(v[0]) is SavedTensor:   # _saved_tuple, in line
        return tuple(s.unpack(node) for s in v)
    return v


def _unpack_data(v, node):
    if type(v) is SavedTensor:
        return v.unpack_data(node)
    if type(v) is tuple and v and type(v[0]) is SavedTensor:   # _saved_tuple, in line
        return tuple(s.unpack_data(node) for s in v)
    return v


class OpDef:
    """One row of the derivatives table."""

    def __init__(self, name, node_name, forward, inputs, attrs, formulas, broadcast,
                 multi_output, view, differentiable_outputs, samples, cls=FnNode,
                 result_name=None):
        self.name = name
        self.node_name = node_name
        self.forward = forward
        self.inputs = inputs              # names of tensor inputs, in order
        self.attrs = attrs                # names of non-tensor arguments, in order
        self.broadcast = broadcast
        self.multi_output = bool(multi_output)
        # a multi-output row may name its outputs (``multi_output=("Q", "R")``): a formula
        # that takes an output's name gets that output, saved as PyTorch saves it
        # (Note [saved outputs of a multi-output node])
        self.outputs = tuple(multi_output) if isinstance(multi_output, tuple) else ()
        self.view = view                  # a view op (output shares memory with input)
        self.differentiable_outputs = differentiable_outputs
        self.samples = samples            # for the gradcheck sweep: fn(rng) -> [(args, kw)]
        self.fast = None                  # array kernels for plain backward (ops/fast.py)
        self.fast1 = None                 # the kernel of a one-input row (set_fast)
        self.fast2 = None                 # the first kernel of a two-input row (set_fast)
        self.host = None                  # the forward's NumPy ufunc (ops/table.py)
        self.lean1 = self.lean2 = None    # what ops/lean.py needs of this row (Note [lean ops])
        self.promote = False              # cast inputs per PyTorch's type promotion first
        # an elementwise result laid out as its first input (ops/table.py's dispatch):
        # None lets ``promote`` answer (the elementwise rows promote)
        self.follows_first = None
        # formulas: tuple aligned with inputs of (fn or None, deps, uses_result)
        fl = []
        for inp in inputs:
            f = formulas.get(inp)
            if f is None:
                fl.append((None, (), False))
                continue
            params = list(inspect.signature(f).parameters)[1:]
            for p in params:
                # (_bias_shape: a hidden value, Note [hidden saved values] in saved_names.py)
                q = p[1:] if p.startswith("_") and p not in attrs else p
                if q not in inputs and q != "result" and q not in attrs and (
                        q not in self.outputs) and _shown_geometry(q, inputs) is None:
                    raise TypeError(f"derivative of {name} wrt {inp}: unknown name {p!r}")
            fl.append((f, tuple(params), "result" in params or any(
                p in self.outputs for p in params)))
        self.formulas = tuple(fl)
        # Note [what a freed node keeps]: the saved values that are not tensors
        self.kept = tuple(d for d in dict.fromkeys(x for _, deps, _ in fl for x in deps)
                          if d != "result" and d not in inputs and d not in self.outputs)
        # Note [edges of non-differentiable inputs]: an input with no derivative formula
        # (an index, a mask, a target, the Python number of a Scalar overload such as
        # 1 - x) gets no edge at all, so ``next_functions`` lists what PyTorch's lists:
        # gather's node has one edge, not two. The node still saves (and version-checks)
        # such an input; apply works input by input and drops these positions at the end.
        self.nondiff = tuple(i for i, (f, _, _) in enumerate(fl) if f is None)
        self.uses_result = any(u for _, _, u in fl)
        # PyTorch-style teaching access: grad_fn._saved_self, _saved_result, _saved_dim,
        # _raw_saved_self... one property per name a formula can save (a property, not a
        # __getattr__ hook: that would slow down every attribute read of every node)
        ns = {"__slots__": (), "OP": self}
        ns.update(saved_attributes(name, fl, inputs, result_name))
        if node_name == "NotImplemented":   # (PyTorch's hand-written C++ node: its name()
            ns["_CPP_NAME"] = "torch::autograd::NotImplemented"   # is namespaced, graph.py)
        self.node_cls = type(node_name, (cls,), ns)
        self._plans = {}
        self.plan1 = self.save_plan((True,)) if len(inputs) == 1 else None
        # what x <op> number saves (record_lean.py: Note [lean record])
        self.plan_scalar = self.save_plan((True, False)) if len(inputs) == 2 else None

    def save_plan(self, needs):
        """What to save for a given tuple of 'input i needs grad' flags (cached)."""
        plan = self._plans.get(needs)
        if plan is None:
            # Note [what a node saves]: what the formulas of the inputs that need a
            # gradient take, as PyTorch saves (an input's value only for another input's
            # formula that will run) — and, whatever needs a gradient, what no edge can
            # carry: the attributes, the non-differentiable inputs (an index, a mask,
            # where's condition) and the result, which PyTorch saves unconditionally and
            # checks when the node runs (``x = nograd_view.gather(1, i); i.fill_(0)``, or
            # ``h = hypot(nograd_view, nograd_view); h.tanh_()``, refuse at backward)
            # A value that two formulas take is saved whatever needs a gradient (PyTorch's
            # code generator guards a saved value by should_compute_output only when one
            # formula takes it): addcdiv's tensor2, where's condition; index_add's index,
            # which only the source's formula takes, is saved only for the source. An
            # input's size (``<input>_shape``) is saved whatever needs a gradient, as
            # PyTorch saves every ``sym_sizes()`` (``mm(x, W)`` with only W requiring
            # grad still shows ``_saved_self_sym_sizes``); an input's strides
            # (``<input>_strides``, mm's and addmm's) only for that input's own formula,
            # as PyTorch's ``strides_or_error`` gives () for an input that needs none.
            uses = {}
            for f, deps, _ in self.formulas:
                if f is not None:
                    for d in set(deps):
                        uses[d] = uses.get(d, 0) + 1
            always = set(self.attrs) | {"result", *self.outputs} | {
                d for d, n in uses.items() if n > 1 or d.endswith("_shape")}
            names = []
            for need, (f, deps, _) in zip(needs, self.formulas):
                if f is not None:
                    for d in deps:
                        if (need or d in always) and d not in names:
                            names.append(d)
            plan = []
            for d in names:
                if d == "result":
                    plan.append((d, 1, 0))
                elif d in self.outputs:
                    plan.append((d, 1, self.outputs.index(d)))
                elif d in self.inputs:
                    plan.append((d, 0, self.inputs.index(d)))
                elif d in self.attrs:
                    plan.append((d, 2, self.attrs.index(d)))
                elif d.endswith("_strides"):
                    plan.append((d, 4, self.inputs.index(d[:-8])))
                else:   # <input>_shape (or _<input>_shape: Note [hidden saved values])
                    plan.append((d, 3, self.inputs.index(d[:-6].lstrip("_"))))
            plan = tuple(plan)
            self._plans[needs] = plan
        return plan

    def set_fast(self, /, **kernels):  # positional-only: "self" is also a kernel name
        """Give this row array kernels for plain backward (see ops/fast.py): each kernel
        takes the same saved names as (a subset of) its viewgrad formula's."""
        fl = []
        for inp, (f, deps, _) in zip(self.inputs, self.formulas):
            k = kernels.get(inp)
            if k is None or f is None:
                fl.append((None, ()))
                continue
            params = tuple(inspect.signature(k).parameters)[1:]
            if not set(params) <= set(deps):
                raise TypeError(f"fast kernel of {self.name} wrt {inp} needs {params}, but "
                                f"the viewgrad formula saves only {deps}")
            fl.append((k, params))
        self.fast = tuple(fl) if any(k is not None for k, _ in fl) else None
        # one input, one kernel, a formula: FnNode.apply_arrays's Note [one saved result]
        self.fast1 = fl[0] if len(fl) == 1 and fl[0][0] is not None and not self.nondiff \
            else None
        # two inputs, a kernel for the first: FnNode.apply_arrays runs it alone when the
        # second needs no gradient, then unpacks what the second's formula names
        # (still version-checked, as _check_saved does)
        self.fast2 = (fl[0] + (self.formulas[1][1],)) if (
            len(fl) == 2 and fl[0][0] is not None and not self.nondiff) else None
        if self.node_cls.__bases__ == (FnNode,):   # Note [lean apply] (apply_lean.py)
            _install_lean_apply(self)
        elif self.node_cls._own_lean_apply:   # (ReluNode: its own step, the row's chain step)
            _install_lean_apply(self, chain_only=True)

    def __repr__(self):
        return f"<op {self.name} -> {self.node_name}>"


def defop(name, node_name, forward, inputs=("self",), attrs=(), broadcast=False,
          multi_output=False, view=False, differentiable_outputs=None, samples=None,
          cls=FnNode, promote=False, edge_for_every_input=False, result_name=None,
          **formulas):
    """Declare an op in the derivatives table; returns its OpDef. ``promote=True``: the
    forward gets its tensor inputs cast to PyTorch's result dtype (elementwise ops).
    ``edge_for_every_input=True``: keep an edge even for inputs without a formula (``x +
    2``: PyTorch's AddBackward0 lists the wrapped number as ``(None, 0)``).
    ``result_name``: the name PyTorch gives the saved result (``_saved_L`` for cholesky's,
    not ``_saved_result``)."""
    op = OpDef(name, node_name, forward, tuple(inputs), tuple(attrs), formulas, broadcast,
               multi_output, view, differentiable_outputs, samples, cls, result_name)
    op.promote = promote
    if edge_for_every_input:
        op.nondiff = ()
    if name in OPS:
        raise ValueError(f"op {name!r} declared twice in the derivatives table")
    OPS[name] = op
    return op
