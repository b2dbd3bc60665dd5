"""The location-scale laws on the real line: ``Normal(loc, scale)`` and
``Laplace(loc, scale)``, with PyTorch's formulas for log_prob, cdf, icdf, entropy and the
moments, and reparameterised sampling (loc + scale * noise, so d sample / d loc = 1 and
d sample / d scale = the noise).
"""
from __future__ import annotations

import math

import viewgrad as vg

from . import constraints
from .distribution import (Distribution, ExponentialFamily, Located, expand_params,
                           init_params)
from .utils import _standard_normal

__all__ = ["Normal", "Laplace"]


class Normal(Located, ExponentialFamily):
    """The normal (Gaussian) distribution N(loc, scale²)."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, loc, scale, validate_args=None):
        init_params(self, ("loc", "scale"), (loc, scale), validate_args)

    def expand(self, batch_shape, _instance=None):
        return expand_params(self, Normal, ("loc", "scale"), batch_shape, _instance)

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with vg.no_grad():
            return vg.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        return (-((value - self.loc) ** 2) / (2 * var) - self.scale.log()
                - math.log(math.sqrt(2 * math.pi)))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + vg.erf((value - self.loc) * self.scale.reciprocal()
                                 / math.sqrt(2)))

    def icdf(self, value):
        return self.loc + self.scale * vg.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + vg.log(self.scale)

    @property
    def _natural_params(self):
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * vg.log(-math.pi / y)


class Laplace(Located, Distribution):
    """The Laplace (double exponential) distribution with location ``loc`` and scale
    ``scale``: density exp(-|x - loc| / scale) / (2 scale)."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        init_params(self, ("loc", "scale"), (loc, scale), validate_args)

    def expand(self, batch_shape, _instance=None):
        return expand_params(self, Laplace, ("loc", "scale"), batch_shape, _instance)

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2 ** 0.5) * self.scale

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = vg.finfo(self.loc.dtype).eps
        # u in [eps - 1, 1): log1p(-|u|) stays finite (PyTorch draws the same range)
        u = vg.empty(shape, dtype=self.loc.dtype, device=self.loc.device).uniform_(
            eps - 1, 1)
        return self.loc - self.scale * u.sign() * vg.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -vg.log(2 * self.scale) - vg.abs(value - self.loc) / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * vg.expm1(
            -(value - self.loc).abs() / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * vg.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + vg.log(2 * self.scale)
