"""``Distribution``, the base class of every probability law (``torch.distributions.
Distribution``), and ``ExponentialFamily``.

A distribution has a ``batch_shape`` (independent, differently-parametrised copies) and an
``event_shape`` (the shape of one draw); ``sample(sample_shape)`` returns
``sample_shape + batch_shape + event_shape``. ``rsample`` is the reparameterised draw
(a differentiable function of the parameters and parameter-free noise), ``sample`` the
same under ``no_grad``.

Validation (on by default, as in PyTorch unless Python runs with ``-O``): the constructor
checks each parameter against ``arg_constraints`` and ``log_prob``/``cdf`` check the value
against ``support``, raising PyTorch's ValueError messages word for word.
"""
from __future__ import annotations

import warnings

import viewgrad as vg

from . import constraints
from .utils import _Number, broadcast_all, lazy_property

__all__ = ["Distribution", "ExponentialFamily"]


def _size(shape):
    return shape if isinstance(shape, vg.Size) else vg.Size(tuple(shape))


class Distribution:
    """Abstract base class for probability distributions (``batch_shape``,
    ``event_shape``, ``validate_args``)."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__   # PyTorch's default: like ``assert``, off under python -O

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument validation on (the default) or off for every new distribution."""
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = _size(batch_shape)
        self._event_shape = _size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(f"{self.__class__} does not define `arg_constraints`. "
                              "Please set `arg_constraints = {}` or initialize the "
                              "distribution with `validate_args=False` to turn off "
                              "validation.", stacklevel=2)
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue   # cannot be checked
                if param not in self.__dict__ and isinstance(getattr(type(self), param),
                                                             lazy_property):
                    continue   # the other parametrisation, not computed: nothing to check
                value = getattr(self, param)
                valid = constraint.check(value)
                if not bool(valid.all()):
                    raise ValueError(
                        f"Expected parameter {param} "
                        f"({type(value).__name__} of shape {tuple(value.shape)}) "
                        f"of distribution {self!r} "
                        f"to satisfy the constraint {constraint!r}, "
                        f"but found invalid values:\n{value}")
        super().__init__()

    def expand(self, batch_shape, _instance=None):
        """A new distribution with the batch dims expanded to ``batch_shape`` (parameters
        are expanded views; arguments are not checked again)."""
        raise NotImplementedError

    @property
    def batch_shape(self):
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of a single sample (without batching)."""
        return self._event_shape

    @property
    def arg_constraints(self):
        """{parameter name: Constraint} that validation checks."""
        raise NotImplementedError

    @property
    def support(self):
        """The Constraint of the values this distribution takes."""
        raise NotImplementedError

    @property
    def mean(self):
        """The mean of the distribution."""
        raise NotImplementedError

    @property
    def mode(self):
        """The mode of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        """The variance of the distribution."""
        raise NotImplementedError

    @property
    def stddev(self):
        """The standard deviation: the square root of the variance."""
        return self.variance.sqrt()

    def sample(self, sample_shape=()):
        """A draw of shape ``sample_shape + batch_shape + event_shape``, not
        differentiable."""
        with vg.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        """A reparameterised draw: gradients flow to the parameters."""
        raise NotImplementedError

    def sample_n(self, n):
        """Deprecated: ``sample((n,))``."""
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.",
                      FutureWarning, stacklevel=2)
        return self.sample(vg.Size((n,)))

    def log_prob(self, value):
        """The log of the density/mass function at ``value``."""
        raise NotImplementedError

    def cdf(self, value):
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value):
        """The inverse cumulative distribution function at ``value``."""
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        """Every value of a discrete distribution along dim 0:
        ``(cardinality,) + batch_shape + event_shape`` (``expand=False``: batch dims 1)."""
        raise NotImplementedError

    def entropy(self):
        """The entropy, of shape ``batch_shape``."""
        raise NotImplementedError

    def perplexity(self):
        """exp(entropy)."""
        return vg.exp(self.entropy())

    def _extended_shape(self, sample_shape=()):
        return vg.Size(tuple(sample_shape) + tuple(self._batch_shape)
                       + tuple(self._event_shape))

    def _validate_sample(self, value):
        """Check that ``value`` is a tensor whose rightmost dims match the event shape,
        broadcastable with batch_shape + event_shape, and inside the support."""
        if not isinstance(value, vg.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if value.size()[event_dim_start:] != self._event_shape:
            raise ValueError("The right-most size of value must match event_shape: "
                             f"{value.size()} vs {self._event_shape}.")
        actual_shape = value.size()
        expected_shape = vg.Size(tuple(self._batch_shape) + tuple(self._event_shape))
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError("Value is not broadcastable with batch_shape+event_shape: "
                                 f"{actual_shape} vs {expected_shape}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample "
                          "validation. Please initialize the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=2)
            return
        if support is None:
            raise AssertionError("support is unexpectedly None")
        valid = support.check(value)
        if not bool(valid.all()):
            raise ValueError(
                "Expected value argument "
                f"({type(value).__name__} of shape {tuple(value.shape)}) "
                f"to be within the support ({support!r}) "
                f"of the distribution {self!r}, "
                f"but found invalid values:\n{value}")

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a "
                "custom __init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self):
        param_names = [k for k in self.arg_constraints if k in self.__dict__]
        args_string = ", ".join(
            f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
            for p in param_names)
        return self.__class__.__name__ + "(" + args_string + ")"


class ExponentialFamily(Distribution):
    """Densities p(x; θ) = exp(<t(x), θ> - F(θ) + k(x)). Subclasses give the natural
    parameters θ, the log-normalizer F and the carrier measure's mean E[k(x)]; the
    entropy (and the KL between two members of one family) follow from F's gradient,
    which autograd computes (Bregman divergence)."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """H = F(θ) - <θ, ∇F(θ)> - E[k(x)]."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = vg.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for np_, g in zip(nparams, gradients):
            result = result - (np_ * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result


def init_params(self, names, values, validate_args):
    """``self.<name> = value`` for two parameters broadcast together (broadcast_all), and the
    batch shape they give: none for two Python numbers, else the broadcast shape."""
    arrays = broadcast_all(*values)
    for name, a in zip(names, arrays):
        setattr(self, name, a)
    batch_shape = (vg.Size() if all(isinstance(v, _Number) for v in values)
                   else arrays[0].size())
    Distribution.__init__(self, batch_shape, validate_args=validate_args)


def expand_params(self, cls, names, batch_shape, _instance):
    """``expand`` for a law whose parameters are ``names``: each parameter expanded, the new
    instance not validated again (its parameters were), its flag kept."""
    new = self._get_checked_instance(cls, _instance)
    batch_shape = vg.Size(tuple(batch_shape))
    for name in names:
        setattr(new, name, getattr(self, name).expand(batch_shape))
    Distribution.__init__(new, batch_shape, validate_args=False)
    new._validate_args = self._validate_args
    return new


class Located:
    """A law centred on its ``loc``: its mean and its mode are ``loc`` itself (Normal,
    Laplace, MultivariateNormal)."""

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc
