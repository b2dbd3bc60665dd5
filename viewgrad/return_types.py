"""``vg.return_types``: the named tuples that ``max(dim)``, ``min(dim)``, ``sort``,
``topk``, ``kthvalue``, ``median(dim)``, ``mode`` and ``frexp`` return, as
``torch.return_types``.

Each is a ``tuple`` subclass (so ``values, indices = x.max(1)`` unpacks) with the fields
as attributes (``r.values``, ``r.indices``), printed as PyTorch prints it::

    torch.return_types.max(
    values=tensor([3., 5.]),
    indices=tensor([0, 1]))
"""
from __future__ import annotations

from operator import itemgetter

__all__ = ["max", "min", "sort", "topk", "kthvalue", "median", "nanmedian", "mode", "aminmax",
           "cummax",
           "cummin",
           "linalg_slogdet", "slogdet", "linalg_svd", "svd", "linalg_eigh", "linalg_qr", "qr",
           "linalg_lstsq", "triangular_solve", "frexp", "linalg_lu_factor",
           "linalg_lu_factor_ex", "linalg_lu", "lu_unpack", "linalg_inv_ex", "linalg_solve_ex",
           "linalg_cholesky_ex"]


class _StructSeq(tuple):
    """A fixed-length tuple with named fields (PyTorch's structseq)."""

    __slots__ = ()
    _fields: tuple = ()

    def __new__(cls, sequence):
        sequence = tuple(sequence)
        if len(sequence) != len(cls._fields):
            raise TypeError(f"torch.return_types.{cls.__name__}() takes a {len(cls._fields)}"
                            f"-sequence ({len(sequence)}-sequence given)")
        return tuple.__new__(cls, sequence)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
        return f"torch.return_types.{type(self).__name__}(\n{body})"

    __str__ = __repr__

    def __reduce__(self):
        return (type(self), (tuple(self),))

    @property
    def n_fields(self):
        return len(self._fields)

    n_sequence_fields = n_fields


def _structseq(name, fields=("values", "indices")):
    ns = {"__slots__": (), "_fields": fields, "__module__": __name__,
          "__doc__": f"What ``{name}`` returns: a tuple ({', '.join(fields)}) with the fields "
                     f"as attributes, as ``torch.return_types.{name}``."}
    for i, f in enumerate(fields):
        ns[f] = property(itemgetter(i), doc=f"Field {i} of the tuple.")
    return type(name, (_StructSeq,), ns)


max = _structseq("max")
min = _structseq("min")
sort = _structseq("sort")
topk = _structseq("topk")
kthvalue = _structseq("kthvalue")
median = _structseq("median")
nanmedian = _structseq("nanmedian")
mode = _structseq("mode")
aminmax = _structseq("aminmax", ("min", "max"))
cummax = _structseq("cummax")
cummin = _structseq("cummin")
# the linear-algebra results (ops/linalg_solve.py, ops/linalg_decomp.py)
linalg_slogdet = _structseq("linalg_slogdet", ("sign", "logabsdet"))
slogdet = _structseq("slogdet", ("sign", "logabsdet"))
linalg_svd = _structseq("linalg_svd", ("U", "S", "Vh"))
svd = _structseq("svd", ("U", "S", "V"))
linalg_eigh = _structseq("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_qr = _structseq("linalg_qr", ("Q", "R"))
qr = _structseq("qr", ("Q", "R"))
linalg_lstsq = _structseq("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
triangular_solve = _structseq("triangular_solve", ("solution", "cloned_coefficient"))
frexp = _structseq("frexp", ("mantissa", "exponent"))   # ops/mantissa.py
# the LU family (ops/linalg_lu.py)
linalg_lu_factor = _structseq("linalg_lu_factor", ("LU", "pivots"))
linalg_lu_factor_ex = _structseq("linalg_lu_factor_ex", ("LU", "pivots", "info"))
linalg_inv_ex = _structseq("linalg_inv_ex", ("inverse", "info"))
linalg_solve_ex = _structseq("linalg_solve_ex", ("result", "info"))
linalg_cholesky_ex = _structseq("linalg_cholesky_ex", ("L", "info"))
linalg_lu = _structseq("linalg_lu", ("P", "L", "U"))
lu_unpack = _structseq("lu_unpack", ("P", "L", "U"))
lu_with_info = _structseq("_lu_with_info", ("LU", "pivots", "info"))
