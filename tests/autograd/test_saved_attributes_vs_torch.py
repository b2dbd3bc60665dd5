"""A Tensor that a node keeps without taking its gradient — ``where``'s condition, the
``weight``/``pos_weight`` of the binary cross-entropies, the class ``weight`` of
``nll_loss``/``cross_entropy`` — is saved as PyTorch saves it: a
SavedTensor whose version backward checks. Before, it was kept as a plain attribute, and
a condition modified in place between forward and backward gave a wrong gradient that
raised nothing. Each case runs in viewgrad and in torch and must end the same way: the
same gradients, or the same error (its type and the start of its words)."""
import numpy as np
import pytest

import viewgrad as vg
from viewgrad.autograd.apply_lean import set_lean_apply

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")


def _F(lib):
    return lib.nn.functional


def _where_setup(lib):
    x = lib.tensor([1.0, -2.0, 3.0, -0.5], requires_grad=True)
    return x, x.detach() > 0


def where_cond_modified(lib):
    x, c = _where_setup(lib)
    y = lib.where(c, x * 2, x * 3)
    c[0] = False
    y.sum().backward()
    return x


def where_cond_modified_other_needs_no_grad(lib):
    x, c = _where_setup(lib)
    y = lib.where(c, x * 2, lib.zeros(4))
    c.logical_not_()
    y.sum().backward()
    return x


def where_cond_modified_self_needs_no_grad(lib):
    x, c = _where_setup(lib)
    y = lib.where(c, 1.5, x.exp())
    c.zero_()
    y.sum().backward()
    return x


def where_cond_base_modified(lib):
    x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    base = lib.tensor([True, False, True, False])
    y = lib.where(base[:3], x, 0.0)
    base[3] = True   # the condition is a view: its base's version moves too
    y.sum().backward()
    return x


def where_cond_modified_method(lib):
    x, c = _where_setup(lib)
    y = (x * 2).where(c, x)
    c.fill_(True)
    y.sum().backward()
    return x


def where_cond_modified_then_restored_value(lib):
    x, c = _where_setup(lib)
    y = lib.where(c, x * 2, x)
    c[0] = c[0].clone()   # same value, a new version: still refused
    y.sum().backward()
    return x


def where_cond_unmodified(lib):
    x, c = _where_setup(lib)
    y = lib.where(c, x * x, x * 3)
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    return x


def where_cond_modified_after_backward(lib):
    x, c = _where_setup(lib)
    y = lib.where(c, x * 2, x)
    y.sum().backward()
    c[0] = False
    return x


def where_create_graph_then_modified(lib):
    x, c = _where_setup(lib)
    y = lib.where(c, x * x, x)
    g, = lib.autograd.grad(y.sum(), x, create_graph=True)
    c[1] = True
    g.sum().backward()
    return x


def where_saved_then_freed(lib):
    x, c = _where_setup(lib)
    y = lib.where(c, x, 0.0)
    assert y.grad_fn._saved_condition is c
    y.sum().backward()
    y.grad_fn._saved_condition
    return x


def where_inference_condition(lib):
    x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    with lib.inference_mode():
        c = lib.tensor([True, False, True])
    y = lib.where(c, x, 0.0)
    y.sum().backward()
    return x


def where_condition_packed_by_hooks(lib):
    x, c = _where_setup(lib)
    packed = []
    with lib.autograd.graph.saved_tensors_hooks(
            lambda t: packed.append(str(t.dtype).replace("torch.", "")) or t, lambda t: t):
        y = lib.where(c, x, 2.0)
    y.sum().backward()
    assert packed == ["bool"], packed
    return x


def _bce_inputs(lib):
    x = lib.tensor([0.2, 0.7, 0.4], requires_grad=True)
    return x, lib.tensor([0.0, 1.0, 1.0]), lib.tensor([1.0, 2.0, 0.5])


def bce_weight_modified(lib):
    x, t, w = _bce_inputs(lib)
    loss = _F(lib).binary_cross_entropy(x, t, weight=w)
    w.mul_(2)
    loss.backward()
    return x


def bce_logits_weight_modified(lib):
    x, t, w = _bce_inputs(lib)
    loss = _F(lib).binary_cross_entropy_with_logits(x, t, weight=w)
    w.add_(1)
    loss.backward()
    return x


def bce_logits_pos_weight_modified(lib):
    x, t, w = _bce_inputs(lib)
    loss = _F(lib).binary_cross_entropy_with_logits(x, t, pos_weight=w)
    w[0] = 4.0
    loss.backward()
    return x


def bce_logits_module_pos_weight_modified(lib):
    x, t, w = _bce_inputs(lib)
    loss = lib.nn.BCEWithLogitsLoss(pos_weight=w)(x, t)
    with lib.no_grad():
        w.mul_(3)
    loss.backward()
    return x


