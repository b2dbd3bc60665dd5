"""Still more ``torch.nn`` modules: Upsample, adaptive max pooling, MaxUnpool, PReLU,
Threshold, Softmax2d, InstanceNorm1d/2d, Conv3d, ConvTranspose1d, PixelShuffle /
PixelUnshuffle, EmbeddingBag, Bilinear, AlphaDropout, and the losses over
``functional_losses`` (and CTCLoss, over ``functional_ctc``).

Each holds PyTorch's hyper-parameters and parameters (names, shapes, initialisation,
``extra_repr``) and calls the functional form in ``forward``.
"""
from __future__ import annotations

import math

from ..autograd.grad_mode import no_grad
from ..ops import factories as Fa
from . import functional as F
from . import init
from .layers import Conv2d, ConvTranspose2d, _BatchNorm
from .layers_more import _Loss, _WeightedLoss
from .module import Module
from .parameter import Parameter

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "PReLU",
           "Threshold",
           "Softmax2d", "InstanceNorm1d", "InstanceNorm2d", "Conv3d", "ConvTranspose1d",
           "PixelShuffle", "PixelUnshuffle", "EmbeddingBag", "Bilinear", "AlphaDropout",
           "MarginRankingLoss", "HingeEmbeddingLoss", "SoftMarginLoss",
           "MultiLabelSoftMarginLoss", "MultiMarginLoss", "MultiLabelMarginLoss",
           "CosineEmbeddingLoss", "TripletMarginLoss",
           "PoissonNLLLoss", "GaussianNLLLoss", "CTCLoss"]


class Upsample(Module):
    """``F.interpolate`` as a module (``size`` or ``scale_factor``, ``mode``,
    ``align_corners``)."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode, self.align_corners = mode, align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode,
                             self.align_corners, recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        info = (f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None
                else f"size={self.size!r}")
        return info + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """``Upsample(mode='nearest')`` for 4-D input."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """``Upsample(mode='bilinear', align_corners=True)`` for 4-D input."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class _AdaptiveMaxPool(Module):
    _fn = None

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        return type(self)._fn(input, self.output_size, self.return_indices)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPool):
    """``F.adaptive_max_pool1d`` as a module."""
    _fn = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPool):
    """``F.adaptive_max_pool2d`` as a module."""
    _fn = staticmethod(F.adaptive_max_pool2d)


class AdaptiveMaxPool3d(_AdaptiveMaxPool):
    """``F.adaptive_max_pool3d`` as a module."""
    _fn = staticmethod(F.adaptive_max_pool3d)


class _MaxUnpool(Module):
    _n = 2

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        n = self._n
        self.kernel_size = (kernel_size,) * n if isinstance(kernel_size, int) else \
            tuple(kernel_size)
        st = stride if stride is not None else kernel_size
        self.stride = (st,) * n if isinstance(st, int) else tuple(st)
        self.padding = (padding,) * n if isinstance(padding, int) else tuple(padding)

    def forward(self, input, indices, output_size=None):
        fn = {1: F.max_unpool1d, 2: F.max_unpool2d, 3: F.max_unpool3d}[self._n]
        return fn(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpool):
    """``F.max_unpool1d`` as a module: ``forward(input, indices, output_size=None)``."""
    _n = 1


class MaxUnpool2d(_MaxUnpool):
    """``F.max_unpool2d`` as a module: ``forward(input, indices, output_size=None)``."""
    _n = 2


class PReLU(Module):
    """``x if x > 0 else a * x`` with a learnt slope ``weight`` (one, or one per channel;
    initialised to ``init``)."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(Fa.full((num_parameters,), float(init), device=device,
                                        dtype=dtype))
        self.reset_parameters()   # (written once: _version 1, as PyTorch's)

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class Threshold(Module):
    """``x if x > threshold else value``."""

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}" + \
            (", inplace=True" if self.inplace else "")


class Softmax2d(Module):
    """Softmax over the channels (dim -3) at every spatial position."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D "
                             "instead")
        return F.softmax(input, -3)


class _InstanceNorm(Module):
    _dims = 1

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, bias=True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        fk = {"device": device, "dtype": dtype}
        if affine:
            self.weight = Parameter(Fa.ones(num_features, **fk))
            if bias:
                self.bias = Parameter(Fa.zeros(num_features, **fk))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", Fa.zeros(num_features, **fk))
            self.register_buffer("running_var", Fa.ones(num_features, **fk))
            self.register_buffer("num_batches_tracked", Fa.tensor(0, dtype=Fa.B.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    # PyTorch's _NormBase, shared with BatchNorm: every buffer and affine parameter written
    # once by the constructor (``_version`` 1)
    reset_parameters = _BatchNorm.reset_parameters
    reset_running_stats = _BatchNorm.reset_running_stats

    def forward(self, input):
        want = self._dims + 2
        if input.dim() not in (want - 1, want):
            raise ValueError(f"expected {want - 1}D or {want}D input (got {input.dim()}D "
                             "input)")
        unbatched = input.dim() == want - 1
        x = input.unsqueeze(0) if unbatched else input
        feature_dim = input.dim() - self._dims - 1   # (the dim of input, as PyTorch names it)
        if self.affine and x.shape[1] != self.num_features:
            raise ValueError(f"expected input's size at dim={feature_dim} to match "
                             f"num_features ({self.num_features}), but got: {x.shape[1]}.")
        if x.shape[1] != self.num_features:   # (unused without affine: PyTorch warns)
            import warnings
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. "
                          "You can silence this warning by not passing in num_features, "
                          "which is not used because affine=False", stacklevel=2)
        use_input_stats = self.training or not self.track_running_stats
        out = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                              use_input_stats, self.momentum if self.momentum is not None
                              else 0.1, self.eps)
        return out.squeeze(0) if unbatched else out

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of (N, C, L) (or unbatched (C, L)) input."""
    _dims = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of (N, C, H, W) (or unbatched (C, H, W)) input."""
    _dims = 2


