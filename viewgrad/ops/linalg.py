"""Matrix products: mm, bmm, dot, mv, addmm, baddbmm, addbmm, addmv, addr and matmul
(composed from them as PyTorch does, so the node names match: MmBackward0, BmmBackward0,
DotBackward0, MvBackward0, AddmmBackward0, BaddbmmBackward0, AddbmmBackward0,
AddmvBackward0, AddrBackward0, with views around them for batched shapes).
"""
from __future__ import annotations

from .. import backend as B
from ..layouts import column_major
from ..tensor import Tensor, _wrap_dim
from . import nn_fast as _nnf
from .args import cpp_type_name, torch_type_name
from .table import apply_inplace, defop, dispatch, method
from .views import expanded_shape

__all__ = ["mm", "bmm", "dot", "mv", "addmm", "baddbmm", "addbmm", "addmv", "addr",
           "matmul"]


def _mm_fwd(self, mat2):
    return self @ mat2


# Note [a matrix gradient in its matrix's layout]
# PyTorch's mm_mat1_backward and mm_mat2_backward (mm's and addmm's formulas) ask how the
# input was laid out, from the sizes and strides the node saved: for a column-major
# matrix (strides (1, rows): ``W.t()`` of a row-major W, as ``x @ W.t()`` and F.linear
# make) the gradient is computed as the transpose of a product, so that it comes out
# column-major too, and after the transpose's own backward the weight's gradient is
# row-major like the weight: AccumulateGrad keeps it without the copy its layout
# contract would otherwise make (the layout contract: autograd/accumulate.py's docstring).
# The same product, taken transposed; one copy of the weight's size fewer per step.
# The sizes and strides show as ``_saved_mat2_sym_sizes``/``_saved_mat2_sym_strides``.

def _mm_mat1_backward(grad, mat2, sizes, strides, alpha):
    if column_major(sizes, strides):
        return _scale(mat2.mm(grad.t()).t(), alpha)
    return _scale(grad.mm(mat2.t()), alpha)


def _mm_mat2_backward(grad, mat1, sizes, strides, alpha):
    if column_major(sizes, strides):
        return _scale(grad.t().mm(mat1).t(), alpha)
    return _scale(mat1.t().mm(grad), alpha)


MM = defop("mm", "MmBackward0", _mm_fwd, inputs=("self", "mat2"),
           self=lambda grad, mat2, self_shape, self_strides:
           _mm_mat1_backward(grad, mat2, self_shape, self_strides, 1),
           mat2=lambda grad, self, mat2_shape, mat2_strides:
           _mm_mat2_backward(grad, self, mat2_shape, mat2_strides, 1))
BMM = defop("bmm", "BmmBackward0", _mm_fwd, inputs=("self", "mat2"),
            self=lambda grad, mat2: grad.bmm(mat2.transpose(1, 2)),
            mat2=lambda grad, self: self.transpose(1, 2).bmm(grad))
DOT = defop("dot", "DotBackward0", lambda self, tensor: B.xp_of(self).asarray(self @ tensor),
            inputs=("self", "tensor"),
            self=lambda grad, tensor: grad * tensor,
            tensor=lambda grad, self: grad * self)
MV = defop("mv", "MvBackward0", _mm_fwd, inputs=("self", "vec"),
           self=lambda grad, vec: grad.unsqueeze(1) * vec.unsqueeze(0),
           vec=lambda grad, self: self.t().mv(grad))


def _addmm_fwd(self, mat1, mat2, beta, alpha):
    out = mat1 @ mat2
    if alpha != 1:
        # (BLAS's rule, and PyTorch's: a zero alpha reads neither matrix, NaN included)
        out = B.xp_of(out).zeros_like(out) if alpha == 0 else out * alpha
    if beta == 0:
        return out + B.xp_of(out).zeros_like(self)   # (self ignored, NaN included: its shape)
    if beta == 1 and getattr(self, "dtype", None) == out.dtype and out.ndim == 2:
        # the bias added into the fresh product (a linear layer's activation is one pass
        # and one buffer, as by hand); the same numbers as out + self
        out += self
        return out
    return out + (self if beta == 1 else self * beta)


