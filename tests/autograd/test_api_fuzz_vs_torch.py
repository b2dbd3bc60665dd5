"""Autograd API behaviours a differential fuzz of random programs (hooks, autograd.grad,
custom Functions, saved-tensor hooks, checkpoint, grad modes) found different from
PyTorch 2.13, each compared with torch: what a restricted backward captures and hands to
hooks (Note [what a restricted backward computes], engine.py), the single root's node
(Note [the single root's node], saved_hooks.py), one unpack per node run (Note [one
unpack per node run], graph.py), the checks of what hooks return, hooks of a leaf that
receives no gradient, ``autograd.grad``'s argument rules, ``@set_grad_enabled(False)``
and checkpoint (Note [checkpoint recomputes per backward], utils/checkpoint.py).

Each scenario runs the same code with ``M = torch`` and ``M = viewgrad`` and logs what a
user can observe; the logs (tensors as dtype, shape and values) and the error raised
(type and first line, PyTorch's words) must be the same."""
import warnings

import numpy as np
import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")

pytestmark = pytest.mark.host_only("compares with torch CPU tensors")


def _plain(v):
    if isinstance(v, (list, tuple)):
        return tuple(_plain(x) for x in v)
    if isinstance(v, dict):
        return tuple((k, _plain(x)) for k, x in v.items())
    if hasattr(v, "detach") and hasattr(v, "shape"):
        return (str(v.dtype).rsplit(".", 1)[-1], tuple(v.shape),
                tuple(np.round(np.asarray(v.detach().numpy(), dtype=float).ravel(), 9)))
    return v


def _run(M, scenario):
    log = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            scenario(M, log)
            end = None
        except Exception as e:  # noqa: BLE001 - the same type and words are the point
            # (viewgrad names a tensor type by its dtype: helpers.wording)
            msg = (str(e).split("\n")[0].replace("torch.FloatTensor", "float32")
                   .replace("torch.DoubleTensor", "float64").replace("torch.", "viewgrad."))
            end = (type(e).__name__, msg)
    warned = sorted({type(w.message).__name__ for w in caught
                     if issubclass(w.category, FutureWarning)})
    return _plain(log), end, warned


def _same(scenario):
    theirs = _run(torch, scenario)
    ours = _run(vg, scenario)
    assert ours[0] == theirs[0], f"\nviewgrad: {ours[0]}\ntorch:    {theirs[0]}"
    if theirs[1] is None or ours[1] is None:
        assert ours[1] == theirs[1], f"viewgrad: {ours[1]}\ntorch: {theirs[1]}"
    else:
        assert ours[1][0] == theirs[1][0], (ours[1], theirs[1])
        assert ours[1][1].startswith(theirs[1][1]), (ours[1], theirs[1])
    assert ours[2] == theirs[2], (ours[2], theirs[2])
    return theirs


def _x(M):
    return M.tensor([[0.5, -1.5], [2.0, 0.25]], dtype=M.float64, requires_grad=True)


# -- Note [what a restricted backward computes] -------------------------------------------

def test_grad_of_a_needed_node_is_captured_before_its_tensor_hooks():
    # t0's node also leads to x: autograd.grad returns t0's gradient as it arrived, the
    # hook's -g only flows on to x; an unneeded node captures what its hooks return
    def scenario(M, log):
        x = _x(M)
        t0 = x * 2
        t1 = x.exp()
        t0.register_hook(lambda g: log.append(("h0", g.clone())) or -g)
        t1.register_hook(lambda g: log.append(("h1", g.clone())) or -g)
        out = (t0 * t0).sum() + t1.sum()
        log.append(M.autograd.grad(out, [t0, x, t1]))
    _same(scenario)


def test_a_post_hook_sees_none_for_the_edges_a_restricted_backward_does_not_follow():
    def scenario(M, log):
        x, y = _x(M), _x(M)
        t = M.maximum(x.sin(), y)
        t.grad_fn.register_hook(lambda gi, go: log.append(("post", gi, go)))
        log.append(M.autograd.grad(t.sum(), [y]))
        u = x * 3 + y
        u.grad_fn.register_hook(lambda gi, go: log.append(("post2", gi)))
        u.sum().backward(inputs=[y])
        log.append((x.grad, y.grad))
    _same(scenario)


# -- Note [the single root's node] --------------------------------------------------------

@pytest.mark.parametrize("how", ["backward", "grad", "two roots"])
def test_multi_grad_hooks_over_the_loss_itself(how):
    # PyTorch's engine runs no GraphRoot for one root edge: the loss's node is not among
    # the nodes it reaches, so mode="all" counts it out (and fires once per gradient)
    def scenario(M, log):
        x = _x(M)
        t1 = x * 3
        loss = t1.sum()
        g = M.autograd.graph
        g.register_multi_grad_hook([loss], lambda gs: log.append(("m1", gs)))
        g.register_multi_grad_hook([loss, t1], lambda gs: log.append(("m2", gs)))
        g.register_multi_grad_hook([t1], lambda g_: log.append(("any", g_)), mode="any")
        if how == "backward":
            loss.backward()
        elif how == "grad":
            log.append(M.autograd.grad(loss, [x]))
        else:
            M.autograd.backward([loss, x.sum()])
        log.append(x.grad)
    _same(scenario)


