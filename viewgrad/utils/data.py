"""``torch.utils.data`` for small models: datasets, samplers, batching.

    ds = TensorDataset(X, y)                      # ds[i] == (X[i], y[i])
    train, val = random_split(ds, [0.8, 0.2], generator=vg.Generator().manual_seed(0))
    for xb, yb in DataLoader(train, batch_size=32, shuffle=True, drop_last=True): ...

``DataLoader`` draws indices from a sampler (in order, or a random permutation from the
given generator, else viewgrad's global one), groups them into batches and merges each
batch with ``collate_fn`` (``default_collate``: tensors are stacked along a new first dim;
Python floats become a float64 tensor, ints a tensor as ``tensor(batch)`` makes it, NumPy
scalars keep their dtype, as PyTorch; tuples, lists
and dicts are collated field by field; strings stay a list). Loading runs in the calling
process: ``num_workers`` and ``pin_memory`` are accepted and have no effect.
"""
from __future__ import annotations

import bisect
import math
import numbers

from .. import backend as B
from ..ops import factories as Fa
from ..ops import random as R
from ..tensor import Tensor

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset",
           "DataLoader", "random_split", "default_collate", "Sampler", "SequentialSampler",
           "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler",
           "get_worker_info"]


class Dataset:
    """A map-style dataset: subclasses define ``__getitem__(i)`` and ``__len__()``."""

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__(index)")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset that is iterated (``__iter__``), not indexed."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__()")


class TensorDataset(Dataset):
    """Samples are ``tuple(t[i] for t in tensors)``; all tensors share their first dim."""

    def __init__(self, *tensors):
        if not tensors or any(t.shape[0] != tensors[0].shape[0] for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``."""

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, list(indices)

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    """Datasets one after the other."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        self.cumulative_sizes = []
        total = 0
        for d in self.datasets:
            total += len(d)
            self.cumulative_sizes.append(total)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += len(self)
        d = bisect.bisect_right(self.cumulative_sizes, idx)
        return self.datasets[d][idx - (self.cumulative_sizes[d - 1] if d else 0)]


def _randperm(n, generator):
    return R.randperm(n, generator=generator).tolist()


def _fresh_seed(generator=None):
    """One int64 drawn as ``torch.empty((), dtype=torch.int64).random_()``: how PyTorch's
    loaders and samplers take a seed from a generator (None: the global one)."""
    return int(R.rng_of(generator).random_full(1, B.int64)[0])


# -- samplers --------------------------------------------------------------------------------

class Sampler:
    """Yields dataset indices."""

    def __init__(self, data_source=None):
        pass


class SequentialSampler(Sampler):
    """0, 1, ..., len - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation (drawn anew each epoch) from ``generator``, or with
    replacement ``num_samples`` draws."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source, self.replacement = data_source, replacement
        self._num_samples, self.generator = num_samples, generator

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        # Drawn exactly as PyTorch's RandomSampler draws (so a seed gives its order):
        # without a generator, a fresh one seeded from the global generator per epoch.
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            generator = R.Generator().manual_seed(_fresh_seed())
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from R.randint(0, n, (32,), generator=generator).tolist()
            yield from R.randint(0, n, (self.num_samples % 32,),
                                 generator=generator).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from _randperm(n, generator)
        yield from _randperm(n, generator)[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights`` (with
    or without replacement), as ``torch.utils.data.WeightedRandomSampler``."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) \
                or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        self.weights = Fa.tensor(list(weights) if not isinstance(weights, Tensor)
                                 else weights.tolist(), dtype=B.float64)
        self.num_samples, self.replacement = num_samples, replacement
        self.generator = generator

    def __iter__(self):
        picks = R.multinomial(self.weights, self.num_samples, self.replacement,
                              generator=self.generator)
        return iter(picks.tolist())

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order."""

    def __init__(self, indices, generator=None):
        self.indices, self.generator = list(indices), generator

    def __iter__(self):
        return iter(self.indices[i] for i in _randperm(len(self.indices), self.generator))

    def __len__(self):
        return len(self.indices)


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler`` (the last one shorter unless
    ``drop_last``)."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for i in self.sampler:
            batch.append(i)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)


