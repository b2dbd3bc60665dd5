"""det's gradient at a singular matrix (a determinant of exactly 0), against PyTorch
(Note [det's gradient at a singular matrix]): 0 in a plain backward, the cofactors with
create_graph, and the double backward through them. Before, viewgrad raised
linalg.inv's singular-matrix error from inside the backward."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compares with torch CPU tensors through .numpy()")

MATRICES = {
    "rank 1": [[1.0, 2.0], [2.0, 4.0]],
    "repeated row": [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [4.0, 5.0, 7.0]],
    "zero": [[0.0, 0.0], [0.0, 0.0]],
    "zero pivot": [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 2.0]],
    "batch, one singular": [[[1.0, 2.0], [2.0, 4.0]], [[1.0, 2.0], [3.0, 4.0]]],
    "invertible": [[2.0, 1.0], [1.0, 3.0]],
}


def _run(M, m, create_graph):
    A = M.tensor(m, dtype=M.float64, requires_grad=True)
    d = M.linalg.det(A)
    g, = M.autograd.grad((d * M.tensor(1.5, dtype=M.float64)).sum(), A,
                         create_graph=create_graph)
    out = [d.detach().numpy(), g.detach().numpy()]
    if create_graph:
        out.append(M.autograd.grad((g * g).sum(), A)[0].numpy())
    return out


@pytest.mark.parametrize("create_graph", [False, True], ids=["plain", "create_graph"])
@pytest.mark.parametrize("name", list(MATRICES))
def test_det_gradient_at_singular_matrices_as_torch(name, create_graph):
    torch = torch_or_skip()
    ours = _run(vg, MATRICES[name], create_graph)
    theirs = _run(torch, MATRICES[name], create_graph)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True)
