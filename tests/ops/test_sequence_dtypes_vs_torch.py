"""``tensor()`` of lists holding NumPy scalars infers the dtype as PyTorch does: each
element's own type promoted across them (``[1.0, np.float64(0.1)]`` is float64: a float32
would round 0.1 silently), and ``as_tensor`` of a tensor to another dtype keeps its history
(ToCopyBackward0)."""
import numpy as np
import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")

pytestmark = pytest.mark.host_only("compares with torch CPU tensors")

CASES = [[1.0, np.float64(0.1)], [np.int32(1), np.int32(2)], [np.int32(1), 2],
         [np.float16(1), 2.5], [np.float32(1.5), 2], [[np.float64(1)], [2.0]],
         [True, np.int8(3)], [np.bool_(True), False], [np.float64(1), 1j], [np.uint8(3), -1],
         [np.int64(2**40), 1.5], (np.float64(2),), [[1, 2], [np.int16(3), 4]]]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_the_dtype_and_values(i):
    t, v = torch.tensor(CASES[i]), vg.tensor(CASES[i])
    assert str(v.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert v.tolist() == t.tolist()


def test_as_tensor_to_another_dtype_keeps_the_history():
    for M in (torch, vg):
        x = M.ones(2, requires_grad=True)
        y = M.as_tensor(x, dtype=M.float64)
        assert y.grad_fn.name() == "ToCopyBackward0" and M.as_tensor(x) is x
        (y * 3).sum().backward()
        assert x.grad.tolist() == [3.0, 3.0]
