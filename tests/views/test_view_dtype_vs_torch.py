"""``x.view(dtype)``, ``x.real`` and ``x.imag`` as PyTorch's (Note [a view as another
dtype], ops/memory.py): the bytes read as another dtype, the geometry between element
sizes, PyTorch's checks in its order, and the autograd side — no history, no autograd
view, but x's version counter shared, so a saved x modified through it is refused."""
import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")

pytestmark = pytest.mark.host_only("compares with torch CPU tensors")

CASES = {
    "same size": lambda M: M.arange(6.).reshape(2, 3).view(M.int32),
    "smaller": lambda M: M.arange(6.).reshape(2, 3).view(M.int16),
    "bytes": lambda M: M.arange(6.).reshape(2, 3).view(M.uint8),
    "bool": lambda M: M.ones(4, dtype=M.float64).view(M.bool),
    "larger": lambda M: M.arange(8.).reshape(2, 4).view(M.float64),
    "permuted smaller": lambda M: M.ones(2, 3, 4).permute(1, 0, 2).view(M.int8),
    "permuted larger": lambda M: M.ones(2, 3, 4).permute(1, 0, 2).view(M.float64),
    "expanded": lambda M: M.ones(4).expand(3, 4).view(M.float64),
    "offset": lambda M: M.ones(4)[1:].view(M.int8),
    "0-d same size": lambda M: M.tensor(1.5).view(M.int32),
    "empty": lambda M: M.ones(0, 4).view(M.float64),
    "half bits": lambda M: M.tensor([1., -2.], dtype=M.float16).view(M.int16),
    "ints as floats": lambda M: M.tensor([1065353216, -1082130432], dtype=M.int32).view(M.float32),
    "keyword": lambda M: M.ones(2).view(dtype=M.int32),
    # PyTorch's refusals, in its order
    "size": lambda M: M.arange(6.).reshape(2, 3).view(M.float64),
    "transposed size": lambda M: M.ones(3, 4).t().view(M.float64),
    "transposed stride": lambda M: M.ones(4, 4).t().view(M.float64),
    "stepped smaller": lambda M: M.ones(2, 4)[:, ::2].view(M.int16),
    "stepped offset": lambda M: M.ones(4, 8)[:, 1::2].view(M.float64),
    "odd stride": lambda M: M.arange(6.).reshape(2, 3)[:, :2].view(M.float64),
    "empty stride": lambda M: M.ones(3, 0).view(M.float64),
    "0-d": lambda M: M.tensor(1.).view(M.float64),
    "real of float": lambda M: M.ones(2).real,
    "imag of float": lambda M: M.ones(2).imag,
    "real of complex": lambda M: M.tensor([1 + 2j, 3 - 1j]).real,
    "imag of complex": lambda M: M.tensor([1 + 2j, 3 - 1j]).imag,
}


def _what(M, fn, base=True):
    try:
        r = fn(M)
    except RuntimeError as e:
        return "RuntimeError", str(e)
    # (a complex tensor's real and imag parts have no autograd view in viewgrad, which has
    # no complex gradients: their _base is not compared)
    return (tuple(r.shape), tuple(r.stride()), r.storage_offset(), str(r.dtype).split(".")[-1],
            r.tolist(), r.requires_grad, r.grad_fn is None, r._base is None if base else None)


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_torch(name):
    base = "of complex" not in name
    assert _what(vg, CASES[name], base) == _what(torch, CASES[name], base)


def test_outside_the_graph_but_on_the_version_counter():
    outs = []
    for M in (torch, vg):
        x = M.ones(3, requires_grad=True)
        y = x * 2
        z = y.exp()                      # saves its result: z
        bits = z.view(M.int32)
        out = [bits.requires_grad, bits.grad_fn is None, bits.is_leaf]
        bits.add_(1)                      # z's version moves
        out.append(z._version)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.sum().backward()
        w = M.ones(2, requires_grad=True)
        same = w.view(w.dtype)
        out += [same.requires_grad, same.grad_fn is None, same._base is None]
        outs.append(out)
    assert outs[0] == outs[1]


def test_writes_through_the_other_dtype_show_in_x():
    outs = []
    for M in (torch, vg):
        x = M.zeros(2)
        x.view(M.int32)[0] = 1065353216   # the bits of 1.0
        z = M.tensor([1 + 2j])
        z.real.mul_(3)
        outs.append((x.tolist(), x._version, z.tolist(), z._version))
    assert outs[0] == outs[1]
