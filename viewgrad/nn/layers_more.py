"""More of ``torch.nn``: activation modules, Unflatten, Embedding, LayerNorm, GroupNorm,
the containers ModuleDict / ParameterList / ParameterDict, the losses BCELoss,
BCEWithLogitsLoss, L1Loss, SmoothL1Loss, HuberLoss, KLDivLoss, and the pooling variants.

Each module holds its hyper-parameters and calls ``viewgrad.nn.functional`` in
``forward``; parameters are initialised as PyTorch initialises them.
"""
from __future__ import annotations

from ..autograd.grad_mode import no_grad
from ..ops import factories as Fa
from . import functional as F
from .functional_losses import _legacy
from . import init
from .container import ModuleDict, ParameterDict, ParameterList  # noqa: F401  (re-exported)
from .layers import _Loss, _WeightedLoss  # noqa: F401  (re-exported: the losses' bases)
from .module import Module
from .parameter import Parameter

__all__ = ["LeakyReLU", "ELU", "GELU", "SiLU", "Softplus", "Mish", "Hardtanh", "ReLU6",
           "LogSigmoid", "Softsign", "SELU", "CELU", "Hardswish", "Hardsigmoid",
           "Tanhshrink", "Hardshrink", "Softshrink", "LocalResponseNorm", "Softmin", "GLU", "Unflatten", "Embedding", "LayerNorm", "RMSNorm",
           "GroupNorm", "ModuleDict", "ParameterList", "ParameterDict", "BCELoss",
           "BCEWithLogitsLoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "KLDivLoss",
           "AvgPool1d", "MaxPool1d", "MaxPool3d", "AdaptiveAvgPool1d", "Dropout1d",
           "Dropout2d", "CosineSimilarity", "PairwiseDistance"]


def _activation(name, fn, params=(), doc="", show_inplace=True):
    """A module class whose forward is ``fn(input, **its hyper-parameters)``
    (``show_inplace``: its repr says ``inplace=True`` when set, as most of PyTorch's do)."""
    names = [p for p, _ in params]

    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        values = dict(params)
        for k, v in zip(names, args):
            values[k] = v
        for k, v in kwargs.items():
            if k not in values and k != "inplace":
                raise TypeError(f"{name}.__init__() got an unexpected keyword argument '{k}'")
            values[k] = v
        self.inplace = values.pop("inplace", False)
        for k, v in values.items():
            setattr(self, k, v)

    def forward(self, input):
        kw = {k: getattr(self, k) for k in names if k != "inplace"}
        if self.inplace:   # written into the input, as PyTorch's module does
            kw["inplace"] = True
        return fn(input, **kw)

    def extra_repr(self):
        r = ", ".join(f"{k}={getattr(self, k)!r}" if isinstance(getattr(self, k), str)
                      else f"{k}={getattr(self, k)}" for k in names if k != "inplace")
        if self.inplace and show_inplace:
            r = r + ", inplace=True" if r else "inplace=True"
        return r

    return type(name, (Module,), {"__init__": __init__, "forward": forward,
                                  "extra_repr": extra_repr,
                                  "__doc__": doc or f"``torch.nn.{name}``: "
                                                    f"``F.{fn.__name__}`` as a module."})


LeakyReLU = _activation("LeakyReLU", F.leaky_relu, (("negative_slope", 0.01), ("inplace", False)))
ELU = _activation("ELU", F.elu, (("alpha", 1.0), ("inplace", False)))
GELU = _activation("GELU", F.gelu, (("approximate", "none"),))
SiLU = _activation("SiLU", F.silu, (("inplace", False),))
Softplus = _activation("Softplus", F.softplus, (("beta", 1.0), ("threshold", 20.0)))
Mish = _activation("Mish", F.mish, (("inplace", False),))
Hardtanh = _activation("Hardtanh", F.hardtanh, (("min_val", -1.0), ("max_val", 1.0),
                                                ("inplace", False)))
