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
