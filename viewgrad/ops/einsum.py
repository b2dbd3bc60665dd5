"""einsum and outer, composed of existing ops the way PyTorch composes them.

PyTorch has no einsum node: ``torch.einsum`` is written with diagonal, movedim,
unsqueeze, permute, sum, mul and bmm, so the graph a learner sees is made of those
(``'ij,jk->ik'`` ends in ``ViewBackward0 → PermuteBackward0 → ViewBackward0 →
BmmBackward0``). viewgrad follows the same recipe, so the node names match and the
gradients (double backward included) come from the ops it is made of:

1. parse the equation (or the sublist form) into labels per operand and the output;
2. give every label a position: the output's labels first, then the contracted ones;
3. bring each operand to that layout: a diagonal for a label repeated in one operand,
   ``unsqueeze`` for labels it lacks, one ``permute``;
4. contract left to right, two operands at a time (``_sum_product``): sum a label away
   as soon as no later operand has it, multiply-and-sum the pair as one ``bmm``;
5. drop the contracted (now size-1) dims with a ``view`` — or, for a single operand,
   ``sum`` them.
"""
from __future__ import annotations

from ..tensor import Tensor
from .linalg import bmm
from .. import backend as B
from ..backend import xp_of as _xp_of
from .table import defop, dispatch, method

__all__ = ["einsum", "outer", "trilinear"]

_ELLIPSIS = 52


def _label_index(ch, pos):
    if not ch.isascii() or not ch.isalpha():
        raise RuntimeError(f"einsum(): invalid subscript given at index {pos} in the equation "
                           "string, subscripts must be in [a-zA-Z]")
    return ord(ch) - ord("A") if ch.isupper() else ord(ch) - ord("a") + 26


def _parse_side(text, offset, n_ops):
    """Labels of each comma-separated term (ELLIPSIS for '...')."""
    terms, cur, seen_ell, i = [[]], 0, False, 0
    while i < len(text):
        ch = text[i]
        if ch == " ":
            pass
        elif ch == ".":
            if seen_ell:
                raise RuntimeError(f"einsum(): found '.' for operand {cur} for which an "
                                   "ellipsis was already found")
            if text[i:i + 3] != "...":
                raise RuntimeError(f"einsum(): found '.' for operand {cur} that is not part "
                                   "of any ellipsis")
            terms[cur].append(_ELLIPSIS)
            seen_ell = True
            i += 2
        elif ch == ",":
            cur += 1
            if n_ops is not None and cur >= n_ops:
                raise RuntimeError("einsum(): fewer operands were provided than specified in "
                                   "the equation")
            terms.append([])
            seen_ell = False
        else:
            terms[cur].append(_label_index(ch, offset + i))
        i += 1
    return terms


def _from_sublists(args):
    """``einsum(a, [0, 1], b, [1, 2], [0, 2])`` -> ('AB,BC->AC', [a, b])."""
    def letters(sub):
        out = ""
        for s in sub:
            if s is Ellipsis:
                out += "..."
            elif not isinstance(s, int) or not 0 <= s < 52:
                raise ValueError(f"einsum(): expected subscripts in [0, 52), got {s!r}")
            else:
                out += _label_char(s)
        return out
    ops, terms = list(args[0::2]), [letters(s) for s in args[1::2]]
    out = None
    if len(terms) > len(ops):
        out = terms.pop()
    ops = ops[:len(terms)]
    return ",".join(terms) + ("" if out is None else "->" + out), ops


def einsum(*args):
    """Einstein summation (``torch.einsum``): ``vg.einsum('ij,jk->ik', a, b)`` is ``a @ b``,
    ``'ii->i'`` a diagonal, ``'bij,bjk->bik'`` a batched product, ``'...ij->...ji'``
    transposes the last two dims; without ``->`` the output is the labels seen once, in
    alphabetical order. The sublist form ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` works too.

    It is not one op: as in PyTorch it is built of diagonal, permute, sum, mul and bmm,
    which is what the graph shows (e.g. ``ViewBackward0`` over ``BmmBackward0``)."""
    if args and not isinstance(args[0], str):
        equation, operands = _from_sublists(args)
    else:
        equation, operands = (args[0], list(args[1:])) if args else (None, [])
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
    if not operands:   # (PyTorch's ValueError, its words)
        raise ValueError("einsum(): must specify the equation string and at least one "
                         "operand, or at least one operand and its subscripts list")
    for op in operands:
        if not isinstance(op, Tensor):
            raise TypeError(f"einsum(): expected Tensor operands, got {type(op).__name__}")
    return _einsum(equation, operands)