ADDMM = defop("addmm", "AddmmBackward0", _addmm_fwd, inputs=("self", "mat1", "mat2"),
              attrs=("beta", "alpha"), broadcast=True,
              cls=_nnf.AddmmNode,   # Note [AddmmBackward0 on arrays] (nn_fast.py)
              self=lambda grad, beta: grad if beta == 1 else grad * beta,
              mat1=lambda grad, mat2, alpha, mat1_shape, mat1_strides:
              _mm_mat1_backward(grad, mat2, mat1_shape, mat1_strides, alpha),
              mat2=lambda grad, mat1, alpha, mat2_shape, mat2_strides:
              _mm_mat2_backward(grad, mat1, mat2_shape, mat2_strides, alpha))


def _scale(x, a):
    return x if a == 1 else x * a


def _add_scaled(prod, self, beta, alpha, blas=False):
    """``beta * self + alpha * prod`` on arrays; beta == 0 ignores self (NaN included), as
    PyTorch does; with ``blas`` (addmv, addbmm: BLAS's rule) alpha == 0 ignores prod too."""
    if alpha != 1:
        prod = B.xp_of(prod).zeros_like(prod) if blas and alpha == 0 else prod * alpha
    if beta == 0:
        return prod
    return prod + (self if beta == 1 else self * beta)


def _outer_fwd(a, b):
    return a[:, None] * b[None, :]


BADDBMM = defop("baddbmm", "BaddbmmBackward0",
                lambda self, batch1, batch2, beta, alpha: _add_scaled(batch1 @ batch2, self,
                                                                      beta, alpha),
                inputs=("self", "batch1", "batch2"), attrs=("beta", "alpha"), broadcast=True,
                self=lambda grad, beta: _scale(grad, beta),
                batch1=lambda grad, batch2, alpha: _scale(grad.bmm(batch2.transpose(1, 2)),
                                                          alpha),
                batch2=lambda grad, batch1, alpha: _scale(batch1.transpose(1, 2).bmm(grad),
                                                          alpha))
ADDMV = defop("addmv", "AddmvBackward0",
              lambda self, mat, vec, beta, alpha: _add_scaled(mat @ vec, self, beta, alpha,
                                                              blas=True),
              inputs=("self", "mat", "vec"), attrs=("beta", "alpha"), broadcast=True,
              self=lambda grad, beta: _scale(grad, beta),
              mat=lambda grad, vec, alpha: _scale(grad.outer(vec), alpha),
              vec=lambda grad, mat, alpha: _scale(mat.t().mv(grad), alpha))
def _addbmm_fwd(self, batch1, batch2, beta, alpha):
    # PyTorch's loop: addmm_ of each batch's product into the result, beta once
    xp = B.xp_of(batch1)
    out = xp.zeros((batch1.shape[1], batch2.shape[2]), dtype=batch1.dtype)
    for i in range(batch1.shape[0]):
        out = _add_scaled(batch1[i] @ batch2[i], out, 1, alpha, blas=True)
    return _add_scaled(out, self, beta, 1)


def _addbmm_each(grad, batch1, batch2):
    """The result's gradient given to every batch's product, (b, n, p)."""
    return grad.unsqueeze(0).expand(batch1.shape[0], batch1.shape[1], batch2.shape[2])


ADDBMM = defop("addbmm", "AddbmmBackward0", _addbmm_fwd, inputs=("self", "batch1", "batch2"),
               attrs=("beta", "alpha"), broadcast=True,
               self=lambda grad, beta: _scale(grad, beta),
               batch1=lambda grad, batch1, batch2, alpha: _scale(
                   _addbmm_each(grad, batch1, batch2).bmm(batch2.transpose(1, 2)), alpha),
               batch2=lambda grad, batch1, batch2, alpha: _scale(
                   batch1.transpose(1, 2).bmm(_addbmm_each(grad, batch1, batch2)), alpha))
