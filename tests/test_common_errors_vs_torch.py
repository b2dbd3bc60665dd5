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

# shapes, dims and indices out of range, linear algebra, layers and losses
CODES += [
 "M.ones(2,3).view(-1,-1)", "M.ones(2,3).reshape(-1,4)", "M.ones(2,3).view(7)", "M.zeros(2,3).unflatten(1,(2,2))",
 "M.ones(2,3).repeat(1)", "M.ones(2,3).expand(-1)", "M.ones(2,3).tile(0.5)", "M.arange(5).float().quantile(2.)",
 "M.ones(3).multinomial(5)", "M.ones(2,3).split([1,1],0)", "M.ones(2,3).split([1,1],1)", "M.ones(2,3).movedim(0,5)",
 "M.ones(2,3).flip(3)", "M.ones(2,3).roll(1,5)", "M.ones(2,3).diagonal(0,0,0)", "M.ones(2,3).tril(0).triu(0).trace().item(); M.ones(2,3,4).trace()",
 "M.ones(2,3).sort(5)", "M.ones(2,3).argmax(5)", "M.ones(2,3).cumsum(5)", "M.ones(2,3).std(5)", "M.ones(2,3).norm(dim=5)",
 "M.ones(2,3).masked_select(M.ones(3,2)>0)", "M.ones(2,3).index_fill(1, M.tensor([5]), 0.)", "M.ones(2,3).index_add(1, M.tensor([0]), M.ones(2,2))",
 "M.ones(2,3).scatter(1, M.tensor([[5]]), 0.)", "M.ones(2,3).scatter_add(1, M.tensor([[0]]), M.ones(1,1)).sum(); M.ones(2,3).scatter_add(1, M.tensor([[3]]), M.ones(1,1))",
 "M.ones(2,3).take(M.tensor([6]))", "M.ones(2,3).put_(M.tensor([6]), M.tensor([1.]))", "M.ones(2,3).index_put_((M.tensor([5]),), M.tensor(1.))",
 "M.ones(2,3).clone().resize_(2)", "M.ones(2,3).new_full((2,), 'a')", "M.full((2,), 1).float().long().bool().float().requires_grad_().sum().backward(); M.ones(2).int().requires_grad_()",
 "M.linalg.det(M.ones(2,3))", "M.linalg.eigh(M.ones(2,3))", "M.linalg.svd(M.ones(2))", "M.linalg.qr(M.ones(2))", "M.linalg.cholesky(M.ones(2,3))",
 "M.linalg.solve(M.ones(2,2), M.ones(3,1))", "M.linalg.matrix_power(M.ones(2,3), 2)", "M.linalg.norm(M.ones(2,3), ord='fro', dim=0)",
 "M.einsum('ij,jk->ik', M.ones(2,3), M.ones(2,3))", "M.einsum('ij->ijk', M.ones(2,3))", "M.tensordot(M.ones(2,3), M.ones(2,3), dims=([1],[1])).shape; M.tensordot(M.ones(2,3), M.ones(2,3), dims=([0],[1]))",
 "M.outer(M.ones(2,3), M.ones(2))", "M.kron(M.ones(2), M.ones(2,2)).shape; M.cdist(M.ones(2,3), M.ones(2,4))", "M.nn.functional.pad(M.ones(2,3), (1,))",
 "M.nn.functional.pad(M.ones(2,3), (1,1), mode='reflect')", "M.nn.functional.interpolate(M.ones(1,1,4), scale_factor=2, mode='bilinear')",
 "M.nn.functional.softmax(M.ones(2,3), dim=3)", "M.nn.functional.dropout(M.ones(2), p=1.5)", "M.nn.functional.conv1d(M.ones(1,2,5), M.ones(3,2,7))",
 "M.nn.functional.avg_pool2d(M.ones(1,1,2,2), 2, padding=2)", "M.nn.functional.embedding(M.tensor([0]), M.ones(3))",
 "M.nn.functional.binary_cross_entropy(M.ones(2)*2, M.ones(2))", "M.nn.functional.nll_loss(M.ones(2,3), M.tensor([0,1]), weight=M.ones(2))",
 "M.nn.functional.kl_div(M.ones(2), M.ones(3))", "M.nn.functional.one_hot(M.tensor([1.]), 3)", "M.nn.LSTM(3,4)(M.ones(2,5))",
 "M.nn.Conv2d(3,4,3)(M.ones(1,3,2,2))", "M.nn.BatchNorm1d(3)(M.ones(1,3))", "M.nn.LayerNorm(3)(M.ones(2,4))", "M.nn.MultiheadAttention(4,3)",
 "M.nn.Linear(2,3).weight.T.T.view(6)", "M.ones(2,2,requires_grad=True).exp().sum().backward(retain_graph=False) or M.autograd.grad(M.ones(1,requires_grad=True).exp(), M.ones(1,requires_grad=True))",
]

