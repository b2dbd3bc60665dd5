"""What a node saves, swept over some 250 ops against PyTorch: for each program below (the
same code run with ``M = torch`` and ``M = viewgrad``), the result's ``grad_fn`` must have
PyTorch's node name and exactly PyTorch's set of ``_saved_*`` attributes, and each saved
value must read as PyTorch's does: a tensor with the same shape, values and history (a
saved statistic such as LayerNorm's ``_saved_result1`` has none), a size, a dim, a flag or
a number equal to PyTorch's. The normalisations' saved statistics (Note [statistics saved
as PyTorch saves them], ops/table.py) get their own tests below: what saved-tensor hooks
pack, what is version-checked, and what a freed node still shows.

``KNOWN`` lists the attributes viewgrad does not show yet, each with its reason."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("runs the same programs in torch on the CPU")


def mk(M, shape, seed=0):
    r = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return M.tensor(r, requires_grad=True)


def _first(r):
    return r[0] if isinstance(r, tuple) else r


CASES = {}

_UNARY = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "digamma",
          "erf", "erfc", "erfinv", "exp", "exp2", "expm1", "lgamma", "log", "log10", "log1p",
          "log2", "logit", "i0", "neg", "reciprocal", "rsqrt", "sigmoid", "sign", "sin",
          "sinc", "sinh", "sqrt", "square", "tan", "tanh", "relu", "frac", "trunc", "round",
          "ceil", "floor", "deg2rad", "rad2deg", "sgn", "nan_to_num", "positive"]
for _n in _UNARY:
    CASES[_n] = lambda M, n=_n: getattr(M, n)(mk(M, (3, 4)))

_REDUCTIONS = {
    "sum": (), "mean": (), "prod": (), "sum_dim": (1,), "mean_dim": (1,), "prod_dim": (1,),
    "var": (1,), "std": (1,), "norm": (), "logsumexp": (1,), "cumsum": (1,), "cumprod": (1,),
    "logcumsumexp": (1,), "amax": (1,), "amin": (1,), "max_dim": (1,), "min_dim": (1,),
    "median_dim": (1,), "kthvalue": (2, 1), "topk": (2,), "sort": (1,), "cummax": (1,),
    "nansum": (), "nanmean": (), "softmax": (1,), "log_softmax": (1,), "max": (), "min": (),
    "median": (), "var_mean": (1,), "std_mean": (1,), "aminmax": (), "mode": (1,)}
for _n, _a in _REDUCTIONS.items():
    CASES["red_" + _n] = lambda M, n=_n.replace("_dim", ""), a=_a: _first(
        getattr(M, n)(mk(M, (3, 4)), *a))


def _binary(M, n):
    if n == "lerp":
        return M.lerp(mk(M, (3, 4)), mk(M, (3, 4), 1), mk(M, (3, 4), 2))
    if n in ("mm", "matmul"):
        return getattr(M, n)(mk(M, (3, 4)), mk(M, (4, 2), 1))
    if n == "bmm":
        return M.bmm(mk(M, (2, 3, 4)), mk(M, (2, 4, 2), 1))
    if n in ("outer", "dot", "inner"):
        return getattr(M, n)(mk(M, (4,)), mk(M, (4,), 1))
    if n == "cross":
        return M.cross(mk(M, (3, 3)), mk(M, (3, 3), 1), dim=1)
    if n == "tensordot":
        return M.tensordot(mk(M, (3, 4)), mk(M, (4, 2), 1), 1)
    if n == "cdist":
        return M.cdist(mk(M, (3, 4)), mk(M, (2, 4), 1))
    return getattr(M, n)(mk(M, (3, 4)), mk(M, (3, 4), 1))


for _n in ["add", "sub", "mul", "div", "pow", "atan2", "hypot", "fmod", "remainder",
           "maximum", "minimum", "fmax", "fmin", "copysign", "xlogy", "logaddexp",
           "logaddexp2", "float_power", "dist", "lerp", "matmul", "mm", "outer", "dot",
           "cross", "kron", "cdist", "bmm", "inner", "tensordot"]:
    CASES["bin_" + _n] = lambda M, n=_n: _binary(M, n)


def _functional(M, n):
    F = M.nn.functional
    x = mk(M, (2, 4, 6))
    two = {"mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div", "poisson_nll_loss",
           "soft_margin_loss", "binary_cross_entropy_with_logits",
           "multilabel_soft_margin_loss"}
    calls = {
        "glu": lambda: F.glu(x, dim=1), "softmin": lambda: F.softmin(x, dim=1),
        "threshold": lambda: F.threshold(x, 0.1, 2.0),
        "prelu": lambda: F.prelu(x, mk(M, (4,), 3)),
        "layer_norm": lambda: F.layer_norm(x, (6,), mk(M, (6,), 1), mk(M, (6,), 2)),
        "layer_norm_plain": lambda: F.layer_norm(x, (4, 6)),
        "group_norm": lambda: F.group_norm(x, 2, mk(M, (4,), 1), mk(M, (4,), 2)),
        "group_norm_plain": lambda: F.group_norm(mk(M, (2, 4, 3, 3)), 4),
        "batch_norm": lambda: F.batch_norm(x, M.zeros(4), M.ones(4), mk(M, (4,), 1),
                                           mk(M, (4,), 2), training=True),
        "batch_norm_no_stats": lambda: F.batch_norm(x, None, None, training=True),
        "batch_norm_eval": lambda: F.batch_norm(x, M.zeros(4), M.ones(4), mk(M, (4,), 1),
                                                mk(M, (4,), 2), training=False),
        "instance_norm": lambda: F.instance_norm(x, weight=mk(M, (4,), 1),
                                                 bias=mk(M, (4,), 2)).view(-1),
        "rms_norm": lambda: F.rms_norm(x, (6,), mk(M, (6,), 1)),
        "local_response_norm": lambda: F.local_response_norm(x, 2),
        "dropout": lambda: F.dropout(x, 0.0),
        "linear": lambda: F.linear(x, mk(M, (3, 6), 1), mk(M, (3,), 2)),
        "bilinear": lambda: F.bilinear(mk(M, (2, 3)), mk(M, (2, 4), 1), mk(M, (5, 3, 4), 2),
                                       mk(M, (5,), 3)),
        "embedding": lambda: F.embedding(M.tensor([0, 2]), mk(M, (3, 4))),
        "embedding_pad": lambda: F.embedding(M.tensor([0, 2]), mk(M, (3, 4)), padding_idx=1),
        "conv1d": lambda: F.conv1d(x, mk(M, (3, 4, 3), 1), mk(M, (3,), 2)),
        "conv1d_nobias": lambda: F.conv1d(x, mk(M, (3, 4, 3), 1)),
        "conv2d": lambda: F.conv2d(mk(M, (1, 2, 5, 5)), mk(M, (3, 2, 3, 3), 1),
                                   mk(M, (3,), 2)),
        "conv_transpose1d": lambda: F.conv_transpose1d(x, mk(M, (4, 3, 3), 1)),
        "max_pool1d": lambda: F.max_pool1d(x, 2), "avg_pool1d": lambda: F.avg_pool1d(x, 2),
        "lp_pool1d": lambda: F.lp_pool1d(x, 2.0, 2),
        "max_pool2d": lambda: F.max_pool2d(mk(M, (1, 2, 4, 4)), 2),
        "avg_pool2d": lambda: F.avg_pool2d(mk(M, (1, 2, 4, 4)), 2),
        "adaptive_avg_pool1d": lambda: F.adaptive_avg_pool1d(x, 4),
        "adaptive_max_pool1d": lambda: F.adaptive_max_pool1d(x, 4),
        "adaptive_avg_pool2d": lambda: F.adaptive_avg_pool2d(mk(M, (1, 2, 4, 4)), 2),
        "pad": lambda: F.pad(x, (1, 2)),
        "pad_reflect": lambda: F.pad(x, (1, 2), mode="reflect"),
        "pad_replicate": lambda: F.pad(x, (1, 2), mode="replicate"),
        "interpolate": lambda: F.interpolate(x, scale_factor=2, mode="linear"),
        "interpolate_nearest": lambda: F.interpolate(x, scale_factor=2),
        "grid_sample": lambda: F.grid_sample(mk(M, (1, 2, 4, 4)), mk(M, (1, 3, 3, 2), 1) * 0.5,
                                             align_corners=False),
        "affine_grid": lambda: F.affine_grid(mk(M, (1, 2, 3)), [1, 1, 3, 3],
                                             align_corners=False),
        "pixel_shuffle": lambda: F.pixel_shuffle(mk(M, (1, 4, 2, 2)), 2),
        "unfold": lambda: F.unfold(mk(M, (1, 2, 4, 4)), 2),
        "fold": lambda: F.fold(mk(M, (1, 8, 9)), (4, 4), 2),
        "cosine_similarity": lambda: F.cosine_similarity(mk(M, (3, 4)), mk(M, (3, 4), 1)),
        "pairwise_distance": lambda: F.pairwise_distance(mk(M, (3, 4)), mk(M, (3, 4), 1)),
        "pdist": lambda: F.pdist(mk(M, (3, 4))),
        "scaled_dot_product_attention": lambda: F.scaled_dot_product_attention(x, x * 1, x * 2),
        "binary_cross_entropy": lambda: F.binary_cross_entropy(
            mk(M, (3, 4)).sigmoid(), mk(M, (3, 4), 1).detach().sigmoid()),
        "gaussian_nll_loss": lambda: F.gaussian_nll_loss(mk(M, (3, 4)), mk(M, (3, 4), 1),
                                                         M.ones(3, 4)),
        "cross_entropy": lambda: F.cross_entropy(mk(M, (3, 4)), M.tensor([0, 1, 3])),
        "cross_entropy_none": lambda: F.cross_entropy(mk(M, (3, 4)), M.tensor([0, 1, 3]),
                                                      reduction="none"),
        "multi_margin_loss": lambda: F.multi_margin_loss(mk(M, (3, 4)), M.tensor([0, 1, 3])),
        "nll_loss": lambda: F.nll_loss(mk(M, (3, 4)), M.tensor([0, 1, 3])),
        "margin_ranking_loss": lambda: F.margin_ranking_loss(mk(M, (4,)), mk(M, (4,), 1),
                                                             M.ones(4)),
        "hinge_embedding_loss": lambda: F.hinge_embedding_loss(mk(M, (3, 4)), M.ones(3, 4)),
        "triplet_margin_loss": lambda: F.triplet_margin_loss(mk(M, (3, 4)), mk(M, (3, 4), 1),
                                                             mk(M, (3, 4), 2)),
        "cosine_embedding_loss": lambda: F.cosine_embedding_loss(
            mk(M, (3, 4)), mk(M, (3, 4), 1), M.tensor([1., -1., 1.])),
        "one_hot": lambda: F.one_hot(M.tensor([0, 2])).float().requires_grad_(),
    }
    if n in two:
        return getattr(F, n)(mk(M, (3, 4)), mk(M, (3, 4), 1).detach().sigmoid())
    if n in calls:
        return calls[n]()
    return getattr(F, n)(x)


for _n in ["gelu", "silu", "mish", "softplus", "elu", "selu", "celu", "leaky_relu", "hardtanh",
           "hardswish", "hardsigmoid", "logsigmoid", "softsign", "tanhshrink", "softshrink",
           "hardshrink", "relu6", "glu", "normalize", "threshold", "softmin", "prelu",
           "layer_norm", "layer_norm_plain", "group_norm", "group_norm_plain", "batch_norm",
           "batch_norm_no_stats", "batch_norm_eval", "instance_norm", "rms_norm",
           "local_response_norm", "dropout", "linear", "bilinear", "embedding",
           "embedding_pad", "conv1d", "conv1d_nobias", "conv2d", "conv_transpose1d",
           "max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d",
           "adaptive_max_pool1d", "adaptive_avg_pool2d", "lp_pool1d", "pad", "pad_reflect",
           "pad_replicate", "interpolate", "interpolate_nearest", "grid_sample",
           "affine_grid", "pixel_shuffle", "unfold", "fold", "cosine_similarity",
           "pairwise_distance", "pdist", "one_hot", "scaled_dot_product_attention",
           "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss",
           "gaussian_nll_loss", "soft_margin_loss", "cross_entropy", "cross_entropy_none",
           "nll_loss", "multi_margin_loss", "multilabel_soft_margin_loss",
           "margin_ranking_loss", "hinge_embedding_loss", "triplet_margin_loss",
           "cosine_embedding_loss"]:
    CASES["F_" + _n] = lambda M, n=_n: _functional(M, n)

# Tensor methods, views and indexing
_X = lambda M: mk(M, (3, 4))   # noqa: E731
_METHODS = {
    "clamp": lambda M: _X(M).clamp(-0.5, 0.5),
    "clamp_min": lambda M: _X(M).clamp_min(0.1),
    "clamp_t": lambda M: _X(M).clamp(M.zeros(3, 4), M.ones(3, 4)),
    "where": lambda M: M.where(_X(M).detach() > 0, _X(M), mk(M, (3, 4), 1)),
    "masked_fill": lambda M: _X(M).masked_fill(M.tensor([[True, False, True, False]] * 3), 2.),
    "masked_select": lambda M: _X(M).masked_select(M.tensor([[True, False, True, False]] * 3)),
    "gather": lambda M: _X(M).gather(1, M.tensor([[0, 1], [2, 3], [1, 1]])),
    "scatter": lambda M: _X(M).scatter(1, M.tensor([[0, 1], [2, 3], [1, 1]]),
                                       mk(M, (3, 2), 1)),
    "scatter_add": lambda M: _X(M).scatter_add(1, M.tensor([[0, 1], [2, 3], [1, 1]]),
                                               mk(M, (3, 2), 1)),
    "index_select": lambda M: _X(M).index_select(1, M.tensor([0, 2])),
    "index_add": lambda M: _X(M).index_add(1, M.tensor([0, 2]), mk(M, (3, 2), 1)),
    "index_copy": lambda M: _X(M).index_copy(1, M.tensor([0, 2]), mk(M, (3, 2), 1)),
    "index_fill": lambda M: _X(M).index_fill(1, M.tensor([0, 2]), 1.5),
    "take": lambda M: _X(M).take(M.tensor([0, 5])),
    "getitem_int": lambda M: _X(M)[1],
    "getitem_slice": lambda M: _X(M)[:, 1:3],
    "getitem_step": lambda M: _X(M)[::2],
    "getitem_none": lambda M: _X(M)[None],
    "getitem_adv": lambda M: _X(M)[M.tensor([0, 2])],
    "getitem_mask": lambda M: _X(M)[_X(M).detach() > 0],
    "view": lambda M: _X(M).view(4, 3), "reshape": lambda M: _X(M).reshape(2, 6),
    "reshape_copy": lambda M: _X(M).t().reshape(12),
    "t": lambda M: _X(M).t(), "transpose": lambda M: _X(M).transpose(0, 1),
    "permute": lambda M: mk(M, (2, 3, 4)).permute(2, 0, 1),
    "expand": lambda M: mk(M, (3, 1)).expand(3, 4),
    "squeeze": lambda M: mk(M, (3, 1)).squeeze(1), "unsqueeze": lambda M: _X(M).unsqueeze(0),
    "flatten": lambda M: mk(M, (2, 3, 4)).flatten(1),
    "narrow": lambda M: _X(M).narrow(1, 1, 2), "select": lambda M: _X(M).select(0, 1),
    "unfold_t": lambda M: _X(M).unfold(1, 2, 1), "diagonal": lambda M: _X(M).diagonal(),
    "movedim": lambda M: mk(M, (2, 3, 4)).movedim(0, 2),
    "as_strided": lambda M: _X(M).as_strided((2, 2), (1, 2)),
    "split": lambda M: _X(M).split(2, 1)[0], "chunk": lambda M: _X(M).chunk(2)[1],
    "unbind": lambda M: _X(M).unbind(0)[1],
    "cat": lambda M: M.cat([_X(M), mk(M, (3, 4), 1)], 1),
    "stack": lambda M: M.stack([_X(M), mk(M, (3, 4), 1)]),
    "repeat": lambda M: _X(M).repeat(2, 1), "tile": lambda M: _X(M).tile(2),
    "flip": lambda M: _X(M).flip(0), "roll": lambda M: _X(M).roll(1, 1),
    "rot90": lambda M: _X(M).rot90(), "tril": lambda M: _X(M).tril(),
    "triu": lambda M: _X(M).triu(), "diag": lambda M: mk(M, (4,)).diag(),
    "diag_embed": lambda M: _X(M).diag_embed(), "trace": lambda M: mk(M, (3, 3)).trace(),
    "clone": lambda M: _X(M).clone(), "contiguous": lambda M: _X(M).t().contiguous(),
    "to_double": lambda M: _X(M).double(), "type_as": lambda M: _X(M).type_as(M.zeros(1)),
    "expand_as": lambda M: mk(M, (3, 1)).expand_as(M.zeros(3, 4)),
    "repeat_interleave": lambda M: _X(M).repeat_interleave(2, 0),
    "addmm": lambda M: M.addmm(mk(M, (3, 2), 2), _X(M), mk(M, (4, 2), 1)),
    "addcmul": lambda M: M.addcmul(_X(M), mk(M, (3, 4), 1), mk(M, (3, 4), 2), value=0.5),
    "addcdiv": lambda M: M.addcdiv(_X(M), mk(M, (3, 4), 1), mk(M, (3, 4), 2).exp()),
    "baddbmm": lambda M: M.baddbmm(mk(M, (2, 3, 2), 2), mk(M, (2, 3, 4)),
                                   mk(M, (2, 4, 2), 1)),
    "mv": lambda M: M.mv(_X(M), mk(M, (4,), 1)),
    "einsum": lambda M: M.einsum("ij,jk->ik", _X(M), mk(M, (4, 2), 1)),
    "cumsum_neg": lambda M: _X(M).cumsum(-1), "sum_neg": lambda M: _X(M).sum(-1),
    "mean_keep": lambda M: _X(M).mean(0, keepdim=True),
    "pow_scalar": lambda M: _X(M).pow(2.5), "rpow": lambda M: 2.0 ** _X(M),
    "mul_scalar": lambda M: _X(M) * 1.5, "div_scalar": lambda M: _X(M) / 3,
    "rsub": lambda M: 1 - _X(M), "add_alpha": lambda M: M.add(_X(M), mk(M, (3, 4), 1),
                                                            alpha=2),
    "std_all": lambda M: _X(M).std(), "var_corr": lambda M: _X(M).var(1, correction=0),
    "norm_dim": lambda M: _X(M).norm(dim=1), "norm_p1": lambda M: _X(M).norm(p=1),
    "linalg_vector_norm": lambda M: M.linalg.vector_norm(_X(M), 3, dim=1),
    "logdet": lambda M: (mk(M, (3, 3)) + 3 * M.eye(3)).exp().logdet(),
    "det": lambda M: mk(M, (3, 3)).det(), "inverse": lambda M: mk(M, (3, 3)).inverse(),
    "cholesky": lambda M: M.linalg.cholesky(mk(M, (3, 3)) @ mk(M, (3, 3)).t()
                                            + M.eye(3)),
    "softmax_neg": lambda M: _X(M).softmax(-1), "sigmoid_m": lambda M: _X(M).sigmoid(),
    "polygamma": lambda M: M.polygamma(1, _X(M)), "mvlgamma": lambda M: M.mvlgamma(
        _X(M).exp() + 2, 2),
    "logit_eps": lambda M: _X(M).sigmoid().logit(1e-3),
    "heaviside": lambda M: (_X(M) * 1).clamp(0, 1),
    "cummin": lambda M: _X(M).cummin(1)[0], "msort": lambda M: _X(M).msort(),
    "nanmedian": lambda M: _X(M).nanmedian(), "quantile": lambda M: _X(M).quantile(0.3),
    "renorm": lambda M: _X(M).renorm(2, 0, 1.0),
    "fill_": lambda M: (_X(M) * 1).fill_(2.0), "zero_": lambda M: (_X(M) * 1).zero_(),
    "mul_": lambda M: (_X(M) * 1).mul_(mk(M, (3, 4), 1)),
    "tanh_": lambda M: (_X(M) * 1).tanh_(), "sigmoid_": lambda M: (_X(M) * 1).sigmoid_(),
    "setitem": lambda M: _setitem(M), "copy_": lambda M: (_X(M) * 1).copy_(mk(M, (3, 4), 1)),
}
CASES.update({"m_" + k: v for k, v in _METHODS.items()})


def _setitem(M):
    y = _X(M) * 1
    y[1] = mk(M, (4,), 1)
    return y


def _module(M, name):
    M.manual_seed(0)
    nn = M.nn
    x = mk(M, (2, 4, 6))
    built = {
        "Linear": lambda: nn.Linear(6, 3)(x),
        "LayerNorm": lambda: nn.LayerNorm(6)(x),
        "LayerNorm_noaffine": lambda: nn.LayerNorm(6, elementwise_affine=False)(x),
        "BatchNorm1d": lambda: nn.BatchNorm1d(4)(x),
        "BatchNorm1d_eval": lambda: nn.BatchNorm1d(4).eval()(x),
        "BatchNorm2d": lambda: nn.BatchNorm2d(2)(mk(M, (2, 2, 3, 3))),
        "GroupNorm": lambda: nn.GroupNorm(2, 4)(x),
        "Conv1d": lambda: nn.Conv1d(4, 3, 3)(x),
        "Conv2d_nobias": lambda: nn.Conv2d(2, 3, 3, bias=False)(mk(M, (1, 2, 5, 5))),
        "Embedding": lambda: nn.Embedding(5, 3)(M.tensor([[0, 4], [2, 1]])),
        "LogSigmoid": lambda: nn.LogSigmoid()(x),
        "Softmax": lambda: nn.Softmax(dim=1)(x),
        "GELU_tanh": lambda: nn.GELU("tanh")(x),
        "PReLU": lambda: nn.PReLU()(x),
        "Dropout0": lambda: nn.Dropout(0.0)(x),
        "MaxPool1d": lambda: nn.MaxPool1d(2)(x),
        "AvgPool2d": lambda: nn.AvgPool2d(2)(mk(M, (1, 2, 4, 4))),
        "Flatten": lambda: nn.Flatten()(x),
        "Upsample": lambda: nn.Upsample(scale_factor=2)(x),
        "CrossEntropyLoss": lambda: nn.CrossEntropyLoss()(mk(M, (3, 4)), M.tensor([0, 1, 3])),
        "BCELoss": lambda: nn.BCELoss()(mk(M, (3, 4)).sigmoid(), M.ones(3, 4) * 0.5),
        "SmoothL1Loss": lambda: nn.SmoothL1Loss(beta=0.5)(mk(M, (3, 4)), M.zeros(3, 4)),
        "Bilinear": lambda: nn.Bilinear(6, 6, 2)(x, x * 2),
        "TransformerEncoderLayer": lambda: nn.TransformerEncoderLayer(
            6, 2, 8, dropout=0.0, batch_first=True)(x),
        "MultiheadAttention": lambda: nn.MultiheadAttention(6, 2, batch_first=True)(
            x, x, x)[0],
        "LSTM": lambda: nn.LSTM(6, 3, batch_first=True)(x)[0],
        "GRU": lambda: nn.GRU(6, 3, batch_first=True)(x)[0],
    }
    return built[name]()


for _n in ["Linear", "LayerNorm", "LayerNorm_noaffine", "BatchNorm1d", "BatchNorm1d_eval",
           "BatchNorm2d", "GroupNorm", "Conv1d", "Conv2d_nobias", "Embedding", "LogSigmoid",
           "Softmax", "GELU_tanh", "PReLU", "Dropout0", "MaxPool1d", "AvgPool2d", "Flatten",
           "Upsample", "CrossEntropyLoss", "BCELoss", "SmoothL1Loss", "Bilinear",
           "TransformerEncoderLayer", "MultiheadAttention", "LSTM", "GRU"]:
    CASES["nn_" + _n] = lambda M, n=_n: _module(M, n)


# What viewgrad does not show yet, with why: {case: (attributes only torch shows, why)}
KNOWN = {}

# Cases found differing by this sweep and not fixed yet (each reason says how): they run
# as strict xfails, so that a fix shows here and the entry goes.
_GN = ("torch's NativeGroupNormBackward0 has three differentiable outputs: its saved "
       "result1/result2 unpack with the node as grad_fn (output 1, 2); viewgrad's node has "
       "one output and saves them without history")
DIFFERS = {
    "F_group_norm": _GN, "F_group_norm_plain": _GN, "nn_GroupNorm": _GN,
    "m_det": "torch LinalgDetBackward0 saves LU and pivots; viewgrad only A and result",
}


def _saved(fn):
    return sorted(a for a in dir(fn) if a.startswith("_saved_"))


def _signature(fn):
    return type(fn).__name__, _saved(fn)


def _same_value(tv, vv, name):
    torch = torch_or_skip()
    if isinstance(tv, torch.Tensor):
        assert isinstance(vv, vg.Tensor), name
        assert tuple(tv.shape) == tuple(vv.shape), name
        assert (tv.grad_fn is None) == (vv.grad_fn is None), name
        if tv.dtype.is_floating_point:
            np.testing.assert_allclose(vv.detach().numpy(), tv.detach().numpy(), rtol=1e-4,
                                       atol=1e-5, err_msg=name)
        else:
            np.testing.assert_array_equal(vv.numpy(), tv.numpy(), err_msg=name)
    elif isinstance(tv, tuple) and tv and isinstance(tv[0], torch.Tensor):
        assert len(tv) == len(vv), name
        for a, b in zip(tv, vv):
            _same_value(a, b, name)
    elif isinstance(tv, float):
        assert vv == pytest.approx(tv, rel=1e-6), name
    else:
        assert (tuple(vv) if isinstance(vv, (tuple, list)) else vv) == (
            tuple(tv) if isinstance(tv, (tuple, list)) else tv), name


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.xfail(
    strict=True, reason=DIFFERS[c])) if c in DIFFERS else c for c in sorted(CASES)])
def test_saved_names_and_values_as_torch(case):
    torch = torch_or_skip()
    vg.manual_seed(0)
    v = CASES[case](vg).grad_fn
    t = CASES[case](torch).grad_fn
    tname, tsaved = _signature(t)
    vname, vsaved = _signature(v)
    assert vname == tname
    missing, why = KNOWN.get(case, ((), None))
    assert sorted(set(tsaved) - set(missing)) == vsaved, why
    for name in vsaved:
        _same_value(getattr(t, name), getattr(v, name), f"{case}: {name}")


# -- the normalisations' saved statistics ------------------------------------------------------

def _pack_shapes(M, fn):
    shapes = []

    def pack(t):
        shapes.append(tuple(t.shape))
        return t
    with M.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        fn(M)
    return sorted(shapes)


def _packs(M, fn):
    return len(_pack_shapes(M, fn))


# What the sweep's programs pack differently from torch (the shapes of every tensor handed
# to saved_tensors_hooks' pack): each reason says why.
_NLL = "NllLossBackward0's total_weight: torch saves the 0-d tensor, viewgrad computes it"
_FUSED = "torch runs one fused kernel (its own saved buffers); viewgrad composes the ops"
PACKS_DIFFER = {
    "F_cross_entropy": _NLL, "F_cross_entropy_none": _NLL, "F_nll_loss": _NLL,
    "nn_CrossEntropyLoss": _NLL,
    "m_det": "torch's LinalgDetBackward0 saves LU and pivots", "m_logdet": "as m_det",
    "nn_LSTM": _FUSED, "nn_MultiheadAttention": _FUSED, "nn_TransformerEncoderLayer": _FUSED,
}


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.xfail(
    strict=True, reason=PACKS_DIFFER[c])) if c in PACKS_DIFFER else c for c in sorted(CASES)])
def test_every_case_packs_what_torch_packs(case):
    """A tensor saved where torch saves none refuses an in-place change torch allows; one
    not saved where torch saves it would miss a version check: the same tensors, by shape."""
    torch = torch_or_skip()
    vg.manual_seed(0)
    v = _pack_shapes(vg, CASES[case])
    torch.manual_seed(0)
    assert v == _pack_shapes(torch, CASES[case])


_NORMS = {
    "layer_norm": lambda M: M.nn.functional.layer_norm(
        mk(M, (2, 4, 6)), (6,), mk(M, (6,), 1), mk(M, (6,), 2)),
    "layer_norm_plain": lambda M: M.nn.functional.layer_norm(mk(M, (2, 4, 6)), (6,)),
    "group_norm": lambda M: M.nn.functional.group_norm(
        mk(M, (2, 4, 3)), 2, mk(M, (4,), 1), mk(M, (4,), 2)),
    "batch_norm": lambda M: M.nn.functional.batch_norm(
        mk(M, (2, 4, 3)), M.zeros(4), M.ones(4), mk(M, (4,), 1), mk(M, (4,), 2), True),
    "batch_norm_eval": lambda M: M.nn.functional.batch_norm(
        mk(M, (2, 4, 3)), M.zeros(4), M.ones(4), mk(M, (4,), 1), mk(M, (4,), 2), False),
    "batch_norm_no_stats": lambda M: M.nn.functional.batch_norm(
        mk(M, (2, 4, 3)), None, None, training=True),
    "logsigmoid": lambda M: M.nn.functional.logsigmoid(mk(M, (2, 4))),
}


@pytest.mark.parametrize("case", sorted(_NORMS))
def test_saved_tensor_hooks_pack_what_torch_packs(case):
    torch = torch_or_skip()
    assert _packs(vg, _NORMS[case]) == _packs(torch, _NORMS[case])


@pytest.mark.parametrize("case", ["layer_norm", "group_norm", "batch_norm", "logsigmoid"])
def test_a_saved_statistic_modified_in_place_is_refused(case):
    torch = torch_or_skip()
    words = []
    for M in (torch, vg):
        y = _NORMS[case](M)
        fn = y.grad_fn
        stat = fn._saved_buffer if case == "logsigmoid" else fn._saved_result1
        with M.no_grad():
            stat.add_(1)
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        words.append(str(e.value).split("Hint")[0].replace("torch.FloatTensor", "float32"))
    assert "modified by an inplace operation" in words[1]
    assert "which is output" not in words[1]   # (a statistic has no history: no node's)


def test_batch_norm_running_stats_saved_and_checked_as_torch():
    torch = torch_or_skip()
    for M in (torch, vg):
        x = mk(M, (2, 4, 3))
        rm, rv = M.zeros(4), M.ones(4)
        y = M.nn.functional.batch_norm(x, rm, rv, training=True)
        y2 = M.nn.functional.batch_norm(x, rm, rv, training=True)   # updates: no bump
        assert y.grad_fn._saved_running_mean is rm and rm._version == 0
        (y + y2).sum().backward()
        y = M.nn.functional.batch_norm(x, rm, rv, training=True)
        rm.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


@pytest.mark.parametrize("case", ["F_layer_norm", "F_conv1d_nobias", "F_conv2d", "F_embedding",
                                  "F_group_norm", "F_batch_norm", "F_batch_norm_eval"])
def test_a_freed_node_still_shows_its_arguments(case):
    torch = torch_or_skip()
    shown = []
    for M in (torch, vg):
        y = CASES[case](M)
        fn = y.grad_fn
        y.sum().backward()
        kept = {}
        for name in _saved(fn):
            try:
                v = getattr(fn, name)
            except RuntimeError:
                v = "freed"
            kept[name] = "tensor" if isinstance(v, M.Tensor) else (
                tuple(v) if isinstance(v, (list, tuple)) else v)
        shown.append(kept)
    assert shown[1] == shown[0]


@pytest.mark.parametrize("case", ["layer_norm", "group_norm", "batch_norm", "batch_norm_eval"])
def test_normalisation_gradients_stay_as_torch(case):
    torch = torch_or_skip()
    grads = []
    for M in (torch, vg):
        y = _NORMS[case](M)
        leaves = [t for t in _leaves(y.grad_fn)]
        w = M.tensor(np.random.default_rng(5).standard_normal(tuple(y.shape)).astype(
            np.float32))
        gs = M.autograd.grad((y * w).sum(), leaves)
        grads.append([g.detach().numpy() for g in gs])
    for a, b in zip(*grads):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)


def _leaves(fn):
    out = []
    for nxt, _ in fn.next_functions:
        if nxt is not None and hasattr(nxt, "variable"):
            out.append(nxt.variable)
    return out


def test_layer_and_batch_norm_double_backward():
    def f(x, w, b):
        return (vg.nn.functional.layer_norm(x, (3,), w, b).sin().sum()
                + vg.nn.functional.batch_norm(x, None, None, w[:2], b[:2], True).cos().sum())
    r = np.random.default_rng(1)
    args = [vg.tensor(r.standard_normal(s), requires_grad=True)
            for s in ((4, 2, 3), (3,), (3,))]
    assert vg.autograd.gradgradcheck(f, args)
