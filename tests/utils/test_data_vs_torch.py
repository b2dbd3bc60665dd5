"""``viewgrad.utils.data`` against ``torch.utils.data``: lengths, batches and collation
(numbers, tensors, tuples, dicts, strings: a list at the top, a tuple inside), samplers,
splits — the same values, or the same errors."""
import warnings

import pytest

from tests.helpers import torch_or_skip

CODES = [
 "len(D.DataLoader(D.TensorDataset(M.arange(10)), batch_size=3))",
 "len(D.DataLoader(D.TensorDataset(M.arange(10)), batch_size=3, drop_last=True))",
 "[b for b in D.DataLoader(D.TensorDataset(M.arange(5), M.arange(5)*2), batch_size=2)]",
 "[b for b in D.DataLoader([1,2,3], batch_size=2)]",
 "[b for b in D.DataLoader([(1,2.0),(3,4.0)], batch_size=2)]",
 "[b for b in D.DataLoader([{'a':1,'b':M.ones(2)}]*2, batch_size=2)]",
 "[b for b in D.DataLoader(['x','y','z'], batch_size=2)]",
 "[b for b in D.DataLoader([[1,2],[3,4]], batch_size=2)]",
 "len(D.random_split(range(10), [3, 7])[0])",
 "len(D.random_split(range(10), [0.3, 0.7])[1])",
 "D.TensorDataset(M.ones(3), M.ones(4))",
 "len(D.Subset(range(10), [1,2]))",
 "D.ConcatDataset([range(3), range(2)])[4]",
 "[b for b in D.DataLoader(range(5), batch_size=None)]",
 "list(D.BatchSampler(range(5), 2, False))",
 "list(D.SequentialSampler(range(3)))",
 "[b for b in D.DataLoader(D.TensorDataset(M.arange(4.)), batch_size=2)][0][0].dtype",
 "[b for b in D.DataLoader([M.tensor(1.0), M.tensor(2.0)], batch_size=2)]",
 "[b for b in D.DataLoader([1.5, 2.5], batch_size=2)][0].dtype",
 "[b for b in D.DataLoader([True, False], batch_size=2)]",
 "D.default_collate([(1,'a'),(2,'b')])",
]


def _run(M, code):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            v = eval(code, {"M": M, "D": M.utils.data})   # noqa: S307 - the sweep's own code
        except Exception as e:   # noqa: BLE001 - compared
            return ("raise", type(e).__name__, str(e).replace("torch", "viewgrad"))
    if code.endswith(".dtype"):   # (viewgrad's dtypes are NumPy's: compared by name)
        return ("ok", str(v).replace("dtype('", "").replace("')", "").split(".")[-1])
    r = repr(v).replace(", device='strict'", "")   # (the test device's name)
    return ("ok", r.replace("torch", "viewgrad"))


@pytest.mark.parametrize("code", CODES)
def test_data_api_is_torchs(code):
    torch = torch_or_skip()
    import viewgrad as vg
    assert _run(vg, code) == _run(torch, code)
