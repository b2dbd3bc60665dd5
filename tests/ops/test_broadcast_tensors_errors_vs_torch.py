"""``broadcast_tensors`` of shapes that do not broadcast raises PyTorch's infer_size
error (the sizes, the dim in the result), each shape against the broadcast of those
before it; ``tensordot`` with an int ``dims`` past either rank, its RuntimeError."""
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


@pytest.mark.parametrize("shapes,dims", [(((2, 3), (3, 2)), 3), (((3,), (3, 2)), 2),
                                         (((2, 3), (2, 3)), 2), (((2, 3), (3,)), 1)])
def test_tensordot_dims_past_ndim(shapes, dims):
    # (an int dims larger than either tensor's rank: PyTorch's RuntimeError, not an IndexError)
    out = []
    for M in (torch, vg):
        try:
            out.append(("value", tuple(M.tensordot(*[M.ones(s) for s in shapes], dims=dims).shape)))
        except RuntimeError as e:
            out.append(("raised", str(e)))
    assert out[0] == out[1]