def bce_weights_unmodified(lib):
    x, t, w = _bce_inputs(lib)
    loss = (_F(lib).binary_cross_entropy(x, t, weight=w)
            + _F(lib).binary_cross_entropy_with_logits(x, t, weight=w, pos_weight=w * 2))
    loss.backward()
    return x


def _scores(lib):
    return lib.tensor([[0.2, 0.7, 0.1], [0.5, 0.3, 0.9]], requires_grad=True)


def nll_weight_modified(lib):
    x = _scores(lib)
    w = lib.tensor([1.0, 2.0, 3.0])
    loss = _F(lib).nll_loss(x, lib.tensor([2, 0]), weight=w)
    w.fill_(1.0)   # (not proportional: a mean over weights would hide a scaling)
    loss.backward()
    return x


def cross_entropy_weight_modified(lib):
    x = _scores(lib)
    w = lib.tensor([1.0, 2.0, 3.0])
    loss = _F(lib).cross_entropy(x, lib.tensor([2, 0]), weight=w, reduction="sum")
    w[0] = 5.0
    loss.backward()
    return x


def nll2d_weight_modified(lib):
    x = lib.tensor([[[0.2, 0.7], [0.1, 0.5]], [[0.3, 0.9], [0.4, 0.6]]]).reshape(1, 2, 2, 2)
    x.requires_grad_()
    w = lib.tensor([1.0, 3.0])
    loss = _F(lib).nll_loss(x, lib.tensor([[[0, 1], [1, 0]]]), weight=w)
    w.add_(1.0)
    loss.backward()
    return x


def nll_weight_create_graph(lib):
    x = _scores(lib)
    w = lib.tensor([1.0, 2.0, 3.0])
    loss = _F(lib).cross_entropy(x, lib.tensor([2, 0]), weight=w)
    g, = lib.autograd.grad(loss, x, create_graph=True)
    w.fill_(2.0)
    (g * g).sum().backward()
    return x


def nll_weight_unmodified(lib):
    x = _scores(lib)
    w = lib.tensor([1.0, 2.0, 3.0])
    loss = _F(lib).cross_entropy(x, lib.tensor([2, 0]), weight=w)
    g, = lib.autograd.grad(loss, x, create_graph=True)
    (g * g).sum().backward()
    return x


CASES = [nll_weight_modified, cross_entropy_weight_modified, nll2d_weight_modified,
         nll_weight_unmodified, where_cond_modified, where_cond_modified_other_needs_no_grad,
         where_cond_modified_self_needs_no_grad, where_cond_base_modified,
         where_cond_modified_method, where_cond_modified_then_restored_value,
         where_cond_unmodified, where_cond_modified_after_backward,
         where_create_graph_then_modified, where_saved_then_freed, where_inference_condition,
         where_condition_packed_by_hooks, bce_weight_modified, bce_logits_weight_modified,
         bce_logits_pos_weight_modified, bce_logits_module_pos_weight_modified,
         bce_weights_unmodified]


def _outcome(lib, case):
    try:
        x = case(lib)
    except (RuntimeError, TypeError, ValueError) as e:
        words = str(e).split(":")[0].replace("viewgrad.", "torch.")   # the advice names its library
        return ("raised", type(e).__name__, words)
    return ("ok", np.asarray(x.grad.tolist(), dtype=np.float64).round(6).tolist())


@pytest.mark.parametrize("lean", [True, False], ids=["lean-apply", "general-apply"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_saved_attribute_tensor_as_torch(case, lean):
    prev = set_lean_apply(lean)
    try:
        got = _outcome(vg, case)
    finally:
        set_lean_apply(prev)
    assert got == _outcome(torch, case)


def test_modified_condition_error_names_the_condition():
    x, c = _where_setup(vg)
    y = vg.where(c, x * 2, x)
    c[0] = False
    with pytest.raises(RuntimeError) as e:
        y.sum().backward()
    msg = str(e.value)
    assert "modified by an inplace operation: [bool [4]] is at version 1; expected " \
           "version 0 instead" in msg
    assert "WhereBackward0" in msg   # blame: which node saved it


def test_raw_saved_condition_is_a_saved_tensor():
    x, c = _where_setup(vg)
    y = vg.where(c, x, 0.0)
    raw = y.grad_fn._raw_saved_condition
    assert type(raw).__name__ == "SavedTensor" and raw.unpack() is c
    t = torch.tensor([1.0, -2.0], requires_grad=True)
    tc = t.detach() > 0
    assert type(torch.where(tc, t, 0.0).grad_fn._raw_saved_condition).__name__ == \
        "SavedTensor"


def test_weights_modified_after_a_create_graph_backward_keep_that_backwards_values():
    # The first backward turned the weights into constants of the graph it built, so the
    # second one differentiates what the first computed (PyTorch's double-backward node
    # saves the weight again and refuses; no wrong gradient either way)
    got = _outcome(vg, nll_weight_create_graph)
    assert got == _outcome(vg, nll_weight_unmodified)
    assert got == _outcome(torch, nll_weight_unmodified)
