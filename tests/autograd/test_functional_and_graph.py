"""autograd.functional, autograd.graph's saved-tensor hooks and gradient edges, batched
grads, the bare no_grad decorator, del t.grad and the profiler — against torch (the
test-only oracle) where torch defines the numbers."""
import numpy as np
import pytest

import viewgrad as vg
from viewgrad.autograd import functional as AF, graph as G, profiler as P

torch = pytest.importorskip("torch", reason="torch is the test-only oracle for these tests")
rng = np.random.default_rng(11)


def f_vec(lib):
    return lambda x, y: (x * x * y.sum() + x.exp(), (x * y).sum() * y)


def f_scalar(lib):
    return lambda x, y: (x * x * y).sum() + (x.exp() * y * y).sum()


def _np(r):
    if isinstance(r, (tuple, list)):
        return [_np(x) for x in r]
    return r.detach().cpu().numpy()


def _close(a, b):
    if isinstance(b, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y)
    else:
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


X, Y = rng.standard_normal(3), rng.standard_normal(3)
V = (rng.standard_normal(3), rng.standard_normal(3))


def both(fn_name, make_f, *vs, **kw):
    ours = getattr(AF, fn_name)(make_f(vg), (vg.tensor(X), vg.tensor(Y)),
                                *[tuple(vg.tensor(a) for a in v) for v in vs], **kw)
    theirs = getattr(torch.autograd.functional, fn_name)(
        make_f(torch), (torch.tensor(X), torch.tensor(Y)),
        *[tuple(torch.tensor(a) for a in v) for v in vs], **kw)
    _close(_np(ours), _np(theirs))
    return ours


def test_jacobian_vjp_jvp_match_torch():
    both("jacobian", f_vec)
    both("vjp", f_vec, V)
    both("jvp", f_vec, V)
    single = AF.jacobian(lambda x: x.exp() * 2, vg.tensor(X))
    _close(_np(single), _np(torch.autograd.functional.jacobian(lambda x: x.exp() * 2,
                                                               torch.tensor(X))))


def test_hessian_vhp_hvp_match_torch():
    both("hessian", f_scalar)
    both("vhp", f_scalar, V)
    both("hvp", f_scalar, V)
    one = AF.hessian(lambda x: (x ** 3).sum(), vg.tensor(X))
    assert tuple(one.shape) == (3, 3)
    _close(_np(one), np.diag(6 * X))


def test_create_graph_and_strict():
    x = vg.tensor(X, requires_grad=True)
    _, g = AF.vjp(lambda a: (a ** 3).sum(), x, create_graph=True)
    assert g.requires_grad
    _, g = AF.vjp(lambda a: (a ** 3).sum(), x)
    assert not g.requires_grad
    with pytest.raises(RuntimeError, match="independent of input 1"):
        AF.jacobian(lambda a, b: a * 2, (vg.tensor(X), vg.tensor(Y)), strict=True)
    z = AF.jacobian(lambda a, b: a * 2, (vg.tensor(X), vg.tensor(Y)))
    assert z[1].abs().sum().item() == 0


def test_saved_tensors_hooks_match_torch():
    out = {}
    for lib in (vg, torch):
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        log = []
        graph = lib.autograd.graph
        with graph.saved_tensors_hooks(lambda t: (log.append("pack"), t)[1],
                                       lambda t: (log.append("unpack"), t)[1]):
            e = a.exp()
            m = a * a
        packs = list(log)
        e.mul_(2)            # hooks own the saved tensor: no version check (PyTorch's rule)
        (e.sum() + m.sum()).backward()
        c = a * 3.0 * a
        c.grad_fn._raw_saved_self.register_hooks(lambda t: t * 0, lambda t: t)
        c.sum().backward()
        with graph.save_on_cpu():
            s = (a * a).sum()
        s.backward()
        out[lib] = (packs, log, a.grad.tolist())
        with graph.disable_saved_tensors_hooks("hooks are off here"):
            with pytest.raises(RuntimeError, match="hooks are off here"):
                with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
    assert out[vg][:2] == out[torch][:2]
    np.testing.assert_allclose(out[vg][2], out[torch][2], rtol=1e-6)


def test_gradient_edge_and_increment_version():
    a = vg.ones(2, requires_grad=True)
    b = a * 2
    assert G.get_gradient_edge(b).node is b.grad_fn
    assert G.get_gradient_edge(a).node.name() == "torch::autograd::AccumulateGrad"
    v = b._version
    G.increment_version(b)
    assert b._version == v + 1
    with pytest.raises(RuntimeError, match="does not require gradients"):
        G.get_gradient_edge(vg.ones(1))


def test_batched_grads_match_torch():
    res = {}
    for lib in (vg, torch):
        x = lib.tensor(X, requires_grad=True)
        y = x.exp() * x
        res[lib] = lib.autograd.grad(y, x, lib.eye(3, dtype=x.dtype), is_grads_batched=True,
                                     only_inputs=True)[0].tolist()
    _close(np.array(res[vg]), np.array(res[torch]))


def test_bare_no_grad_decorator_and_del_grad():
    @vg.no_grad
    def f(x):
        return x * 2

    @vg.enable_grad
    def g(x):
        return x * 2
    x = vg.ones(2, requires_grad=True)
    assert not f(x).requires_grad
    with vg.no_grad():
        assert g(x).requires_grad
    (x * 2).sum().backward()
    del x.grad
    assert x.grad is None
    assert not vg.autograd.is_inference_mode_enabled()
    with vg.inference_mode():
        assert vg.autograd.is_inference_mode_enabled()


def test_profiler_table_counts_ops_and_nodes():
    m = vg.nn.Sequential(vg.nn.Linear(4, 8), vg.nn.ReLU(), vg.nn.Linear(8, 1))
    x = vg.randn(5, 4)
    with P.profile(record_shapes=True) as prof:
        with P.record_function("forward"):
            loss = m(x).pow(2).mean()
        loss.backward()
    rows = {r.key: r for r in prof.key_averages()}
    assert rows["forward"].count == 1 and rows["ReluBackward0"].count == 1
    assert rows["torch::autograd::AccumulateGrad"].count == 4 and rows["relu"].count == 1
    assert rows["forward"].cpu_time_total >= rows["forward"].self_cpu_time_total >= 0
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=5)
    assert "Self CPU %" in table and "# of Calls" in table and "Self CPU time total" in table
    assert len([ln for ln in table.splitlines() if ln and ln[0].isalpha()]) == 1 + 5 + 1
    y = m(x).sum()                # after the block: nothing is timed any more
    y.backward()
    assert sum(r.count for r in prof.key_averages()) == sum(rows[k].count for k in rows)
    from viewgrad.ops.table import OPS
    assert OPS["relu"].forward.__name__ != "forward"       # the wrappers are gone
