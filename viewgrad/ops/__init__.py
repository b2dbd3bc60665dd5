"""Every operator: forward + its row in the derivatives table (see ops/table.py).

Importing this package attaches the ops to ``Tensor`` as methods and operators.
"""
from ..tensor import Tensor
from . import table
from .table import OPS, METHODS
from . import factories, pointwise, reduce, linalg, memory, inplace, nnops  # noqa: F401
from . import flat, views, joining, splitting, indexing  # noqa: F401
from . import unary, binary  # noqa: F401  (pointwise math beyond arithmetic)
from . import random, tensortypes  # noqa: F401  (sampling; FloatTensor & co., .type())
from . import conv, pool, norm, activations  # noqa: F401  (viewgrad.nn: conv, pooling, norms)
from . import fast  # noqa: F401  (array kernels for plain backward; after the table rows)

for _name, _fn in METHODS.items():
    setattr(Tensor, _name, _fn)

Tensor.T = property(lambda self: self.permute(*reversed(range(self.dim()))))
Tensor.mT = property(lambda self: self.transpose(-2, -1))
Tensor.__setitem__ = inplace.setitem

__all__ = ["OPS", "table"]
