"""``torch.index_put`` / ``Tensor.index_put`` (out of place) against PyTorch: values,
gradients of self and values, the node and its edges, accumulate, masks, and refusals."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import raised

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")

pytestmark = pytest.mark.host_only("compares with torch CPU tensors")


def _run(M, key_fn, vshape, accumulate, as_function):
    x = M.arange(12.0, dtype=M.float64).reshape(3, 4).requires_grad_()
    v = (M.arange(float(np.prod(vshape)), dtype=M.float64).reshape(vshape) + 100
         ).requires_grad_()
    key = key_fn(M)
    r = M.index_put(x, key, v, accumulate) if as_function else \
        x.index_put(key, v, accumulate=accumulate)
    (r * M.arange(12.0, dtype=M.float64).reshape(3, 4)).sum().backward()
    return (r.tolist(), x.grad.tolist(), v.grad.tolist(), r.grad_fn.name(),
            [f is not None for f, _ in r.grad_fn.next_functions], x.tolist())


KEYS = [
    (lambda M: (M.tensor([0, 2]),), (4,)),
    (lambda M: (M.tensor([0, 2, 0]),), (3, 4)),
    (lambda M: (M.tensor([True, False, True]),), (2, 4)),
    (lambda M: (M.tensor([1, 2]), M.tensor([3, 0])), (2,)),
    (lambda M: (M.tensor([[1], [2]]), M.tensor([3, 0])), ()),
    (lambda M: [M.tensor([-1])], (1, 4)),
]


@pytest.mark.parametrize("i", range(len(KEYS)))
@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("as_function", [False, True])
def test_index_put_as_pytorchs(i, accumulate, as_function):
    key_fn, vshape = KEYS[i]
    assert _run(vg, key_fn, vshape, accumulate, as_function) == \
        _run(torch, key_fn, vshape, accumulate, as_function)


def test_index_put_refusals_as_pytorchs():
    for fn in [lambda M, x: x.index_put((M.tensor([0]), None), M.tensor(1.)),
               lambda M, x: x.index_put((M.tensor([0]),), 1.0),
               lambda M, x: x.index_put(M.tensor([0]), M.tensor(1.)),
               lambda M, x: M.index_put(x, (M.tensor([5]),), M.tensor(1.))]:
        assert raised(lambda: fn(vg, vg.zeros(3, 4)))[0] == raised(
            lambda: fn(torch, torch.zeros(3, 4)))[0]
