"""Note [leaves at once] (autograd/engine_plain.py): the plain backward runs the leaves a
node makes ready as soon as that node has handed on its gradients, without the ready
queue. The order in which leaves receive their gradients is observable (post-accumulate
hooks, tensor hooks on leaves); it is compared with torch 2.13's on layers whose leaves
become ready together, a leaf fed twice (its summed buffer), leaves with hooks (the
queue's path), and leaves under retain_graph."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compared with torch CPU tensors through .numpy()")


def _mlp_order(M, F, params, x, y, hooks, shared, retain):
    order = []
    for name, p in params.items():
        if hooks == "post":
            p.register_post_accumulate_grad_hook(lambda t, name=name: order.append(name))
        elif hooks == "tensor" and name.startswith("b"):
            p.register_hook(lambda g, name=name: order.append("hook " + name))
    W1, b1, W2, b2, W3, b3 = (params[k] for k in ("W1", "b1", "W2", "b2", "W3", "b3"))
    h = F.linear(x, W1, b1).relu()
    h = F.linear(h, W2 if not shared else W2 + W1 @ W1.t() * 0.1, b2).relu()
    z = F.linear(h, W3, b3)
    loss = F.cross_entropy(z, y) + (b1 * b1).sum() * 0.5
    # one node that makes three leaves ready at once, and one that makes two
    loss = loss + M.addmm(params["c"], params["u"], params["v"]).sum() + (
        params["c"] * params["u"][0]).sum()
    loss.backward(retain_graph=retain)
    if retain:
        loss.backward()
    return order, {k: p.grad.numpy() for k, p in params.items()}


@pytest.mark.parametrize("retain", [False, True])
@pytest.mark.parametrize("shared", [False, True])
@pytest.mark.parametrize("hooks", ["post", "tensor", "none"])
def test_leaves_get_their_gradients_in_torchs_order(hooks, shared, retain):
    torch = torch_or_skip()
    rng = np.random.default_rng(5)
    shapes = {"W1": (6, 5), "b1": (6,), "W2": (6, 6), "b2": (6,), "W3": (3, 6), "b3": (3,),
              "c": (2,), "u": (2, 2), "v": (2, 2)}
    arrays = {k: rng.standard_normal(s) for k, s in shapes.items()}
    x = rng.standard_normal((4, 5))
    y = rng.integers(0, 3, 4)
    out = []
    for M, F in ((vg, vg.nn.functional), (torch, torch.nn.functional)):
        params = {k: M.tensor(a, requires_grad=True) for k, a in arrays.items()}
        out.append(_mlp_order(M, F, params, M.tensor(x), M.tensor(y), hooks, shared, retain))
    (order_v, grads_v), (order_t, grads_t) = out
    assert order_v == order_t
    for k in shapes:
        np.testing.assert_allclose(grads_v[k], grads_t[k], rtol=1e-12, atol=1e-12)
