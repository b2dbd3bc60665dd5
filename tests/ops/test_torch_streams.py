"""PyTorch's numbers from PyTorch's seeds (ops/streams.py): after the same ``manual_seed``
every sampler, the nn initialisations, dropout and the data loaders give what PyTorch
2.13's CPU generator gives — so a PyTorch script run on viewgrad starts from the same
weights and sees the same batches. PyTorch is the oracle (skipped, saying why, when it is
not installed); float32 normals agree to a few ulps (PyTorch computes them with vector
instructions), everything else exactly."""
import numpy as np
import pytest

import viewgrad as vg
from viewgrad.utils import data as vgdata

from ..helpers import torch_or_skip

pytestmark = pytest.mark.once   # host-side streams: the same numbers on every device

P = [[0.1, 0.2, 0.3, 0.4], [0.5, 0.1, 0.1, 0.3]]

# name -> (torch program, viewgrad program); `m` is the library (torch or viewgrad)
CASES = {
    "rand": lambda m: m.rand(3, 5),
    "rand_float64": lambda m: m.rand(7, dtype=m.float64),
    "rand_size_kw": lambda m: m.rand(size=(2, 3)),
    "randn_short_pairs_cached": lambda m: (m.randn(3), m.randn(3), m.randn(1)),
    "randn_16": lambda m: m.randn(16),
    "randn_tail_redrawn": lambda m: m.randn(37),
    "randn_float64": lambda m: (m.randn(5, dtype=m.float64), m.randn(40, dtype=m.float64)),
    "randn_like": lambda m: m.randn_like(m.zeros(4, 5)),
    "randint": lambda m: m.randint(3, 10, (4, 4)),
    "randint_wide": lambda m: m.randint(0, 2 ** 40, (5,)),
    "randint_like": lambda m: m.randint_like(m.zeros(6), 7),
    "randperm": lambda m: (m.randperm(1), m.randperm(5), m.randperm(50)),
    "uniform_": lambda m: m.empty(5, 3).uniform_(-2, 3),
    "uniform_float64": lambda m: m.empty(4, dtype=m.float64).uniform_(-1, 1),
    "normal_": lambda m: m.empty(5, 7).normal_(1, 2),
    "normal_on_transposed_view": lambda m: m.empty(5, 7).t().normal_(1, 2),
    "uniform_on_transposed_view": lambda m: m.empty(3, 4).t().uniform_(),
    "bernoulli_p": lambda m: m.empty(50).bernoulli_(0.3),
    "bernoulli_tensor": lambda m: m.bernoulli(m.full((6, 7), 0.4)),
    "exponential_": lambda m: m.empty(9).exponential_(3.0),
    "cauchy_": lambda m: m.empty(9, dtype=m.float64).cauchy_(),
    "log_normal_": lambda m: m.empty(9, dtype=m.float64).log_normal_(),
    "geometric_": lambda m: m.empty(9).geometric_(0.3),
    "random_float": lambda m: m.empty(9).random_(),
    "random_int64": lambda m: m.empty(9, dtype=m.int64).random_(),
    "random_to": lambda m: m.empty(9).random_(5),
    "random_from_to": lambda m: m.empty(9, dtype=m.int64).random_(-3, 3),
    "multinomial": lambda m: (m.multinomial(m.tensor(P), 3),
                              m.multinomial(m.tensor([0.2, 0.8]), 1)),
    "multinomial_replacement": lambda m: m.multinomial(m.tensor(P), 9, True),
    "normal_tensor_tensor": lambda m: m.normal(m.zeros(20), m.ones(20) * 2),
    "normal_tensor_float": lambda m: m.normal(m.arange(5.0), 2.0),
    "normal_floats_size": lambda m: m.normal(2.0, 3.0, size=(4,)),
    "poisson": lambda m: m.poisson(m.tensor([0.5, 3.0, 12.0, 40.0], dtype=m.float64)),
    "generator": lambda m: m.randn(5, generator=m.Generator().manual_seed(3)),
    "fresh_generator_default_seed": lambda m: m.rand(3, generator=m.Generator()),
    "negative_seed": lambda m: m.rand(3, generator=m.Generator().manual_seed(-5)),
    "mixed_sequence": lambda m: (m.rand(3), m.randn(3), m.randint(0, 5, (3,)), m.randn(20),
                                 m.randn(1)),
    "linear_init": lambda m: tuple(m.nn.Linear(5, 3).parameters()),
    "conv_init": lambda m: tuple(m.nn.Conv2d(2, 3, 3).parameters()),
    "embedding_init": lambda m: m.nn.Embedding(10, 4).weight,
    "dropout": lambda m: m.nn.functional.dropout(m.ones(40), 0.3),
    "dropout_module": lambda m: m.nn.Dropout(0.5)(m.ones(3, 5)),
    "dropout2d": lambda m: m.nn.functional.dropout2d(m.ones(2, 6, 2, 2), 0.3),
    "xavier_normal": lambda m: m.nn.init.xavier_normal_(m.empty(4, 6)),
    "kaiming_normal": lambda m: m.nn.init.kaiming_normal_(m.empty(4, 6)),
    "trunc_normal": lambda m: m.nn.init.trunc_normal_(m.empty(4, 6), std=0.02),
    "trunc_normal_rejection": lambda m: m.nn.init.trunc_normal_(m.empty(4, 6), mean=0.5,
                                                                a=0.0, b=0.2),
    "orthogonal": lambda m: m.nn.init.orthogonal_(m.empty(3, 5)),
}


