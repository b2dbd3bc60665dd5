"""No silent wrong gradient (issue 14, first section): each case runs on viewgrad AND on
PyTorch 2.13 and must give the same values, or raise the same exception at the same step.

The worst bug an autograd engine can have is a wrong gradient that raises nothing; these
are the programs that used to produce one.
"""
import pytest

from tests.helpers import assert_same_as_torch

MODIFIED = "modified by an inplace operation"


def _leaf(M, values, **kw):
    return M.tensor(values, requires_grad=True, **kw)


# -- in-place ops whose operand aliases the written tensor ------------------------------

def _self_alias(op):
    def f(M):
        a = _leaf(M, [1.0, 2.0, 3.0])
        b = a.clone()
        getattr(b, op)(b)
        b.sum().backward()
        return a.grad
    return f


@pytest.mark.parametrize("op", ["mul_", "pow_", "div_", "add_", "sub_", "copy_"])
def test_operand_is_the_written_tensor(op):
    # mul_/pow_/div_ save `other` (== self) before the write: backward must refuse;
    # add_/sub_/copy_ save nothing and are fine.
    assert_same_as_torch(_self_alias(op))


def test_operand_is_a_transposed_view_of_the_written_tensor():
    def f(M):
        a = _leaf(M, [[1.0, 2.0], [3.0, 4.0]])
        b = a.clone()
        b.mul_(b.t())  # partial overlap: refused at the op, before any write
        return b
    assert_same_as_torch(f, match="refer to a single memory location")


def test_partially_overlapping_operand_refused_without_grad():
    def f(M):
        b = M.arange(6.0)
        b[1:].add_(b[:-1])
        return b
    assert_same_as_torch(f, match="refer to a single memory location")


