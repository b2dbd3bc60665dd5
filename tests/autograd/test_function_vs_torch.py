"""Custom autograd.Function against PyTorch 2.13: every scenario runs the same code with
``lib = viewgrad`` and ``lib = torch`` and compares what a user can observe (values,
gradients, versions, node names, requires_grad / view-ness, the error raised and its
wording, warnings).

Covered: setup_context-style and classmethod Functions; backward returning a bare None;
non-Tensor inputs and outputs; ``mark_dirty`` (version bumps, refusals); outputs that are
views of inputs or of temporaries; ``once_differentiable`` under ``create_graph``.
"""
import pytest

import viewgrad as vg
from tests.helpers import short, assert_same_as_torch, outcome, error_wording as _err


def _name(fn):
    return None if fn is None else short(fn.name())


def _nexts(t):
    return [(_name(fn), nr) for fn, nr in t.grad_fn.next_functions]


def _vals(t):
    return None if t is None else [round(float(v), 5) for v in t.detach().reshape(-1).tolist()]


# -- styles ------------------------------------------------------------------------------

def _setup_context_style(lib):
    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(x, k):
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.k = inputs[1]
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * ctx.k + x * 0, None

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = Scale.apply(x, 3.0)
    y.sum().backward()
    return _name(y.grad_fn), _vals(y), _vals(x.grad), _nexts(y)


def _classmethod_style(lib):
    class Twice(lib.autograd.Function):
        factor = 2.0

        @classmethod
        def forward(cls, ctx, x):
            return x * cls.factor

        @classmethod
        def backward(cls, ctx, g):
            return g * cls.factor

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    Twice.apply(x).sum().backward()
    return _vals(x.grad)


def _setup_context_saves_input_returned_as_is(lib):
    class Same(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(output)

        @staticmethod
        def backward(ctx, g):
            return g

    return Same.apply(lib.ones(2, requires_grad=True))


# -- gradients in and out ----------------------------------------------------------------

def _bare_none(n_inputs):
    def scenario(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, *xs):
                return xs[0] * 2

            @staticmethod
            def backward(ctx, g):
                return None

        xs = [lib.ones(2, requires_grad=True) for _ in range(n_inputs)]
        F.apply(*xs).sum().backward()
        return [x.grad for x in xs]
    return scenario


def _non_tensor_inputs_and_outputs(lib):
    seen = []

    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, k, b, name):
            return a * k + b, 5, None, a * 3

        @staticmethod
        def backward(ctx, ga, g5, gnone, g3):
            seen.append([None if g is None else _vals(g) for g in (ga, g5, gnone, g3)])
            return ga, None, ga, None

    a, b = lib.ones(2, requires_grad=True), lib.ones(2)
    out = F.apply(a, 2.0, b, "tag")
    out[0].sum().backward()
    return _nexts(out[0]), out[1], out[2], seen, _vals(a.grad), b.grad


def _gradient_for_non_tensor_input(lib):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g, g

    F.apply(lib.ones(2, requires_grad=True), 2.0).sum().backward()


def _wrong_count(extra):
    def scenario(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, g):
                return (g,) + extra

        x = lib.ones(2, requires_grad=True)
        F.apply(x).sum().backward()
        return _vals(x.grad)
    return scenario


def _non_differentiable_outputs_get_zeros(lib):
    seen = []

    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            idx = x.argmax()
            ctx.mark_non_differentiable(idx)
            return x * 2, idx, x * 3

        @staticmethod
        def backward(ctx, ga, gidx, gc):
            seen.append((_vals(ga), _vals(gidx), str(gidx.dtype).split(".")[-1], _vals(gc)))
            return ga * 2

    x = lib.tensor([1.0, 3.0, 2.0], requires_grad=True)
    a, idx, c = F.apply(x)
    a.sum().backward()
    return idx.requires_grad, idx.grad_fn, seen, _vals(x.grad)


# -- mark_dirty ----------------------------------------------------------------------------