def test_the_single_roots_tensor_hooks_run_when_nothing_needs_its_node():
    def scenario(M, log):
        x, w = _x(M), _x(M)
        t = (w * 2).sum()
        t.register_hook(lambda g: log.append(("h", g)))
        t.grad_fn.register_hook(lambda gi, go: log.append("node ran"))
        t.backward(inputs=[x])
        log.append(M.autograd.grad(w * 2, [x], M.ones(2, 2, dtype=M.float64),
                                   allow_unused=True))
        log.append((x.grad, w.grad))
    _same(scenario)


# -- what hooks may return -----------------------------------------------------------------

@pytest.mark.parametrize("ret", [
    "(g[0],)",                   # one value for two gradients
    "[g[0], g[1]]",              # a list
    "(M.ones(3, dtype=M.float64), None)",   # another shape
    "(g[0].float(), None)",      # another dtype
])
@pytest.mark.parametrize("kind", ["pre", "post"])
def test_a_node_hooks_result_is_checked(kind, ret):
    def scenario(M, log):
        x, y = _x(M), _x(M)
        t = M.atan2(x, y)
        if kind == "pre":   # one gradient in: make it two by taking a two-output node
            u = M.stack([t, t]).unbind(0)[0]
            u.grad_fn.register_prehook(lambda go: eval(ret, {"M": M, "g": go * 2}))
            u.sum().backward()
        else:
            t.grad_fn.register_hook(lambda gi, go: eval(ret, {"M": M, "g": gi}))
            t.sum().backward()
        log.append((x.grad, y.grad))
    _same(scenario)


