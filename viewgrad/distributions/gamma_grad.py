"""The reparameterised gradient of a standard gamma draw with respect to its shape α:
dx/dα = -(∂F(x; α)/∂α) / f(x; α), F and f the Gamma(α, 1) cdf and density (an implicit
reparameterisation: the draw moves with α so that its quantile stays fixed).

No closed form exists; PyTorch (``_standard_gamma_grad``, Distributions.h) evaluates it by
three approximations, reproduced here step for step in float64 so that a Gamma draw's
gradient is PyTorch's for the same draw: a Taylor series of F in x for x < 0.8, Rice's
saddle-point expansion for α > 8, and a fitted bivariate rational function of
(log(x/α), log α) elsewhere. Vectorised: every branch is evaluated on the whole tensor (its
inputs moved into its range where they are not used) and ``where`` picks.
"""
from __future__ import annotations

import viewgrad as vg

__all__ = ["standard_gamma_grad", "StandardGamma"]

# the rational approximation's coefficients (PyTorch's coef_uv)
_COEF_UV = ((0.16009398, -0.094634809, 0.025146376, -0.0030648343,
             1, 0.32668115, 0.10406089, 0.0014179084),
            (0.53487893, 0.1298071, 0.065735949, -0.0015649758,
             0.16639465, 0.020070113, -0.0035938915, -0.00058392623),
            (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777,
             0.017050642, -0.0021309326, 0.00085092367, -1.5247877e-07))


def _small_x(alpha, x):
    """x < 0.8: F = x^α Σ (-x)^i / (i! (α + i)), differentiated in α term by term."""
    numer = vg.ones_like(x)
    denom = alpha.clone()
    series1 = numer / denom
    series2 = numer / (denom * denom)
    for i in range(1, 6):
        numer = numer * (-x / i)
        denom = denom + 1
        series1 = series1 + numer / denom
        series2 = series2 + numer / (denom * denom)
    pow_x_alpha = x.pow(alpha)
    gamma_pdf = x.pow(alpha - 1) * vg.exp(-x)
    gamma_cdf = pow_x_alpha * series1
    gamma_cdf_alpha = (vg.log(x) - vg.digamma(alpha)) * gamma_cdf - pow_x_alpha * series2
    result = -gamma_cdf_alpha / gamma_pdf
    return vg.where(vg.isnan(result), vg.zeros_like(result), result)   # PyTorch: nan -> 0


def _large_alpha(alpha, x):
    """α > 8: Rice's saddle-point expansion (a polynomial near x = α, its singularity)."""
    numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
    numer_2 = (1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) - 65 * x * x / alpha
               + alpha * (107 + 3600 * x))
    near = numer_1 * numer_2 / (1244160 * (alpha * alpha) * (alpha * alpha))
    denom = vg.sqrt(8 * alpha)
    term2 = denom / (alpha - x)
    term3 = (x - alpha - alpha * vg.log(x / alpha)).pow(-1.5)
    term23 = vg.where(x < alpha, term2 - term3, term2 + term3)
    term1 = (vg.log(x / alpha) * term23
             - vg.sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x)))
    stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
    far = -stirling * (x * term1) / denom
    return vg.where((0.9 * alpha <= x) & (x <= 1.1 * alpha), near, far)


def _rational(alpha, x):
    """Elsewhere: exp(p/q), p and q cubic in log α with coefficients quadratic in
    log(x/α)."""
    u = vg.log(x / alpha)
    v = vg.log(alpha)
    c = [_COEF_UV[0][i] + u * (_COEF_UV[1][i] + u * _COEF_UV[2][i]) for i in range(8)]
    p = c[0] + v * (c[1] + v * (c[2] + v * c[3]))
    q = c[4] + v * (c[5] + v * (c[6] + v * c[7]))
    return vg.exp(p / q)


def standard_gamma_grad(alpha, x):
    """dx/dα for draws ``x`` of Gamma(``alpha``, 1), not differentiable (as PyTorch's)."""
    with vg.no_grad():
        a = alpha.detach().double()
        xd = x.detach().double()
        small = xd < 0.8
        large = ~small & (a > 8.0)
        one = vg.ones_like(xd)
        # each branch sees harmless inputs where another branch answers
        r_small = _small_x(a, vg.where(small, xd, 0.5 * one))
        r_large = _large_alpha(vg.where(large, a, 9.0 * one), vg.where(large, xd, 9.0 * one))
        r_rest = _rational(a, xd)
        out = vg.where(small, r_small, vg.where(large, r_large, r_rest))
        return out.to(x.dtype)


class StandardGamma(vg.autograd.Function):
    """A Gamma(α, 1) draw whose backward is grad * dx/dα (PyTorch's _standard_gamma)."""

    @staticmethod
    def forward(ctx, alpha, draw):
        ctx.save_for_backward(alpha, draw)
        return draw.clone()

    @staticmethod
    def backward(ctx, grad_output):
        alpha, draw = ctx.saved_tensors
        return grad_output * standard_gamma_grad(alpha, draw), None