class Conv3d(Conv2d):
    """3-D convolution layer: weight (out_channels, in_channels/groups, kD, kH, kW), the
    one generic convolution op underneath."""
    _nsp = 3

    def forward(self, input):
        input, padding = self._padded(input)
        return F.conv3d(input, self.weight, self.bias, self.stride, padding,
                        self.dilation, self.groups)


class ConvTranspose1d(ConvTranspose2d):
    """Transposed 1-D convolution: weight (in_channels, out_channels/groups, kL)."""
    _nsp = 1

    def forward(self, input):
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding,
                                  self.output_padding, self.groups, self.dilation)


class PixelShuffle(Module):
    """``F.pixel_shuffle``: (*, C r², H, W) → (*, C, H r, W r)."""

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """``F.pixel_unshuffle``: (*, C, H r, W r) → (*, C r², H, W)."""

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"


class EmbeddingBag(Module):
    """Sums, means or maxes of embedding rows per bag (``F.embedding_bag``); weight
    N(0, 1) initialised, the ``padding_idx`` row zero."""

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.mode, self.sparse = scale_grad_by_freq, mode, sparse
        self.include_last_offset = include_last_offset
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(Fa.zeros((num_embeddings, embedding_dim), device=device,
                                             dtype=dtype))
            self.reset_parameters()
        else:
            self.weight = Parameter(_weight)

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset, self.padding_idx)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, mode="mean", sparse=False,
                        include_last_offset=False, padding_idx=None):
        """An EmbeddingBag holding ``embeddings`` (frozen unless ``freeze=False``)."""
        rows, cols = embeddings.shape
        bag = cls(rows, cols, max_norm, norm_type, scale_grad_by_freq, mode, sparse,
                  embeddings, include_last_offset, padding_idx)
        bag.weight.requires_grad_(not freeze)
        return bag

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s


class Bilinear(Module):
    """``y = x1ᵀ A x2 + b`` with weight (out, in1, in2); weight and bias uniform in
    ±1/sqrt(in1_features)."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        fk = {"device": device, "dtype": dtype}
        self.weight = Parameter(Fa.zeros((out_features, in1_features, in2_features), **fk))
        if bias:
            self.bias = Parameter(Fa.zeros(out_features, **fk))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class AlphaDropout(Module):
    """``F.alpha_dropout`` (training only): dropout that keeps SELU's mean and variance."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


# -- losses ---------------------------------------------------------------------------------

class MarginRankingLoss(_Loss):
    """``F.margin_ranking_loss`` with ``margin``: ``forward(input1, input2, target)``."""

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.margin_ranking_loss(input1, input2, target, self.margin,
                                     reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    """``F.hinge_embedding_loss`` with ``margin``."""

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):
        return F.hinge_embedding_loss(input, target, self.margin, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """``F.soft_margin_loss``."""

    def forward(self, input, target):
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """``F.multilabel_soft_margin_loss`` with an optional per-class ``weight``."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)

    def forward(self, input, target):
        return F.multilabel_soft_margin_loss(input, target, self.weight,
                                             reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """``F.multi_margin_loss``: the multi-class hinge (``p`` 1 or 2, ``margin``, an
    optional per-class ``weight``)."""

    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got "
                             f"{weight.dim()}D instead")
        self.p, self.margin = p, margin

    def forward(self, input, target):
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin,
                                   weight=self.weight, reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    """``F.multilabel_margin_loss``: the multi-label hinge (targets: class indices, -1
    ends each row's list)."""

    def forward(self, input, target):
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    """``F.cosine_embedding_loss`` with ``margin``: ``forward(input1, input2, target)``."""

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.cosine_embedding_loss(input1, input2, target, self.margin,
                                       reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """``F.triplet_margin_loss``: ``forward(anchor, positive, negative)``."""

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None,
                 reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got "
                             f"{margin} instead")
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_loss(anchor, positive, negative, self.margin, self.p,
                                     self.eps, self.swap, reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    """``F.poisson_nll_loss`` (``log_input``, ``full``, ``eps``)."""

    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                 reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input, target):
        return F.poisson_nll_loss(log_input, target, self.log_input, self.full,
                                  eps=self.eps, reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """``F.gaussian_nll_loss``: ``forward(input, target, var)``."""

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(None, None, reduction)
        self.full, self.eps = full, eps

    def forward(self, input, target, var):
        return F.gaussian_nll_loss(input, target, var, self.full, self.eps, self.reduction)


class CTCLoss(_Loss):
    """``F.ctc_loss`` (``blank``, ``zero_infinity``): ``forward(log_probs, targets,
    input_lengths, target_lengths)``."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                          self.reduction, self.zero_infinity)