ADDR = defop("addr", "AddrBackward0",
             lambda self, vec1, vec2, beta, alpha: B.layout_like(_add_scaled(
                 _outer_fwd(vec1, vec2), self, beta, alpha), self),   # (self's layout)
             inputs=("self", "vec1", "vec2"), attrs=("beta", "alpha"), broadcast=True,
             promote=True,  # unlike the matrix products, addr promotes (as PyTorch's)
             self=lambda grad, beta: _scale(grad, beta),
             vec1=lambda grad, vec2, alpha: _scale(grad.mv(vec2), alpha),
             vec2=lambda grad, vec1, alpha: _scale(grad.t().mv(vec1), alpha))


def _shape_err(op, a, b):
    return RuntimeError(f"{op}: mat1 and mat2 shapes cannot be multiplied "
                        f"({'x'.join(map(str, a.shape))} and {'x'.join(map(str, b.shape))})")


# the CPU kernel that refuses bool operands, per product
_BOOL_KERNELS = {"mm": "addmm_impl_cpu_", "bmm": "bmm", "mv": "addmv_impl_cpu", "dot": "dot",
                 "baddbmm": "baddbmm"}


def _check(a, b, op):
    """Both operands of product ``op`` (the kernel PyTorch runs: mm, bmm, mv, dot...) have
    one dtype, and it is not bool: PyTorch refuses both, each kernel in its own words
    (there is no type promotion in matrix products)."""
    if not isinstance(b, Tensor):
        raise TypeError(f"{op}(): argument 'mat2' must be Tensor, not {type(b).__name__}")
    da, db = a._data.dtype, b._data.dtype
    batched = op in ("bmm", "baddbmm")
    if batched and da.kind == "b":  # bmm's kernel is picked by self's dtype first
        db = da
    if da != db:
        if batched:
            msg = f"expected scalar type {torch_type_name(da)} but found {torch_type_name(db)}"
        elif op == "mv":  # addmv(self, mat, vec): self is made with vec's dtype
            msg = (f"addmv input tensors must have the same dtype, but got "
                   f"{torch_type_name(db)}, {torch_type_name(da)}, and {torch_type_name(db)}")
        elif op == "dot":
            msg = (f"dot : expected both vectors to have same dtype, but found "
                   f"{torch_type_name(da)} and {torch_type_name(db)}")
        else:
            na, nb = B.dtype_name(da), B.dtype_name(db)
            msg = (f"expected m1 and m2 to have the same dtype, but got: "
                   f"{cpp_type_name(na)} != {cpp_type_name(nb)}")
        raise RuntimeError(msg + ". Matrix products do not promote: convert one operand "
                           "first, e.g. a @ b.to(a.dtype)")
    # (an empty product never reaches PyTorch's mm/bmm/mv kernel: its zeros are False)
    if da.kind == "b" and op in _BOOL_KERNELS and (
            op not in ("mm", "bmm", "mv") or (a._data.size and b._data.size)):
        raise NotImplementedError(f'"{_BOOL_KERNELS[op]}" not implemented for \'Bool\'')


def _should_fold(t1, t2):
    """PyTorch's matmul choice for a product with a batched operand: fold the batched one
    into a matrix (one mm or mv) rather than broadcast both into a bmm, when the other
    operand requires grad, or when the fold needs no copy (never for a 2-D left operand)."""
    first_larger = t1.dim() >= t2.dim()
    big, small = (t1, t2) if first_larger else (t2, t1)
    if not (big.dim() >= 3 and small.dim() <= 2):
        return False
    if small.requires_grad:
        return True
    if t1.dim() == 2:
        return False
    if big._data.size == 0:
        return True
    shape, strides = list(big.shape), list(big.stride())
    if not first_larger:  # the batched one is t2, folded as t2.mT
        shape[-2:], strides[-2:] = shape[:-3:-1], strides[:-3:-1]
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(big.dim() - 2))


