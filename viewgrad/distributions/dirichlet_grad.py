"""The reparameterised gradient of a Dirichlet draw with respect to its concentration,
as PyTorch computes it (``_dirichlet_grad``, Distributions.h): each coordinate x_i of a
Dirichlet(α) draw is Beta(α_i, total - α_i), whose implicit gradient
-(∂F/∂α)/f / (1 - x) has no closed form and is approximated by four expansions —
Taylor series near x = 0 and near x = 1, Rice's saddle point for α and β both > 6, and a
fitted rational correction to an analytic approximation elsewhere. Reproduced step for
step in float64 (the branches evaluated on the whole tensor, ``where`` picking), so a draw's
gradient is PyTorch's for the same draw.
"""
from __future__ import annotations

import viewgrad as vg

__all__ = ["dirichlet_grad", "DirichletDraw"]

# PyTorch's c[2][3][3][4]: numerator (0) and denominator (1) coefficients
_C = (((((1.003668233, -0.01061107488, -0.0657888334, 0.01201642863),
         (0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033),
         (-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013)),
        ((0.221950385, -0.3187676331, 0.01799915743, 0.01074823814),
         (-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057),
         (0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05)),
        ((-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565),
         (0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181),
         (0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05)))),
      ((((1, -0.02924021934, -0.04438342661, 0.007285809825),
         (0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521),
         (-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149)),
        ((0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273),
         (0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956),
         (-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05)),
        ((0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05),
         (0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05),
         (-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06)))))


def _nan_to_zero(t):
    return vg.where(vg.isnan(t), vg.zeros_like(t), t)


def _alpha_small(x, alpha, beta):
    """x near 0: the Taylor series of the Beta cdf's α-derivative."""
    factor = vg.digamma(alpha) - vg.digamma(alpha + beta) - vg.log(x)
    numer = vg.ones_like(x)
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer = numer * (i - beta) * x / i
        denom = alpha + i
        series = series + numer / denom * (factor + 1 / denom)
    return _nan_to_zero(x * (1 - x).pow(-beta) * series)


def _beta_small(x, alpha, beta):
    """x near 0: the Taylor series of the Beta cdf's β-derivative."""
    factor = vg.digamma(alpha + beta) - vg.digamma(beta)
    numer, betas, dbetas = vg.ones_like(x), vg.ones_like(x), vg.zeros_like(x)
    series = factor / alpha
    for i in range(1, 9):
        numer = numer * (-x / i)
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series = series + numer / (alpha + i) * (dbetas + factor * betas)
    return _nan_to_zero(-(1 - x).pow(1 - beta) * series)


def _alpha_mid(x, alpha, beta):
    """α, β both large: Rice's saddle point (a polynomial near the mean, its singularity)."""
    total = alpha + beta
    mean = alpha / total
    std = vg.sqrt(alpha * beta / (total + 1)) / total
    poly = 47 * x * (beta * beta) * (beta * beta) + alpha * (
        (43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta + alpha * (
            3 * (59 + 180 * beta - 90 * x) * (beta * beta) + alpha * (
                (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (
                    8 * (1 - x) * (135 * beta - 11)))))
    prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
    prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
    near = prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / vg.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha))
                * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1_den = vg.sqrt(2 * alpha / beta) * total.pow(1.5) * axbx * axbx
    term1 = term1_num / term1_den
    term2 = 0.5 * vg.log(alpha / (total * x))
    term3 = vg.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4_base = (beta * vg.log(beta / (total * (1 - x)))
                  + alpha * vg.log(alpha / (total * x)))
    term4 = term4_base.pow(-1.5)
    term1234 = term1 + term2 * (term3 + vg.where(x < mean, term4, -term4))
    far = stirling * prefactor * term1234
    return vg.where((mean - 0.1 * std <= x) & (x <= mean + 0.1 * std), near, far)


def _rational(x, alpha, total):
    """Elsewhere: a rational correction p/q in (log x, log(α/x), log(total) - ...) to
    x (ψ(total) - ψ(α)) / β."""
    u = vg.log(x)
    a = vg.log(alpha) - u
    b = vg.log(total) - a
    pow_u = (vg.ones_like(x), u, u * u)
    pow_a = (vg.ones_like(x), a, a * a)
    p = vg.zeros_like(x)
    q = vg.zeros_like(x)
    for i in range(3):
        for j in range(3):
            ua = pow_u[i] * pow_a[j]
            c0, c1 = _C[0][i][j], _C[1][i][j]
            p = p + ua * (c0[0] + b * (c0[1] + b * (c0[2] + b * c0[3])))
            q = q + ua * (c1[0] + b * (c1[1] + b * (c1[2] + b * c1[3])))
    approx = x * (vg.digamma(total) - vg.digamma(alpha)) / (total - alpha)
    return p / q * approx


def dirichlet_grad(x, alpha, total):
    """PyTorch's _dirichlet_grad(x, alpha, total), elementwise; not differentiable."""
    with vg.no_grad():
        # PyTorch picks the branch and runs the two Taylor series in the input's dtype
        # (scalar_t), the other two in float64 (accscalar_t): so does this
        x, alpha, total = (v.detach() for v in (x, alpha, total))
        beta = total - alpha
        boundary = total * x * (1 - x)
        near0 = (x <= 0.5) & (boundary < 2.5)
        near1 = ~near0 & (x >= 0.5) & (boundary < 0.75)
        mid = ~near0 & ~near1 & (alpha > 6) & (beta > 6)
        r0 = _alpha_small(vg.where(near0, x, vg.full_like(x, 0.25)), alpha, beta)
        r1 = -_beta_small(1 - vg.where(near1, x, vg.full_like(x, 0.75)), beta, alpha)
        xd, a, t = x.double(), alpha.double(), total.double()
        seven = vg.full_like(xd, 7.0)
        r2 = _alpha_mid(vg.where(mid, xd, vg.full_like(xd, 0.5)), vg.where(mid, a, seven),
                        vg.where(mid, t - a, seven))
        r3 = _rational(xd, a, t)
        out = vg.where(mid, r2, r3).to(x.dtype)
        return vg.where(near0, r0, vg.where(near1, r1, out))


class DirichletDraw(vg.autograd.Function):
    """A Dirichlet draw whose backward is PyTorch's _Dirichlet_backward:
    g(x) * (grad - Σ x grad), g = _dirichlet_grad(x, α, Σα)."""

    @staticmethod
    def forward(ctx, concentration, draw):
        ctx.save_for_backward(draw, concentration)
        return draw.clone()

    @staticmethod
    def backward(ctx, grad_output):
        x, concentration = ctx.saved_tensors
        total = concentration.sum(-1, True).expand_as(concentration)
        grad = dirichlet_grad(x, concentration, total)
        return grad * (grad_output - (x * grad_output).sum(-1, True)), None
