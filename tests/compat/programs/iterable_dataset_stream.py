# Streaming data: an IterableDataset generator, DataLoader batching it (len() refused), default_collate
# of namedtuples / nested dicts / strings, random_split lengths from fractions, a sliding-window Dataset.
import collections
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, IterableDataset, default_collate, random_split

rng = np.random.default_rng(SEED)
Sample = collections.namedtuple("Sample", ["x", "y"])
series = rng.standard_normal(40).astype(np.float32)


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        for i in range(self.n):
            yield torch.tensor(series[i:i + 3]), int(i % 2)


class Windows(Dataset):
    def __init__(self, data, window, horizon):
        self.data = torch.from_numpy(data)
        self.window, self.horizon = window, horizon

    def __len__(self):
        return len(self.data) - self.window - self.horizon + 1

    def __getitem__(self, i):
        return Sample(self.data[i:i + self.window], self.data[i + self.window:i + self.window + self.horizon])


R = {}
stream_loader = DataLoader(Stream(7), batch_size=3)
R["stream"] = [[x, y] for x, y in stream_loader]
try:
    len(stream_loader)
    R["len_stream"] = "ok"
except TypeError as e:
    R["len_stream"] = "TypeError"
win = Windows(series, 5, 2)
R["n_windows"] = len(win)
wl = DataLoader(win, batch_size=8, drop_last=False)
first = next(iter(wl))
R["namedtuple_type"] = type(first).__name__
R["first"] = [first.x, first.y]
R["n_batches"] = len(wl)
R["collate_nested"] = default_collate([{"a": torch.ones(2), "b": {"c": 1, "d": "s"}},
                                       {"a": torch.zeros(2), "b": {"c": 2, "d": "t"}}])
R["collate_floats"] = default_collate([1.5, 2.5])
R["collate_np"] = default_collate([np.float64(1.0), np.float64(2.0)])
R["collate_bool"] = default_collate([True, False])
g = torch.Generator().manual_seed(42)
parts = random_split(range(10), [0.7, 0.3], generator=g)
R["split_lens"] = [len(p) for p in parts]
parts2 = random_split(range(11), [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(0))
R["split_lens2"] = [len(p) for p in parts2]
R["split_union"] = sorted(i for p in parts2 for i in p)
try:
    random_split(range(5), [3, 3])
    R["bad_split"] = None
except ValueError as e:
    R["bad_split"] = e
RESULTS = R
