"""viewgrad: an educational autograd engine you can watch.

PyTorch's reverse-mode autograd re-implemented on NumPy (CuPy on a GPU), faithful in the
hardest corner: views and in-place operations. ``import viewgrad as vg`` and use it like
``torch``: ``vg.tensor``, ``x.mul_(2)``, ``y.backward()``, ``vg.autograd.grad``...
"""
from . import backend
from .backend import (float32, float64, float16, int64, int32, int16, int8, uint8, bool_,
                      complex64, complex128, Device)
from .backend import device, cuda_is_available, set_default_device, get_default_device
from .backend import (memory_format, contiguous_format, preserve_format, channels_last,
                      channels_last_3d)
from .backend.formats import layout, strided   # (backend.strided is a module of its own)
from . import autograd  # noqa: F401  (before tensor: autograd's modules import Tensor)
from .tensor import Tensor, Size
from . import ops
from .ops.factories import (tensor, as_tensor, from_numpy, zeros, ones, full, empty, arange,
                            linspace, eye, randn, rand, randint, zeros_like, ones_like,
                            full_like, empty_like, rand_like, randn_like, empty_strided,
                            manual_seed, logspace)
from .ops.tensortypes import (FloatTensor, DoubleTensor, HalfTensor, LongTensor, IntTensor,
                              CharTensor, ByteTensor, BoolTensor)
from .ops.random import (Generator, default_generator, seed, initial_seed, get_rng_state,
                         set_rng_state, randperm, normal, bernoulli, multinomial, poisson,
                         randint_like)
from .ops.pointwise import (neg, abs, sqrt, exp, log, tanh, sigmoid, relu, where, sign,
                            reciprocal, square)
from .ops.pointwise import FUNCTIONS as _ARITH
add, sub, mul, div, pow = (_ARITH[n] for n in ("add", "sub", "mul", "div", "pow"))
from .ops.reduce import sum, mean, max, min, amax, amin, gather, scatter, scatter_add, argmax, argmin
from .ops.linalg import mm, bmm, dot, mv, addmm, matmul, baddbmm, addbmm, addmv, addr
from .ops.einsum import einsum, outer, outer as ger
from .ops.views import (view, reshape, as_strided, select, narrow, unsqueeze, squeeze,
                        transpose, t, permute, movedim, expand, expand_as, diagonal, unfold,
                        flatten, view_as)
from .ops.splitting import split, chunk, unbind
from .ops.splitting import tensor_split, hsplit, vsplit, dsplit
from .ops.index_ops import (index_select, index_add, index_copy, index_fill, masked_select,
                            masked_scatter, nonzero, argwhere)
from .ops.index_reduce import scatter_reduce, index_reduce
from .ops.inplace import index_put
from .ops.mantissa import frexp, ldexp, renorm
from .ops.rearrange import (tril, triu, flip, fliplr, flipud, roll, repeat_interleave, tile,
                            ravel)
from .ops.view_scatter import (select_scatter, slice_scatter, diagonal_scatter,
                               as_strided_scatter)
from .ops.views import (transpose as swapdims, transpose as swapaxes, movedim as moveaxis,
                        broadcast_to)
from .ops.joining import cat, concat, concatenate, stack
from .ops.flat import take, put, take_along_dim
from .ops.quantiles import quantile, nanquantile
from .ops.rearrange import rot90
from .ops.memory import clone, detach
from .ops.unary import (sin, cos, tan, asin, acos, atan, sinh, cosh, asinh, acosh, atanh,
                        exp2, expm1, log2, log10, log1p, erf, erfc, erfinv, floor, ceil,
                        round, trunc, frac, rsqrt, logit, fix)
from .ops.gamma_ops import lgamma, digamma, polygamma, mvlgamma, i0
from .ops.unary import (asin as arcsin, acos as arccos, atan as arctan, asinh as arcsinh,
                        acosh as arccosh, atanh as arctanh)
from .ops.binary import (atan2, arctan2, hypot, fmod, remainder, floor_divide, lerp, addcmul,
                         addcdiv)
from .ops.nnops import softmax, log_softmax
from .ops.elementwise import (maximum, minimum, fmax, fmin, copysign, xlogy, logaddexp,
                              logaddexp2, heaviside, nextafter, float_power, sinc, deg2rad,
                              rad2deg, nan_to_num, nan_to_num_, true_divide, divide, clip,
                              xlogy_, sinc_, deg2rad_, rad2deg_)
