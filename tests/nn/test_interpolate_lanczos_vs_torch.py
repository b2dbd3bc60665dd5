"""``interpolate(mode='lanczos', antialias=True)`` (PyTorch 2.13's Lanczos-3 resizing,
``UpsampleLanczos2DAaBackward0``) against torch: values and gradients over random sizes
and scale factors, and PyTorch's refusals in its order. An output dim of size 1 is left
out: there PyTorch's CPU kernel returns a constant (as for its antialiased bilinear
and bicubic modes; Note [Antialiased resizing], nn/upsample.py), viewgrad the filter's
weighted mean."""
import numpy as np
import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")

pytestmark = pytest.mark.host_only("compares with torch CPU tensors")


def _run(M, a, kw):
    x = M.tensor(a, requires_grad=True)
    y = M.nn.functional.interpolate(x, mode="lanczos", antialias=True, **kw)
    w = M.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)))
    (y * w).sum().backward()
    return np.array(y.tolist()), np.array(x.grad.tolist()), y.grad_fn.name()


@pytest.mark.parametrize("seed", range(4))
def test_values_and_gradients(seed):
    rng = np.random.default_rng(seed)
    done = 0
    while done < 25:
        h, w = (int(v) for v in rng.integers(2, 9, size=2))
        if rng.random() < 0.4:
            kw = dict(size=tuple(int(v) for v in rng.integers(2, 10, size=2)))
        else:
            kw = dict(scale_factor=tuple(float(v) for v in
                                         rng.choice([0.5, 0.75, 1.0, 1.5, 2.0, 2.5], size=2)))
        a = rng.standard_normal((2, 1, h, w))
        try:
            theirs = _run(torch, a, kw)
        except RuntimeError:   # (a size that comes out 0: both refuse)
            with pytest.raises(RuntimeError):
                _run(vg, a, kw)
            continue
        if 1 in theirs[0].shape[-2:]:
            continue
        ours = _run(vg, a, kw)
        np.testing.assert_allclose(ours[0], theirs[0], atol=1e-12, err_msg=str((h, w, kw)))
        np.testing.assert_allclose(ours[1], theirs[1], atol=1e-12, err_msg=str((h, w, kw)))
        assert ours[2] == theirs[2] == "UpsampleLanczos2DAaBackward0"
        done += 1


@pytest.mark.parametrize("call", [
    lambda M: M.nn.functional.interpolate(M.ones(1, 1, 4, 4), size=(2, 2), mode="lanczos"),
    lambda M: M.nn.functional.interpolate(M.ones(1, 1, 4, 4), size=(2, 2), mode="lanczos",
                                          antialias=True, align_corners=True),
    lambda M: M.nn.functional.interpolate(M.ones(1, 1, 4), size=2, mode="lanczos"),
    lambda M: M.nn.functional.interpolate(M.ones(1, 1, 4), size=2, mode="lanczos",
                                          antialias=True),
    lambda M: M.nn.functional.interpolate(M.ones(1, 1, 4), size=2, mode="nonsense"),
])
def test_refusals(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(Exception) as ours:
        call(vg)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value).startswith(str(theirs.value))