def test_operand_is_a_detached_column_of_the_written_tensor():
    def f(M):
        a = _leaf(M, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        x = a.clone()
        x[:, 2].mul_(x[:, 0].detach())
        x.sum().backward()
        return a.grad
    assert_same_as_torch(f, match=MODIFIED)


def test_operand_is_a_detach_of_the_written_tensor():
    def f(M):
        a = _leaf(M, [1.0, 2.0, 3.0])
        x = a.clone()
        x.mul_(x.detach())
        x.sum().backward()
        return a.grad
    assert_same_as_torch(f, match=MODIFIED)


@pytest.mark.parametrize("grad_c", [False, True])
def test_operand_modified_after_use(grad_c):
    def f(M):
        a = _leaf(M, [1.0, 2.0, 3.0])
        c0 = M.tensor([2.0, 3.0, 4.0], requires_grad=grad_c)
        c = c0.clone()
        x = a.clone()
        x.mul_(c)
        c.add_(1)
        x.sum().backward()
        return a.grad
    assert_same_as_torch(f, match=MODIFIED)


def test_saved_result_of_an_inplace_op_then_other_use():
    # exp_ saves its result at the version AFTER its own bump: a later use is fine...
    def f(M):
        a = _leaf(M, [0.5, 1.0])
        x = a.clone()
        x.exp_()
        (x * 2).sum().backward()
        return a.grad
    assert_same_as_torch(f)

    # ...and a later in-place op breaks it.
    def g(M):
        a = _leaf(M, [0.5, 1.0])
        x = a.clone()
        x.exp_()
        x.add_(1)
        x.sum().backward()
        return a.grad
    assert_same_as_torch(g, match=MODIFIED)


def test_the_versions_after_aliasing_ops():
    def f(M):
        a = _leaf(M, [1.0, 2.0, 3.0])
        b = a.clone()
        v = b[1:]
        b.mul_(b)
        v.add_(v)
        return b._version, v._version, b.detach()
    assert_same_as_torch(f)


# -- a saved tensor detached in place -----------------------------------------------------

@pytest.mark.parametrize("which", ["input", "output"])
def test_saved_tensor_detached_in_place(which):
    def f(M):
        a = _leaf(M, [1.0, 2.0, 3.0])
        b = a * 2
        y = b * a if which == "input" else b.exp()
        (b if which == "input" else y).detach_()
        (y.sum() if which == "input" else (b * 1).sum()).backward()
        return a.grad
    if which == "output":
        # exp saves its result: detaching the result itself (not used below)
        def f(M):  # noqa: F811
            a = _leaf(M, [1.0, 2.0, 3.0])
            y = (a * 2).exp()
            z = y * 1
            y.detach_()
            z.sum().backward()
            return a.grad
    assert_same_as_torch(f, match="detached in-place")


# -- values at the edges ------------------------------------------------------------------

@pytest.mark.parametrize("size,stride", [((2, 2), (1, 1)), ((3, 3), (0, 1)), ((2, 3), (1, 0))])
def test_as_strided_of_an_expanded_input(size, stride):
    def f(M):
        a = _leaf(M, [1.0, 2.0, 3.0], dtype=M.float64)
        y = a.expand(4, 3).as_strided(size, stride)
        (y * M.arange(1.0, 1.0 + y.numel(), dtype=M.float64).reshape(size)).sum().backward()
        return a.grad
    assert_same_as_torch(f)


@pytest.mark.parametrize("fn", ["max", "min", "amax", "amin"])
def test_extremum_of_all_nan(fn):
    def f(M):
        a = _leaf(M, [float("nan")] * 3)
        y = getattr(a, fn)()
        y.backward()
        return y, a.grad
    assert_same_as_torch(f)


def test_extremum_with_some_nan():
    def f(M):
        a = _leaf(M, [1.0, float("nan"), 3.0, float("nan")])
        y = a.max()
        y.backward()
        return y, a.grad
    assert_same_as_torch(f)


def test_pow_at_zero_with_tensor_exponent():
    def f(M):
        a = _leaf(M, [0.0, 0.0, 1.0, 0.0, 2.0])
        b = _leaf(M, [0.0, 2.0, 0.0, -1.0, 0.5])
        y = a ** b
        y.sum().backward()
        return y, a.grad, b.grad
    assert_same_as_torch(f)


@pytest.mark.parametrize("base", [0, 0.0, 2.0, -2.0])
def test_pow_with_scalar_base(base):
    def f(M):
        b = _leaf(M, [0.0, 2.0, -1.0, 0.5])
        y = base ** b
        y.sum().backward()
        return y, b.grad
    assert_same_as_torch(f)


def test_pow_zero_exponent_in_place():
    def f(M):
        a = _leaf(M, [0.0, 1.0])
        e = _leaf(M, [0.0, 0.0])
        x = a.clone()
        x.pow_(e)
        x.sum().backward()
        return a.grad, e.grad
    assert_same_as_torch(f)


# -- dtypes of gradients ------------------------------------------------------------------

@pytest.mark.parametrize("other", ["float64", "int64", "float64_0d", "int64_0d"])
def test_leaf_grad_has_the_leaf_dtype(other):
    def f(M):
        a = _leaf(M, [1.0, 2.0])
        dt = getattr(M, other.split("_")[0])
        o = M.tensor(3 if "0d" in other else [3, 4], dtype=dt)
        y = a * o
        y.sum().backward()
        y2 = a * o  # a second backward accumulates into the existing grad
        y2.sum().backward()
        return y.dtype, a.grad
    assert_same_as_torch(f)


def test_grad_of_a_float64_operand_is_float64():
    def f(M):
        a = _leaf(M, [1.0, 2.0])
        b = _leaf(M, [3.0, 4.0], dtype=M.float64)
        (a * b).sum().backward()
        x = a.detach().clone()
        x.requires_grad_()
        y = x.clone()
        y.mul_(b)
        y.sum().backward()
        return a.grad, b.grad, x.grad
    assert_same_as_torch(f)


def test_linear_float32_weight_gets_float32_grad():
    import viewgrad as vg
    lin = vg.nn.Linear(3, 2)
    x = vg.tensor([[1.0, 2.0, 3.0]], dtype=vg.float64)
    lin(x.float()).sum().backward()
    assert lin.weight.grad.dtype == vg.float32


# -- hooks returning the wrong gradient ------------------------------------------------------

@pytest.mark.parametrize("where", ["leaf", "nonleaf"])
@pytest.mark.parametrize("bad", ["size", "dtype"])
def test_hook_changing_the_gradient_is_refused(where, bad):
    def f(M):
        a = _leaf(M, [1.0, 2.0])
        t = a if where == "leaf" else a * 2

        def hook(g):
            return g.sum() if bad == "size" else g.double()
        t.register_hook(hook)
        (t * 2).sum().backward()
        return a.grad
    assert_same_as_torch(f, match=f"hook 'hook' has changed the {'size' if bad == 'size' else 'type'} of value")