def _einsum(equation, operands):
    n_ops = len(operands)
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels = _parse_side(lhs, 0, n_ops)
    if len(op_labels) != n_ops:
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    count = [0] * 52
    ell_dims = 0
    for i, (t, labels) in enumerate(zip(operands, op_labels)):
        n_labels = sum(1 for s in labels if s != _ELLIPSIS)
        has_ell = _ELLIPSIS in labels
        for s in labels:
            if s != _ELLIPSIS:
                count[s] += 1
        if has_ell:
            ell_dims = max(ell_dims, t.dim() - n_labels)
        if (n_labels > t.dim()) if has_ell else (n_labels != t.dim()):
            what = ("is more than the number of dimensions" if has_ell else
                    "does not match the number of dimensions")
            tail = "" if has_ell else " and no ellipsis was given"
            raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                               f"({n_labels}) {what} ({t.dim()}) for operand {i}{tail}")

    # positions: output labels (and the ellipsis) first, then the contracted ones
    pos = [-1] * 52
    n = 0
    ell_at = 0
    ell_in_out = False
    if arrow < 0:
        n = ell_dims
        ell_in_out = True
        for s in range(52):
            if count[s] == 1:
                pos[s] = n
                n += 1
    else:
        rhs = equation[arrow + 2:]
        out_terms = _parse_side(rhs, arrow + 2, None)
        if len(out_terms) != 1:
            raise RuntimeError("einsum(): the output subscripts must be one term (no ',')")
        for s in out_terms[0]:
            if s == _ELLIPSIS:
                ell_at = n
                n += ell_dims
                ell_in_out = True
                continue
            if count[s] == 0 or pos[s] != -1:
                ch = _label_char(s)
                why = ("appears more than once in the output" if pos[s] != -1 else
                       "does not appear in the equation for any input operand")
                raise RuntimeError(f"einsum(): output subscript {ch} {why}")
            pos[s] = n
            n += 1
    n_out = n
    if not ell_in_out:
        ell_at = n
        n += ell_dims
    for s in range(52):
        if count[s] and pos[s] == -1:
            pos[s] = n
            n += 1

    ops, dim_counts = _align(operands, op_labels, pos, n, ell_at, ell_dims)

    while len(ops) > 1:
        a, b = ops.pop(0), ops.pop(0)
        sum_dims, a_sum, b_sum = [], [], []
        for d in range(n_out, n):
            if a.shape[d] != 1 and b.shape[d] != 1:
                dim_counts[d] -= 1
                if dim_counts[d] == 1:
                    sum_dims.append(d)
                    dim_counts[d] = 0
            elif dim_counts[d] == 1:
                if a.shape[d] != 1:
                    a_sum.append(d)
                    dim_counts[d] = 0
                elif b.shape[d] != 1:
                    b_sum.append(d)
                    dim_counts[d] = 0
        if a_sum:
            a = a.sum(tuple(a_sum), keepdim=True)
        if b_sum:
            b = b.sum(tuple(b_sum), keepdim=True)
        ops.insert(0, _sum_product(a, b, sum_dims))

    if n > n_out:
        if n_ops > 1:  # every contracted dim is size 1 by now: a view drops them
            return ops[0].view(tuple(ops[0].shape)[:n_out])
        return ops[0].sum(tuple(range(n_out, n)))
    return ops[0]


def _label_char(s):
    return chr(ord("A") + s) if s < 26 else chr(ord("a") + s - 26)


def _align(operands, op_labels, pos, n, ell_at, ell_dims):
    """Each operand brought to the common layout of ``n`` dims (diagonals for repeated
    labels, unsqueeze for missing ones, one permute); and, per position, how many
    operands have a size other than 1 there."""
    label_size = [1] * 52
    ell_size = [1] * ell_dims
    dim_counts = [0] * n
    ops = []
    for i, (t, labels) in enumerate(zip(operands, op_labels)):
        perm = [-1] * n
        op = t
        dim = 0
        for s in labels:
            if s == _ELLIPSIS:
                covered = t.dim() - (len(labels) - 1)
                for j in range(ell_dims - covered, ell_dims):
                    sz = op.shape[dim]
                    if sz != 1:
                        if ell_size[j] not in (1, sz):
                            raise RuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand "
                                f"{i}has size {sz} which does not broadcast with previously "
                                f"seen ellipsis with size {ell_size[j]} for the respective "
                                "dimension")
                        ell_size[j] = sz
                        dim_counts[ell_at + j] += 1
                    perm[ell_at + j] = dim
                    dim += 1
            elif perm[pos[s]] == -1:
                sz = op.shape[dim]
                if sz != 1:
                    if label_size[s] not in (1, sz):
                        raise RuntimeError(
                            f"einsum(): subscript {_label_char(s)} has size {sz} for operand "
                            f"{i} which does not broadcast with previously seen size "
                            f"{label_size[s]}")
                    label_size[s] = sz
                    dim_counts[pos[s]] += 1
                perm[pos[s]] = dim
                dim += 1
            else:  # a repeated label: its diagonal, put where the label first was
                prev = perm[pos[s]]
                if op.shape[dim] != op.shape[prev]:
                    raise RuntimeError(
                        f"einsum(): subscript {_label_char(s)} is repeated for operand {i} "
                        f"but the sizes don't match, {op.shape[dim]} != {op.shape[prev]}")
                op = op.diagonal(0, prev, dim).movedim(-1, prev)
        for k in range(n):
            if perm[k] == -1:
                op = op.unsqueeze(dim)
                perm[k] = dim
                dim += 1
        ops.append(op.permute(perm))
    return ops, dim_counts


