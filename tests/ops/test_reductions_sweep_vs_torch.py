"""Every reduction-like op over every dim (and None), keepdim or not, on 0-d, empty, size-1
and small tensors full of ties and zeros, against PyTorch: the same values, dtypes and
shapes, or the same exception type. (kthvalue's index among tied values is
implementation-defined: there only its values are compared.)"""
import warnings

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import outcome, torch_or_skip

OPS = {
    "sum": lambda x, d, k: x.sum(d, keepdim=k), "mean": lambda x, d, k: x.mean(d, keepdim=k),
    "amax": lambda x, d, k: x.amax(d, keepdim=k), "amin": lambda x, d, k: x.amin(d, keepdim=k),
    "max": lambda x, d, k: tuple(x.max(d, keepdim=k)), "min": lambda x, d, k: tuple(x.min(d, keepdim=k)),
    "argmax": lambda x, d, k: x.argmax(d, keepdim=k), "argmin": lambda x, d, k: x.argmin(d, keepdim=k),
    "var": lambda x, d, k: x.var(d, keepdim=k), "std": lambda x, d, k: x.std(d, keepdim=k, correction=0),
    "prod": lambda x, d, k: x.prod(d, keepdim=k), "logsumexp": lambda x, d, k: x.logsumexp(d, keepdim=k),
    "cumsum": lambda x, d, k: x.cumsum(d), "cumprod": lambda x, d, k: x.cumprod(d),
    "norm": lambda x, d, k: x.norm(dim=d, keepdim=k), "norm1": lambda x, d, k: x.norm(1, dim=d, keepdim=k),
    "norm_inf": lambda x, d, k: x.norm(float("inf"), dim=d, keepdim=k),
    "median": lambda x, d, k: x.median(d, keepdim=k)[0], "sort": lambda x, d, k: tuple(x.sort(d, descending=k)),
    "topk": lambda x, d, k: tuple(x.topk(1, d, largest=k)), "kthvalue": lambda x, d, k: x.kthvalue(1, d, keepdim=k)[0],
    "mode": lambda x, d, k: x.mode(d, keepdim=k)[0], "count_nonzero": lambda x, d, k: x.count_nonzero(d),
    "all": lambda x, d, k: x.all(d, keepdim=k), "any": lambda x, d, k: x.any(d, keepdim=k),
    "nansum": lambda x, d, k: x.nansum(d, keepdim=k), "nanmean": lambda x, d, k: x.nanmean(d, keepdim=k),
    "cummax": lambda x, d, k: tuple(x.cummax(d)), "cummin": lambda x, d, k: tuple(x.cummin(d)),
    "aminmax": lambda x, d, k: tuple(x.aminmax(dim=d, keepdim=k)), "softmax": lambda x, d, k: x.softmax(d),
    "log_softmax": lambda x, d, k: x.log_softmax(d), "argsort": lambda x, d, k: x.argsort(dim=d, stable=True),
}
NEED_DIM = {"max", "min", "cumsum", "cumprod", "sort", "topk", "kthvalue", "mode", "cummax", "cummin", "softmax",
            "log_softmax", "argsort", "median", "prod", "logsumexp", "count_nonzero"}
NO_KEEPDIM = {"cumsum", "cumprod", "count_nonzero", "cummax", "cummin", "softmax", "log_softmax",
              "argsort"}
SHAPES = [(), (0,), (3,), (2, 0), (0, 3), (2, 3), (2, 1, 2)]


def _same(a, b):
    if isinstance(b, tuple) and len(b) == 3 and isinstance(b[2], np.ndarray):
        return a[0] == b[0] and a[1] == b[1] and np.allclose(a[2], b[2], equal_nan=True)
    if isinstance(b, tuple):
        return isinstance(a, tuple) and len(a) == len(b) and all(map(_same, a, b))
    return a == b


@pytest.mark.parametrize("name", sorted(OPS))
def test_every_dim_of_every_shape_matches_torch(name):
    torch = torch_or_skip()
    f = OPS[name]
    rng = np.random.default_rng(0)
    bad = []
    for shape in SHAPES:
        data = rng.integers(-2, 3, size=shape).astype(float)   # ties and zeros on purpose
        n = max(len(shape), 1)
        dims = list(range(-n, n)) + ([] if name in NEED_DIM else [None])
        for d in dims:
            for k in ((False,) if name in NO_KEEPDIM else (False, True)):
                def fn(M):
                    return f(M.tensor(data, dtype=M.float64), d, k)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ours, theirs = outcome(vg, fn), outcome(torch, fn)
                if theirs[0] == "raise":
                    ok = ours[0] == "raise" and ours[1] == theirs[1]
                else:
                    ok = ours[0] == "ok" and _same(ours[1], theirs[1])
                if not ok:
                    bad.append((shape, d, k, ours, theirs))
    assert not bad, "\n".join(map(str, bad[:5]))
