"""0-d and empty tensors behave as in PyTorch (issue 15): reductions, arg-reductions,
gather/scatter, softmax, squeeze/transpose/movedim with dim 0 or -1 on a 0-d tensor;
reductions over empty tensors (sum 0, mean nan, max refused with PyTorch's message);
values, dtypes, shapes, node names, errors and the gradients that flow back."""
import warnings

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

ZERO_DIM = [
    "x0.sum(0)", "x0.sum(-1, keepdim=True)", "x0.sum((0,))", "x0.sum(dim=[])", "x0.mean(0)",
    "x0.max(0)", "x0.min(-1)", "x0.max()", "x0.amax(0)", "x0.amin(-1)", "x0.amax()",
    "x0.argmax(0)", "x0.argmin(-1, keepdim=True)", "x0.argmax()", "x0.gather(0, M.tensor(0))",
    "x0.scatter(0, M.tensor(0), M.tensor(5.0, dtype=M.float64))",
    "x0.softmax(0)", "x0.log_softmax(-1)", "x0.squeeze(0)", "x0.squeeze(-1)", "x0.squeeze()",
    "x0.unsqueeze(0)", "x0.transpose(0, -1)", "x0.movedim(0, 0)", "x0.flatten()",
    "x0.cumsum(0)", "x0.cumprod(-1)", "x0.var(0)", "x0.std()", "x0.logsumexp(0)", "x0.prod(0)",
    "x0.norm(dim=0)", "x0.sort(0)", "x0.topk(1)", "x0.median(0)", "x0.mode(0)",
    "x0.kthvalue(1, 0)", "x0.sum(1)", "x0.squeeze(1)", "x0.softmax(1)", "x0.max(1)",
]

EMPTY = [
    "e.sum()", "e.mean()", "e.max()", "e.min()", "e.amax()", "e.argmax()", "e.argmin()",
    "e.prod()", "e.softmax(0)", "e.log_softmax(0)", "e.sum(0)", "e.mean(0)", "e.logsumexp(0)",
    "e2.sum(0)", "e2.sum(1)", "e2.mean(0)", "e2.mean(1)", "e2.max(0)", "e2.max(1)", "e2.min(1)",
    "e2.amax(0)", "e2.amax(1)", "e2.amax((0, 1))", "e2.argmax(1)", "e2.argmax(0)",
    "e2.argmax()", "e2.softmax(0)", "e2.softmax(1)", "e2.log_softmax(1)", "e2.log_softmax(0)",
    "e2.logsumexp(1)", "e2.logsumexp(0)", "e2.var(0)", "e2.std(1)", "e2.prod(1)", "e2.prod(0)",
    "e2.cumsum(0)", "e2.cumprod(1)", "e2.norm()", "e2.norm(dim=1)", "e2.sort(0)", "e2.sort(1)",
    "e2.median()", "e2.sum(keepdim=True, dim=(0, 1))", "e2.max(-1, keepdim=True)",
    "e2.gather(1, M.zeros(0, 2, dtype=M.int64))", "e2.t().sum(0)", "e2.reshape(3, 0).max(0)",
]


def _inputs(M):
    return {"M": M, "x0": M.tensor(2.5, dtype=M.float64, requires_grad=True),
            "e": M.zeros(0, dtype=M.float64, requires_grad=True),
            "e2": M.zeros(0, 3, dtype=M.float64, requires_grad=True)}


def _observe(M, expr):
    """What a user sees: the outputs (dtype, shape, values, node) and the leaves' grads
    after backward through the first output; or the error."""
    env = _inputs(M)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = eval(expr, env)  # noqa: S307 - the expressions are this file's constants
            outs = tuple(r) if isinstance(r, tuple) else (r,)
            seen = [(str(o.dtype).rsplit(".", 1)[-1], tuple(o.shape),
                     np.asarray(o.detach().cpu().numpy()).tolist(),
                     o.grad_fn.name().rsplit("::", 1)[-1] if o.grad_fn else None)
                    for o in outs]
            if outs[0].requires_grad:
                outs[0].sum().backward()
            grads = {k: np.asarray(env[k].grad.cpu().numpy()).tolist()
                     for k in ("x0", "e", "e2") if env[k].grad is not None}
    except Exception as e:  # noqa: BLE001 - the error is what we compare
        return ("raise", type(e).__name__, str(e).split("\n")[0])
    return ("ok", repr(seen), repr(grads))


@pytest.mark.parametrize("expr", ZERO_DIM + EMPTY)
def test_same_as_torch(expr):
    torch = torch_or_skip()
    ours, theirs = _observe(vg, expr), _observe(torch, expr)
    if theirs[0] == "raise":
        assert ours[:2] == theirs[:2], (ours, theirs)
        assert ours[2].startswith(theirs[2]), (ours, theirs)   # PyTorch's sentence first
    else:
        assert ours == theirs


def test_max_of_empty_says_what_to_do():
    with pytest.raises(RuntimeError, match="Specify the reduction dim with the 'dim' argument"):
        vg.zeros(0).max()


EMPTY_INPLACE = ["e2.add_(M.ones(0, 3))", "e2.add_(M.ones(3), alpha=2)", "e2.mul_(2.0)",
                 "e2.sub_(M.ones(0, 3), alpha=0.5)", "e2.copy_(M.ones(0, 3))",
                 "e2.zero_()", "e2.fill_(1.0)", "e2.clamp_(0, 1)", "e2.exp_()",
                 "e2.t().mul_(3.0)", "e2[:, 1:].add_(1.0)"]


@pytest.mark.parametrize("expr", EMPTY_INPLACE)
def test_in_place_on_an_empty_tensor_as_torch(expr):
    # an empty tensor has no element to overlap: NumPy's fresh empty arrays have 0
    # strides, which the internal-overlap check had taken for an expanded tensor
    torch = torch_or_skip()

    def run(M):
        e2 = M.zeros(0, 3)
        v0 = e2._version
        r = eval(expr, {"M": M, "e2": e2})
        return tuple(r.shape), e2._version - v0, tuple(e2.shape)
    assert run(vg) == run(torch)


@pytest.mark.parametrize("shape", [(0, 3), (2, 0), (0,), (3, 0, 2), (0, 0)])
def test_strides_of_a_fresh_empty_tensor_as_torch(shape):
    torch = torch_or_skip()
    assert vg.zeros(shape).stride() == torch.zeros(shape).stride()
    assert vg.empty(shape).stride() == torch.empty(shape).stride()