@pytest.mark.parametrize("ret", ["3", "M.ones(2, 2, dtype=M.float64)"])
def test_a_hook_given_no_gradient_may_not_make_one(ret):
    # a custom Function's None: the leaf's tensor hooks and post-accumulate hooks still run
    # (here through backward(inputs=...)), and a hook may not turn None into a gradient
    def scenario(M, log):
        class F(M.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a * b

            @staticmethod
            def backward(ctx, g):
                return None, g
        x, y = _x(M), _x(M)
        x.register_hook(lambda g: log.append(("hook", g)))
        x.register_post_accumulate_grad_hook(lambda t: log.append(("post", t.grad)))
        F.apply(x, y).sum().backward(inputs=[x, y])
        log.append((x.grad, y.grad))
        x.register_hook(lambda g: eval(ret, {"M": M}))
        F.apply(x, y).sum().backward(inputs=[x, y])
    _same(scenario)


def test_a_tensor_hook_returning_no_tensor():
    def scenario(M, log):
        t = _x(M) * 2
        t.register_hook(lambda g: 3)
        t.sum().backward()
    assert _same(scenario)[1] == ("TypeError", "expected Variable, but hook returned 'int'")


# -- autograd.grad's arguments ---------------------------------------------------------------

@pytest.mark.parametrize("call", [
    "M.autograd.grad(y.sum(), [x], materialize_grads=True, allow_unused=False)",
    "M.autograd.grad([y.sum(), y.mean()], [x], grad_outputs=[None])",
    "M.autograd.backward([y.sum(), y.mean()], [None])",
    "M.autograd.backward([y.sum()], [None, M.ones(3)])",
    "M.autograd.grad(y.sum(), {'a': x, 'b': w}, allow_unused=True)",
    "M.autograd.grad(y.sum(), [x], only_inputs=False)",
    "M.autograd.grad(y.sum(), [x, w.detach()])",
    "M.autograd.grad(y.sum(), [M.autograd.graph.get_gradient_edge(x)],"
    " materialize_grads=True)",
    "M.autograd.grad(y.sum(), [M.autograd.graph.get_gradient_edge(w)],"
    " materialize_grads=True)",
    "M.autograd.grad(y, [x, w], M.ones(3, 2, 2, dtype=M.float64), is_grads_batched=True,"
    " materialize_grads=True)",
    "M.autograd.grad(y, [x], M.ones(3, 2, dtype=M.float64), is_grads_batched=True)",
])
def test_autograd_grad_arguments(call):
    def scenario(M, log):
        x, w = _x(M), _x(M)
        y = x.exp() * 2
        w.exp()
        log.append(eval(call, {"M": M, "x": x, "w": w, "y": y}))
        log.append((x.grad, w.grad))
    _same(scenario)


# -- Note [one unpack per node run] -----------------------------------------------------------

@pytest.mark.parametrize("op", ["x / y", "M.maximum(x, y)", "M.where(x > 0, x, y)",
                                "x * y", "M.atan2(x, y)"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_an_unpack_hook_runs_once_per_saved_tensor_and_backward(op, create_graph):
    def scenario(M, log):
        x, y = _x(M), _x(M) + 3
        n = [0]

        def pack(t):
            n[0] += 1
            return (n[0], t)

        def unpack(p):
            log.append(("unpack", p[0]))
            return p[1]
        with M.autograd.graph.saved_tensors_hooks(pack, unpack):
            out = eval(op, {"M": M, "x": x, "y": y}).sum()
        log.append(M.autograd.grad(out, [x], retain_graph=True, create_graph=create_graph))
        out.backward()
        log.append(x.grad)
    _same(scenario)


# -- grad modes ------------------------------------------------------------------------------

def test_decorating_with_set_grad_enabled_leaves_the_mode_alone():
    def scenario(M, log):
        @M.set_grad_enabled(False)
        def f(x):
            return x * 2, M.is_grad_enabled()
        log.append(M.is_grad_enabled())
        y, inside = f(_x(M))
        log.append((inside, y.requires_grad, M.is_grad_enabled()))
    try:
        _same(scenario)
    finally:
        vg.set_grad_enabled(True)
        torch.set_grad_enabled(True)


# -- Note [checkpoint recomputes per backward] -------------------------------------------------

def _block(M, calls):
    def f(x):
        calls.append(M.is_grad_enabled())
        return (x * 2).sin() * x
    return f


@pytest.mark.parametrize("how", ["twice", "grad then backward", "double backward",
                                 "input modified in place", "under no_grad"])
def test_checkpoint_without_reentrant(how):
    def scenario(M, log):
        x = _x(M)
        calls = []
        f = _block(M, calls)
        ck = M.utils.checkpoint.checkpoint
        if how == "input modified in place":
            h = x * 1
            out = ck(f, h, use_reentrant=False)
            with M.no_grad():
                h.mul_(2)
            out.sum().backward()
        elif how == "under no_grad":
            with M.no_grad():
                log.append(ck(f, x, use_reentrant=False).requires_grad)
            out = ck(f, x, use_reentrant=False)
            out.sum().backward()
        elif how == "twice":
            s = ck(f, x, use_reentrant=False).sum()
            s.backward(retain_graph=True)
            s.backward()
        elif how == "grad then backward":
            s = ck(f, x, use_reentrant=False).sum()
            log.append(M.autograd.grad(s, [x], retain_graph=True))
            s.backward()
        else:
            g, = M.autograd.grad(ck(f, x, use_reentrant=False).sum(), [x],
                                 create_graph=True)
            log.append((list(calls), g))
            g.sum().backward()
        log.append((calls, x.grad))
    _same(scenario)


@pytest.mark.parametrize("how", ["grad", "inputs"])
def test_reentrant_checkpoint_refuses_a_restricted_backward(how):
    def scenario(M, log):
        x = _x(M)
        out = M.utils.checkpoint.checkpoint(_block(M, []), x, use_reentrant=True).sum()
        if how == "grad":
            log.append(M.autograd.grad(out, [x]))
        else:
            out.backward(inputs=[x])
    assert _same(scenario)[1][0] == "RuntimeError"


def test_the_error_for_an_input_that_requires_no_grad():
    def scenario(M, log):
        x = _x(M)
        M.autograd.grad((x * 2).sum(), [x, M.ones(2)])
    assert _same(scenario)[1] == ("RuntimeError", "One of the differentiated Tensors does "
                                                  "not require grad")


def test_pack_hooks_see_a_saved_result_of_an_op_on_a_non_leaf():
    # (the lean record saved exp's result without packing it: the hook's zeros were lost)
    outs = []
    for M in (torch, vg):
        a = M.ones(3, requires_grad=True)
        with M.autograd.graph.saved_tensors_hooks(lambda t: t * 0, lambda t: t):
            y = (a * 2).exp().tanh().sigmoid()
        y.sum().backward()
        outs.append(a.grad.tolist())
    assert outs[0] == outs[1] == [0.0, 0.0, 0.0]


def test_a_leaf_with_no_gradient_runs_its_hooks_with_none_in_a_plain_backward():
    outs = []
    for M in (torch, vg):
        class F(M.autograd.Function):
            @staticmethod
            def forward(ctx, x, w):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2, None
        x, w = M.ones(2, requires_grad=True), M.ones(2, requires_grad=True)
        calls = []
        w.register_hook(lambda g: calls.append(g))
        F.apply(x, w).sum().backward()
        outs.append((calls, x.grad.tolist(), w.grad))
    assert outs[0] == outs[1]


def test_the_non_leaf_grad_warning_only_while_grad_is_undefined():
    import warnings
    for M in (torch, vg):
        y = M.ones(2, requires_grad=True) * 2
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            y.grad
            y.grad = M.ones(2)
            y.grad
        assert len(w) == 1 and "github.com/pytorch/pytorch/pull/30531" in str(w[0].message)


def test_grad_assignment_and_detach_wording():
    msgs = []
    for M in (torch, vg):
        out = []
        try:
            M.ones(2, dtype=M.float64, requires_grad=True).grad = M.ones(2)
        except RuntimeError as e:
            out.append(str(e).split(" You can set")[0])
        try:
            (M.ones(2, 2, requires_grad=True) * 1)[0].detach_()
        except RuntimeError as e:
            out.append(str(e))
        msgs.append(out)
    assert msgs[0] == msgs[1] and len(msgs[0]) == 2
