"""Refusals PyTorch makes, and those it does not make (issue 14): each program runs on
viewgrad and on torch 2.13; both must raise the same exception type at the same step with
the same message head, or both succeed with the same results.
"""
import pytest

import viewgrad as vg
from tests.helpers import assert_same_as_torch, torch_or_skip


def _base(M, requires_grad):
    a = M.tensor([1.0, 2.0, 3.0], requires_grad=requires_grad)
    return a.clone() if requires_grad else a * 1


NO_GRAD = "was created in no_grad mode and"
INFERENCE = "was created in inference mode and"
MULTI = "This view is the output of a function that returns multiple views"


def _mode(M, mode):
    return M.no_grad() if mode == "no_grad" else M.inference_mode()


# -- views made under no_grad / inference_mode ---------------------------------------------

@pytest.mark.parametrize("mode", ["no_grad", "inference_mode"])
@pytest.mark.parametrize("base_grad", [False, True])
@pytest.mark.parametrize("operand_grad", [False, True])
def test_inplace_on_a_view_made_without_grad(mode, base_grad, operand_grad):
    def f(M):
        b = _base(M, base_grad)
        with _mode(M, mode):
            v = b[:2]
        w = M.tensor([2.0, 3.0], requires_grad=operand_grad)
        v.mul_(w)
        return b._version, v.requires_grad, b.detach()
    assert_same_as_torch(f)


@pytest.mark.parametrize("mode", ["no_grad", "inference_mode"])
@pytest.mark.parametrize("base_grad", [False, True])
def test_view_of_a_view_made_without_grad(mode, base_grad):
    def f(M):
        b = _base(M, base_grad)
        with _mode(M, mode):
            v = b[:2]
        v2 = v[:1]
        v2.mul_(M.tensor([2.0], requires_grad=True))
        return b.detach()
    assert_same_as_torch(f, match=NO_GRAD if mode == "no_grad" else INFERENCE)


@pytest.mark.parametrize("base_grad", [False, True])
@pytest.mark.parametrize("use", ["grad_fn", "mul", "requires_grad", "version", "is_leaf"])
def test_no_grad_view_after_its_base_was_modified(base_grad, use):
    def f(M):
        b = _base(M, base_grad)
        with M.no_grad():
            v = b[:2]
        b.mul_(M.tensor([1.0, 2.0, 3.0], requires_grad=True))
        if use == "grad_fn":
            return v.grad_fn is None
        if use == "mul":
            return v * 2
        if use == "requires_grad":
            return v.requires_grad
        if use == "version":
            return v._version
        return v.is_leaf
    assert_same_as_torch(f)


def test_no_grad_view_of_a_plain_tensor_modified_without_grad_is_fine():
    def f(M):
        b = M.zeros(3)
        with M.no_grad():
            v = b[:2]
        v.add_(1)
        b.mul_(2)
        return v.grad_fn is None, v.requires_grad, b, v._version
    assert_same_as_torch(f)


# -- a view (or op) taken in grad mode of a no_grad view whose base requires grad ----------

def _names(fn):
    return None if fn is None else (fn.name(), tuple(None if f is None else (f.name(), nr)
                                                     for f, nr in fn.next_functions))


GRAD_MODE_VIEWS = {
    "select": lambda v: v[0], "slice": lambda v: v[:, 1:], "t": lambda v: v.t(),
    "view": lambda v: v.view(-1), "unsqueeze": lambda v: v.unsqueeze(0),
    "expand": lambda v: v.expand(2, 3, 3), "diagonal": lambda v: v.diagonal(),
    "unbind": lambda v: v.unbind(0)[1], "split": lambda v: v.split(1)[0],
    "transpose": lambda v: v.transpose(0, 1), "as_strided": lambda v: v.as_strided((2,), (1,)),
    "mul": lambda v: v * 2, "exp": lambda v: v.exp(), "clone": lambda v: v.clone(),
}


