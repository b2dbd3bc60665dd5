"""Adamax, NAdam, RAdam, ASGD and Rprop: PyTorch's algorithms, step for step.

Like ``adaptive.py``: per-parameter statistics in ``optimizer.state[p]``, the parameter
updated in place under no_grad by the base class's walk over the groups, and each formula
written as PyTorch's single-tensor implementation orders it (``lerp_`` as
``m + w * (g - m)``, ``addcdiv_`` as ``p + value * (a / b)``). Where PyTorch keeps a
number in a 0-d tensor of the default float dtype (NAdam's ``mu_product``, ASGD's ``eta``
and ``mu``), the number is rounded to that dtype here too, so the steps use PyTorch's
values rather than more precise ones.
"""
from __future__ import annotations

import struct

from .. import backend as B
from ..ops.factories import full_like, zeros_like
from ..ops.pointwise import where
from . import (Optimizer, _check_betas, _check_implementation_flags, _check_lr, _init_step,
               _next_step, _scalar_state, _state_value)

__all__ = ["Adamax", "NAdam", "RAdam", "ASGD", "Rprop"]


def _scalar(x):
    """``x`` as a 0-d tensor of the default float dtype holds it (PyTorch's
    ``_get_scalar_dtype``: float32 unless the default is float64)."""
    if B.default_float() == B.float64:
        return float(x)
    return struct.unpack("f", struct.pack("f", x))[0]


def _check_adam_args(lr, betas, eps, weight_decay):
    _check_lr(lr)
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    _check_betas(betas)
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _lerp_(m, g, w):
    """``m.lerp_(g, w)`` for ``w < 0.5``, in PyTorch's kernel's order."""
    return m.add_(g - m, alpha=w)


def _decayed(p, grad, group):
    """The gradient a NAdam/RAdam step follows: negated under ``maximize``; weight decay
    either decoupled (``p *= 1 - lr * wd`` first: NAdamW, RAdamW) or folded in as L2."""
    g = -grad if group["maximize"] else grad
    wd = group["weight_decay"]
    if wd:
        if group["decoupled_weight_decay"]:
            p.mul_(1 - group["lr"] * wd)
        else:
            g = g.add(p, alpha=wd)
    return g


def _moments(state, p, *names):
    """Create the zero moments ``names`` of a parameter's new state ("step" first, as
    PyTorch's; after a step and counters already put there) and count one more step."""
    if names[0] not in state:
        if not state:
            _init_step(state)
        for n in names:
            state[n] = zeros_like(p)
    return _next_step(state)


class Adamax(Optimizer):
    """Adamax (Kingma & Ba), Adam with the infinity norm:

        m = lerp(m, g, 1 - β1);  u = max(β2 u, |g| + eps);  p -= lr / (1 - β1^t) * m / u
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check_implementation_flags(differentiable)
        _check_adam_args(lr, betas, eps, weight_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _update(self, p, grad, group, state):
        g = self._l2_grad(p, grad, group)
        t = _moments(state, p, "exp_avg", "exp_inf")
        (b1, b2), m, u = group["betas"], state["exp_avg"], state["exp_inf"]
        _lerp_(m, g, 1 - b1)
        u.mul_(b2)
        norm = g.abs().add_(group["eps"])
        u.copy_(where((u >= norm) | (u != u), u, norm))   # torch.maximum: NaN wins
        p.add_(m / u, alpha=-(group["lr"] / (1 - b1 ** t)))


class NAdam(Optimizer):
    """NAdam (Dozat): Adam with Nesterov momentum and a momentum schedule
    ``μ_t = β1 (1 - 0.5 · 0.96^(t · momentum_decay))``; ``decoupled_weight_decay`` makes
    it NAdamW."""

    _counter_keys = ("step", "mu_product")   # (made tensors on load, as PyTorch's)

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check_implementation_flags(differentiable)
        _check_adam_args(lr, betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay,
                                      momentum_decay=momentum_decay,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=foreach,
                                      capturable=capturable, differentiable=differentiable))

    def _update(self, p, grad, group, state):
        if not state:   # (PyTorch's order: step, mu_product, the moments)
            _init_step(state)
            state["mu_product"] = _scalar_state(1.0)
        t = _moments(state, p, "exp_avg", "exp_avg_sq")
        lr, (b1, b2) = group["lr"], group["betas"]
        bc2 = 1 - b2 ** t
        g = _decayed(p, grad, group)
        md = group["momentum_decay"]
        mu = b1 * (1.0 - 0.5 * (0.96 ** (t * md)))
        mu_next = b1 * (1.0 - 0.5 * (0.96 ** ((t + 1) * md)))
        mp = state["mu_product"]   # (in place, in its own dtype — float64 after a load into
        mp.mul_(mu)                # float64 parameters — as PyTorch's ``mu_product *= mu``)
        mu_product = mp.item()
        m, v = state["exp_avg"], state["exp_avg_sq"]
        _lerp_(m, g, 1 - b1)
        v.mul_(b2).add_(g * g, alpha=1 - b2)
        denom = (v / bc2).sqrt().add_(group["eps"])
        p.add_(g / denom, alpha=-lr * (1.0 - mu) / (1.0 - mu_product))
        p.add_(m / denom, alpha=(-lr * mu_next) / (1.0 - mu_product * mu_next))


class RAdam(Optimizer):
    """RAdam (Liu et al.): Adam whose adaptive step is switched on, and rectified, once
    the variance of its estimate is tractable (``ρ_t > 5``); plain momentum SGD before;
    ``decoupled_weight_decay`` makes it RAdamW."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _check_implementation_flags(differentiable)
        _check_adam_args(lr, betas, eps, weight_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, maximize=maximize,
                                      foreach=foreach, capturable=capturable,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      differentiable=differentiable))

    def _update(self, p, grad, group, state):
        t = _moments(state, p, "exp_avg", "exp_avg_sq")
        lr, (b1, b2) = group["lr"], group["betas"]
        g = _decayed(p, grad, group)
        m, v = state["exp_avg"], state["exp_avg_sq"]
        _lerp_(m, g, 1 - b1)
        v.mul_(b2).add_(g * g, alpha=1 - b2)
        bc1, bc2 = 1 - b1 ** t, 1 - b2 ** t
        corrected = m / bc1
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * t * (b2 ** t) / bc2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                    / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive = (bc2 ** 0.5) / v.sqrt().add_(group["eps"])
            p.add_(corrected * lr * adaptive * rect, alpha=-1.0)
        else:
            p.add_(corrected * lr, alpha=-1.0)