def _dirty_fn(lib, how="op", returns="x"):
    class Dirty(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            if how == "op":
                x.mul_(2)
            elif how == "data":   # bypasses the version counter, as `.data` does
                x.data.mul_(2)
            ctx.mark_dirty(x)
            if returns == "x":
                return x
            if returns == "two":
                return x, x * 2
            return x * 2  # the dirty input is not returned

        @staticmethod
        def backward(ctx, g, *rest):
            return g * 2
    return Dirty


def _dirty_bumps_version(how):
    def scenario(lib):
        a = lib.ones(2, requires_grad=True)
        b = a.clone()
        c = b * b  # MulBackward0 saves b at version 0
        out = _dirty_fn(lib, how).apply(b)
        facts = (out is b, b._version, _name(b.grad_fn))
        try:
            c.sum().backward()
        except RuntimeError as e:
            return facts + _err(e)
        return facts
    return scenario


def _dirty_then_backward(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = a.clone()
    out = _dirty_fn(lib).apply(b)
    (out * out).sum().backward()
    return _vals(a.grad), _nexts(out)


def _dirty_not_returned(grad):
    def scenario(lib):
        x = lib.ones(2, requires_grad=grad)
        return _dirty_fn(lib, returns="other").apply(x.clone() if grad else x)
    return scenario


def _dirty_leaf(requires_grad):
    def scenario(lib):
        x = lib.ones(2, requires_grad=requires_grad)
        out = _dirty_fn(lib).apply(x)
        return _vals(out), x._version, out.requires_grad
    return scenario


def _dirty_non_input(lib):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            ctx.mark_dirty(y)
            return y

        @staticmethod
        def backward(ctx, g):
            return g

    x = lib.ones(2, requires_grad=True)
    y = F.apply(x)
    y.sum().backward()
    return _name(y.grad_fn), _vals(x.grad), y._version


def _dirty_view(returns):
    def scenario(lib):
        a = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        base = a.clone()
        out = _dirty_fn(lib, returns=returns).apply(base[:2])
        out = out[0] if isinstance(out, tuple) else out
        facts = (_name(out.grad_fn), _name(base.grad_fn), base._version)
        base.sum().backward()
        return facts + (_vals(a.grad),)
    return scenario


def _dirty_multi_output_not_view(lib):
    a = lib.ones(3, requires_grad=True)
    b = a.clone()
    x, y = _dirty_fn(lib, returns="two").apply(b)
    (x + y).sum().backward()
    return x is b, _name(x.grad_fn), _name(y.grad_fn), _vals(a.grad)


def _dirty_input(make, returns="x"):
    """A custom Function marks dirty an input made by ``make`` (PyTorch refuses a leaf
    that requires grad first, then what check_inplace refuses for a view)."""
    def scenario(lib):
        a = lib.ones(2, 3, requires_grad=True)
        b = a * 1
        if make == "view_of_leaf":
            x = a[0]
        elif make == "no_grad_view":
            with lib.no_grad():
                x = b[0]
        elif make == "inference_view":
            with lib.inference_mode():
                x = b[0]
        elif make == "no_grad_view_of_plain":
            with lib.no_grad():
                x = lib.ones(2, 3)[0]
        elif make == "multi_output_view":
            x = b.unbind(0)[0]
        elif make == "stale_multi_output_view":
            x = b.unbind(0)[0]
            b.add_(1)
        elif make == "stale_view":
            x = b[0]
            b.add_(1)
        elif make == "view_made_leaf":
            x = lib.ones(2, 3)[0]
            x.requires_grad_()
        out = _dirty_fn(lib, returns=returns).apply(x)
        out = out[0] if isinstance(out, tuple) else out
        b.sum().backward()
        return _name(out.grad_fn), _name(b.grad_fn), _vals(a.grad)
    return scenario


def _dirty_moves_retain_grad(lib):
    a = lib.ones(3, requires_grad=True)
    b = a * 1
    b.retain_grad()
    seen = []
    b.register_hook(lambda g: seen.append(_vals(g)))  # stays with the old version
    out = _dirty_fn(lib).apply(b)
    (out * 5).sum().backward()
    return _vals(b.grad), seen, _vals(a.grad)


# -- outputs that are views -----------------------------------------------------------------

def _view_output(kind, requires_grad, leaf, mode="grad"):
    def scenario(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                if kind == "input":
                    return x
                if kind == "view_of_input":
                    return x[:2]
                return (x * 2)[:2]  # a view of a temporary made in forward

            @staticmethod
            def backward(ctx, g):
                full = lib.zeros(4)
                full[: g.shape[0]] = g
                return full

        a = lib.ones(4, requires_grad=requires_grad)
        x = a if leaf else a.clone()
        if mode == "no_grad":
            with lib.no_grad():
                y = F.apply(x)
        else:
            y = F.apply(x)
        facts = [y.requires_grad, y._is_view(), _name(y.grad_fn), y is x,
                 y._is_view() and y._base is x]
        try:
            y.mul_(2)
            facts.append(("in-place ok", _vals(y)))
        except RuntimeError as e:
            facts.append(_err(e))
        if requires_grad and mode == "grad":
            F.apply(x).sum().backward()
            facts.append(_vals(a.grad))
        return facts
    return scenario


def _multi_output_with_a_view(lib):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            t = x * 2
            return t, t[:2]

        @staticmethod
        def backward(ctx, g, h):
            return 2 * g

    y, v = F.apply(lib.ones(4, requires_grad=True))
    facts = [y._is_view(), v._is_view()]
    for t in (v, y):
        try:
            t.mul_(2)
            facts.append(_name(t.grad_fn))
        except RuntimeError as e:
            facts.append(_err(e))
    return facts


# -- once_differentiable -----------------------------------------------------------------------

def _once_differentiable(grad_output_requires_grad):
    def scenario(lib):
        class Sq(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 2, x * 3

            @staticmethod
            @lib.autograd.function.once_differentiable
            def backward(ctx, g, h):
                (x,) = ctx.saved_tensors
                return 2 * x * g + 3 * h

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = lib.tensor([1.0, 1.0], requires_grad=grad_output_requires_grad)
        y, _ = Sq.apply(x)
        (g,) = lib.autograd.grad((y * w).sum(), x, create_graph=True)
        facts = [_vals(g), g.requires_grad, _name(g.grad_fn), g.is_leaf]
        if g.grad_fn is not None:
            facts.append(_nexts(g))
        try:
            g.sum().backward()
            facts.append(_vals(w.grad))
        except RuntimeError as e:
            facts.append(_err(e))
        return facts
    return scenario


SCENARIOS = {
    "setup_context": _setup_context_style,
    "classmethod": _classmethod_style,
    "setup_context_saves_input_as_is": _setup_context_saves_input_returned_as_is,
    "bare_none_one_input": _bare_none(1),
    "bare_none_two_inputs": _bare_none(2),
    "non_tensor_inputs_and_outputs": _non_tensor_inputs_and_outputs,
    "grad_for_non_tensor_input": _gradient_for_non_tensor_input,
    "extra_none_grads": _wrong_count((None, None)),
    "extra_grads": _wrong_count((None, "g")),
    "non_differentiable_outputs": _non_differentiable_outputs_get_zeros,
    "dirty_bumps_version_op": _dirty_bumps_version("op"),
    "dirty_bumps_version_data": _dirty_bumps_version("data"),
    "dirty_bumps_version_untouched": _dirty_bumps_version("none"),
    "dirty_then_backward": _dirty_then_backward,
    "dirty_not_returned": _dirty_not_returned(True),
    "dirty_not_returned_no_grad": _dirty_not_returned(False),
    "dirty_leaf_requires_grad": _dirty_leaf(True),
    "dirty_leaf_no_grad": _dirty_leaf(False),
    "dirty_non_input": _dirty_non_input,
    "dirty_view_single_output": _dirty_view("x"),
    "dirty_view_two_outputs": _dirty_view("two"),
    "dirty_two_outputs_not_view": _dirty_multi_output_not_view,
    "dirty_moves_retain_grad": _dirty_moves_retain_grad,
    "multi_output_with_a_view": _multi_output_with_a_view,
    "once_differentiable_error_node": _once_differentiable(True),
    "once_differentiable_no_graph": _once_differentiable(False),
}
for _kind in ("input", "view_of_input", "view_of_temporary"):
    for _rg in (True, False):
        for _leaf in (True, False):
            SCENARIOS[f"view_output_{_kind}_rg{int(_rg)}_leaf{int(_leaf)}"] = \
                _view_output(_kind, _rg, _leaf)
    SCENARIOS[f"view_output_{_kind}_no_grad"] = _view_output(_kind, True, True, "no_grad")
for _make in ("view_of_leaf", "no_grad_view", "inference_view", "no_grad_view_of_plain",
              "multi_output_view", "stale_multi_output_view", "stale_view", "view_made_leaf"):
    for _returns in ("x", "two"):
        SCENARIOS[f"dirty_input_{_make}_{_returns}"] = _dirty_input(_make, _returns)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_custom_function_like_torch(name):
    assert_same_as_torch(SCENARIOS[name], wording_too=True, warn_filter="mark_dirty")


def test_scenarios_really_raise_and_warn():
    """The comparison is not vacuous: the refusals raise and the warning warns."""
    for name, needle in [("dirty_not_returned", "marked as dirty"),
                         ("dirty_leaf_requires_grad", "leaf Variable"),
                         ("dirty_view_two_outputs", "cannot return more than one Tensor"),
                         ("grad_for_non_tensor_input", "different than None at position 2"),
                         ("bare_none_two_inputs", "expected 2, got 1")]:
        out = outcome(vg, SCENARIOS[name])
        assert out[0] == "raise" and needle in out[2], name
    warned = outcome(vg, SCENARIOS["dirty_non_input"], "mark_dirty")[-1]
    assert warned and "not an input" in warned[0]
    out = outcome(vg, SCENARIOS["once_differentiable_error_node"])[1]
    assert out[2] == "Error" and "@once_differentiable" in out[-1][1]
