"""The errors of everyday mistakes against PyTorch's: the same exception type, PyTorch's
words first (viewgrad may add a teaching sentence after them) — a backward without a
graph, shapes that do not multiply, concatenate or index, an index out of range, a mask
of the wrong shape, a target of the wrong kind — never NumPy's words."""
import warnings

import pytest

from tests.helpers import torch_or_skip, wording

CODES = [
 "M.ones(2,requires_grad=True).mul(2).backward()",
 "M.ones(2,requires_grad=True).add_(1)",
 "M.ones(2,requires_grad=True).numpy()",
 "M.ones(2).item()",
 "M.ones(2,3).t().view(6)",
 "M.ones(2,3) @ M.ones(2,3)",
 "M.ones(2,3).float() @ M.ones(3,2).double()",
 "M.cat([M.ones(2,3), M.ones(3,2)])",
 "M.cat([M.ones(2,3), M.ones(3,2)], dim=1)",
 "M.stack([M.ones(2,3), M.ones(3,2)])",
 "M.ones(2,3)[2]",
 "M.ones(2,3)[:, 5]",
 "M.ones(2,3).reshape(4)",
 "M.ones(2,3).view(4,2)",
 "M.ones(2,3).expand(3,3)",
 "M.ones(2,3).permute(0)",
 "M.ones(2,3).permute(0,0)",
 "M.ones(2,3).transpose(0,2)",
 "M.ones(2,3).sum(2)",
 "M.ones(2,3).softmax(2)",
 "M.ones(2,3).squeeze(3)",
 "M.ones(2,3).unsqueeze(4)",
 "M.ones(2,3).select(0,5)",
 "M.ones(2,3).narrow(1,2,2)",
 "M.ones(2,3).gather(1, M.tensor([[5]]))",
 "M.ones(2,3).index_select(1, M.tensor([5]))",
 "M.ones(2,3).repeat(2)",
 "M.ones(2,3).flatten(2)",
 "M.ones(2,3).chunk(0)",
 "M.ones(2,3).split(0)",
 "M.zeros(2,3).long() / 0",
 "M.tensor([1,2]) // 0",
 "M.ones(2,3).mm(M.ones(3))",
 "M.ones(3).dot(M.ones(4))",
 "M.ones(2,3).bmm(M.ones(2,3))",
 "M.ones(2,2,3).bmm(M.ones(3,3,2))",
 "M.nn.functional.linear(M.ones(2,3), M.ones(4,3), M.ones(5))",
 "M.nn.functional.conv2d(M.ones(1,3,5,5), M.ones(4,2,3,3))",
 "M.nn.functional.conv2d(M.ones(3,5,5,5,1), M.ones(4,3,3,3))",
 "M.nn.functional.cross_entropy(M.ones(2,3), M.tensor([0.,1.]))",
 "M.nn.functional.cross_entropy(M.ones(2,3), M.tensor([[0],[1]]))",
 "M.nn.functional.nll_loss(M.ones(2,3), M.tensor([0,1,2]))",
 "M.nn.functional.max_pool2d(M.ones(1,1,2,2), 3)",
 "M.nn.functional.batch_norm(M.ones(2,3), M.zeros(4), M.ones(4))",
 "M.nn.functional.layer_norm(M.ones(2,3), (4,))",
 "M.nn.functional.embedding(M.tensor([0.5]), M.ones(3,2))",
 "M.nn.functional.one_hot(M.tensor([3]), 2)",
 "M.ones(2).backward(M.ones(3))",
 "M.autograd.grad(M.ones(2,requires_grad=True).sum(), [M.ones(2,requires_grad=True)])",
 "M.ones(2,requires_grad=True).sum().backward(); 1",
 "M.tensor([1,2]).requires_grad_()",
 "M.tensor([1.,2.]).long().float().requires_grad_().long().requires_grad_()",
 "M.ones(2,3).to('cuda:7')",
 "M.ones(2,3).new_zeros(2).sum(5)",
 "M.arange(6).reshape(2,3).float().mean(dtype=M.int64)",
 "M.ones(2,3).max(dim=3)",
 "M.ones(0).max()",
 "M.ones(2,3).topk(4)",
 "M.ones(2,3).kthvalue(4)",
 "M.randn(3,3).cholesky()",
 "M.linalg.inv(M.zeros(2,2))",
 "M.linalg.inv(M.ones(2,3))",
 "M.linalg.solve(M.eye(2), M.ones(3))",
 "M.ones(2,3).masked_fill(M.ones(2,3), 0.)",
 "M.where(M.ones(2,3), 1., 0.)",
 "M.ones(2,3).clamp()",
 "M.ones(2,3).pow(M.ones(2,3,dtype=M.int64)).sum(); M.tensor([2]).pow(-1)",
 "M.ones(2,3)[M.tensor([[True]])]",
 "M.ones(2,3)[M.tensor([0.5])]",
]

# where viewgrad's words knowingly differ, and why
KNOWN = {
    "M.ones(2,requires_grad=True).add_(1)": "viewgrad names the in-place op first "
    "(\"add_: a leaf Variable ...\"), as tutorials/07-forbidden.md shows",
    "M.ones(2,3) @ M.ones(2,3)": "viewgrad names the product first (\"mm: mat1 and mat2 ...\")",
    "M.nn.functional.max_pool2d(M.ones(1,1,2,2), 3)": "viewgrad names the pool first",
    "M.ones(2,3).index_select(1, M.tensor([5]))": "torch 2.13's CPU kernel raises an internal "
    "RuntimeError (\"INDICES element is out of DATA bounds\"); viewgrad the IndexError "
    "of its other index ops",
    "M.ones(2).backward(M.ones(3))": "both refuse; viewgrad asks for a graph before it checks "
    "the gradient's shape",
    "M.ones(2,3).to('cuda:7')": "a CUDA build of torch is not a CuPy install: viewgrad says "
    "what to install",
    "M.randn(3,3).cholesky()": "random matrices: the failing minor differs between draws",
}


def _outcome(M, code):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(code, {"M": M})   # noqa: S102 - the sweep's own code
        except Exception as e:   # noqa: BLE001 - compared
            return (type(e).__name__, wording(str(e)))
    return "ok"


@pytest.mark.host_only("torch's CPU errors are the oracle")
@pytest.mark.parametrize("code", CODES)
def test_everyday_errors_are_torchs(code):
    torch = torch_or_skip()
    import viewgrad as vg
    if code in KNOWN:
        pytest.skip(KNOWN[code])
    assert _outcome(vg, code) == _outcome(torch, code)
