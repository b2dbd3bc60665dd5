# A custom Dataset of variable-length sequences, a padding collate_fn, DataLoader batching,
# BatchSampler / SequentialSampler, Subset / ConcatDataset, default collation of dicts, tuples, arrays.
import numpy as np
import torch
from torch.utils.data import BatchSampler, DataLoader, Dataset, SequentialSampler, Subset, TensorDataset, ConcatDataset
from torch.nn.utils.rnn import pad_sequence

rng = np.random.default_rng(SEED)


class SeqDataset(Dataset):
    def __init__(self, n):
        self.lengths = rng.integers(1, 6, n)
        self.data = [torch.tensor(rng.integers(1, 20, L)) for L in self.lengths]
        self.labels = torch.tensor(rng.integers(0, 2, n))

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return {"ids": self.data[i], "label": self.labels[i], "len": int(self.lengths[i])}


def collate(batch):
    ids = pad_sequence([b["ids"] for b in batch], batch_first=True, padding_value=0)
    labels = torch.stack([b["label"] for b in batch])
    lens = torch.tensor([b["len"] for b in batch])
    return ids, labels, lens


ds = SeqDataset(11)
loader = DataLoader(ds, batch_size=4, shuffle=False, collate_fn=collate)
batches = [(ids, lab, ln) for ids, lab, ln in loader]
dl2 = DataLoader(ds, batch_size=4, drop_last=True, collate_fn=collate)

X = torch.tensor(rng.standard_normal((7, 3)), dtype=torch.float32)
Y = torch.tensor(rng.integers(0, 3, 7))
tds = TensorDataset(X, Y)
default_batches = [(xb, yb) for xb, yb in DataLoader(tds, batch_size=3)]
sampler = BatchSampler(SequentialSampler(range(10)), batch_size=4, drop_last=False)
sub = Subset(tds, [6, 0, 3])
cat = ConcatDataset([tds, sub])
dict_batch = next(iter(DataLoader(ds, batch_size=1)))
tuple_batch = next(iter(DataLoader([(1, 2.0, "a"), (3, 4.0, "b")], batch_size=2)))
np_batch = next(iter(DataLoader([np.ones(2), np.zeros(2)], batch_size=2)))
bs_loader = [b.tolist() for b in DataLoader(list(range(7)), batch_sampler=[[0, 1], [5, 6, 2]])]
none_batch = [x for x in DataLoader(torch.arange(5), batch_size=None)][:2]
# rows parsed from a CSV: a target written "3" is an int, the next "2.5" a float
csv_rows = [([0.1, 0.2], 3), ([0.3, 0.1], 2.5), ([0.0, 1.0], 4), ([0.5, 0.5], 1.25)]
csv_batches = [[f, t] for f, t in DataLoader(csv_rows, batch_size=2)]
np_scalar_batch = next(iter(DataLoader([(np.float32(0.5), np.int32(1)), (np.float32(1.5), np.int32(0))], batch_size=2)))
RESULTS = {
    "n_batches": len(loader), "n_drop": len(dl2),
    "batches": [list(b) for b in batches],
    "default": [list(b) for b in default_batches],
    "sampler": list(sampler), "len_sampler": len(sampler),
    "sub": [sub[0][0], sub[0][1], len(sub)], "cat_len": len(cat), "cat_last": list(cat[8]),
    "dict_batch": dict_batch, "dict_types": {k: type(v).__name__ for k, v in dict_batch.items()},
    "tuple_batch": [tuple_batch[0], tuple_batch[1], list(tuple_batch[2])],
    "tuple_dtypes": [tuple_batch[0].dtype == torch.int64, tuple_batch[1].dtype == torch.float64],
    "np_batch": np_batch, "np_dtype": np_batch.dtype == torch.float64,
    "bs_loader": bs_loader, "none_batch": none_batch,
    "csv_batches": csv_batches, "csv_dtypes": [t.dtype == torch.float32 for _, t in csv_batches],
    "np_scalar_dtypes": [np_scalar_batch[0].dtype == torch.float32, np_scalar_batch[1].dtype == torch.int32],
}
