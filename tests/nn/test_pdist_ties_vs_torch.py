"""``F.pdist`` with ties (rows of small integers, so equal coordinates and equal
differences are common) against torch, for p = 0, 0.5, 1, 2, 3 and inf: values and
gradients. The inf-norm gives every tied coordinate the whole gradient, as PyTorch's
pdist backward does (norm(inf) would split it between them)."""
import numpy as np
import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")

pytestmark = pytest.mark.host_only("compares with torch CPU tensors")


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 2.0, 3.0, float("inf")])
def test_pdist_values_and_gradients(p):
    rng = np.random.default_rng(int(p * 10) if p != float("inf") else 99)
    for _ in range(40):
        a = rng.integers(-2, 3, size=(int(rng.integers(2, 5)), int(rng.integers(1, 4))))
        out = []
        for M in (torch, vg):
            x = M.tensor(a.astype(float), requires_grad=True)
            r = M.nn.functional.pdist(x, p)
            (r * M.tensor(np.arange(r.numel()) + 1.0)).sum().backward()
            out.append((np.array(r.tolist()), np.array(x.grad.tolist())))
        np.testing.assert_allclose(out[1][0], out[0][0], rtol=1e-12, err_msg=str(a))
        np.testing.assert_allclose(out[1][1], out[0][1], rtol=1e-12, equal_nan=True,
                                   err_msg=str(a))