ReLU6 = _activation("ReLU6", F.relu6, (("inplace", False),))
LogSigmoid = _activation("LogSigmoid", F.logsigmoid)
Softsign = _activation("Softsign", F.softsign)
SELU = _activation("SELU", F.selu, (("inplace", False),))
CELU = _activation("CELU", F.celu, (("alpha", 1.0), ("inplace", False)))
Hardswish = _activation("Hardswish", F.hardswish, (("inplace", False),), show_inplace=False)
Hardsigmoid = _activation("Hardsigmoid", F.hardsigmoid, (("inplace", False),), show_inplace=False)
Tanhshrink = _activation("Tanhshrink", F.tanhshrink)


class _Shrink(Module):
    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def extra_repr(self):
        return str(self.lambd)


class Hardshrink(_Shrink):
    """``F.hardshrink(x, lambd)`` as a module."""

    def forward(self, input):
        return F.hardshrink(input, self.lambd)


class Softshrink(_Shrink):
    """``F.softshrink(x, lambd)`` as a module."""

    def forward(self, input):
        return F.softshrink(input, self.lambd)


class LocalResponseNorm(Module):
    """``F.local_response_norm(x, size, alpha, beta, k)`` as a module."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
Softmin = _activation("Softmin", F.softmin, (("dim", None),))
GLU = _activation("GLU", F.glu, (("dim", -1),))


class CosineSimilarity(Module):  # two inputs, so not an _activation
    """``F.cosine_similarity(x1, x2, dim, eps)`` as a module."""

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """``F.pairwise_distance(x1, x2, p, eps, keepdim)`` as a module."""

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class Unflatten(Module):
    """Split dim ``dim`` into ``unflattened_size`` (the inverse of Flatten); a view."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if not isinstance(dim, int):   # (PyTorch's str dims name a named tensor's dims)
            raise TypeError("invalid argument type for dim parameter")
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(f"unflattened_size must be a tuple of ints, but found type "
                            f"{type(unflattened_size).__name__}")
        for i, n in enumerate(unflattened_size):
            if not isinstance(n, int):
                raise TypeError(f"unflattened_size must be tuple of ints, but found element "
                                f"of type {type(n).__name__} at pos {i}")
        # (kept as given, a list or a tuple, as PyTorch's repr shows it)
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input):
        # Tensor.unflatten: sizes checked against dim ``dim`` alone (a -1 inferred from it),
        # with PyTorch's "don't multiply up" error
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Embedding(Module):
    """A lookup table: ``weight[input]`` (weight: num_embeddings × embedding_dim, N(0, 1)
    initialised; the ``padding_idx`` row zero and never updated)."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = Parameter(Fa.zeros((num_embeddings, embedding_dim), device=device,
                                             dtype=dtype), requires_grad=not _freeze)
            self.reset_parameters()
        else:
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm,
                           self.norm_type, self.scale_grad_by_freq, self.sparse)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None,
                        norm_type=2.0, scale_grad_by_freq=False, sparse=False):
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                   _weight=embeddings, _freeze=freeze)

    def extra_repr(self):
        # (PyTorch's: the options that differ from their defaults)
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse is not False:
            s += ", sparse=True"
        return s


def _reset_affine(norm):
    """A normalisation's affine parameters, those it has: weight ones, bias zeros, each
    written once (``_version`` 1 after the constructor, as PyTorch's)."""
    if norm.weight is not None:
        init.ones_(norm.weight)
    if getattr(norm, "bias", None) is not None:
        init.zeros_(norm.bias)


class LayerNorm(Module):
    """Normalise over the last dims (``normalized_shape``), then an elementwise affine
    (weight ones, bias zeros)."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        self.normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) \
            else tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(Fa.ones(self.normalized_shape, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(Fa.zeros(self.normalized_shape, device=device,
                                               dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class RMSNorm(Module):
    """Root-mean-square normalisation over the last dims (``normalized_shape``), then an
    elementwise scale (weight ones); ``eps`` None is the dtype's machine epsilon."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        self.normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) \
            else tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(Fa.empty(self.normalized_shape, device=device,
                                             dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class GroupNorm(Module):
    """Normalise groups of channels per sample, then a per-channel affine."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups, self.num_channels, self.eps, self.affine = (num_groups, num_channels,
                                                                     eps, affine)
        if affine:
            self.weight = Parameter(Fa.ones(num_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        if affine and bias:   # (bias=False: a scale without a shift, as PyTorch's)
            self.bias = Parameter(Fa.zeros(num_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


# -- losses ---------------------------------------------------------------------------------

class BCELoss(_WeightedLoss):
    """Binary cross-entropy on probabilities (``F.binary_cross_entropy``)."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Sigmoid + binary cross-entropy, stable (``F.binary_cross_entropy_with_logits``)."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean",
                 pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  reduction=self.reduction,
                                                  pos_weight=self.pos_weight)