def _sum_product(left, right, sum_dims):
    """sum over ``sum_dims`` of ``left * right`` (same number of dims, broadcasting),
    keeping the summed dims as size 1: one bmm between two permuted reshapes."""
    if not sum_dims:
        return left * right
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(left.dim()):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                _same(left, right, i)
                sum_size *= left.shape[i]
            elif sl:
                left = left.sum(i, keepdim=True)
            elif sr:
                right = right.sum(i, keepdim=True)
        elif sl and sr:
            _same(left, right, i)
            lro.append(i)
            lro_size *= left.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left.shape[i]
        else:
            ro.append(i)
            ro_size *= right.shape[i]
    out_size = ([left.shape[d] for d in lro] + [left.shape[d] for d in lo]
                + [1] * len(sum_dims) + [right.shape[d] for d in ro])
    lperm = lro + lo + list(sum_dims) + ro
    rperm = lro + list(sum_dims) + ro + lo
    operm = [0] * len(lperm)
    for k, d in enumerate(lperm):
        operm[d] = k
    a = left.permute(lperm).reshape(lro_size, lo_size, sum_size)
    b = right.permute(rperm).reshape(lro_size, sum_size, ro_size)
    return bmm(a, b).view(tuple(out_size)).permute(operm)


def _same(left, right, i):
    if left.shape[i] != right.shape[i]:
        raise RuntimeError("non-broadcast dimensions must match")


@method("outer", "ger")
def outer(self, vec2):
    """The outer product ``self[i] * vec2[j]`` of two 1-D tensors (``torch.outer``, alias
    ``ger``): as in PyTorch, ``self.reshape(-1, 1) * vec2`` — the graph shows
    ``MulBackward0`` over ``ViewBackward0``."""
    for name, v in (("self", self), ("vec2", vec2)):
        if not isinstance(v, Tensor):
            raise TypeError(f"outer(): argument '{name}' must be Tensor, not "
                            f"{type(v).__name__}")
        if v.dim() != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v.dim()}-D")
    return self.reshape(self.shape[0], 1) * vec2


# -- _trilinear: PyTorch's one node for bilinear -----------------------------------------
# ``_trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim)`` unsqueezes each input at
# its ``expand`` dims (so all three have the same rank), multiplies them and sums over
# ``sumdim``: bilinear is ``_trilinear(x1, W, x2, [1, 3], [0], [1, 2], [2, 3])``, that is
# ``y[n, o] = sum_ij x1[n, i] W[o, i, j] x2[n, j]``. Its gradient for each input is the
# same op with that input's role and the output's swapped (PyTorch's _trilinear_backward):
# TrilinearBackward0 again, so double backward is itself.

def _trilinear_fwd(i1, i2, i3, expand1, expand2, expand3, sumdim):
    ndim = i1.ndim + len(expand1)
    letters = "abcdefghijklmnopqrstuvwxyz"[:ndim]

    def sub(expand):
        return "".join(ch for d, ch in enumerate(letters) if d not in expand)
    eq = f"{sub(expand1)},{sub(expand2)},{sub(expand3)}->{sub(sumdim)}"
    return B.row_major(_xp_of(i1).einsum(eq, i1, i2, i3))   # (PyTorch's layout)


TRILINEAR = defop("_trilinear", "TrilinearBackward0", _trilinear_fwd,
                  inputs=("i1", "i2", "i3"), attrs=("expand1", "expand2", "expand3", "sumdim"),
                  i1=lambda grad, i2, i3, expand1, expand2, expand3, sumdim: trilinear(
                      grad, i2, i3, sumdim, expand2, expand3, expand1),
                  i2=lambda grad, i1, i3, expand1, expand2, expand3, sumdim: trilinear(
                      i1, grad, i3, expand1, sumdim, expand3, expand2),
                  i3=lambda grad, i1, i2, expand1, expand2, expand3, sumdim: trilinear(
                      i1, i2, grad, expand1, expand2, sumdim, expand3))


def trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim):
    """PyTorch's ``_trilinear`` (one ``TrilinearBackward0`` node)."""
    return dispatch(TRILINEAR, (i1, i2, i3), (tuple(expand1), tuple(expand2), tuple(expand3),
                                              tuple(sumdim)))