@pytest.mark.parametrize("leaf_base", [True, False])
@pytest.mark.parametrize("make", sorted(GRAD_MODE_VIEWS))
@pytest.mark.parametrize("then", ["flags", "backward", "inplace", "grad_unused"])
def test_grad_mode_view_of_a_no_grad_view(leaf_base, make, then):
    def f(M):
        a = M.arange(12.0).reshape(4, 3).requires_grad_()
        b = a if leaf_base else a * 2
        with M.no_grad():
            v = b[1:]
        w = GRAD_MODE_VIEWS[make](v)
        if then == "flags":
            return (w.requires_grad, _names(w.grad_fn), w.is_leaf, w._is_view(),
                    _names((w * a[0, 0]).grad_fn))
        if then == "backward":
            (w * 3).sum().backward()
            return a.grad is None
        if then == "grad_unused":
            return M.autograd.grad((w * a[0, 0]).sum(), [v, a], allow_unused=True)
        w.mul_(2)
        return _names(w.grad_fn), b.detach()
    assert_same_as_torch(f)


def test_saved_tensors_of_a_node_with_no_valid_edge_are_still_checked():
    def f(M):
        a = M.arange(12.0).reshape(4, 3).requires_grad_()
        b = a.clone()
        with M.no_grad():
            v = b.t()
        y = v.tanh()     # TanhBackward0, edge (None, 0), saves its result
        y.tanh_()        # ... which is modified here
        (y.sum() + b.sum()).backward()
        return a.grad
    assert_same_as_torch(f, match="modified by an inplace operation")


# -- multi-output views after an in-place op on their base -------------------------------

@pytest.mark.parametrize("make", ["unbind", "split", "chunk"])
@pytest.mark.parametrize("base_grad", [False, True])
@pytest.mark.parametrize("use", ["grad_fn", "mul", "requires_grad", "inplace", "sum_backward"])
def test_multi_output_views_after_base_inplace(make, base_grad, use):
    def f(M):
        b = _base(M, base_grad)
        outs = {"unbind": lambda: b.unbind(), "split": lambda: b.split(1),
                "chunk": lambda: b.chunk(3)}[make]()
        w = M.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b.mul_(w)
        o = outs[1]
        if use == "grad_fn":
            return o.grad_fn is None
        if use == "mul":
            return o * 2
        if use == "requires_grad":
            return o.requires_grad
        if use == "inplace":
            o.add_(1)
            return b.detach()
        (b.sum() + o.sum()).backward()
        return w.grad
    assert_same_as_torch(f)


@pytest.mark.parametrize("make", ["unbind", "split"])
def test_multi_output_view_modified_with_a_grad_operand(make):
    def f(M):
        b = M.zeros(3)
        o = (b.unbind() if make == "unbind" else b.split(1))[0]
        o.mul_(M.tensor(2.0, requires_grad=True) if make == "unbind" else
               M.tensor([2.0], requires_grad=True))
        return b
    assert_same_as_torch(f, match=MULTI)


def test_stale_multi_output_view_of_a_base_that_later_requires_grad():
    def f(M):
        b = M.zeros(3)
        u = b.unbind()
        b.add_(1)
        first = u[0].grad_fn is None
        b.requires_grad_()
        return first, u[0].grad_fn
    assert_same_as_torch(f, match=MULTI)


# -- a view of a plain tensor made a leaf with requires_grad_() -----------------------------

@pytest.mark.parametrize("what", ["inplace", "inplace_view", "flags", "base_inplace",
                                  "grad_strides"])
def test_view_made_a_leaf(what):
    def f(M):
        b = M.arange(12.0).reshape(4, 3)
        v = b.t()
        v.requires_grad_()
        if what == "inplace":
            v.mul_(2)
        elif what == "inplace_view":
            v[0].mul_(2)
        elif what == "flags":
            return v.is_leaf, v.requires_grad, v.grad_fn is None, v._base is b
        elif what == "base_inplace":
            b.mul_(2)
            return v.is_leaf, v.grad_fn is None, v
        (v * 2).sum().backward()
        return v.grad, v.grad.stride()
    assert_same_as_torch(f, match="a view of a leaf Variable that requires grad" if
                         what.startswith("inplace") else None)


