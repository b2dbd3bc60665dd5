"""The index tensors of ``x[idx]``, ``x[idx] = v`` and ``index_put_`` are saved as PyTorch
saves them (Note [saved index tensors], ops/indexing.py): an index modified in place
between forward and backward is refused with "modified by an inplace operation" — before,
the gradient was scattered with the modified index, a wrong gradient that raised nothing.
Each case runs in viewgrad and in torch and must end the same way."""
import numpy as np
import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")


def g(x):
    return np.round(np.asarray(x.grad.tolist()), 6).tolist()


C = {}
def case(f): C[f.__name__] = f; return f
@case
def getitem_long(L):
    x = L.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True); i = L.tensor([2, 0])
    y = x[:, i]; i[0] = 1; (y * L.tensor([1., 2.])).sum().backward(); return g(x)
@case
def getitem_two_tensors(L):
    x = L.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True); i = L.tensor([0, 1]); j = L.tensor([2, 0])
    y = x[i, j]; j.fill_(1); (y * L.tensor([1., 2.])).sum().backward(); return g(x)
@case
def getitem_bool(L):
    x = L.tensor([1., 2., 3.], requires_grad=True); m = L.tensor([True, False, True])
    y = x[m]; m.logical_not_(); (y * L.tensor([1., 2.])).sum().backward(); return g(x)
@case
def getitem_index_view_base_modified(L):
    x = L.tensor([1., 2., 3.], requires_grad=True); base = L.tensor([2, 0, 1]); i = base[:2]
    y = x[i]; base[2] = 0; y.sum().backward(); return g(x)
@case
def getitem_unmodified(L):
    x = L.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True); i = L.tensor([2, 0, 2])
    y = x[:, i]; (y * L.arange(6.).reshape(2, 3)).sum().backward(); return g(x)
def _ndarray_modified(L):
    x = L.tensor([1., 2., 3.], requires_grad=True); i = np.array([2, 0])
    y = x[i]; i[0] = 1; (y * L.tensor([1., 2.])).sum().backward(); return g(x)
@case
def getitem_list(L):
    x = L.tensor([1., 2., 3.], requires_grad=True); i = [2, 0]
    y = x[i]; i[0] = 1; (y * L.tensor([1., 2.])).sum().backward(); return g(x)
@case
def setitem_values_grad(L):
    v = L.tensor([10., 20.], requires_grad=True); x = L.zeros(3); i = L.tensor([2, 0])
    x[i] = v * 1; i[0] = 1; (x * L.tensor([1., 2., 3.])).sum().backward(); return g(v)
@case
def index_put_accumulate(L):
    v = L.tensor([10., 20.], requires_grad=True); x = L.zeros(3); i = L.tensor([2, 2])
    x.index_put_((i,), v * 1, accumulate=True); i[0] = 0; (x * L.tensor([1., 2., 3.])).sum().backward(); return g(v)
@case
def setitem_self_grad(L):
    w = L.tensor([1., 2., 3.], requires_grad=True); x = w * 1; i = L.tensor([2])
    x[i] = 0.; i[0] = 0; (x * L.tensor([1., 2., 3.])).sum().backward(); return g(w)
@case
def inference_index(L):
    x = L.tensor([1., 2., 3.], requires_grad=True)
    with L.inference_mode():
        i = L.tensor([2, 0])
    y = x[i]; y.sum().backward(); return g(x)
@case
def hooks_pack_index(L):
    x = L.tensor([1., 2., 3.], requires_grad=True); i = L.tensor([2, 0]); seen = []
    with L.autograd.graph.saved_tensors_hooks(lambda t: seen.append(str(t.dtype).replace("torch.", "")) or t, lambda t: t):
        y = x[i]
    y.sum().backward(); return seen, g(x)
@case
def saved_indices_attr(L):
    x = L.tensor([1., 2., 3.], requires_grad=True); i = L.tensor([2, 0])
    y = x[i]; r = y.grad_fn._saved_indices
    return [t is i if t is not None else None for t in r], type(r).__name__
@case
def double_backward(L):
    x = L.tensor([1., 2., 3.], requires_grad=True); i = L.tensor([2, 0, 2])
    y = (x[i] ** 2).sum(); gx, = L.autograd.grad(y, x, create_graph=True); i[0] = 1
    gx.sum().backward(); return g(x)


def _outcome(lib, f):
    try:
        return ("ok", f(lib))
    except (RuntimeError, TypeError, IndexError) as e:
        return ("raised", type(e).__name__, str(e).split(":")[0].replace("viewgrad", "torch"))


@pytest.mark.parametrize("name", sorted(C))
def test_saved_index_tensors_as_torch(name):
    assert _outcome(vg, C[name]) == _outcome(torch, C[name])


def test_a_numpy_index_is_copied_so_the_gradient_is_the_forward_ones():
    # PyTorch reads a NumPy index at backward as it is then (here [1, 0]: x.grad
    # [2, 1, 0]), a gradient for a forward that never ran; viewgrad keeps the array the
    # forward used, as it does with a list
    assert _outcome(vg, _ndarray_modified) == ("ok", [2.0, 0.0, 1.0])
    assert _outcome(vg, getitem_list) == _outcome(torch, getitem_list)


def test_modified_index_error_names_the_node():
    x = vg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    i = vg.tensor([2, 0])
    y = x[i]
    i[0] = 1
    with pytest.raises(RuntimeError) as e:
        y.sum().backward()
    assert "[int64 [2]] is at version 1; expected version 0 instead" in str(e.value)
    assert "IndexBackward0" in str(e.value)
