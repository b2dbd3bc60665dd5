"""Every operator: forward + its row in the derivatives table (see ops/table.py).

Importing this package attaches the ops to ``Tensor`` as methods and operators.
"""
from ..tensor import Tensor
from . import table
from .table import OPS, METHODS
from . import factories, pointwise, reduce, linalg, memory, inplace, nnops  # noqa: F401
from . import flat, views, joining, splitting, indexing  # noqa: F401
from . import index_ops, rearrange  # noqa: F401  (index_select & co.; tril, flip, repeat...)
from . import index_reduce, mantissa  # noqa: F401  (scatter_reduce, index_reduce; frexp...)
from . import view_scatter, einsum  # noqa: F401  (select_scatter & co.; einsum, outer)
from . import inplace_views  # noqa: F401  (t_, transpose_, squeeze_, unsqueeze_, as_strided_)
from . import unary, binary  # noqa: F401  (pointwise math beyond arithmetic)
from . import gamma_ops  # noqa: F401  (lgamma, digamma, polygamma, mvlgamma, i0, i0e...)
from . import elementwise, logic, clamping  # noqa: F401  (maximum, xlogy, bitwise, clamp_min)
from . import shaping, diag, counting, distance  # noqa: F401  (hstack, diag, unique, cdist)
from . import linalg_solve, linalg_decomp, linalg_names  # noqa: F401  (inv, svd, ...)
from . import compare  # noqa: F401  (< == ...; isclose, allclose, equal, count_nonzero, all, any)
from . import aliases  # noqa: F401  (torch.eq, greater, multiply, broadcast_tensors...)
from . import tensor_facts  # noqa: F401  (layout, is_sparse..., eq_ & co., angle, adjoint, H)
from . import conveniences  # noqa: F401,E402
from . import storages  # noqa: F401  (x.untyped_storage(), x.storage())
from . import linalg_tri, matrix_exp, covariance  # noqa: F401  (solve_triangular, expm, cov)
from . import linalg_lu  # noqa: F401  (lu_factor, lu, lu_solve, lu_unpack; Tensor.lu)
from . import resize  # noqa: F401  (Tensor.resize_, resize_as_)
from . import random, tensortypes  # noqa: F401  (sampling; FloatTensor & co., .type())
from . import conv, pool, norm, activations  # noqa: F401  (viewgrad.nn: conv, pooling, norms)
from . import stats, vector_norms  # noqa: F401  (var/std/prod/scans/logsumexp; norms)
from . import sorting, extrema  # noqa: F401  (sort, topk, kthvalue, median, mode; cummax...)
from . import quantiles  # noqa: F401  (quantile, nanquantile)
from . import number_theory, combinatorics, narrow_copy  # noqa: F401  (gcd, lcm; tril_indices...)
from . import conveniences  # noqa: F401  (fill_diagonal_, sum_to_size, conj of a real tensor)
from . import fast  # noqa: F401  (array kernels for plain backward; after the table rows)

# the one-input rows that are elementwise (their forwards are not one host ufunc): their
# results' size-1 dims laid out as PyTorch's (Note [an elementwise result's layout])
table.elementwise_rows(
    "add_scalar_op", "sub_scalar_op", "mul_scalar", "div_scalar_op", "copysign_scalar",
    "fmod_scalar", "remainder_scalar", "xlogy_scalar_other", "xlogy_scalar_self", "pow",
    "clamp", "clamp_max", "clamp_min", "ceil", "floor", "round", "round_decimals", "trunc",
    "frac", "sign", "sgn", "reciprocal", "rsqrt", "sinc", "deg2rad", "rad2deg", "erf", "erfc",
    "erfinv", "lgamma", "digamma", "polygamma", "mvlgamma", "i0", "special_i0e", "special_i1",
    "special_i1e", "logit", "celu", "elu", "selu", "gelu_tanh", "hardshrink",
    "softshrink", "hardtanh", "leaky_relu", "softplus", "threshold")
from . import lean  # noqa: E402

from .operands import install_methods  # noqa: E402  (every op's refusals, in PyTorch's words)
from .signatures import install_method_signatures  # noqa: E402  (typed arguments, checked)
install_methods(METHODS)
install_method_signatures(METHODS)
# y.sum() and y.mean() with no arguments, their checks and dispatch in line (Note [lean
# methods])
METHODS["sum"] = lean.reduction_method(reduce.SUM, METHODS["sum"], (None, False),
                                       reduce.sum_all_host)
METHODS["mean"] = lean.reduction_method(reduce.MEAN, METHODS["mean"], (None, False),
                                        reduce.mean_all_host)
# y.view(2, -1), y.reshape(n), y.unsqueeze(d), y.squeeze(d), y.transpose(a, b), y.t(): in
# one body each
# (Note [lean views])
from . import lean_views as _lv  # noqa: E402
for _name in ("view", "reshape"):
    METHODS[_name] = _lv.shape_method(METHODS[_name], views.VIEW, views.view)
METHODS["unsqueeze"] = _lv.unsqueeze_method(METHODS["unsqueeze"], views.UNSQUEEZE,
                                            views.unsqueeze)
METHODS["squeeze"] = _lv.squeeze_method(METHODS["squeeze"], (views.SQUEEZE, views.SQUEEZE_DIM),
                                        views.squeeze)
for _name in ("transpose", "swapaxes", "swapdims"):
    METHODS[_name] = _lv.transpose_method(METHODS[_name], views.TRANSPOSE, views.transpose)
METHODS["t"] = _lv.t_method(METHODS["t"], views.T, views.t)
for _name, _fn in METHODS.items():
    setattr(Tensor, _name, _fn)

Tensor.T = property(lambda self: self.permute(*reversed(range(self.dim()))))
Tensor.real = property(memory.real_part)
Tensor.imag = property(memory.imag_part)


def _matrix_transpose(name):
    def get(self):
        if self.dim() < 2:
            raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of "
                               f"matrices. Got {self.dim()}-D tensor.")
        if name == "mH":   # (of a real tensor mH is mT; a complex one would need the bit)
            conveniences.refuse_conjugate_view(self, "mH", "z.mT.conj_physical()")
        return self.transpose(-2, -1)
    get.__doc__ = (f"``x.{name}``: the last two dims swapped (a view), as PyTorch's "
                   f"``Tensor.{name}``; refused below 2-D.")
    return property(get)


Tensor.mT = _matrix_transpose("mT")
if not hasattr(Tensor, "mH"):
    Tensor.mH = _matrix_transpose("mH")
Tensor.__setitem__ = inplace.setitem
for _name, _prop in tensor_facts.PROPERTIES.items():   # (x.layout, x.is_sparse, x.H...)
    setattr(Tensor, _name, _prop)

__all__ = ["OPS", "table"]