def _matmul_check(a, b):
    """The dtype check of the kernel matmul runs for these operands (in its order)."""
    da, db = a.dim(), b.dim()
    if da == 1 and db == 1:
        _check(a, b, "dot")
    elif da == 2 and db == 1:
        _check(a, b, "mv")
    elif da <= 2 and db <= 2:
        _check(a, b, "mm")
    elif _should_fold(a, b):
        if da >= db:
            _check(a, b, "mv" if db == 1 else "mm")
        else:  # b.mT folded times a (or a.t())
            _check(b, a, "mv" if da == 1 else "mm")
    else:
        _check(a, b, "bmm")


@method("mm")
def mm(self, mat2):
    _check(self, mat2, "mm")
    if self.dim() != 2 or mat2.dim() != 2:
        raise RuntimeError(f"{'self' if self.dim() != 2 else 'mat2'} must be a matrix (mm "
                           f"takes 2-D tensors; got {self.dim()}-D and {mat2.dim()}-D)")
    if self.shape[1] != mat2.shape[0]:
        raise _shape_err("mm", self, mat2)
    return dispatch(MM, (self, mat2))


@method("bmm")
def bmm(self, mat2):
    _check(self, mat2, "bmm")
    if self.dim() != 3 or mat2.dim() != 3:
        raise RuntimeError(f"{'batch1' if self.dim() != 3 else 'batch2'} must be a 3D tensor "
                           f"(bmm takes [b, n, m] and [b, m, p]; got {self.dim()}-D and "
                           f"{mat2.dim()}-D)")
    if self.shape[0] != mat2.shape[0] or self.shape[2] != mat2.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{self.shape[0]}, {self.shape[2]}] but got: [{mat2.shape[0]}, "
                           f"{mat2.shape[1]}].")
    return dispatch(BMM, (self, mat2))


@method("dot")
def dot(self, tensor):
    _check(self, tensor, "dot")
    check_vectors(self, tensor)
    return dispatch(DOT, (self, tensor))


def check_vectors(a, b):
    """PyTorch's errors for dot/vdot operands: both 1-D, of one size."""
    if a.dim() != 1 or b.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.dim()}D and {b.dim()}D tensors")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and "
                           f"src [{b.shape[0]}] to have the same number of elements, but got "
                           f"{a.shape[0]} and {b.shape[0]} elements respectively")


@method("mv")
def mv(self, vec):
    # PyTorch's mv is addmv(empty(self.size(0)), self, vec): its checks, in its order
    if isinstance(vec, Tensor):
        if self.dim() == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        if self.dim() != 2 or vec.dim() != 1:
            raise RuntimeError(f"vector + matrix @ vector expected, got 1, {self.dim()}, "
                               f"{vec.dim()}")
        if self.shape[1] != vec.shape[0]:
            raise RuntimeError(f"size mismatch, got input ({self.shape[0]}), mat "
                               f"({self.shape[0]}x{self.shape[1]}), vec ({vec.shape[0]})")
    _check(self, vec, "mv")
    return dispatch(MV, (self, vec))


def addmm(input, mat1, mat2, beta=1, alpha=1):
    if mat1.dim() != 2 or mat2.dim() != 2 or mat1.shape[1] != mat2.shape[0]:
        raise _shape_err("addmm", mat1, mat2)
    for name, t in (("self", input), ("mat1", mat1)):
        if t._data.dtype != mat2._data.dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got "
                               f"{torch_type_name(t.dtype)} and {torch_type_name(mat2.dtype)}")
    _check(mat1, mat2, "mm")  # bool
    out_shape = (mat1.shape[0], mat2.shape[1])
    if tuple(input.shape) != out_shape and isinstance(input, Tensor):
        if input.dim() <= 2:   # (PyTorch expands self first: its words)
            expanded_shape(input, list(out_shape))
    return dispatch(ADDMM, (input, mat1, mat2), (beta, alpha))



