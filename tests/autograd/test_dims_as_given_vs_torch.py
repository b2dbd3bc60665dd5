"""Saved dims read as PyTorch's read (Note [dims as given], autograd/saved_names.py): a
dim is kept as the caller gave it — a negative one shown as PyTorch's binding shows an
int64 (-1 is 18446744073709551615), a list in the given order — for every op of the
sweep below, each called with negative dims and with dims out of order; a dim given twice
raises PyTorch's error."""
import warnings

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import assert_same_as_torch, torch_or_skip

CALLS = {
 "sum-1": lambda M,x: x.sum(-1), "sum(2,1)": lambda M,x: x.sum((2,1)), "sum(-1,0)": lambda M,x: x.sum((-1,0)),
 "mean-1": lambda M,x: x.mean(-1), "mean(2,1)": lambda M,x: x.mean((2,1)), "mean(-1,-2)k": lambda M,x: x.mean((-1,-2),keepdim=True),
 "var-1": lambda M,x: x.var(-1), "std(2,0)": lambda M,x: x.std((2,0)), "amax-1": lambda M,x: x.amax(-1), "amin(2,1)": lambda M,x: x.amin((2,1)),
 "logsumexp-1": lambda M,x: x.logsumexp(-1), "logsumexp(2,1)": lambda M,x: x.logsumexp((2,1)), "norm-1": lambda M,x: x.norm(dim=-1),
 "vnorm(2,1)": lambda M,x: M.linalg.vector_norm(x,dim=(2,1)), "softmax-1": lambda M,x: x.softmax(-1), "log_softmax-1": lambda M,x: x.log_softmax(-1),
 "cumsum-1": lambda M,x: x.cumsum(-1), "cumprod-1": lambda M,x: x.cumprod(-1), "select-1": lambda M,x: x.select(-1,0), "narrow-1": lambda M,x: x.narrow(-1,0,2),
 "squeeze-1": lambda M,x: x[:,:,:1].squeeze(-1), "unsqueeze-1": lambda M,x: x.unsqueeze(-1), "max-1": lambda M,x: x.max(-1)[0], "min-1": lambda M,x: x.min(-1)[0],
 "median-1": lambda M,x: x.median(-1)[0], "sort-1": lambda M,x: x.sort(-1)[0], "topk-1": lambda M,x: x.topk(2,-1)[0], "kthvalue-1": lambda M,x: x.kthvalue(2,-1)[0],
 "gather-1": lambda M,x: x.gather(-1, M.zeros(2,3,1,dtype=M.int64)), "index_select-1": lambda M,x: x.index_select(-1, M.tensor([0])),
 "cat-1": lambda M,x: M.cat([x,x],-1), "stack-1": lambda M,x: M.stack([x,x],-1), "split-1": lambda M,x: x.split(2,-1)[0], "chunk-1": lambda M,x: x.chunk(2,-1)[0],
 "unbind-1": lambda M,x: x.unbind(-1)[0], "flip-1": lambda M,x: x.flip(-1), "roll-1": lambda M,x: x.roll(1,-1), "transpose-1": lambda M,x: x.transpose(-1,0),
 "movedim": lambda M,x: x.movedim(-1,0), "prod-1": lambda M,x: x.prod(-1), "cummax-1": lambda M,x: x.cummax(-1)[0], "logcumsumexp-1": lambda M,x: x.logcumsumexp(-1),
 "diff-1": lambda M,x: x.diff(dim=-1), "repeat_interleave": lambda M,x: x.repeat_interleave(2,dim=-1), "glu-1": lambda M,x: M.nn.functional.glu(x[...,:4],-1),
 "normalize-1": lambda M,x: M.nn.functional.normalize(x,dim=-1), "cosine_sim": lambda M,x: M.nn.functional.cosine_similarity(x,x,dim=-1), "flatten": lambda M,x: x.flatten(-2),
 "unflatten": lambda M,x: x.unflatten(-1,(2,2)), "diagonal": lambda M,x: x.diagonal(0,-2,-1), "trace": lambda M,x: x[0].trace(), "tril": lambda M,x: x.tril(),
 "all-1": lambda M,x: x.all(-1), "nansum-1": lambda M,x: x.nansum(-1), "count_nonzero": lambda M,x: x.count_nonzero(-1),
 "var_mean": lambda M,x: M.var_mean(x,-1)[0], "std_mean": lambda M,x: M.std_mean(x,(2,1))[0], "aminmax": lambda M,x: M.aminmax(x,dim=-1)[0],
 "scatter": lambda M,x: x.scatter(-1, M.zeros(2,3,1,dtype=M.int64), 1.0), "index_add": lambda M,x: x.index_add(-1, M.tensor([0]), M.ones(2,3,1)),
 "take_along": lambda M,x: M.take_along_dim(x, M.zeros(2,3,1,dtype=M.int64), -1), "renorm": lambda M,x: x.renorm(2,-1,1.0), "cross": lambda M,x: M.linalg.cross(x[...,:3],x[...,:3],dim=-1),
 "sfmin": lambda M,x: M.nn.functional.softmin(x,-1), "logit": lambda M,x: x.sigmoid().logit(), "mode": lambda M,x: x.mode(-1)[0], "nanmean": lambda M,x: x.nanmean((2,1)),
 "var_c": lambda M,x: x.var((-1,1), correction=0), "sum_neg_k": lambda M,x: x.sum(-2, keepdim=True),
}

