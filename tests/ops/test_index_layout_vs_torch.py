"""An advanced index's result laid out as PyTorch lays it out (Note [an advanced index's
result layout], layouts.py), and an Ellipsis that stands for no dim read as PyTorch reads
it: random keys (index tensors, k-d masks, slices, ints, None, Python bools, Ellipsis)
on row-major and permuted tensors, compared with torch for shape, strides, values and
the gradient."""
import random

import numpy as np
import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")

pytestmark = pytest.mark.host_only("compares strides with torch CPU tensors")


def _key(rnd, rng, shape):
    key, d = [], 0
    while d < len(shape):
        r = rnd.random()
        if r < 0.3:
            size = rnd.choice([(2,), (1,), (2, 2), (3,), (1, 2), (2, 1)])
            key.append(("idx", rng.integers(-shape[d], shape[d], size=size).tolist()))
            d += 1
        elif r < 0.4:
            k = rnd.choice([1, 2]) if d + 2 <= len(shape) else 1
            key.append(("mask", rng.random(shape[d:d + k]) < 0.5))
            d += k
        elif r < 0.55:
            key.append(("slice", (rnd.choice([None, 0, 1, -1]), rnd.choice([None, 2, 3, -1]),
                                  rnd.choice([None, 1, 2]))))
            d += 1
        elif r < 0.62:
            key.append(("int", rnd.randrange(-shape[d], shape[d])))
            d += 1
        elif r < 0.68:
            key.append(("none", None))
        elif r < 0.72:
            key.append(("bool", rnd.random() < 0.7))
        else:
            break
    if rnd.random() < 0.3:
        key.insert(rnd.randrange(len(key) + 1), ("ellipsis", None))
    return key


def _build(M, a, perm, key):
    x = M.tensor(a, requires_grad=True)
    y = x
    if perm != sorted(perm):
        y = x.permute(*perm).contiguous().permute(*np.argsort(perm).tolist())
    k = []
    for kind, v in key:
        k.append({"idx": lambda: M.tensor(v, dtype=M.int64), "mask": lambda: M.tensor(v),
                  "slice": lambda: slice(*v), "ellipsis": lambda: Ellipsis}.get(
                      kind, lambda: v)())
    return x, y, tuple(k)


def _run(M, a, perm, key):
    x, y, k = _build(M, a, perm, key)
    try:
        r = y[k]
    except IndexError as e:
        return ("IndexError",)
    g = None
    if r.numel():
        w = M.tensor(np.cos(np.arange(r.numel())).reshape(tuple(r.shape)))
        (r * w).sum().backward()
        g = np.array(x.grad.tolist())
    return tuple(r.shape), tuple(r.stride()), np.array(r.tolist()), g


@pytest.mark.parametrize("seed", range(6))
def test_random_advanced_keys_match_torch(seed):
    rnd, rng = random.Random(seed), np.random.default_rng(seed)
    compared = 0
    while compared < 60:
        shape = [rnd.randint(1, 4) for _ in range(rnd.randint(1, 4))]
        perm = list(range(len(shape)))
        if rnd.random() < 0.4:
            rnd.shuffle(perm)
        key = _key(rnd, rng, shape)
        if not any(kind in ("idx", "mask") for kind, _ in key):
            continue
        a = rng.standard_normal(shape)
        theirs, ours = _run(torch, a, perm, key), _run(vg, a, perm, key)
        what = f"shape {shape}, perm {perm}, key {key}"
        if theirs[0] == "IndexError":
            assert ours[0] == "IndexError", what
            continue
        compared += 1
        assert ours[0] == theirs[0], what
        # (a size-1 dim after an integer's select: its stride is not compared, PyTorch
        # unsqueezes before it selects; an empty result's strides neither)
        if 0 not in theirs[0]:
            keep = [i for i, n in enumerate(theirs[0]) if n != 1
                    or not any(kind == "int" for kind, _ in key)]
            assert [ours[1][i] for i in keep] == [theirs[1][i] for i in keep], what
        np.testing.assert_array_equal(ours[2], theirs[2], err_msg=what)
        if theirs[3] is not None:
            np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-12, err_msg=what)


def test_indices_after_a_slice_give_a_row_major_result_that_views():
    for M in (torch, vg):
        x = M.arange(24.).reshape(2, 3, 4)
        i, j = M.tensor([0, 1]), M.tensor([1, 2])
        r = x[:, i, j]
        assert r.is_contiguous() and tuple(r.stride()) == (2, 1)
        assert r.view(4).tolist() == [1., 6., 13., 18.]
        assert tuple(x[..., i].stride()) == (6, 2, 1)


def test_an_ellipsis_for_no_dim_does_not_separate_the_indices():
    outs = []
    for M in (torch, vg):
        x = M.arange(24.).reshape(2, 3, 4)
        i = M.tensor([0, 1, 1])
        outs.append([tuple(x[:, i, ..., M.tensor([0])].shape),
                     x[M.tensor([1]), ..., M.tensor([0, 2]), :].tolist()])
        y = M.zeros(2, 3)
        y[M.tensor([0, 1]), ..., M.tensor([2, 0])] = M.tensor([5., 6.])
        outs[-1].append(y.tolist())
    assert outs[0] == outs[1]
    assert outs[1][0] == (2, 3)