@method("addmm")
def _addmm_method(self, mat1, mat2, *, beta=1, alpha=1):
    """``beta * self + alpha * (mat1 @ mat2)`` (``torch.Tensor.addmm``), node
    ``AddmmBackward0``."""
    return addmm(self, mat1, mat2, beta, alpha)


def _addmm_shape(input, mat1, mat2):
    if mat1.dim() != 2 or mat2.dim() != 2 or mat1.shape[1] != mat2.shape[0]:
        raise _shape_err("addmm", mat1, mat2)
    _check(mat1, mat2, "mm")
    return (mat1.shape[0], mat2.shape[1])


@method("addmm_")
def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
    """In-place ``addmm`` (``torch.Tensor.addmm_``): node ``AddmmBackward0``."""
    return _inplace_product(ADDMM, self, mat1, mat2, beta, alpha, "addmm_", _addmm_shape)


def _expandable(input, shape):
    """PyTorch's expand check of ``input`` against the product's shape (its wording)."""
    from ..autograd.grad_mode import no_grad
    with no_grad():
        input.expand(*shape)


def _baddbmm_shape(input, batch1, batch2):
    """baddbmm's argument checks (PyTorch's order and wording); the result's shape."""
    if input._data.dtype != batch1._data.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input "
                           f"{cpp_type_name(input.dtype)}, batch1: "
                           f"{cpp_type_name(batch1.dtype)}, batch2: "
                           f"{cpp_type_name(batch2.dtype)}")
    _check(batch1, batch2, "baddbmm")
    if batch1.dim() >= 2 and batch2.dim() >= 3:  # PyTorch checks input's expansion first
        _expandable(input, (batch1.shape[0], batch1.shape[1], batch2.shape[2]))
    if batch1.dim() != 3 or batch2.dim() != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor (got {batch1.dim()}-D and "
                           f"{batch2.dim()}-D)")
    b, n, m = batch1.shape
    if tuple(batch2.shape[:2]) != (b, m):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{b}, {m}] but got: [{batch2.shape[0]}, {batch2.shape[1]}].")
    _expandable(input, (b, n, batch2.shape[2]))
    return (b, n, batch2.shape[2])


@method("baddbmm")
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * (batch1 @ batch2)`` for batches of matrices
    (``torch.baddbmm``; ``input`` broadcasts to ``(b, n, p)``, and with ``beta=0`` it is
    ignored, NaNs included). One node, ``BaddbmmBackward0``."""
    _baddbmm_shape(input, batch1, batch2)
    return dispatch(BADDBMM, (input, batch1, batch2), (beta, alpha))


def _addbmm_shape(input, batch1, batch2):
    """PyTorch's checks of addbmm, in its order: self expands to the result's shape first,
    then the batches' ranks, counts, sizes and dtypes."""
    out_shape = (batch1.shape[_wrap_dim(1, batch1.dim())],
                 batch2.shape[_wrap_dim(2, batch2.dim())])
    expanded_shape(input, list(out_shape))
    for name, t in (("batch1", batch1), ("batch2", batch2)):
        if t.dim() != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got "
                           f"{batch1.shape[0]} and {batch2.shape[0]}")
    if batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x"
                           f"{batch1.shape[2]} and {batch2.shape[1]}x{batch2.shape[2]})")
    for name, t in (("mat1", batch1), ("self", input)):
        if t._data.dtype != batch2._data.dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got "
                               f"{torch_type_name(t.dtype)} and {torch_type_name(batch2.dtype)}")
    _check(batch1, batch2, "mm")  # bool
    return out_shape