# -- collation -------------------------------------------------------------------------------

def default_collate(batch):
    """Merge a list of samples into a batch, as torch's default_collate."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        from ..ops.joining import stack
        return stack(list(batch), 0)
    if B.is_array(elem) and not isinstance(elem, (bool, numbers.Number)):
        from ..ops.joining import stack
        return stack([Fa.as_tensor(b) for b in batch], 0)
    # The type of the FIRST element decides, as PyTorch's collate_fn_map: NumPy scalars
    # keep their dtype (np.float32 labels stay float32), then a float makes float64 and
    # an int (a bool too) lets the values decide — [1, 2.5] is float, never truncated.
    if type(elem).__module__ == "numpy" and not isinstance(elem, (str, bytes)):
        from ..ops.joining import stack
        return stack([Fa.as_tensor(b) for b in batch], 0)   # (0-d each: its own dtype)
    if isinstance(elem, float):
        return Fa.tensor(batch, dtype=B.float64)
    if isinstance(elem, int):
        return Fa.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch   # as given: a list at the top, a tuple inside (torch's zip(*batch))
    if isinstance(elem, dict):
        return type(elem)({k: default_collate([d[k] for d in batch]) for k in elem}) \
            if type(elem) is not dict else {k: default_collate([d[k] for d in batch])
                                            for k in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, (tuple, list)):
        if any(len(e) != len(elem) for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(s) for s in zip(*batch)]
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, "
                    f"dicts or lists; found {type(elem)}")


def get_worker_info():
    """None: viewgrad loads in the calling process (no worker processes)."""
    return None


class DataLoader:
    """Iterate over ``dataset`` in batches (see the module docstring)."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False,
                 timeout=0, worker_init_fn=None, multiprocessing_context=None, generator=None,
                 *, prefetch_factor=None, persistent_workers=False, pin_memory_device=""):
        # (PyTorch's checks of the worker options, in its order, though no worker runs here)
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 "
                             "to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in "
                             "multiprocessing.let num_workers > 0 to enable multiprocessing, "
                             "otherwise set prefetch_factor to None.")
        if prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset, self.num_workers, self.drop_last = dataset, num_workers, drop_last
        self.generator, self.pin_memory = generator, pin_memory
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:   # (each option named, as PyTorch's three errors do)
            for name, value in (("shuffle", shuffle), ("sampler", sampler),
                                ("batch_sampler", batch_sampler)):
                if (value not in (False, None)) if name == "shuffle" else value is not None:
                    raise ValueError(f"DataLoader with IterableDataset: expected unspecified "
                                     f"{name} option, but got {name}={value}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with "
                                 "batch_size, shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        if sampler is None and not self._iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle \
                else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.sampler, self.batch_sampler = batch_size, sampler, batch_sampler
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if batch_size is not None or batch_sampler is not None
            else (lambda x: x))

    def __iter__(self):
        if self._iterable:
            batches = self._iter_iterable()
        elif self.batch_sampler is not None:
            batches = (self.collate_fn([self.dataset[i] for i in batch])
                       for batch in self.batch_sampler)
        else:
            batches = (self.collate_fn(self.dataset[i]) for i in self.sampler)
        # PyTorch's iterator takes a base seed for its workers from ``generator`` (or the
        # global generator) every epoch; drawing it too keeps later numbers PyTorch's.
        self._base_seed = _fresh_seed(self.generator)
        return batches

    def _iter_iterable(self):
        if self.batch_size is None:
            yield from (self.collate_fn(x) for x in self.dataset)
            return
        batch = []
        for x in self.dataset:
            batch.append(x)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)


def random_split(dataset, lengths, generator=None):
    """Split ``dataset`` into non-overlapping Subsets of the given lengths (or fractions
    summing to 1: the remainder is spread one by one over the first subsets, as PyTorch),
    from a random permutation drawn from ``generator``."""
    n = len(dataset)
    lengths = list(lengths)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = [int(math.floor(n * f)) for f in lengths]
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
        lengths = sizes
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input "
                         "dataset!")
    perm = _randperm(n, generator)
    out, start = [], 0
    for k in lengths:
        out.append(Subset(dataset, perm[start:start + k]))
        start += k
    return out
