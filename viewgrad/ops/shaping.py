"""Joining and arranging, composed of other ops as PyTorch composes them (so the nodes are
the ones PyTorch records): hstack/vstack/row_stack/column_stack/dstack (``CatBackward0``),
atleast_1d/2d/3d, diff (``SubBackward0`` of two narrows), kron (``UnsafeViewBackward0``
of a broadcast ``MulBackward0``), tensordot (``ViewBackward0`` of an ``MmBackward0``),
meshgrid (expanded views), cartesian_prod (``StackBackward0``) and block_diag, whose
variadic node ``BlockDiagBackward0`` is written by hand like ``CatBackward0``.
"""
from __future__ import annotations


from ..autograd.graph import Node
from ..tensor import Tensor, _wrap_dim
from .joining import _finish_variadic, _seq_check, cat, stack
from .linalg import _unsafe_view, dot, mm
from .warn_once import warn_once
from .table import method, promoted_arrays
from .views import narrow

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "row_stack",
           "column_stack", "dstack", "diff", "kron", "tensordot", "meshgrid",
           "cartesian_prod", "block_diag"]


# -- atleast_nd ---------------------------------------------------------------------------

def _atleast(args, one):
    if len(args) == 1 and isinstance(args[0], Tensor):
        return one(args[0])
    seq = args[0] if len(args) == 1 else args
    return tuple(one(t) for t in seq)


def _one_1d(t):
    return t.reshape(1) if t.dim() == 0 else t


def _one_2d(t):
    if t.dim() == 0:
        return t.reshape(1, 1)
    return t.unsqueeze(0) if t.dim() == 1 else t


def _one_3d(t):
    d = t.dim()
    if d == 0:
        return t.reshape(1, 1, 1)
    if d == 1:
        return t.unsqueeze(0).unsqueeze(-1)
    return t.unsqueeze(-1) if d == 2 else t


def atleast_1d(*tensors):
    """A 0-d tensor as shape (1,) (a view); others as they are, as ``torch.atleast_1d``.
    Several tensors (or a list) give a tuple."""
    return _atleast(tensors, _one_1d)


def atleast_2d(*tensors):
    """Views with at least 2 dims: () -> (1, 1), (n,) -> (1, n), as
    ``torch.atleast_2d``."""
    return _atleast(tensors, _one_2d)


def atleast_3d(*tensors):
    """Views with at least 3 dims: () -> (1, 1, 1), (n,) -> (1, n, 1), (m, n) ->
    (m, n, 1), as ``torch.atleast_3d``."""
    return _atleast(tensors, _one_3d)


# -- the stacks ----------------------------------------------------------------------------

def _list(tensors, name):
    _seq_check(tensors, name)
    return list(tensors)


def hstack(tensors, *, out=None):
    """Join along columns, as ``torch.hstack``: 1-D tensors end to end (dim 0), others
    along dim 1. One ``CatBackward0`` node."""
    ts = [_one_1d(t) for t in _list(tensors, "hstack")]
    r = cat(ts, 0 if ts[0].dim() == 1 else 1)
    return _out(r, out, "hstack")


def vstack(tensors, *, out=None):
    """Join along rows (dim 0) after ``atleast_2d``, as ``torch.vstack`` (alias
    ``row_stack``): two (n,) vectors give a (2, n) matrix."""
    return _out(cat([_one_2d(t) for t in _list(tensors, "vstack")], 0), out, "vstack")


row_stack = vstack


def column_stack(tensors, *, out=None):
    """Vectors as columns, side by side, as ``torch.column_stack``: 0-d and 1-D tensors
    become (n, 1) columns, 2-D ones join along dim 1."""
    ts = [t.reshape(t.numel(), 1) if t.dim() <= 1 else t
          for t in _list(tensors, "column_stack")]
    return _out(cat(ts, 1), out, "column_stack")


def dstack(tensors, *, out=None):
    """Join along the third dim (depth) after ``atleast_3d``, as ``torch.dstack``."""
    return _out(cat([_one_3d(t) for t in _list(tensors, "dstack")], 2), out, "dstack")


def _out(r, out, name):
    from .args import with_out
    return with_out(r, out, name)


# -- diff ----------------------------------------------------------------------------------