@method("addbmm")
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_i batch1[i] @ batch2[i]`` (``torch.addbmm``: the
    batches' products summed into one matrix; ``input`` broadcasts to it; a zero beta or
    alpha ignores its side, NaN included). One node, ``AddbmmBackward0``."""
    _addbmm_shape(input, batch1, batch2)
    return dispatch(ADDBMM, (input, batch1, batch2), (beta, alpha))


@method("addbmm_")
def addbmm_(self, batch1, batch2, *, beta=1, alpha=1):
    """In-place ``addbmm`` (``torch.Tensor.addbmm_``): node ``AddbmmBackward0``."""
    return _inplace_product(ADDBMM, self, batch1, batch2, beta, alpha, "addbmm_",
                            _addbmm_shape)


def _addmv_shape(input, mat, vec):
    if mat.dim() != 2 or vec.dim() != 1:   # (PyTorch's first check, its words)
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.dim()}, "
                           f"{mat.dim()}, {vec.dim()}")
    if mat.dim() != 2 or vec.dim() != 1 or mat.shape[1] != vec.shape[0] or (
            input.dim() > 1 or input.dim() == 1 and input.shape[0] not in (1, mat.shape[0])):
        raise RuntimeError(f"size mismatch, got input ({', '.join(map(str, input.shape))}), "
                           f"mat ({'x'.join(map(str, mat.shape))}), vec ({vec.shape[0]})")
    if not (input._data.dtype == mat._data.dtype == vec._data.dtype):
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                           f"{torch_type_name(input.dtype)}, {torch_type_name(mat.dtype)}, and "
                           f"{torch_type_name(vec.dtype)}")
    _check(mat, vec, "mv")  # bool
    return (mat.shape[0],)


@method("addmv")
def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)`` (``torch.addmv``), node ``AddmvBackward0``."""
    _addmv_shape(input, mat, vec)
    return dispatch(ADDMV, (input, mat, vec), (beta, alpha))


def _addr_shape(input, vec1, vec2):
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.dim()}-D")
    _expandable(input, (vec1.shape[0], vec2.shape[0]))
    return (vec1.shape[0], vec2.shape[0])


@method("addr")
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)`` (``torch.addr``), node
    ``AddrBackward0``."""
    _addr_shape(input, vec1, vec2)
    return dispatch(ADDR, (input, vec1, vec2), (beta, alpha))


def _inplace_product(op, self, a, b, beta, alpha, name, check):
    """``self.<op>_(a, b)``: the product written into ``self`` through the in-place choke
    point (its shape must be the result's; nothing broadcasts ``self``)."""
    want = tuple(check(self, a, b))
    if tuple(self.shape) != want:
        raise RuntimeError(f"{name}: the result's shape {list(want)} does not match self's "
                           f"shape {list(self.shape)}")
    return apply_inplace(op, self, (a, b), (beta, alpha), name=name)


@method("baddbmm_")
def baddbmm_(self, batch1, batch2, *, beta=1, alpha=1):
    """In-place ``baddbmm`` (``torch.Tensor.baddbmm_``): node ``BaddbmmBackward0``."""
    return _inplace_product(BADDBMM, self, batch1, batch2, beta, alpha, "baddbmm_",
                            _baddbmm_shape)


@method("addmv_")
def addmv_(self, mat, vec, *, beta=1, alpha=1):
    """In-place ``addmv`` (``torch.Tensor.addmv_``): node ``AddmvBackward0``."""
    return _inplace_product(ADDMV, self, mat, vec, beta, alpha, "addmv_", _addmv_shape)


@method("addr_")
def addr_(self, vec1, vec2, *, beta=1, alpha=1):
    """In-place ``addr`` (``torch.Tensor.addr_``): node ``AddrBackward0``."""
    return _inplace_product(ADDR, self, vec1, vec2, beta, alpha, "addr_", _addr_shape)


@method("matmul", "__matmul__")
def matmul(self, other):
    """``a @ b`` with NumPy/PyTorch semantics, built from dot/mv/mm/bmm and views."""
    if not isinstance(other, Tensor):
        raise TypeError(f"matmul(): argument 'other' must be Tensor, not "
                        f"{type(other).__name__}")
    da, db = self.dim(), other.dim()
    if da == 3 and db == 3:
        # PyTorch drops the batch dim of size 1 of an operand that requires grad (when the
        # other's batch is not 1), and folds: no broadcast batch in its gradient
        if self.shape[0] == 1 and other.shape[0] != 1 and self.requires_grad:
            return matmul(self.squeeze(0), other)
        if other.shape[0] == 1 and self.shape[0] != 1 and other.requires_grad:
            return matmul(self, other.squeeze(0))
    _matmul_check(self, other)
    if da == 0 or db == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{da}D and {db}D")
    if da == 1 and db == 1:
        return dot(self, other)
    if da == 2 and db == 1:
        return mv(self, other)
    if da == 1 and db == 2:
        if self.shape[0] != other.shape[0]:
            raise _shape_err("matmul", self.unsqueeze(0), other)
        return mm(self.unsqueeze(0), other).squeeze_(0)   # (PyTorch's: SqueezeBackward4)
    if da == 2 and db == 2:
        return mm(self, other)
    if _should_fold(self, other):
        return _folded_matmul(self, other)
    return _batched_matmul(self, other)


class _Folded:
    """The shape of the matrix a batched operand is folded into (for _shape_err)."""

    def __init__(self, rows, k):
        self.shape = (rows, k)


def _folded_matmul(t1, t2):
    """One mm (or mv) for a batched operand times a matrix or vector: the batched one
    is reshaped into a matrix (2-D @ batched: (b.mT @ a.t()).mT, made contiguous)."""
    transpose = t2.dim() > t1.dim()
    if transpose:
        t1, t2 = t2.mT, (t1.t() if t1.dim() == 2 else t1)
    out_shape = tuple(t1.shape[:-1])
    rows = 1
    for s in out_shape:
        rows *= s
    if t1.shape[-1] != t2.shape[0]:   # (the words of the mv or mm the folded one meets)
        k = t1.shape[-1]
        if t2.dim() == 1:
            raise RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{k}), vec "
                               f"({t2.shape[0]})")
        raise _shape_err("matmul", _Folded(rows, k), t2)
    folded = t1.reshape(rows, t1.shape[-1])
    if t2.dim() == 1:
        return _unsafe_view(mv(folded, t2), out_shape)
    out = _unsafe_view(mm(folded, t2), out_shape + (t2.shape[1],))
    return out.mT.contiguous() if transpose else out


