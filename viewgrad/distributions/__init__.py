"""``vg.distributions``: PyTorch's ``torch.distributions`` for the laws used most —
Normal, Laplace, Uniform, Exponential, Gamma, Beta, Dirichlet, Bernoulli, Categorical,
OneHotCategorical, MultivariateNormal, Independent — with ``kl_divergence`` /
``register_kl`` and the ``constraints`` they are validated against.

Everything is built from viewgrad's public tensor ops, so ``log_prob``, ``entropy``,
``rsample`` and ``kl_divergence`` are differentiable by viewgrad's own autograd: a VAE's
loss ``-Normal(mu, sigma).log_prob(x).sum() + kl_divergence(q, p).sum()`` backpropagates
into ``mu`` and ``sigma`` like any other graph. Names, values, errors and validation follow
PyTorch; random draws cannot match PyTorch's numbers, only their law.
"""
from . import constraints
from .distribution import Distribution, ExponentialFamily
from .normal import Normal, Laplace
from .uniform import Uniform, Exponential
from .discrete import Bernoulli, Categorical, OneHotCategorical
from .gamma import Gamma, Dirichlet, Beta
from .multivariate_normal import MultivariateNormal
from .independent import Independent
from .kl import kl_divergence, register_kl
from . import kl_cross  # noqa: F401  (registers the cross-family KL pairs)
from . import utils

__all__ = ["Bernoulli", "Beta", "Categorical", "Dirichlet", "Distribution",
           "Exponential", "ExponentialFamily", "Gamma", "Independent", "Laplace",
           "MultivariateNormal", "Normal", "OneHotCategorical", "Uniform", "constraints",
           "kl_divergence", "register_kl", "utils"]
