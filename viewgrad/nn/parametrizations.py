"""``torch.nn.utils.parametrizations``: three ready-made parametrizations, registered with
``parametrize.register_parametrization``.

* ``weight_norm(module, "weight", dim=0)``: ``weight = g * v / ||v||`` (norm over every dim
  but ``dim``), with ``g`` and ``v`` the two originals (``original0`` and ``original1``).
  An old checkpoint's ``weight_g`` / ``weight_v`` keys load into them.
* ``spectral_norm(module, "weight")``: ``weight / sigma`` with ``sigma`` the largest
  singular value, estimated by power iteration on the weight seen as a matrix. The
  singular-vector estimates are the buffers ``_u`` and ``_v`` (random at registration, then
  15 iterations); each read of the weight in training mode runs ``n_power_iterations``
  more, in eval mode none.
* ``orthogonal(module, "weight")``: a matrix (or batch of them) with orthonormal columns
  (rows, if wide), as ``matrix_exp`` or the Cayley map of a skew-symmetric matrix, or a
  product of Householder reflectors. With ``use_trivialization`` (the default) the
  orthogonal matrix a right-inverse gave is kept as the buffer ``base`` and the map is
  applied on top of it.

Every step follows PyTorch's: the same seed gives the same ``_u``/``_v``, and the same
weights give the same values and gradients. The Householder helpers (PyTorch's
``geqrf`` and ``linalg.householder_product``) are written here over viewgrad's ops, so
their graph is a chain of matmuls where PyTorch records one node, and the weight norm is
Mul/Div/Norm nodes where PyTorch's CPU build records one ``WeightNormInterfaceBackward0``;
the numbers agree.
"""
from __future__ import annotations

from enum import Enum, auto

from ..autograd.grad_mode import no_grad
from ..ops.compare import allclose
from ..ops.dtypeinfo import finfo
from ..ops.factories import eye, zeros_like
from ..ops.joining import cat
from ..ops.linalg_decomp import qr
from ..ops.linalg_solve import solve
from ..ops.matrix_exp import matrix_exp
from ..ops.random import randn
from ..ops.vector_norms import vector_norm
from ..ops.where import where
from ..tensor import Tensor
from . import parametrize
from .functional_more import normalize
from .module import Module
from .weight_norm import norm_except_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# -- Householder reflectors ---------------------------------------------------------------------

def _householder_product(A, tau):
    """``torch.linalg.householder_product``: the first n columns of H_1 H_2 ... H_k, where
    H_i = I - tau_i v_i v_iᴴ and v_i is column i of ``A`` below the diagonal, with a 1 on
    it. Built from differentiable ops, so gradients reach ``A`` and ``tau``."""
    m, n = A.shape[-2], A.shape[-1]
    ident = eye(m, n, dtype=A.dtype, device=A.device)
    V = A.tril(-1) + ident
    Q = ident.expand(*A.shape[:-2], m, n)
    for i in reversed(range(tau.shape[-1])):   # H_1 (H_2 (... (H_k I)))
        v = V[..., :, i:i + 1]
        Q = Q - tau[..., i:i + 1].unsqueeze(-1) * (v @ (v.mH @ Q))
    return Q


@no_grad()
def _geqrf(A):
    """``torch.geqrf`` for real matrices: LAPACK's Householder QR, column by column with
    its conventions (``dlarfg``: beta = -sign(alpha) ||x||, tau = (beta - alpha) / beta,
    tau = 0 when the column below the diagonal is already zero). Returns R above the
    diagonal with the reflectors' vectors below it, and tau."""
    R = A.clone()
    m, n = R.shape[-2], R.shape[-1]
    k = min(m, n)
    tau = R.new_zeros(*R.shape[:-2], k)
    for j in range(k):
        alpha = R[..., j, j].clone()
        x = R[..., j + 1:, j]
        xnorm = vector_norm(x, 2, -1) if j + 1 < m else zeros_like(alpha)
        h = (alpha * alpha + xnorm * xnorm).sqrt()
        beta = where(alpha >= 0, -h, h)
        trivial = xnorm == 0
        # (the masked-off branches get a harmless denominator: no 0/0 is ever computed)
        tau[..., j] = where(trivial, 0.0, (beta - alpha) / where(trivial, 1.0, beta))
        x.mul_((1.0 / where(trivial, 1.0, alpha - beta)).unsqueeze(-1))
        R[..., j, j] = where(trivial, alpha, beta)
        if j + 1 < n:
            v = cat([R.new_ones(*R.shape[:-2], 1), x], -1).unsqueeze(-1)   # (..., m-j, 1)
            C = R[..., j:, j + 1:]
            C.sub_(tau[..., j:j + 1].unsqueeze(-1) * (v @ (v.mT @ C)))
    return R, tau


def _is_orthogonal(Q):
    n, k = Q.shape[-2], Q.shape[-1]
    ident = eye(k, dtype=Q.dtype, device=Q.device)
    return allclose(Q.mH @ Q, ident, atol=10.0 * n * finfo(Q.dtype).eps)


def _make_orthogonal(A):
    """The Q of A = QR (A tall) with R's diagonal made real and non-negative: unique, so
    LAPACK's QR (``linalg.qr``) gives PyTorch's geqrf + householder_product result."""
    Q, R = qr(A)
    Q *= R.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)
    return Q


# -- orthogonal -------------------------------------------------------------------------------

