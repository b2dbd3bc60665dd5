"""``Uniform(low, high)`` on [low, high) and ``Exponential(rate)`` on [0, inf), with
PyTorch's formulas and reparameterised sampling (low + u (high - low), and
Exp(1) noise / rate).
"""
from __future__ import annotations

import math

import viewgrad as vg

from . import constraints
from .distribution import Distribution, ExponentialFamily, expand_params, init_params
from .utils import _Number, broadcast_all

__all__ = ["Uniform", "Exponential"]


class Uniform(Distribution):
    """The continuous uniform distribution on the half-open interval [low, high)."""
    has_rsample = True

    @property
    def arg_constraints(self):
        # each bound is constrained by the other one (a property: computed per instance)
        return {"low": constraints.less_than(self.high),
                "high": constraints.greater_than(self.low)}

    def __init__(self, low, high, validate_args=None):
        init_params(self, ("low", "high"), (low, high), validate_args)

    def expand(self, batch_shape, _instance=None):
        return expand_params(self, Uniform, ("low", "high"), batch_shape, _instance)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return math.nan * self.high

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        rand = vg.rand(shape, dtype=self.low.dtype, device=self.low.device)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return vg.log(lb.mul(ub)) - vg.log(self.high - self.low)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return vg.log(self.high - self.low)


class Exponential(ExponentialFamily):
    """The exponential distribution with rate ``rate``: density rate exp(-rate x)."""
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = vg.Size() if isinstance(rate, _Number) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Exponential, _instance)
        batch_shape = vg.Size(tuple(batch_shape))
        new.rate = self.rate.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return vg.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        noise = vg.empty(shape, dtype=self.rate.dtype, device=self.rate.device)
        return noise.exponential_() / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - vg.exp(-self.rate * value)

    def icdf(self, value):
        return -vg.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - vg.log(self.rate)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -vg.log(-x)