from .ops.clamping import clamp, clamp_min, clamp_max, clamp_min_, clamp_max_
from .ops.clamping import clip_
from .ops.logic import (isinf, isfinite, isposinf, isneginf, signbit, logical_and,
                        logical_or, logical_xor, logical_not, bitwise_and, bitwise_or,
                        bitwise_xor, bitwise_not, bitwise_left_shift, bitwise_right_shift)
from .ops.compare import isnan
from .ops.dtypeinfo import finfo, iinfo, set_default_dtype, get_default_dtype
from .ops.shaping import (atleast_1d, atleast_2d, atleast_3d, hstack, vstack, row_stack,
                          column_stack, dstack, diff, kron, tensordot, meshgrid,
                          cartesian_prod, block_diag)
from .ops.diag import diag, diag_embed, diagflat, cross
from .ops.counting import (unique, unique_consecutive, bincount, histc, searchsorted,
                           bucketize)
from .ops.distance import cdist
from .ops.aliases import (eq, ne, lt, le, gt, ge, greater, greater_equal, less, less_equal,
                          not_equal, multiply, subtract, negative, absolute, positive, sgn,
                          rsub, broadcast_tensors, broadcast_shapes, result_type,
                          promote_types, can_cast, is_signed, is_complex, is_nonzero,
                          is_same_size, scalar_tensor, isin)
from .ops.linalg_tri import (triangular_solve, cholesky_solve, cholesky_inverse, vdot, inner,
                             dist, chain_matmul)
from .ops.matrix_exp import matrix_exp
from .ops.covariance import cov, corrcoef, trapezoid, trapz, cumulative_trapezoid
from .ops.linalg_solve import inverse, det, logdet, pinverse, matrix_power
from .ops.linalg_decomp import cholesky_legacy as cholesky, svd_legacy as svd
from .ops.linalg_names import slogdet_legacy as slogdet, qr_legacy as qr
from .ops.linalg_lu import lu_legacy as lu, lu_solve_legacy as lu_solve, lu_unpack
from .ops.stats import (var, std, var_mean, std_mean, prod, cumsum, cumprod, logsumexp,
                        nansum, nanmean)
from .ops.extrema import cummax, cummin, aminmax, logcumsumexp
from .ops.vector_norms import norm
from .ops.sorting import sort, argsort, msort, topk, kthvalue, median, nanmedian, mode
from .ops.number_theory import gcd, lcm
from .ops.combinatorics import tril_indices, triu_indices, combinations
from .ops.narrow_copy import narrow_copy
from .ops.inplace import masked_fill
from .ops.conveniences import conj_physical
from .ops.tensor_facts import angle, isreal, adjoint
from . import return_types  # noqa: E402  (the named tuples: return_types.max, .sort...)
from .ops.compare import isclose, allclose, equal, count_nonzero, all, any  # noqa: A004
from . import linalg  # noqa: E402  (vg.linalg: vector_norm, matrix_norm, norm)
from . import autograd
from .autograd import (no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled,
                       is_inference_mode_enabled)
from . import nn, optim  # noqa: E402  (torch.nn-like: vg.nn.Conv2d, vg.optim.Adam)
from . import trace, viz  # noqa: E402  (vg.trace() makes a Tracer; vg.viz draws graphs)
from . import utils  # noqa: E402  (vg.utils.data: Dataset, DataLoader, random_split)
from . import distributions  # noqa: E402  (torch.distributions: Normal, kl_divergence...)
from . import serialization  # noqa: E402
from .serialization import save, load  # noqa: E402  (safe .npz archives, never pickle)

bool = bool_
float = float32
double = float64
long = int64
short = int16
cfloat = complex64
cdouble = complex128


class cuda:  # noqa: N801 - mirrors torch.cuda
    """``vg.cuda.is_available()``."""

    @staticmethod
    def is_available():
        return cuda_is_available()

    @staticmethod
    def synchronize():
        """Wait for the GPU's queued kernels (CuPy is asynchronous)."""
        backend.synchronize("cuda")


def is_tensor(x):
    return isinstance(x, Tensor)


def numel(x):
    return x.numel()


__version__ = "0.1.0"

from .ops.operands import install_functions as _install_functions  # noqa: E402
_install_functions(globals())   # PyTorch's words for an operand a function does not take
from .ops.signatures import install_function_signatures as _install_signatures  # noqa: E402
_install_signatures(globals())   # and for an argument of the wrong type (ops/signatures.py)
from .ops.out_variants import install_out_variants as _install_out  # noqa: E402
_install_out(globals())   # out= where PyTorch's function takes it (ops/out_variants.py)
from . import _docs  # noqa: E402,F401  (docstrings for the learner: x? and help(x) in the REPL)