class L1Loss(_Loss):
    """Mean absolute error (``F.l1_loss``)."""

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """``F.smooth_l1_loss`` with ``beta``."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """``F.huber_loss`` with ``delta``."""

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(_Loss):
    """``F.kl_div``: input log-probabilities; ``reduction='batchmean'`` for the true KL."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


# -- pooling variants, channel dropout -----------------------------------------------------

class _Pool(Module):
    _fn = None
    _args = ()
    _shown = None   # the attributes the repr shows (PyTorch's extra_repr); None: all

    def __init__(self, *args, **kwargs):
        super().__init__()
        values = dict(self._args)
        for (k, _), v in zip(self._args, args):
            values[k] = v
        values.update(kwargs)
        if "stride" in values and values["stride"] is None:   # (as PyTorch stores it)
            values["stride"] = values["kernel_size"]
        for k, v in values.items():
            setattr(self, k, v)

    def forward(self, input):
        return type(self)._fn(input, *[getattr(self, k) for k, _ in self._args])

    def extra_repr(self):
        names = self._shown if self._shown is not None else [k for k, _ in self._args]
        return ", ".join(f"{k}={getattr(self, k)}" for k in names)


class AvgPool1d(_Pool):
    """``F.avg_pool1d`` as a module."""
    _fn = staticmethod(F.avg_pool1d)
    _args = (("kernel_size", None), ("stride", None), ("padding", 0), ("ceil_mode", False),
             ("count_include_pad", True))
    _shown = ("kernel_size", "stride", "padding")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for k in self._shown:   # (PyTorch keeps these three as 1-tuples: _single)
            v = getattr(self, k)
            setattr(self, k, tuple(v) if isinstance(v, (tuple, list)) else (v,))


class MaxPool1d(_Pool):
    """``F.max_pool1d`` as a module."""
    _fn = staticmethod(F.max_pool1d)
    _args = (("kernel_size", None), ("stride", None), ("padding", 0), ("dilation", 1),
             ("ceil_mode", False), ("return_indices", False))
    _shown = ("kernel_size", "stride", "padding", "dilation", "ceil_mode")


class MaxPool3d(_Pool):
    """``F.max_pool3d`` as a module."""
    _fn = staticmethod(F.max_pool3d)
    _args = (("kernel_size", None), ("stride", None), ("padding", 0), ("dilation", 1),
             ("return_indices", False), ("ceil_mode", False))
    _shown = ("kernel_size", "stride", "padding", "dilation", "ceil_mode")

    def forward(self, input):
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)


class AdaptiveAvgPool1d(_Pool):
    """``F.adaptive_avg_pool1d`` as a module."""
    _fn = staticmethod(F.adaptive_avg_pool1d)
    _args = (("output_size", None),)


class Dropout1d(Module):
    """Zero whole channels of (N, C, L) with probability p (training only)."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout2d(Dropout1d):
    """Zero whole channels of (N, C, H, W) with probability p (training only)."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)