# ops whose nodes keep something PyTorch's keep and viewgrad's do not (not a dim's form):
# none left (index_add's source_dim is kept since the twenty-fifth stop)
KNOWN = {}


def _dims_shown(M, fn, a):
    """{node name: its saved dim-like attributes} over the graph of fn(M, x)."""
    x = M.tensor(a, requires_grad=True)
    y = fn(M, x)
    out, seen, stack = [], set(), [y.grad_fn]
    while stack:
        g = stack.pop()
        if g is None or id(g) in seen:
            continue
        seen.add(id(g))
        d = {k: getattr(g, k) for k in dir(g) if k.startswith("_saved_") and "dim" in k}
        if d:
            out.append((g.name(), d))
        stack.extend(h for h, _ in g.next_functions)
    return out


@pytest.mark.host_only("compared with torch CPU tensors")
@pytest.mark.parametrize("name", sorted(CALLS))
def test_saved_dims_are_shown_as_given(name):
    torch = torch_or_skip()
    if name in KNOWN:
        pytest.skip(KNOWN[name])
    a = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _dims_shown(vg, CALLS[name], a) == _dims_shown(torch, CALLS[name], a)


ORDERS = {
    "sum": lambda M, x, d: x.sum(d), "mean": lambda M, x, d: x.mean(d, keepdim=True),
    "var": lambda M, x, d: x.var(d), "std": lambda M, x, d: x.std(d),
    "amax": lambda M, x, d: x.amax(d), "amin": lambda M, x, d: x.amin(d),
    "logsumexp": lambda M, x, d: x.logsumexp(d), "nansum": lambda M, x, d: x.nansum(d),
    "vector_norm": lambda M, x, d: M.linalg.vector_norm(x, dim=d),
    "var_mean": lambda M, x, d: M.var_mean(x, d)[0], "std_mean": lambda M, x, d: M.std_mean(x, d)[1],
    "squeeze": lambda M, x, d: x[:1, :, :1].squeeze(d), "flip": lambda M, x, d: x.flip(d),
}


@pytest.mark.host_only("compared with torch CPU tensors")
@pytest.mark.parametrize("dims", [(2, 0), (-1, 1), (0, -1, 1), [1], (), (1, 1), (2, -1)],
                         ids=str)
@pytest.mark.parametrize("name", sorted(ORDERS))
def test_dim_lists_keep_their_order_and_refuse_a_repeat(name, dims):
    """The given order is kept (``(2, 0)`` stays ``(2, 0)``); a dim given twice, directly or
    as its negative, is PyTorch's RuntimeError."""
    torch = torch_or_skip()
    if name == "logsumexp" and dims == ():
        pytest.skip("torch 2.13's logsumexp(x, ()) fails in its own kernel (\"output with "
                    "shape [] doesn't match the broadcast shape [1, 1, 1]\"): no oracle")
    a = np.random.default_rng(1).standard_normal((2, 3, 4)).astype(np.float32)
    fn = ORDERS[name]

    def run(M):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = M.tensor(a, requires_grad=True)
            y = fn(M, x, dims)
        return (y, [(g.name(), getattr(g, "_saved_dim", None) if hasattr(g, "_saved_dim")
                     else getattr(g, "_saved_dims", None))
                    for g in [y.grad_fn]])

    assert_same_as_torch(run, rtol=1e-5, atol=1e-6, wording_too=True)
