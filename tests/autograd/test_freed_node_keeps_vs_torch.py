"""Note [what a freed node keeps] (autograd/nodes.py) and PyTorch's names for saved sizes:
after a backward without retain_graph, a node's saved *tensors* are freed (reading one
raises PyTorch's error) while its dims, sizes, alphas and other non-tensor values stay
readable; ``_saved_self_sym_sizes`` (and a mean's ``_saved_self_sym_numel``) are there, as
in PyTorch. Each case reads one attribute before and after backward, in viewgrad and
torch 2.13, through the plain loop, a chain run and the general engine (retain_graph on
the first backward, then a plain one)."""
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compared with torch CPU tensors")

CASES = {
    "mul_number_other": (lambda M, x: x * 1.01, "_saved_other"),
    "pow_exponent": (lambda M, x: x ** 2.5, "_saved_exponent"),
    "sum_dim": (lambda M, x: x.sum(1), "_saved_dim"),
    "sum_sizes": (lambda M, x: x.sum(1), "_saved_self_sym_sizes"),
    "mean_numel": (lambda M, x: (x * 1).mean(1), "_saved_self_sym_numel"),
    "mean_sizes": (lambda M, x: (x * 1).mean(), "_saved_self_sym_sizes"),
    "view_sizes": (lambda M, x: (x * 1).view(4), "_saved_self_sym_sizes"),
    "expand_sizes": (lambda M, x: (x * 1)[:1].expand(3, 2), "_saved_self_sym_sizes"),
    "addmm_alpha": (lambda M, x: M.addmm(M.ones(2), M.ones(2, 2), x, alpha=2), "_saved_alpha"),
    "addmm_beta": (lambda M, x: M.addmm(M.ones(2), x, M.ones(2, 2), beta=0.5), "_saved_beta"),
    "addmm_mat1": (lambda M, x: M.addmm(M.ones(2), M.ones(2, 2), x), "_saved_mat1"),
    "log_softmax_dim": (lambda M, x: (x * 1).log_softmax(1), "_saved_dim"),
    "log_softmax_result": (lambda M, x: (x * 1).log_softmax(1), "_saved_result"),
    "softmax_dim": (lambda M, x: (x * 1).softmax(0), "_saved_dim"),
    "gather_dim": (lambda M, x: (x * 1).gather(1, M.tensor([[0], [1]])), "_saved_dim"),
    "gather_index": (lambda M, x: (x * 1).gather(1, M.tensor([[0], [1]])), "_saved_index"),
    "clamp_min": (lambda M, x: (x * 1).clamp(0.5, 2.0), "_saved_min"),
    "leaky_slope": (lambda M, x: M.nn.functional.leaky_relu(x * 1, 0.2),
                    "_saved_negative_slope"),
    "sub_alpha": (lambda M, x: M.sub(x * 1, M.ones(2, 2), alpha=2), "_saved_alpha"),
    "div_other": (lambda M, x: (x * 1) / M.ones(2, 2), "_saved_other"),
    "mul_unsaved_self": (lambda M, x: (x * 1) * M.ones(2, 2), "_saved_self"),
    "mul_saved_other": (lambda M, x: (x * 1) * M.ones(2, 2), "_saved_other"),
    "mul_both_saved": (lambda M, x: (x * 1) * (x * 2), "_saved_self"),
    "pow_self": (lambda M, x: (x * 1) ** 2.0, "_saved_self"),
    "where_self": (lambda M, x: M.where(M.tensor([[True, False], [True, True]]), x * 1, 0.0),
                   "_saved_condition"),
    "add_alpha_one": (lambda M, x: (x * 1) + M.ones(2, 2), "_saved_alpha"),
    "add_number_alpha_one": (lambda M, x: (x * 1) + 2.5, "_saved_alpha"),
    "sub_alpha_one": (lambda M, x: (x * 1) - M.ones(2, 2), "_saved_alpha"),
    "rsub_alpha_one": (lambda M, x: 1 - (x * 1), "_saved_alpha"),
    "add_alpha_two": (lambda M, x: M.add(x * 1, M.ones(2, 2), alpha=2), "_saved_alpha"),
    "tanh_result": (lambda M, x: (x * 1).tanh(), "_saved_result"),
    "linear_alpha": (lambda M, x: M.nn.functional.linear(M.ones(3, 2), x, M.ones(2)),
                     "_saved_alpha"),
}


def _read(node, attr):
    try:
        v = getattr(node, attr)
    except (RuntimeError, AttributeError) as e:
        return type(e).__name__, str(e)[:60]
    return ("tensor", tuple(v.shape)) if hasattr(v, "shape") else ("value", v)


def _run(M, case, way):
    f, attr = CASES[case]
    x = M.tensor([[0.5, 1.5], [2.0, -1.0]], requires_grad=True)
    y = f(M, x)
    before = _read(y.grad_fn, attr)
    if way == "retain_then_plain":
        y.sum().backward(retain_graph=True)
        mid = _read(y.grad_fn, attr)
        y.sum().backward()
    else:
        mid = None
        (y.sum() if way == "plain" else (y * 1.0).exp().sum()).backward()
    return before, mid, _read(y.grad_fn, attr)


@pytest.mark.parametrize("way", ["plain", "chain", "retain_then_plain"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_freed_node_keeps_what_torchs_keeps(case, way):
    torch = torch_or_skip()
    assert _run(vg, case, way) == _run(torch, case, way)