# nn.functional's calls with odd arguments (F is M.nn.functional)
CODES += [
 "F.pad(M.ones(1,2,3), (1,2), mode='circular').shape", "F.pad(M.ones(1,2,3), (4,4), mode='reflect')", "F.pad(M.ones(2,3), (1,1,1,1), value=2.).sum().item()",
 "F.pad(M.ones(1,2,3), (1,1), mode='replicate').shape", "F.pad(M.ones(1,2,3), (-1,0)).shape", "F.pad(M.ones(3), (1,1), mode='nearest')",
 "F.interpolate(M.ones(1,1,4), size=6).shape", "F.interpolate(M.ones(1,1,4,4), scale_factor=0.5, mode='bilinear', align_corners=False).shape",
 "F.interpolate(M.ones(1,1,4,4), size=(2,3), mode='nearest-exact').shape", "F.interpolate(M.ones(1,1,4,4), mode='bilinear')",
 "F.softmax(M.ones(2,3)).shape", "F.log_softmax(M.ones(2,3), 1, dtype=M.float64).dtype.__str__()",
 "F.dropout(M.ones(4), 0.0, training=True).tolist()", "F.dropout(M.ones(4), 1.0).tolist()", "F.dropout(M.ones(4), p=-0.1)",
 "F.relu(M.ones(2), inplace=True).tolist()", "F.leaky_relu(M.ones(2)*-1, 0.2).tolist()", "F.gelu(M.ones(2), approximate='none').shape", "F.gelu(M.ones(2), approximate='bad')",
 "F.one_hot(M.tensor([0,2]), 3).tolist()", "F.one_hot(M.tensor([-1]), 3)", "F.one_hot(M.tensor([[0,1]])).shape",
 "F.normalize(M.ones(2,3), p=1, dim=0).tolist()", "F.cosine_similarity(M.ones(3), M.ones(3), dim=0).item()",
 "F.mse_loss(M.ones(2), M.ones(2), reduction='bad')", "F.cross_entropy(M.ones(2,3), M.tensor([0,1]), reduction='none').shape",
 "F.cross_entropy(M.ones(2,3), M.tensor([0,1]), label_smoothing=1.5)", "F.cross_entropy(M.ones(2,3,4), M.tensor([[0,1,2,0],[1,1,1,1]])).item()",
 "F.cross_entropy(M.ones(3), M.tensor(1)).item()", "F.cross_entropy(M.ones(2,3), M.ones(2,3)/3).item()",
 "F.nll_loss(M.ones(2,3), M.tensor([0,-100])).item()", "F.binary_cross_entropy(M.ones(2)*0.5, M.ones(2)*2)",
 "F.binary_cross_entropy_with_logits(M.ones(2), M.ones(2), pos_weight=M.ones(3))", "F.l1_loss(M.ones(2), M.ones(2), reduction='sum').item()",
 "F.smooth_l1_loss(M.ones(2), M.zeros(2), beta=-1)", "F.huber_loss(M.ones(2), M.zeros(2), delta=0)", "F.kl_div(M.ones(2), M.ones(2), reduction='batchmean').item()",
 "F.max_pool2d(M.ones(1,1,4,4), 2, return_indices=True)[1].dtype.__str__()", "F.max_pool2d(M.ones(1,1,4,4), 2, stride=0)",
 "F.avg_pool2d(M.ones(1,1,4,4), 2, ceil_mode=True, count_include_pad=False).shape", "F.adaptive_avg_pool2d(M.ones(1,1,5,5), (2,3)).shape",
 "F.conv2d(M.ones(1,1,4,4), M.ones(1,1,3,3), padding='same').shape", "F.conv2d(M.ones(1,1,4,4), M.ones(1,1,3,3), padding='same', stride=2)",
 "F.conv2d(M.ones(1,1,4,4), M.ones(1,1,3,3), padding='valid').shape", "F.conv2d(M.ones(1,2,4,4), M.ones(2,1,3,3), groups=2).shape",
 "F.conv2d(M.ones(1,3,4,4), M.ones(2,1,3,3), groups=2)", "F.conv_transpose2d(M.ones(1,1,3,3), M.ones(1,1,3,3), stride=2, output_padding=1).shape",
 "F.embedding(M.tensor([1]), M.ones(3,2), max_norm=0.5).tolist()", "F.layer_norm(M.ones(2,3), [3], M.ones(2))",
 "F.batch_norm(M.ones(4,3), M.zeros(3), M.ones(3), training=True).shape", "F.batch_norm(M.ones(4,3), None, None, training=False)",
 "F.linear(M.ones(3), M.ones(2,3)).shape", "F.linear(M.ones(2,4,3), M.ones(5,3), M.ones(5)).shape", "F.bilinear(M.ones(2,3), M.ones(2,4), M.ones(5,3,4)).shape",
 "F.scaled_dot_product_attention(M.ones(1,2,3), M.ones(1,2,3), M.ones(1,2,3), is_causal=True).shape", "F.unfold(M.ones(1,1,4,4), 2).shape", "F.fold(M.ones(1,4,9), (4,4), 2).shape",
 "F.pixel_shuffle(M.ones(1,4,2,2), 2).shape", "F.pixel_shuffle(M.ones(1,3,2,2), 2)", "F.glu(M.ones(2,3))", "F.softplus(M.ones(2), beta=2, threshold=1).tolist()",
 "F.hardtanh(M.ones(2), 2, 1)", "F.threshold(M.ones(2), 0.5, 2.).tolist()", "F.elu(M.ones(2)*-1, alpha=2.).tolist()", "F.celu(M.ones(2), alpha=0.)",
 "F.prelu(M.ones(1,3,2), M.ones(2))", "F.rrelu(M.ones(2), training=False).tolist()", "F.logsigmoid(M.ones(2)).shape", "F.silu(M.ones(2), inplace=True).shape",
]