class ASGD(Optimizer):
    """Averaged SGD (Polyak & Juditsky): an SGD step with decay ``λ`` on a decreasing
    step ``η_t = lr / (1 + λ lr t)^α``, and ``state['ax']``, the average of the iterates
    since step ``t0``."""

    # (counters its __setstate__ makes tensors: Note [an optimizer's counters as tensors])
    _counter_keys = ("step", "eta", "mu")

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        _check_implementation_flags(differentiable)
        _check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0,
                                      weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _update(self, p, grad, group, state):
        g = self._l2_grad(p, grad, group)
        if not state:   # (PyTorch's order: step, eta, mu, ax; Note [an optimizer's counters
            #            as tensors])
            _init_step(state)
            state["eta"] = _scalar_state(_scalar(group["lr"]))
            state["mu"] = _scalar_state(1.0)
        t = _moments(state, p, "ax")
        lr, lambd = group["lr"], group["lambd"]
        eta, mu = _state_value(state["eta"]), _state_value(state["mu"])
        p.mul_(1 - lambd * eta)
        p.add_(g, alpha=-eta)
        ax = state["ax"]
        if mu != 1:
            ax.add_((p - ax).mul_(mu))
        else:
            ax.copy_(p)
        # (written into the counters, which keep their dtype, as PyTorch's eta.copy_(...)
        # of a default-dtype tensor: float32-rounded even in a float64 counter after a load)
        state["eta"].fill_(_scalar(lr / ((1 + lambd * lr * t) ** group["alpha"])))
        state["mu"].fill_(_scalar(1 / max(1, t - group["t0"])))


class Rprop(Optimizer):
    """Resilient backpropagation (Riedmiller & Braun): only the gradient's sign is used;
    each element's step grows by ``etas[1]`` while the sign holds and shrinks by
    ``etas[0]`` when it flips (and that element then waits a step)."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check_implementation_flags(differentiable)
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, dict(lr=lr, etas=tuple(etas), step_sizes=tuple(step_sizes),
                                      foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, capturable=capturable))

    def _update(self, p, grad, group, state):
        g = -grad if group["maximize"] else grad
        if not state:
            _init_step(state)
            state["prev"] = zeros_like(p)
            state["step_size"] = full_like(g, group["lr"])
        _next_step(state)
        etaminus, etaplus = group["etas"]
        lo, hi = group["step_sizes"]
        prev, size = state["prev"], state["step_size"]
        sign = (g * prev).sign()
        one = full_like(sign, 1.0)   # (the factors in the parameter's dtype, as PyTorch's)
        factor = where(sign > 0, one * etaplus, where(sign < 0, one * etaminus, one))
        size.mul_(factor).clamp_(lo, hi)
        g = where(factor == etaminus, g * 0, g)   # a flipped sign waits a step
        p.add_(g.sign() * size, alpha=-1)
        prev.copy_(g)