def _batched_matmul(a, b):
    """Both operands broadcast to one batch and multiplied with a single bmm."""
    da, db = a.dim(), b.dim()
    n = a.shape[-2] if da > 1 else 1
    m1 = a.shape[-1]
    m2 = b.shape[-2] if db > 1 else b.shape[0]
    p = b.shape[-1] if db > 1 else 1
    ba, bb = tuple(a.shape[:max(da - 2, 0)]), tuple(b.shape[:max(db - 2, 0)])
    try:   # (PyTorch's order: the batches broadcast first, then bmm checks the sizes)
        batch = B.broadcast_shapes(ba, bb)
    except ValueError:
        raise B.broadcast_error("matmul's batch dimensions", ba, bb) from None
    nb = 1
    for s in batch:
        nb *= s
    if m1 != m2:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{nb}, {m1}] but got: [{nb}, {m2}].")
    a3 = a.expand(*batch, n, m1).reshape(nb, n, m1)
    if db == 1:  # a vector cannot broadcast into (*, m, 1): a batch of columns
        b3 = b.expand(*batch, m2).reshape(nb, m2).unsqueeze(2)
    else:
        b3 = b.expand(*batch, m2, p).reshape(nb, m2, p)
    out_shape = tuple(batch) + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    out = bmm(a3, b3)
    return _unsafe_view(out.squeeze(-1) if db == 1 else out, out_shape)


def _unsafe_view(t, shape):
    # PyTorch reshapes the fresh result of mm/bmm with _unsafe_view: not a view for
    # autograd (no _base), node UnsafeViewBackward0.
    from .views import UNSAFE_VIEW
    return dispatch(UNSAFE_VIEW, (t,), (tuple(shape),))


@method("__rmatmul__")
def rmatmul(self, other):
    from .factories import tensor
    return matmul(tensor(other, dtype=self.dtype, device=self.device), self)
