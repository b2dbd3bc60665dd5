"""Random sampling (ops/random.py): Generator streams (determinism, independence, state),
shapes and dtypes of every sampler, their statistics (loose, seeded bounds), the in-place
samplers through the choke point, and the legacy constructors (FloatTensor, .type(),
autograd.Variable). That the numbers are PyTorch's own is tested against PyTorch in
test_torch_streams.py."""
import math

import pytest

import viewgrad as vg
from viewgrad.autograd import Variable


def _stream(g):
    return [vg.rand(4, generator=g).tolist(), vg.randn(size=(2, 2), generator=g).tolist(),
            vg.randint(0, 100, (3,), generator=g).tolist(), vg.randperm(6, generator=g).tolist(),
            vg.multinomial(vg.tensor([1.0, 2.0, 3.0]), 2, generator=g).tolist(),
            vg.normal(vg.zeros(3), 2.0, generator=g).tolist(),
            vg.bernoulli(vg.full((5,), 0.5), generator=g).tolist(),
            vg.ones(3).uniform_(generator=g).tolist(), vg.ones(3).normal_(generator=g).tolist()]


def test_a_generator_seeded_twice_gives_the_same_stream():
    g = vg.Generator().manual_seed(1234)
    first = _stream(g)
    assert _stream(g) != first                       # the stream moves on
    assert _stream(g.manual_seed(1234)) == first     # reseeding starts it again
    assert _stream(vg.Generator().manual_seed(1234)) == first
    assert _stream(vg.Generator().manual_seed(4321)) != first


def test_generators_are_independent_of_the_global_one():
    vg.manual_seed(5)
    a = vg.rand(3).tolist()
    vg.manual_seed(5)
    vg.rand(2, generator=vg.Generator().manual_seed(9))   # does not advance the global one
    assert vg.rand(3).tolist() == a


def test_manual_seed_returns_the_global_generator_and_state_round_trips():
    g = vg.manual_seed(7)
    assert isinstance(g, vg.Generator) and g is vg.default_generator
    assert vg.initial_seed() == 7 and g.initial_seed() == 7
    state = vg.get_rng_state()
    assert state.dtype == vg.uint8
    a = vg.randn(4).tolist()
    vg.set_rng_state(state)
    assert vg.randn(4).tolist() == a
    with pytest.raises(TypeError, match="uint8 tensor"):
        g.set_state([1, 2])


def test_shapes_and_dtypes_of_the_samplers():
    assert vg.rand(2, 3).shape == (2, 3) and vg.rand((2, 3)).dtype == vg.float32
    assert vg.randn(size=(4,), dtype=vg.float64).dtype == vg.float64
    assert vg.randint(10, (2, 2)).dtype == vg.int64
    r = vg.randint(3, 5, (100,), generator=vg.Generator().manual_seed(0))
    assert set(r.tolist()) == {3, 4}
    assert sorted(vg.randperm(7).tolist()) == list(range(7))
    x = vg.ones(2, 3, dtype=vg.float64)
    assert vg.rand_like(x).dtype == vg.float64 and vg.randn_like(x).shape == (2, 3)
    assert vg.randint_like(x, 4).dtype == vg.float64 and vg.randint_like(x, 4).max() < 4
    assert vg.normal(0.0, 1.0, (2, 5)).shape == (2, 5)
    assert vg.normal(vg.zeros(3, 1), vg.ones(4)).shape == (3, 4)
    assert vg.normal(1.0, vg.ones(2)).shape == (2,)
    m = vg.multinomial(vg.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]), 1)
    assert m.dtype == vg.int64 and m.tolist() == [[1], [0]]
    assert vg.logspace(0, 2, 3).tolist() == pytest.approx([1.0, 10.0, 100.0])


def test_sampling_statistics():
    g = vg.Generator().manual_seed(0)
    n = 20000
    u = vg.rand(n, generator=g, dtype=vg.float64)
    assert abs(u.mean().item() - 0.5) < 0.01 and 0 <= u.min().item() and u.max().item() < 1
    z = vg.randn(n, generator=g, dtype=vg.float64)
    assert abs(z.mean().item()) < 0.03 and abs((z * z).mean().item() - 1) < 0.05
    w = vg.normal(3.0, 2.0, (n,), generator=g).double()
    assert abs(w.mean().item() - 3) < 0.06
    b = vg.bernoulli(vg.full((n,), 0.2, dtype=vg.float64), generator=g)
    assert abs(b.mean().item() - 0.2) < 0.015
    e = vg.empty(n, dtype=vg.float64).exponential_(2.0, generator=g)
    assert abs(e.mean().item() - 0.5) < 0.02
    counts = [0, 0, 0]
    for i in vg.multinomial(vg.tensor([1.0, 2.0, 7.0]), 5000, replacement=True,
                            generator=g).tolist():
        counts[i] += 1
    assert abs(counts[2] / 5000 - 0.7) < 0.03 and abs(counts[0] / 5000 - 0.1) < 0.02
    draws = vg.multinomial(vg.tensor([1.0, 1.0, 1.0, 1.0]), 4, generator=g).tolist()
    assert sorted(draws) == [0, 1, 2, 3]                 # without replacement: no repeats