@method("diff")
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference ``x[i+1] - x[i]`` along ``dim``, as ``torch.diff``;
    ``prepend`` / ``append`` are joined first. Bool tensors give ``!=`` (xor). Composed as
    in PyTorch: a ``SubBackward0`` of two narrows (``SliceBackward0``)."""
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap_dim(dim, input.dim())
    for name, p in (("prepend", prepend), ("append", append)):   # PyTorch's checks
        if p is None:
            continue
        if not isinstance(p, Tensor):
            raise TypeError(f"diff(): argument '{name}' must be Tensor, not "
                            f"{type(p).__name__}")
        if p.dim() != input.dim():
            raise RuntimeError("diff expects prepend or append to be the same dimension as "
                               "input")
        for i, (a, b) in enumerate(zip(input.shape, p.shape)):
            if i != d and a != b:
                raise RuntimeError(
                    "diff expects the shape of tensor to prepend or append to match that "
                    f"of input except along the differencing dimension; input.size({i}) = "
                    f"{a}, but got tensor.size({i}) = {b}")
    parts = [p for p in (prepend, input, append) if p is not None]
    if len(parts) > 1:
        input = cat(parts, dim)
    for _ in range(n):
        k = input.shape[d]
        if k == 0:
            break
        # (the dim as given, which the nodes show: Note [dims as given])
        hi, lo = narrow(input, dim, 1, k - 1), narrow(input, dim, 0, k - 1)
        input = hi != lo if input.dtype.kind == "b" else hi - lo
    return input


# -- kron, tensordot -----------------------------------------------------------------------

@method("kron")
def kron(input, other, *, out=None):
    """The Kronecker product: every element of ``input`` times the whole of ``other``, as
    ``torch.kron`` (kron of (a, b) and (c, d) is (ac, bd)). Composed as PyTorch does: the
    two inputs each given the interleaved shape by ``_unsafe_view`` (not views to
    autograd: modifying an input afterwards does not touch what the product saved; and,
    as in PyTorch, an input that cannot be viewed so, e.g. a transpose, is refused), one
    ``MulBackward0``, then an ``UnsafeViewBackward0`` to the result's shape."""
    nd = max(input.dim(), other.dim())
    da = (1,) * (nd - input.dim()) + tuple(input.shape)
    db = (1,) * (nd - other.dim()) + tuple(other.shape)
    sa, sb = [], []
    for x, y in zip(da, db):
        sa += [x, 1]
        sb += [1, y]
    prod = _unsafe_view(input, sa) * _unsafe_view(other, sb)
    return _out(_unsafe_view(prod, tuple(x * y for x, y in zip(da, db))), out, "kron")


def tensordot(a, b, dims=2, out=None):
    """Contract ``dims`` dims of ``a`` with ``dims`` dims of ``b``, as
    ``torch.tensordot``: ``dims`` is an int (the last dims of a with the first of b) or a
    pair of lists ``([dims of a], [dims of b])``. Computed as PyTorch does: permute and
    reshape both to matrices, one ``mm`` (``MmBackward0``), then a view
    (``ViewBackward0``)."""
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a.dim() or dims > b.dim():
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da = list(range(a.dim() - dims, a.dim()))
        db = list(range(dims))
    elif isinstance(dims, Tensor):
        return tensordot(a, b, dims.tolist() if dims.dim() else int(dims.item()), out)
    else:
        da, db = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    if a.dtype != b.dtype:   # (PyTorch's check, before mm's)
        raise RuntimeError("both inputs should have same dtype")
    da = [_wrap_dim(d, a.dim()) for d in da]
    db = [_wrap_dim(d, b.dim()) for d in db]
    ta, tb = a, b
    for x, y in zip(da, db):
        # a contracted dim of size 1 on one side broadcasts: the other side is summed over
        # it at once (kept as size 1), as PyTorch's tensordot does
        if b.shape[y] == 1:
            ta = ta.sum(x, keepdim=True, dtype=ta.dtype)
        elif a.shape[x] == 1:
            tb = tb.sum(y, keepdim=True, dtype=tb.dtype)
        elif a.shape[x] != b.shape[y]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{a.shape[x]} in dim {x} and second has size {b.shape[y]} "
                               f"in dim {y}")
    fa = [i for i in range(a.dim()) if i not in da]
    fb = [i for i in range(b.dim()) if i not in db]
    k = 1
    for d in da:
        k *= ta.shape[d]
    # (the free sizes given, not -1: with k == 0 a -1 could be any size)
    m = n = 1
    for i in fa:
        m *= a.shape[i]
    for i in fb:
        n *= b.shape[i]
    if not fa and not fb and a.dim() == 1 and b.dim() == 1:
        # every dim contracted, of two vectors: PyTorch takes dot, not mm (``inner`` of two
        # vectors: ViewBackward0 over DotBackward0 over the two permutes)
        r = dot(ta.permute(0), tb.permute(0)).reshape(())
        return _out(r, out, "tensordot")
    ma = ta.permute(*fa, *da).reshape(m, k) if a.dim() else ta.reshape(1, 1)
    mb = tb.permute(*db, *fb).reshape(k, n) if b.dim() else tb.reshape(1, 1)
    r = mm(ma, mb).reshape([a.shape[i] for i in fa] + [b.shape[i] for i in fb])
    return _out(r, out, "tensordot")


