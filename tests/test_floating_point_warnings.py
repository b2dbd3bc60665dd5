"""Note [floating-point warnings] (backend/__init__.py): PyTorch computes 1/0, 0/0, log(0),
sqrt(-1) and overflow silently; viewgrad's NumPy calls must not warn either, so a script
run with ``python -W error`` behaves as it does under torch. The user's own NumPy still
warns."""
import subprocess
import sys

import pytest

PROGRAM = r"""
import numpy as np
import viewgrad as vg
x = vg.tensor([1.0, 0.0, -1.0, 1e30], requires_grad=True)
parts = [x / 0.0, (x * 0) / (x * 0), x.log(), x.sqrt(), x.exp(), x.reciprocal(), x.rsqrt(),
         x.log1p(), x.pow(-1.5), vg.nn.functional.cross_entropy(
             x.reshape(1, 4), vg.tensor([-100]))]
sum(p.sum() for p in parts).backward()
y = vg.tensor([0.0, 1.0], requires_grad=True)
(y.log() * y).sum().backward(create_graph=True)
print("quiet", [round(float(v), 3) for v in y.grad.nan_to_num().tolist()])
try:
    np.array([1.0]) / 0.0
except RuntimeWarning as e:
    print("numpy warns:", e)
"""


@pytest.mark.once
def test_no_numpy_floating_point_warning_escapes_viewgrad():
    out = subprocess.run([sys.executable, "-W", "error", "-c", PROGRAM], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "quiet" in out.stdout
    assert "numpy warns: divide by zero encountered in divide" in out.stdout


# Note [warnings from NumPy's own Python] (backend/reductions.py): reductions whose NumPy
# implementation is Python (ndarray.sum/.mean/.prod, np.nansum, np.linalg.det...) are
# quiet too, on inf - inf, 0 * inf, empty means and singular matrices; the user's own
# np.sum still warns.
REDUCTIONS = r"""
import math
import numpy as np
import viewgrad as vg
F = vg.nn.functional
inf, nan = math.inf, math.nan
x = vg.tensor([0.0, -0.0, 1.0, inf, -inf, nan, 1e38, 1e38, 0.5], requires_grad=True)
m = vg.tensor([[0.0, inf], [nan, 1.0], [-inf, inf]], requires_grad=True)
parts = [x.sum(), x.mean(), x.prod(), x.cumsum(0).sum(), x.cumprod(0).sum(), x.nansum(),
         x.nanmean(), x.std(), x.var(), sum(vg.std_mean(m, 0)).sum(),
         sum(vg.var_mean(m, 1)).sum(), m.sum(0).sum(), m.mean(1).sum(), m.prod(1).sum(),
         F.layer_norm(x, (9,)).sum(), F.group_norm(m.reshape(1, 3, 2), 1).sum(),
         F.batch_norm(m.reshape(3, 2, 1), None, None, training=True).sum(),
         F.instance_norm(m.reshape(1, 3, 2)).sum(),
         F.avg_pool1d(x.reshape(1, 1, 9), 2).sum(),
         F.adaptive_avg_pool1d(x.reshape(1, 1, 9), 4).sum(),
         vg.linalg.det(m[:2]), vg.logdet(m[:2]), vg.linalg.slogdet(m[:2])[1]]
total = sum(parts)
total.backward()
e = vg.zeros(0, 3)
print("quiet", e.mean().item(), e.mean(0).tolist(), vg.linalg.det(vg.zeros(2, 2)).item())
try:
    np.sum(np.array([np.inf, -np.inf]))
except RuntimeWarning as err:
    print("numpy warns:", err)
"""


@pytest.mark.once
def test_reductions_keep_numpys_python_warnings_inside():
    out = subprocess.run([sys.executable, "-W", "error", "-c", REDUCTIONS],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "quiet nan [nan, nan, nan] 0.0" in out.stdout
    assert "numpy warns: invalid value encountered in reduce" in out.stdout