# where viewgrad's words knowingly differ, and why
KNOWN = {
    "F.binary_cross_entropy_with_logits(M.ones(2), M.ones(2), pos_weight=M.ones(3))": "both "
    "refuse; viewgrad expands pos_weight first (expand's words)",
    "F.max_pool2d(M.ones(1,1,4,4), 2, stride=0)": "viewgrad names the pool first",
    "F.embedding(M.tensor([1]), M.ones(3,2), max_norm=0.5).tolist()": "max_norm's scale "
    "differs from torch's in the last bit (its norm is summed in another order)",
    "M.ones(2,3).clone().resize_(2)": "Tensor.resize_ is not in viewgrad's API",
    "M.linalg.norm(M.ones(2,3), ord='fro', dim=0)": "both refuse; viewgrad asks for a number "
    "ord first",
    "M.nn.functional.avg_pool2d(M.ones(1,1,2,2), 2, padding=2)": "viewgrad names the pool "
    "first",
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
    """What running ``code`` gives: (exception type, PyTorch's wording) or ("ok", the value
    of a final expression, as text with the library names normalized)."""
    g = {"M": M, "F": M.nn.functional}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            try:
                v = eval(code, g)   # noqa: S307 - the sweep's own code
            except SyntaxError:   # statements
                exec(code, g)   # noqa: S102
                v = None
        except Exception as e:   # noqa: BLE001 - compared
            return (type(e).__name__, wording(str(e)))
    if isinstance(v, (str, bool, int, float, list, tuple)) or v is None or \
            type(v).__name__ in ("Size", "dtype"):
        text = repr(v) if not isinstance(v, str) else v
        return ("ok", text.replace("torch.", "").replace("viewgrad.", ""))
    return ("ok",)


@pytest.mark.host_only("torch's CPU errors are the oracle")
@pytest.mark.parametrize("code", CODES)
def test_everyday_errors_are_torchs(code):
    torch = torch_or_skip()
    import viewgrad as vg
    if code in KNOWN:
        pytest.skip(KNOWN[code])
    assert _outcome(vg, code) == _outcome(torch, code)