def test_sampler_errors_are_pytorchs():
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist"):
        vg.multinomial(vg.tensor([1.0, 1.0]), 3)
    with pytest.raises(RuntimeError, match="sum of probabilities <= 0"):
        vg.multinomial(vg.zeros(3), 1)
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0"):
        vg.normal(0.0, -1.0, (2,))
    with pytest.raises(TypeError, match="generator must be a viewgrad.Generator"):
        vg.rand(2, generator=3)


def test_in_place_samplers_go_through_the_choke_point():
    w = vg.ones(4, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        w.uniform_()
    with vg.no_grad():
        w.normal_(0.0, 0.02, generator=vg.Generator().manual_seed(0))
    assert w._version == 1 and w.is_leaf
    h = w * 1
    h[:2].uniform_(-1, 1)
    assert h.grad_fn.name() == "torch::autograd::CopySlices"
    (h * 3).sum().backward()
    assert w.grad.tolist() == [0.0, 0.0, 3.0, 3.0]     # the overwritten half gets no gradient
    for name, args in [("bernoulli_", (0.5,)), ("exponential_", ()), ("random_", (0, 9)),
                       ("log_normal_", ()), ("cauchy_", ()), ("geometric_", (0.5,))]:
        y = vg.zeros(3, dtype=vg.float64)
        getattr(y, name)(*args)
        assert y._version == 1
    r = vg.zeros(1000).random_(0, 3, generator=vg.Generator().manual_seed(1))
    assert set(r.tolist()) == {0.0, 1.0, 2.0}


def test_legacy_constructors_type_and_variable(device):
    x = vg.FloatTensor(2, 3)
    assert x.shape == (2, 3) and x.dtype == vg.float32
    assert vg.LongTensor([1, 2]).dtype == vg.int64 and vg.DoubleTensor([1]).dtype == vg.float64
    assert isinstance(vg.ones(2), vg.FloatTensor) and not isinstance(vg.ones(2), vg.LongTensor)
    # on a GPU PyTorch names the CUDA type: torch.ones(2, device="cuda").type()
    assert vg.ones(2).type() == ("torch.cuda.FloatTensor" if device == "cuda"
                                 else "torch.FloatTensor")
    assert vg.ones(2).type(vg.DoubleTensor).dtype == vg.float64
    assert vg.ones(2).type("torch.LongTensor").dtype == vg.int64
    assert vg.ones(2).type(vg.int32).dtype == vg.int32
    for m, dt in [("float", vg.float32), ("double", vg.float64), ("long", vg.int64),
                  ("int", vg.int32), ("bool", vg.bool), ("byte", vg.uint8)]:
        assert getattr(vg.tensor([1, 0]), m)().dtype == dt
    assert vg.Tensor(2, 3).shape == (2, 3) and vg.Tensor([1, 2]).dtype == vg.float32
    a = vg.ones(2)
    v = Variable(a, requires_grad=True)
    assert v is not a and v.is_leaf and v.requires_grad and not a.requires_grad
    assert isinstance(a, Variable)
    b = vg.ones(2, requires_grad=True) * 2
    assert Variable(b).grad_fn is None and not Variable(b).requires_grad
    with pytest.warns(UserWarning, match="volatile was removed"):
        Variable(a, volatile=True)
    (Variable(a, requires_grad=True) * 3).sum().backward()


def test_random_values_against_torch_conventions():
    torch = pytest.importorskip("torch", reason="PyTorch oracle not installed: pip install "
                                "torch==2.13.0 to compare conventions")
    assert vg.randint(5, (3,)).dtype == vg.int64 and torch.randint(5, (3,)).dtype == torch.int64
    assert str(vg.bernoulli(vg.ones(2, dtype=vg.float64)).dtype) == "float64"
    assert torch.bernoulli(torch.ones(2, dtype=torch.float64)).dtype == torch.float64
    assert math.isclose(vg.logspace(-1, 1, 5, base=2).tolist()[0], torch.logspace(
        -1, 1, 5, base=2).tolist()[0], rel_tol=1e-6)