def _leaves(v):
    """The results as a flat list of host arrays."""
    if isinstance(v, (tuple, list)):
        return [a for x in v for a in _leaves(x)]
    return [np.asarray(v.detach().cpu().numpy())]


def _run(m, fn):
    m.manual_seed(11)
    return _leaves(fn(m))


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_seed_same_numbers_as_pytorch(name):
    torch = torch_or_skip()
    theirs, ours = _run(torch, CASES[name]), _run(vg, CASES[name])
    assert len(theirs) == len(ours)
    for a, b in zip(theirs, ours):
        assert a.shape == b.shape and a.dtype == b.dtype, (a, b)
        _same(a, b)


def _same(a, b):
    if a.dtype == np.float32:    # PyTorch's vectorised float32 log/sin/cos
        np.testing.assert_allclose(b, a, rtol=2e-6, atol=2e-6)
    elif a.dtype == np.float64:  # PyTorch's fused multiply-add: the last bit may differ
        np.testing.assert_allclose(b, a, rtol=1e-15, atol=1e-16)
    else:
        np.testing.assert_array_equal(b, a)


def test_the_global_generator_starts_from_pytorchs_default_seed():
    torch = torch_or_skip()
    assert vg.Generator().initial_seed() == torch.Generator().initial_seed()


def _loader_epochs(m, data):
    m.manual_seed(3)
    ds = data.TensorDataset(m.arange(10.0))
    loader = data.DataLoader(ds, batch_size=4, shuffle=True)
    plain = data.DataLoader(ds, batch_size=5)           # draws a base seed per epoch too
    out = []
    for _ in range(2):
        out += [b[0].tolist() for b in loader] + [b[0].tolist() for b in plain]
    g = m.Generator().manual_seed(1)
    out += [sorted(s.indices) for s in data.random_split(ds, [3, 7], generator=g)]
    out += [[int(i) for i in data.random_split(range(6), [0.5, 0.5])[0].indices]]
    out.append(list(data.RandomSampler(ds, replacement=True, num_samples=40)))
    out.append(list(data.WeightedRandomSampler([0.1, 0.9, 0.5], 6)))
    out.append(list(data.SubsetRandomSampler([5, 6, 7, 8])))
    out.append(m.rand(2).tolist())                       # the global stream moved as torch's
    return out


def test_dataloader_shuffling_and_splits_follow_pytorchs_streams():
    torch = torch_or_skip()
    import torch.utils.data as tdata
    assert _loader_epochs(vg, vgdata) == _loader_epochs(torch, tdata)


def test_get_state_round_trips_the_cached_normal():
    g = vg.Generator().manual_seed(2)
    vg.randn(1, generator=g)                 # leaves the pair's sine in the generator
    state = g.get_state()
    first = vg.randn(3, generator=g).tolist()
    g.set_state(state)
    assert vg.randn(3, generator=g).tolist() == first
    with pytest.raises(TypeError):
        g.set_state([1, 2, 3])


def test_a_float64_default_dtype_draws_float64_streams_as_pytorch():
    torch = torch_or_skip()
    out = []
    for m in (torch, vg):
        m.set_default_dtype(m.float64)
        try:
            m.manual_seed(4)
            out.append(_leaves((m.rand(3), m.randn(20), m.nn.Linear(3, 2).weight)))
        finally:
            m.set_default_dtype(m.float32)
    for a, b in zip(*out):
        assert a.dtype == b.dtype == np.float64
        _same(a, b)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_every_init_gives_pytorchs_numbers(dtype):
    torch = torch_or_skip()
    out = []
    for m in (torch, vg):
        m.manual_seed(8)
        dt = getattr(m, dtype)
        inits = m.nn.init
        w = [inits.xavier_uniform_(m.empty(5, 7, dtype=dt)),
             inits.xavier_normal_(m.empty(5, 7, dtype=dt), gain=2.0),
             inits.kaiming_uniform_(m.empty(6, 3, 2, 2, dtype=dt), a=0.1),
             inits.kaiming_normal_(m.empty(6, 4, dtype=dt), mode="fan_out"),
             inits.uniform_(m.empty(9, dtype=dt), -0.5, 0.25),
             inits.normal_(m.empty(20, dtype=dt), 1.0, 0.1),
             inits.trunc_normal_(m.empty(30, dtype=dt), std=0.5),
             inits.orthogonal_(m.empty(4, 6, dtype=dt)),
             m.nn.Linear(7, 3).to(dt).weight, m.nn.Conv1d(2, 4, 3).bias]
        out.append(_leaves(w))
    for i, (a, b) in enumerate(zip(*out)):
        assert a.dtype == b.dtype
        if i == 7:   # orthogonal_: the same normal draws, QR by another method
            np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-5 if dtype == "float32"
                                       else 1e-12)
        else:
            _same(a, b)
