"""The gamma family: ``Gamma(concentration, rate)``, ``Dirichlet(concentration)`` and
``Beta(concentration1, concentration0)`` (a two-category Dirichlet, as PyTorch builds it),
with PyTorch's formulas for log_prob, entropy and the moments (lgamma, digamma, xlogy).

Sampling: viewgrad has no ``torch._standard_gamma``, so standard gamma draws come from
Marsaglia and Tsang's rejection method written with viewgrad's random ops (see
``_standard_gamma``); Dirichlet normalises independent gamma draws. ``rsample`` is
differentiable in every parameter: Gamma's rate exactly (draw / rate), the concentrations
by PyTorch's implicit reparameterisation (gamma_grad.py, dirichlet_grad.py: PyTorch's
numbers for the same draw); Beta's draw is a Dirichlet's first coordinate.
"""
from __future__ import annotations

import viewgrad as vg

from . import constraints
from .distribution import Distribution, ExponentialFamily, expand_params, init_params
from .dirichlet_grad import DirichletDraw
from .gamma_grad import StandardGamma
from .utils import _Number, broadcast_all

__all__ = ["Gamma", "Dirichlet", "Beta"]


def _standard_gamma(concentration):
    """Gamma(concentration, 1) draws of concentration's shape, not differentiable.

    Marsaglia & Tsang (2000): for a >= 1, with d = a - 1/3, c = 1/sqrt(9d), x ~ N(0, 1),
    v = (1 + c x)^3, u ~ U(0, 1), accept d v when v > 0 and
    log u < x²/2 + d - d v + d log v. For a < 1, draw Gamma(a + 1) and multiply by
    u^(1/a). Every element is redrawn until accepted (about 1.05 rounds on average)."""
    with vg.no_grad():
        a = concentration.detach()
        boost = a < 1
        d = vg.where(boost, a + 1, a) - 1.0 / 3.0
        c = (9 * d).rsqrt()
        # no draw exists for a <= 0, nan or inf: like PyTorch, give 0 (clamped to tiny
        # below) or inf at once, rather than reject forever
        done = ~((a > 0) & vg.isfinite(a))
        out = vg.where(vg.isposinf(a), a, vg.zeros_like(a))
        while not bool(done.all()):
            x = vg.randn_like(a)
            v = (1 + c * x) ** 3
            u = vg.rand_like(a)
            ok = (v > 0) & (vg.log(u) < 0.5 * x * x + d - d * v
                            + d * vg.log(v.clamp(min=vg.finfo(a.dtype).tiny)))
            take = ok & ~done
            out = vg.where(take, d * v, out)
            done = done | take
        out = vg.where(boost, out * vg.rand_like(a).pow(1 / a), out)
        # PyTorch clamps draws away from 0 (u^(1/a) underflows for a small a)
        return out.clamp(min=vg.finfo(a.dtype).tiny)


class Gamma(ExponentialFamily):
    """The gamma distribution with shape ``concentration`` and ``rate``: density
    rate^a x^(a-1) exp(-rate x) / Γ(a)."""
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        init_params(self, ("concentration", "rate"), (concentration, rate), validate_args)

    def expand(self, batch_shape, _instance=None):
        return expand_params(self, Gamma, ("concentration", "rate"), batch_shape, _instance)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        concentration = self.concentration.expand(shape)
        draw = StandardGamma.apply(concentration, _standard_gamma(concentration))
        value = draw / self.rate.expand(shape)
        value.detach().clamp_(min=vg.finfo(value.dtype).tiny)   # not recorded by autograd
        return value

    def log_prob(self, value):
        if isinstance(value, vg.Tensor):
            # torch.as_tensor of a tensor is a differentiable .to(); so is this
            value = value.to(dtype=self.rate.dtype, device=self.rate.device)
        else:
            value = vg.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (vg.xlogy(self.concentration, self.rate)
                + vg.xlogy(self.concentration - 1, value)
                - self.rate * value - vg.lgamma(self.concentration))

    def cdf(self, value):
        raise NotImplementedError("viewgrad: Gamma.cdf needs the regularized incomplete "
                                  "gamma function (torch.special.gammainc), which "
                                  "viewgrad does not provide")

    def entropy(self):
        return (self.concentration - vg.log(self.rate) + vg.lgamma(self.concentration)
                + (1.0 - self.concentration) * vg.digamma(self.concentration))

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return vg.lgamma(x + 1) + (x + 1) * vg.log(-y.reciprocal())


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution on the simplex, with ``concentration`` of shape
    batch_shape + (K,)."""
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = vg.Size(tuple(batch_shape))
        new.concentration = self.concentration.expand(tuple(batch_shape)
                                                      + tuple(self.event_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        concentration = self.concentration.expand(shape)
        with vg.no_grad():
            # as PyTorch: gamma draws in float64 (no underflow), normalised, then kept
            # inside (0, 1) in the concentration's dtype
            g = _standard_gamma(concentration.double())
            finfo = vg.finfo(concentration.dtype)
            x = (g / g.sum(-1, True)).to(concentration.dtype).clamp(min=finfo.tiny,
                                                                    max=1 - finfo.eps / 2)
        return DirichletDraw.apply(concentration, x)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (vg.xlogy(self.concentration - 1.0, value).sum(-1)
                + vg.lgamma(self.concentration.sum(-1))
                - vg.lgamma(self.concentration).sum(-1))

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        concentrationm1 = (self.concentration - 1).clamp(min=0.0)
        mode = concentrationm1 / concentrationm1.sum(-1, True)
        # every concentration < 1: the density peaks at a vertex, the largest one's
        mask = (self.concentration < 1).all(dim=-1)
        mode[mask] = vg.nn.functional.one_hot(
            mode[mask].argmax(dim=-1), concentrationm1.shape[-1]).to(mode)
        return mode

    @property
    def variance(self):
        con0 = self.concentration.sum(-1, True)
        return (self.concentration * (con0 - self.concentration)
                / (con0.pow(2) * (con0 + 1)))

    def entropy(self):
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (vg.lgamma(self.concentration).sum(-1) - vg.lgamma(a0)
                - (k - a0) * vg.digamma(a0)
                - ((self.concentration - 1.0) * vg.digamma(self.concentration)).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - vg.lgamma(x.sum(-1))


class Beta(ExponentialFamily):
    """The beta distribution on [0, 1]: density x^(c1-1) (1-x)^(c0-1) / B(c1, c0)."""
    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if isinstance(concentration1, _Number) and isinstance(concentration0, _Number):
            both = vg.tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            both = vg.stack([concentration1, concentration0], -1)
        # validated by the Dirichlet first: an invalid Beta reports as PyTorch's does
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = vg.Size(tuple(batch_shape))
        new._dirichlet = self._dirichlet.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        heads_tails = vg.stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def concentration1(self):
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        return self._dirichlet.concentration[..., 1]

    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x, y):
        return vg.lgamma(x) + vg.lgamma(y) - vg.lgamma(x + y)
