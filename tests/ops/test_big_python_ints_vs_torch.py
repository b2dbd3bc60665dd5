"""Python ints past 64 bits in ``tensor()`` data, as PyTorch reads them: among floats
they are floats (the dtype is inferred from the kinds of the numbers), alone they are
int64 and overflow with PyTorch's ValueError (not the RuntimeError of a given dtype)."""
import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")

pytestmark = pytest.mark.host_only("compares with torch CPU tensors")


@pytest.mark.parametrize("data", [[2**64, 1.0], [[2**64, 1.5], [1, 2]], (2**70, 2.5),
                                  [2**64, 1j], [-2**63], [2**63 - 1], [True, 2**65 * 1.0]])
def test_values_and_dtypes(data):
    t, v = torch.tensor(data), vg.tensor(data)
    assert str(v.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert v.tolist() == t.tolist()


@pytest.mark.parametrize("data", [2**63, [2**64, 1], [2**70, True], [[1, 2], [3, -2**64]]])
def test_an_inferred_int64_overflows_with_a_value_error(data):
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        torch.tensor(data)
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        vg.tensor(data)


def test_a_given_dtype_keeps_its_runtime_error():
    for M in (torch, vg):
        with pytest.raises(RuntimeError, match="value cannot be converted to type"):
            M.tensor([300], dtype=M.uint8)
