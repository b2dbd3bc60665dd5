"""``get_gradient_edge(t)`` as an element of ``inputs=`` (autograd.grad and backward), and
``register_multi_grad_hook`` counting each backward on its own (modes 'any' and 'all'),
against PyTorch."""
import viewgrad as vg
from tests.helpers import assert_same_as_torch


def _l(g):
    return None if g is None else g.tolist()


def test_gradient_edges_as_inputs_match_torch():
    def scenario(M):
        edge = M.autograd.graph.get_gradient_edge
        out = []
        x = M.ones(2, requires_grad=True)
        y = x * 2
        e = edge(y)
        y.mul_(3)                      # the edge still names the old version of y
        out.append([_l(g) for g in M.autograd.grad((y * y).sum(), e)])
        out.append([_l(g) for g in M.autograd.grad((x * x).sum(), [edge(x)])])
        w = x * 4
        w.sum().backward(inputs=[edge(w)])   # a non-leaf edge: nothing accumulates
        out.append(_l(x.grad))
        (x * 5).sum().backward(inputs=[edge(x)])   # a leaf's edge: its .grad
        out.append(_l(x.grad))
        q = x * 2
        out.append([_l(g) for g in M.autograd.grad(q.sum(), [edge(q), x])])
        out.append([_l(g) for g in M.autograd.grad((x * 3).sum(), [edge(q)],
                                                   allow_unused=True)])
        for kw in ({}, {"materialize_grads": True}):
            try:
                M.autograd.grad((x * 3).sum(), [edge(q)], **kw)
            except RuntimeError as err:
                out.append(str(err))
        return out
    assert_same_as_torch(scenario, wording_too=True)


def test_multi_grad_hooks_reset_between_backward_calls_like_torch():
    def scenario(M):
        G = M.autograd.graph
        a = M.ones(2, requires_grad=True)
        b = M.ones(2, requires_grad=True)
        log = []
        h1 = G.register_multi_grad_hook((a, b), lambda g: log.append(("any", _l(g))),
                                        mode="any")
        h2 = G.register_multi_grad_hook((a, b), lambda gs: log.append(
            ("all", [_l(g) for g in gs])))
        (a * 2 + b * 3).sum().backward()
        (a * 4).sum().backward()       # b takes no part: 'all' fires with None for it
        (b * 5).sum().backward()
        h1.remove()
        h2.remove()
        (a * 2).sum().backward()
        c, d = a * 1, b * 1
        G.register_multi_grad_hook((c, d), lambda gs: log.append([_l(g) for g in gs]))
        (c * d).sum().backward(retain_graph=True)
        (c * 2).sum().backward()
        M.autograd.grad((c * d).sum(), [a])
        return log
    assert_same_as_torch(scenario, wording_too=True)


def test_mode_all_with_leaves_under_grad_works():
    # PyTorch 2.13 refuses this ("A leaf node was passed to _will_engine_execute_node but
    # we are currently running autograd.grad()"); viewgrad knows which nodes grad() runs.
    a = vg.ones(2, requires_grad=True)
    b = vg.ones(2, requires_grad=True)
    log = []
    vg.autograd.graph.register_multi_grad_hook((a, b), lambda gs: log.append(
        [_l(g) for g in gs]))
    vg.autograd.grad((a * 6 + b).sum(), [a])
    vg.autograd.grad((a * 7 + b).sum(), [a, b])
    assert log == [[[6.0, 6.0], None], [[7.0, 7.0], [1.0, 1.0]]]
