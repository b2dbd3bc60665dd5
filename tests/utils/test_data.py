"""viewgrad.utils.data against torch.utils.data (the test-only oracle): the same batches
in the same order without shuffling, the same collation of tensors, tuples, dicts and
numbers, drop_last, and shuffling/splitting that is a reproducible permutation."""
import numpy as np
import pytest

import viewgrad as vg
from viewgrad.utils import data as D

torch = pytest.importorskip("torch", reason="torch is the test-only oracle for these tests")


def _gen(seed):
    return vg.Generator().manual_seed(seed)   # torch.Generator's twin (ops/random.py)


def _plain(b):
    if hasattr(b, "detach"):
        return ("T", str(b.dtype).replace("torch.", "").replace("viewgrad.", ""),
                b.detach().cpu().numpy().tolist())
    if isinstance(b, dict):
        return {k: _plain(v) for k, v in b.items()}
    if isinstance(b, (list, tuple)):
        return [_plain(x) for x in b]
    return b


def test_tensor_dataset_batches_match_torch():
    X = np.arange(20.0).reshape(10, 2)
    y = np.arange(10)
    for kwargs in (dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=4),
                   dict()):
        ours = list(D.DataLoader(D.TensorDataset(vg.tensor(X), vg.tensor(y)), **kwargs))
        theirs = list(torch.utils.data.DataLoader(torch.utils.data.TensorDataset(
            torch.tensor(X), torch.tensor(y)), **kwargs))
        assert _plain(ours) == _plain(theirs)
        assert len(D.DataLoader(D.TensorDataset(vg.tensor(X)), **kwargs)) == len(theirs)


class Pairs(D.Dataset):
    def __init__(self, lib):
        self.lib = lib

    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {"x": self.lib.ones(2) * i, "n": i, "f": i / 2, "name": f"s{i}",
                "pair": (i, self.lib.tensor([i, -i]))}


def test_default_collate_matches_torch():
    ours = list(D.DataLoader(Pairs(vg), batch_size=2))

    class TPairs(Pairs, torch.utils.data.Dataset):
        pass
    theirs = list(torch.utils.data.DataLoader(TPairs(torch), batch_size=2))
    assert _plain(ours) == _plain(theirs)


def test_shuffle_is_a_reproducible_permutation():
    ds = D.TensorDataset(vg.arange(10))

    def order(seed):
        g = _gen(seed)
        return [int(v) for (b,) in D.DataLoader(ds, batch_size=4, shuffle=True, generator=g)
                for v in b.tolist()]
    assert sorted(order(1)) == list(range(10))
    assert order(1) == order(1) and order(1) != list(range(10))
    loader = D.DataLoader(ds, batch_size=10, shuffle=True, generator=_gen(2))
    e1, e2 = [b.tolist() for (b,) in loader], [b.tolist() for (b,) in loader]
    assert e1 != e2                          # a new permutation each epoch


def test_random_split():
    ds = D.TensorDataset(vg.arange(10))
    a, b = D.random_split(ds, [7, 3], generator=_gen(0))
    assert len(a) == 7 and len(b) == 3
    got = sorted(int(a[i][0]) for i in range(7)) + sorted(int(b[i][0]) for i in range(3))
    assert sorted(got) == list(range(10))
    parts = D.random_split(range(10), [0.5, 0.3, 0.2])
    assert [len(p) for p in parts] == [len(p) for p in torch.utils.data.random_split(
        range(10), [0.5, 0.3, 0.2])]
    with pytest.raises(ValueError, match="Sum of input lengths"):
        D.random_split(ds, [3, 3])


def test_iterable_dataset_and_concat():
    class Count(D.IterableDataset):
        def __iter__(self):
            return iter(range(5))
    assert [b.tolist() for b in D.DataLoader(Count(), batch_size=2)] == [[0, 1], [2, 3], [4]]
    cat = D.ConcatDataset([D.TensorDataset(vg.arange(3)), D.TensorDataset(vg.arange(3, 5))])
    assert len(cat) == 5 and int(cat[3][0]) == 3 and int(cat[-1][0]) == 4
