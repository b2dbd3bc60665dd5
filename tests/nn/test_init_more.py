"""nn.init's structured initialisers (orthogonal, eye, dirac, truncated normal) and
torch.testing.assert_close: the properties that define them, and torch's dirac/eye
values."""
import numpy as np
import pytest

import viewgrad as vg
from viewgrad.compat.testing import assert_close
from viewgrad.nn import init


def test_orthogonal_rows_or_columns():
    for shape in [(3, 5), (5, 3), (4, 2, 2)]:
        w = init.orthogonal_(vg.empty(*shape, dtype=vg.float64), gain=2.0)
        m = w.reshape(shape[0], -1)
        g = m @ m.t() if shape[0] <= m.shape[1] else m.t() @ m
        np.testing.assert_allclose(g.cpu().numpy(), 4 * np.eye(g.shape[0]), atol=1e-10)


def test_eye_dirac_match_torch():
    torch = pytest.importorskip("torch", reason="torch is the test-only oracle")
    assert init.eye_(vg.empty(2, 3)).tolist() == torch.nn.init.eye_(torch.empty(2, 3)).tolist()
    for shape, groups in [((4, 2, 3, 3), 1), ((4, 2, 3), 2), ((2, 2, 1, 3, 3), 1)]:
        assert init.dirac_(vg.empty(*shape), groups).tolist() == \
            torch.nn.init.dirac_(torch.empty(*shape), groups).tolist()


def test_trunc_normal_stays_in_bounds_and_writes_in_place():
    w = vg.empty(2000)
    v = w._version
    out = init.trunc_normal_(w, mean=0.5, std=1.0, a=0.0, b=1.0)
    assert out is w and w._version > v
    assert 0.0 <= w.min().item() and w.max().item() <= 1.0
    assert abs(w.mean().item() - 0.5) < 0.05


def test_assert_close():
    assert_close(vg.ones(3), vg.ones(3) + 1e-7)
    assert_close({"a": [vg.tensor(1.0)]}, {"a": [vg.tensor(1.0)]})
    with pytest.raises(AssertionError, match="Mismatched elements: 1 / 2"):
        assert_close(vg.tensor([1.0, 2.0]), vg.tensor([1.0, 2.5]))
    with pytest.raises(AssertionError, match="dtype"):
        assert_close(vg.ones(1, dtype=vg.float64), vg.ones(1))
    assert_close(vg.tensor([float("nan")]), vg.tensor([float("nan")]), equal_nan=True)


def test_zero_clears_nan_and_uninitialised_memory():
    t = vg.tensor([float("nan"), float("inf"), 1.0])
    assert t.zero_().tolist() == [0.0, 0.0, 0.0]
    assert init.zeros_(vg.empty(3, 3)).abs().sum().item() == 0.0
