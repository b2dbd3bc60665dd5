# torch.nn.functional edge modes image code uses: interpolate (bicubic, area, nearest-exact,
# trilinear, antialias, recompute_scale_factor), pooling with ceil_mode / count_include_pad /
# dilation, lp_pool, padding modes, and activation variants; gradients of each.
import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(SEED)


def T(*shape):
    return torch.tensor(rng.standard_normal(shape), dtype=torch.float32, requires_grad=True)


img = T(1, 2, 5, 7)
vol = T(1, 1, 3, 4, 4)
outs = {
    "bicubic": F.interpolate(img, size=(8, 9), mode="bicubic", align_corners=False),
    "bicubic_ac": F.interpolate(img, scale_factor=1.5, mode="bicubic", align_corners=True),
    "bilinear_aa": F.interpolate(img, size=(3, 4), mode="bilinear", antialias=True),
    "bicubic_aa": F.interpolate(img, scale_factor=0.6, mode="bicubic", antialias=True),
    "bilinear_aa_up": F.interpolate(img, size=(8, 9), mode="bilinear", align_corners=True, antialias=True),
    "area": F.interpolate(img, size=(2, 3), mode="area"),
    "nearest_exact": F.interpolate(img, scale_factor=(1.7, 0.6), mode="nearest-exact"),
    "nearest_rsf": F.interpolate(img, scale_factor=1.3, mode="nearest", recompute_scale_factor=True),
    "bilinear_sf": F.interpolate(img, scale_factor=0.7, mode="bilinear"),
    "trilinear": F.interpolate(vol, size=(5, 3, 6), mode="trilinear", align_corners=False),
    "linear1d": F.interpolate(img[:, :, 0], size=11, mode="linear"),
    "avg_ceil": F.avg_pool2d(img, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    "avg_div": F.avg_pool2d(img, 2, divisor_override=3),
    "max_dil": F.max_pool2d(img, 2, stride=1, dilation=2, ceil_mode=True),
    "max_ceil": F.max_pool2d(img, 3, stride=2, ceil_mode=True),
    "lp": F.lp_pool2d(img.abs() + 0.1, norm_type=3, kernel_size=2),
    "lp1d": F.lp_pool1d(img[:, :, 0].abs() + 0.1, 2, 3, stride=2),
    "adaptive_avg": F.adaptive_avg_pool2d(img, (3, 4)),
    "adaptive_max1d": F.adaptive_max_pool1d(img[:, :, 0], 4),
    "avg3d": F.avg_pool3d(vol, 2, stride=1),
    "pad_reflect": F.pad(img, (2, 1, 1, 2), mode="reflect"),
    "pad_replicate": F.pad(img, (3, 0, 0, 1), mode="replicate"),
    "pad_circular": F.pad(img, (1, 2, 2, 1), mode="circular"),
    "pad_neg": F.pad(img, (-1, 1, 0, -2)),
    "glu": F.glu(img, dim=-1 if img.shape[-1] % 2 == 0 else 1),
    "softmin": F.softmin(img, dim=1),
    "logsig": F.logsigmoid(img),
    "softplus": F.softplus(img, beta=2, threshold=1),
    "celu": F.celu(img, alpha=0.5),
    "selu": F.selu(img),
    "hardsig": F.hardsigmoid(img),
    "rrelu_eval": F.rrelu(img, training=False),
    "threshold": F.threshold(img, 0.1, -5.0),
    "tanhshrink": F.tanhshrink(img),
    "softshrink": F.softshrink(img, 0.3),
    "normalize_p1": F.normalize(img, p=1, dim=2),
    "local_rn": F.local_response_norm(img, 2),
}
total = sum((o.float() * (i + 1)).sum() for i, o in enumerate(outs.values()))
total.backward()
RESULTS = {"outs": outs, "img_grad": img.grad, "vol_grad": vol.grad,
           "shapes": {k: tuple(v.shape) for k, v in outs.items()}}