# -- small refusals and permissions -------------------------------------------------------

@pytest.mark.parametrize("case", [
    lambda M: setattr(M.randn(3, requires_grad=True), "data", M.tensor([1, 2, 3])),
    lambda M: setattr(M.randn(3, requires_grad=True), "data", 3),
    lambda M: (lambda x: (setattr(x, "data", M.zeros(3, dtype=M.float64)), x.dtype))(M.randn(3)),
    lambda M: (lambda x: setattr(x, "grad", x))(M.randn(3, requires_grad=True)),
    lambda M: setattr(M.randn(3, requires_grad=True), "grad", M.randn(3, dtype=M.float64)),
    lambda M: setattr(M.randn(3, requires_grad=True), "grad", M.randn(4)),
    lambda M: setattr(M.randn(3, requires_grad=True), "grad", 3),
    lambda M: M.autograd.grad((M.ones(3, requires_grad=True) * 2).sum(), []),
    lambda M: float(M.ones(3)),
    lambda M: int(M.ones(2)),
    lambda M: M.ones(3).item(),
    lambda M: M.ones(3).narrow(0, 2, 2),
    lambda M: M.ones(3).narrow(0, 4, 0),
    lambda M: M.ones(3).narrow(0, -4, 1),
    lambda M: M.ones(3).narrow(0, -1, 1),
    lambda M: M.ones(3).mT,
    lambda M: M.ones(2, 3).mT,
    lambda M: M.ones(3).mH,
    lambda M: M.ones(3).permute(1, 0),
    lambda M: M.ones(2, 3) + M.ones(4),
    lambda M: M.ones(2, 1, 3) * M.ones(5, 2),
    lambda M: M.tensor([1, 2]).requires_grad_(),
    lambda M: len(M.tensor(1.0)),
])
def test_refusals_and_exception_types(case):
    assert_same_as_torch(case)


@pytest.mark.host_only("numpy() is for host tensors")
@pytest.mark.parametrize("no_grad", [False, True])
def test_numpy_of_a_tensor_that_requires_grad(no_grad):
    def f(M):
        x = M.ones(3, requires_grad=True)
        if no_grad:
            with M.no_grad():
                return tuple(x.numpy().shape)  # allowed under no_grad
        return x.numpy()
    assert_same_as_torch(f)


def _first_refusal(M, case):
    x = M.ones(2, 3, requires_grad=True)
    try:
        if case == "stale_multi_output_operand":
            b = x.clone()
            outs = b.unbind(0)
            b.mul_(2)
            b.mul_(outs[0])      # the operand's grad_fn refuses before the overlap check
        elif case == "leaf_with_overlapping_operand":
            x.mul_(x[0].sum())   # check_inplace (a leaf) before the overlap check
        elif case == "view_of_leaf_with_overlapping_operand":
            x[0, :2].add_(x[0, 1:])
    except RuntimeError as e:
        msg = str(e)
        # viewgrad names the op first ("mul_: ..."); the words after it are PyTorch's
        return (msg.split(": ", 1)[1] if msg.startswith(("mul_: ", "add_: ")) else msg)[:50]
    return None


@pytest.mark.parametrize("case", ["stale_multi_output_operand",
                                  "leaf_with_overlapping_operand",
                                  "view_of_leaf_with_overlapping_operand"])
def test_which_refusal_comes_first_is_torchs(case):
    """apply_inplace checks in PyTorch's order: check_inplace on self, then the operands'
    edges (a stale multi-output view refuses there), then devices and overlap."""
    torch = torch_or_skip()
    theirs = _first_refusal(torch, case)
    ours = _first_refusal(vg, case)
    assert theirs is not None and ours == theirs