class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    """The orthogonal parametrization ``orthogonal()`` registers (see the module doc)."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex "
                             "tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        """An orthogonal matrix (batch) from the unconstrained ``X``."""
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:   # (work on the tall version; transpose back at the end)
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:   # pad to square with zero columns: the skew matrix's lower part
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = matrix_exp(A)
            else:
                ident = eye(n, dtype=A.dtype, device=A.device)
                Q = solve(ident.add(A, alpha=-0.5), ident.add(A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau)
            # the diagonal's signs (±1 after right_inverse) flip columns; not trained
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    @no_grad()
    def right_inverse(self, Q):
        """An ``X`` with ``forward(X) == Q`` for an orthogonal ``Q`` (orthogonalised first,
        by QR, if it is not). With the trivialization ``Q`` itself becomes ``base`` and
        ``X`` is -I, which every map sends to the identity."""
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape "
                             f"torch.Size({list(self.shape)}). Got a tensor of shape "
                             f"torch.Size({list(Q.shape)}).")
        Q_init = Q
        n, k = Q.shape[-2], Q.shape[-1]
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError("It is not possible to assign to the matrix "
                                          "exponential or the Cayley parametrizations when "
                                          "use_trivialization=False.")
            A, tau = _geqrf(Q)
            # forward reads the reflectors' signs off the diagonal; a reflector that is
            # the identity (tau == 0) gets the opposite sign
            diag = A.diagonal(dim1=-2, dim2=-1)
            diag.sign_()
            diag[tau == 0.0] *= -1
            return A.mT if transpose else A
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:   # complete the columns to a square matrix with random ones
            N = randn(*(tuple(Q.shape[:-2]) + (n, n - k)), dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(cat([Q, N], dim=-1))
        self.base = Q
        neg_id = zeros_like(Q_init)
        neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Make ``module.<name>`` (a matrix, or a batch of them) orthogonal: orthonormal
    columns if it is tall or square, orthonormal rows if wide. ``orthogonal_map`` is
    ``"matrix_exp"`` (default for square or complex), ``"cayley"`` or ``"householder"``
    (default otherwise). Returns ``module``; the starting value is the old weight
    orthogonalised by QR (see the module docstring for the trivialization's ``base``)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = ("matrix_exp" if weight.shape[-2] == weight.shape[-1]
                          or weight.is_complex() else "householder")
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


# -- weight norm ---------------------------------------------------------------------------------

class _WeightNorm(Module):
    """The weight-norm parametrization: ``(g, v) -> v * (g / ||v||)``."""

    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim   # (-1: one norm of the whole tensor)

    def forward(self, weight_g, weight_v):
        """``torch._weight_norm(v, g, dim)``."""
        return weight_v * (weight_g / norm_except_dim(weight_v, 2, self.dim))

    def right_inverse(self, weight):
        """``(g, v)`` for a weight: its norms and the weight itself."""
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Weight normalisation as a parametrization: ``module.<name>`` becomes
    ``g * v / ||v||`` with the magnitudes ``g`` (``parametrizations.<name>.original0``)
    and the direction ``v`` (``original1``) trained apart. ``dim`` is the dim whose
    slices get their own ``g`` (``None``: one ``g`` for the whole tensor). Returns
    ``module``. A state dict of the old hook API (``<name>_g`` and ``<name>_v``) loads."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def read_old_keys(state_dict, prefix):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            g, v = state_dict.pop(g_key), state_dict.pop(v_key)
            state_dict[f"{prefix}parametrizations.{name}.original0"] = g
            state_dict[f"{prefix}parametrizations.{name}.original1"] = v

    parametrize._add_load_pre_hook(module, read_old_keys)
    return module


# -- spectral norm -----------------------------------------------------------------------------

class _SpectralNorm(Module):
    """The spectral-norm parametrization: ``W -> W / sigma(W)`` (a vector: ``W / ||W||``)."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", normalize(v, dim=0, eps=self.eps))
            # start from good estimates rather than random vectors
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:   # the output dim first
            weight = weight.permute(self.dim, *(d for d in range(weight.dim())
                                                if d != self.dim))
        return weight.flatten(1)

    @no_grad()
    def _power_method(self, weight_mat, n_power_iterations):
        # _u and _v are updated in place (PyTorch's ``out=``): forward saves clones of them,
        # so a later update never invalidates a graph already built
        for _ in range(n_power_iterations):
            self._u.copy_(normalize(weight_mat.mv(self._v), dim=0, eps=self.eps))
            self._v.copy_(normalize(weight_mat.mH.mv(self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        """``weight / sigma``, with ``sigma = uᴴ W v`` (after a power iteration when
        training); a 1-D weight is just normalised."""
        if weight.ndim == 1:
            return normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = u.vdot(weight_mat.mv(v))
        return weight / sigma

    def right_inverse(self, value):
        """The weight itself: assigning a weight stores it unnormalised."""
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Spectral normalisation (Miyato et al., 2018) as a parametrization:
    ``module.<name>`` reads as the weight divided by its largest singular value, estimated
    by power iteration (``n_power_iterations`` steps per read in training mode; the
    estimates ``_u``, ``_v`` are buffers of ``parametrizations.<name>[0]``). ``dim`` is the
    output dim (default 0; 1 for transposed convolutions). Returns ``module``."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        from .layers import ConvTranspose2d   # (ConvTranspose1d/3d derive from it)
        dim = 1 if isinstance(module, ConvTranspose2d) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
