"""``broadcast_tensors`` of shapes that do not broadcast raises PyTorch's infer_size
error (the sizes, the dim in the result), each shape against the broadcast of those
before it."""
import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")

pytestmark = pytest.mark.host_only("compares with torch CPU tensors")


@pytest.mark.parametrize("shapes", [((2,), (4,)), ((3, 1), (2, 4)), ((2, 3), (3, 2)),
                                    ((5,), (2, 3)), ((2,), (3,), (4,)), ((1, 3), (2, 1), (4, 1))])
def test_the_error_is_torchs(shapes):
    with pytest.raises(RuntimeError) as theirs:
        torch.broadcast_tensors(*[torch.ones(s) for s in shapes])
    with pytest.raises(RuntimeError) as ours:
        vg.broadcast_tensors(*[vg.ones(s) for s in shapes])
    assert str(ours.value).startswith(str(theirs.value))
