"""In-place view ops (t_, transpose_, swapdims_, unsqueeze_, squeeze_, as_strided_)
against PyTorch: node names and edges, version bumps, shapes and strides, gradients,
refusals, the effect on the tensor's other views and on its saved copies."""
import pytest

from tests.helpers import assert_same_as_torch
from tests.ops.test_vs_torch import compare_with_torch


def _n(t):
    return type(t.grad_fn).__name__ if t.grad_fn is not None else None


OPS = ["t_()", "transpose_(0, 1)", "swapdims_(0, 1)", "swapaxes_(1, 0)", "unsqueeze_(0)",
       "squeeze_()", "squeeze_(0)", "squeeze_((0,))", "as_strided_((3,), (2,), 1)"]


@pytest.mark.parametrize("op", OPS)
def test_node_version_geometry_and_grad_match_torch(op):
    def scenario(M):
        x = M.arange(6.0).reshape(2, 3).detach().requires_grad_()
        y = x * 2
        if op.startswith("squeeze_("):
            y = y.unsqueeze(0)
        r = eval("y." + op)  # noqa: S307 - a fixed list of method calls
        w = M.arange(float(y.numel())).reshape(tuple(y.shape))
        (y * w).sum().backward()
        return (r is y, _n(y), [type(e[0]).__name__ for e in y.grad_fn.next_functions],
                y._version, tuple(y.shape), y.stride(), x.grad.tolist())
    assert_same_as_torch(scenario, wording_too=True)


def test_views_of_the_changed_tensor_match_torch():
    def scenario(M):
        x = M.arange(6.0).reshape(2, 3).detach().requires_grad_()
        out = []
        b = x * 2                       # a view changed in place, then written through
        v = b[0]
        v.unsqueeze_(0)
        v.mul_(3)
        out += [_n(b), _n(v), v._base is b, tuple(v.shape)]
        b.sum().backward()
        out.append(x.grad.tolist())
        x.grad = None
        b = x * 2                       # a transposed view writes the right elements
        v = b[:, 1:]
        v.t_()
        out += [tuple(v.shape), v.stride(), v.storage_offset()]
        v[0].mul_(10)
        out.append(b.tolist())
        b.sum().backward()
        out.append(x.grad.tolist())
        x.grad = None
        b = x * 2                       # the base changed: its other views go stale
        w = b[0]
        b.t_()
        out += [_n(w), w._version, tuple(b.shape)]
        (w * M.arange(3.0)).sum().backward()
        out.append(x.grad.tolist())
        y = x * 2                       # retain_grad stays with the old version
        y.retain_grad()
        y.t_()
        y.sum().backward()
        out.append(list(y.grad.shape))
        z = M.ones(2, 3)                # no autograd at all: metadata and version only
        zv = z[0]
        zv.unsqueeze_(0)
        out += [zv._base is z, tuple(zv.shape), z._version, zv.requires_grad]
        e = M.ones(3, 1).expand(3, 2)   # an expanded tensor may be transposed in place
        e.t_()
        out += [tuple(e.shape), e.stride()]
        with M.no_grad():
            leaf = M.ones(2, 3, requires_grad=True)
            leaf.t_()
        out += [tuple(leaf.shape), leaf._version, leaf.is_leaf]
        return out
    assert_same_as_torch(scenario, wording_too=True)


@pytest.mark.parametrize("bad", [
    "x.t_()", "x.detach().requires_grad_().transpose_(0, 1)", "x[0].unsqueeze_(0)",
    "(x * 2).split(1)[0].t_()", "M.ones(2, 3, 4).t_()", "(x * 1).squeeze_(5)",
    "(x * 1).unsqueeze_(3)", "(x * 1).as_strided_((3,), (4,))"])
def test_refusals_match_torch(bad):
    def scenario(M):
        x = M.ones(2, 3, requires_grad=True)
        try:
            eval(bad)  # noqa: S307 - a fixed list of expressions
        except (RuntimeError, IndexError) as e:
            # viewgrad names the op first ("t_: a leaf Variable...")
            return type(e).__name__, str(e).split(". ")[0].split("_: ")[-1].rstrip(".")
        return "ok"
    assert_same_as_torch(scenario, wording_too=True)


def test_a_saved_tensor_changed_by_t__is_refused_like_torch():
    def scenario(M):
        x = M.ones(2, 3, requires_grad=True)
        y = x * 2
        s = y * y
        y.t_()
        try:
            s.sum().backward()
        except RuntimeError as e:
            # the node's name differs: torch 2.13 writes "output 0 of T1" (see the report)
            return str(e).split(":")[0]
    got = assert_same_as_torch(scenario, wording_too=True)[1]
    assert "has been modified by an inplace operation" in got


def test_inplace_view_ops_in_a_graph_match_torch():
    compare_with_torch(lambda M, F, a: (a * 1).t_().unsqueeze_(0).squeeze_(0) * 2, [(2, 3)])
    compare_with_torch(lambda M, F, a: (a * 3).as_strided_((2, 2), (1, 2), 1), [(2, 3)])
