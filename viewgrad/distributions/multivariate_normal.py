"""``MultivariateNormal(loc, covariance_matrix | precision_matrix | scale_tril)``: the
Gaussian on R^n, parametrised by whichever matrix is given and computed through the
lower Cholesky factor L (Σ = L Lᵀ), as PyTorch does: log_prob by one triangular solve
(the Mahalanobis distance |L⁻¹(x - loc)|²) and the log-determinant from L's diagonal;
rsample = loc + L ε.

``loc`` and the matrix broadcast over their batch dims; L itself is kept unbroadcast
(``_unbroadcasted_scale_tril``) so that a batch of points shares one factorisation.
"""
from __future__ import annotations

import math

import viewgrad as vg

from . import constraints
from .distribution import Distribution, Located
from .utils import _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    """Batched matrix-vector product bmat @ bvec, broadcasting the batch dims."""
    return vg.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """|L⁻¹ x|² for x of batch shape (..., sx) against L of batch shape (sL): x's batch
    dims are regrouped so that one triangular solve per distinct L serves every x
    (PyTorch's reshaping, step for step, so the numbers agree)."""
    n = bx.size(-1)
    bx_batch_shape = tuple(bx.shape[:-1])
    bx_batch_dims = len(bx_batch_shape)
    bL_batch_dims = bL.dim() - 2
    outer_batch_dims = bx_batch_dims - bL_batch_dims
    old_batch_dims = outer_batch_dims + bL_batch_dims
    new_batch_dims = outer_batch_dims + 2 * bL_batch_dims
    # reshape bx to (..., 1, j, i, 1, n): each L batch dim i splits x's into (j, i)
    bx_new_shape = tuple(bx.shape[:outer_batch_dims])
    for sL, sx in zip(bL.shape[:-2], bx.shape[outer_batch_dims:-1]):
        bx_new_shape += (sx // sL, sL)
    bx_new_shape += (n,)
    bx = bx.reshape(bx_new_shape)
    permute_dims = (list(range(outer_batch_dims))
                    + list(range(outer_batch_dims, new_batch_dims, 2))
                    + list(range(outer_batch_dims + 1, new_batch_dims, 2))
                    + [new_batch_dims])
    bx = bx.permute(permute_dims)

    flat_L = bL.reshape(-1, n, n)                     # b x n x n
    flat_x = bx.reshape(-1, flat_L.size(0), n)        # c x b x n
    flat_x_swap = flat_x.permute(1, 2, 0)             # b x n x c
    M_swap = vg.linalg.solve_triangular(flat_L, flat_x_swap, upper=False).pow(2).sum(-2)
    M = M_swap.t()                                    # c x b

    permuted_M = M.reshape(tuple(bx.shape[:-1]))
    permute_inv_dims = list(range(outer_batch_dims))
    for i in range(bL_batch_dims):
        permute_inv_dims += [outer_batch_dims + i, old_batch_dims + i]
    reshaped_M = permuted_M.permute(permute_inv_dims)
    return reshaped_M.reshape(bx_batch_shape)


def _precision_to_scale_tril(P):
    """L with L Lᵀ = P⁻¹, without inverting P: Cholesky of P with rows and columns
    reversed gives P = Uᵀ... (flip trick), whose triangular inverse is L."""
    Lf = vg.linalg.cholesky(vg.flip(P, (-2, -1)))
    L_inv = vg.transpose(vg.flip(Lf, (-2, -1)), -2, -1)
    Id = vg.eye(P.shape[-1], dtype=P.dtype, device=P.device)
    return vg.linalg.solve_triangular(L_inv, Id, upper=False)


def _matrix_arg(name, m, loc):
    """batch_shape of (loc, matrix), after checking the matrix is at least 2-D."""
    if m.dim() < 2:
        raise ValueError(f"{name} must be at least two-dimensional, "
                         "with optional leading batch dimensions")
    return vg.broadcast_shapes(tuple(m.shape[:-2]), tuple(loc.shape[:-1]))


class MultivariateNormal(Located, Distribution):
    """The multivariate normal N(loc, Σ), Σ given as ``covariance_matrix``,
    ``precision_matrix`` (Σ⁻¹) or ``scale_tril`` (lower Cholesky factor of Σ)."""
    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if ((covariance_matrix is not None) + (scale_tril is not None)
                + (precision_matrix is not None)) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        if scale_tril is not None:
            batch_shape = _matrix_arg("scale_tril matrix", scale_tril, loc)
            self.scale_tril = scale_tril.expand(tuple(batch_shape) + (-1, -1))
        elif covariance_matrix is not None:
            batch_shape = _matrix_arg("covariance_matrix", covariance_matrix, loc)
            self.covariance_matrix = covariance_matrix.expand(tuple(batch_shape) + (-1, -1))
        else:
            batch_shape = _matrix_arg("precision_matrix", precision_matrix, loc)
            self.precision_matrix = precision_matrix.expand(tuple(batch_shape) + (-1, -1))
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        event_shape = self.loc.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        # factorised after validation, as PyTorch does (an invalid matrix reports as such)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = vg.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = vg.Size(tuple(batch_shape))
        loc_shape = tuple(batch_shape) + tuple(self.event_shape)
        cov_shape = loc_shape + tuple(self.event_shape)
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return vg.matmul(L, L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        return vg.cholesky_inverse(self._unbroadcasted_scale_tril).expand(
            self._matrix_shape())

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        return (-0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M)
                - self._half_log_det())

    def entropy(self):
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        if len(self._batch_shape) == 0:
            return H
        return H.expand(self._batch_shape)
