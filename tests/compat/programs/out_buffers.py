# Preallocated output buffers, as numerical code reuses them: out= on matmul, add, mul, exp,
# sum, cumsum, cat, max/sort (named tuples of outs), a factory into an int64 buffer, an out
# that aliases an input, a buffer of the wrong shape (resized, with PyTorch's warning),
# and the refusals (an argument that requires grad, a cast torch refuses).
import warnings

import numpy as np
import torch

rng = np.random.default_rng(SEED)
A = torch.tensor(rng.normal(size=(5, 4)), dtype=torch.float64)
B = torch.tensor(rng.normal(size=(4, 3)), dtype=torch.float64)
prod = torch.empty(5, 3, dtype=torch.float64)
acc = torch.zeros(5, 3, dtype=torch.float64)
tmp = torch.empty(0, dtype=torch.float64)
for step in range(3):
    torch.matmul(A * (step + 1), B, out=prod)
    torch.add(acc, prod, alpha=0.5, out=acc)      # the out is an input
    torch.exp(acc.clamp(-3, 3), out=tmp)          # resized from empty: no warning
versions = (prod._version, acc._version, tmp._version)

rows = torch.empty(5, dtype=torch.float64)
torch.sum(acc, 1, out=rows)
running = torch.empty(5, 3, dtype=torch.float64)
torch.cumsum(acc, 0, out=running)
joined = torch.empty(10, 3, dtype=torch.float64)
torch.cat([acc, prod], out=joined)
vals, idx = torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.long)
mx = torch.max(acc, 1, out=(vals, idx))
svals, sidx = torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.long)
srt = torch.sort(acc[:, 0], descending=True, out=(svals, sidx))
ints = torch.empty(0, dtype=torch.long)
torch.arange(2, 11, 3, out=ints)
counts = torch.empty(0, dtype=torch.long)
torch.sum(torch.tensor([[0.6, 1.6], [2.2, 0.3]]), 1, out=counts)   # computed in int64

small = torch.zeros(2, dtype=torch.float64)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.mul(A[0], 2, out=small)                 # 2 elements resized to 4: a warning
resized_warned = any("was resized" in str(w.message) for w in caught)

w = torch.ones(3, requires_grad=True)
try:
    torch.mul(w, 2, out=torch.empty(3))
    grad_error = None
except RuntimeError as e:
    grad_error = str(e).split(".")[0]
try:
    torch.add(A, A, out=torch.empty(0, dtype=torch.long))
    cast_error = None
except RuntimeError as e:
    cast_error = str(e)

RESULTS = {"prod": prod, "acc": acc, "tmp": tmp, "versions": versions, "rows": rows,
           "running": running, "joined": joined, "max_is_outs": mx.values is vals and mx[1] is idx,
           "vals": vals, "idx": idx, "sorted": svals, "order": sidx,
           "sort_fields": (srt.values is svals, srt.indices is sidx), "ints": ints,
           "counts": counts, "small": small, "small_shape": tuple(small.shape),
           "resized_warned": resized_warned, "grad_error": grad_error, "cast_error": cast_error}
TOL = 1e-12