# -- meshgrid, cartesian_prod ----------------------------------------------------------------

def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 1-D tensors, as ``torch.meshgrid``: with ``indexing='ij'``
    output i varies along dim i; ``'xy'`` swaps the first two dims (NumPy's default).
    Each output is an expanded view (``ExpandBackward0``) of its input. Without
    ``indexing`` it is 'ij' with PyTorch's warning."""
    if len(tensors) == 1 and not isinstance(tensors[0], Tensor):
        tensors = tuple(tensors[0])
    if indexing is None:
        warn_once("meshgrid")   # Note [warnings given once]
        indexing = "ij"
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for a, b in zip(tensors, tensors[1:]):   # (PyTorch's checks, in its order)
        if a.dtype != b.dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if a.device != b.device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                           f"received: {indexing}")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               f"but got: {t.dim()}D tensor")
    ts = [t.reshape(-1) if t.dim() == 0 else t for t in tensors]
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = [t.shape[0] for t in ts]
    outs = []
    for i, t in enumerate(ts):
        v = [1] * len(ts)
        v[i] = -1
        outs.append(t.view(*v).expand(*shape))
    if swap:   # the grids are (len(b), len(a), ...), NumPy's 'xy' layout
        outs[0], outs[1] = outs[1], outs[0]
    return tuple(outs)


def cartesian_prod(*tensors):
    """Every combination of the 1-D inputs' elements, one per row (``itertools.product``
    order), as ``torch.cartesian_prod``: n tensors give a (N, n) tensor
    (``StackBackward0`` of the flattened ``meshgrid``)."""
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.flatten() for g in grids], 1)


# -- block_diag ------------------------------------------------------------------------------

class BlockDiagBackward0(Node):
    """Each input's gradient is its block of the output gradient (two narrows)."""
    __slots__ = ("blocks",)

    def apply(self, grads):
        g = grads[0]
        out = []
        for e, (r0, c0, r, c, shape) in zip(self.next_functions, self.blocks):
            out.append(None if e[0] is None else
                       narrow(narrow(g, 0, r0, r), 1, c0, c).reshape(shape))
        return out

    def saved_items(self):
        return [("blocks", self.blocks)]


def block_diag(*tensors):
    """The inputs as blocks on the diagonal of one matrix, zeros elsewhere, as
    ``torch.block_diag`` (a 0-d tensor is a 1x1 block, a 1-D one a row). Its node
    ``BlockDiagBackward0`` hands each input its block of the gradient."""
    if not tensors:
        raise RuntimeError("block_diag(): expected at least one tensor")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"block_diag(): argument 'tensors' must be tuple of Tensors, not "
                            f"{type(t).__name__}")
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {t.dim()} dimensions")
    arrays = promoted_arrays(list(tensors))
    dev = tensors[0]._device
    mats = [a.reshape(1, -1) if a.ndim < 2 else a for a in arrays]
    rows = sum(m.shape[0] for m in mats)
    cols = sum(m.shape[1] for m in mats)
    xp = dev.xp
    data = xp.zeros((rows, cols), dtype=arrays[0].dtype)
    blocks, r0, c0 = [], 0, 0
    for m, t in zip(mats, tensors):
        r, c = m.shape
        data[r0:r0 + r, c0:c0 + c] = m
        blocks.append((r0, c0, r, c, tuple(t.shape)))
        r0, c0 = r0 + r, c0 + c
    return _finish_variadic(BlockDiagBackward0, data, list(tensors), blocks=tuple(blocks))
