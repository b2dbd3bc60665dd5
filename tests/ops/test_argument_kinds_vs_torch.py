"""An argument of the wrong kind is refused at the door, in PyTorch's words (Note [typed
arguments, checked at the door], ops/signatures.py): the same exception type and the
same first line as torch 2.13, for the method, keyword and function forms; and what
PyTorch accepts (NumPy integers, 0-d tensors, a bool as a Number) is accepted."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip


def X(M):
    return M.tensor([[1.0, 2.0], [3.0, 4.0]])


def I(M):
    return M.tensor([[0, 1], [1, 0]])


# name -> call with the value under test in one argument's place
CASES = {
    "index_select": lambda M, v: X(M).index_select(0, v),
    "index_select dim": lambda M, v: X(M).index_select(v, M.tensor([0])),
    "index_select kw": lambda M, v: X(M).index_select(0, index=v),
    "fn index_select": lambda M, v: M.index_select(X(M), 0, v),
    "gather": lambda M, v: X(M).gather(0, v),
    "fn gather": lambda M, v: M.gather(X(M), 0, v),
    "scatter": lambda M, v: X(M).scatter(0, v, X(M)),
    "scatter src": lambda M, v: X(M).scatter(0, I(M), v),
    "scatter_add": lambda M, v: X(M).scatter_add(0, v, X(M)),
    "scatter_add src": lambda M, v: X(M).scatter_add(0, I(M), v),
    "index_add": lambda M, v: X(M).index_add(0, v, X(M)),
    "index_add src": lambda M, v: X(M).index_add(0, M.tensor([0, 1]), v),
    "index_copy": lambda M, v: X(M).index_copy(0, v, X(M)),
    "index_fill": lambda M, v: X(M).index_fill(0, v, 1.0),
    "take": lambda M, v: X(M).take(v),
    "take_along_dim": lambda M, v: X(M).take_along_dim(v),
    "take_along_dim dim": lambda M, v: M.take_along_dim(X(M), I(M), v),
    "put_": lambda M, v: X(M).put_(v, M.tensor([1.0])),
    "put_ source": lambda M, v: X(M).put_(M.tensor([0]), v),
    "masked_fill": lambda M, v: X(M).masked_fill(v, 0.0),
    "masked_fill value": lambda M, v: X(M).masked_fill(X(M) > 2, v),
    "masked_fill value kw": lambda M, v: X(M).masked_fill(X(M) > 2, value=v),
    "masked_select": lambda M, v: X(M).masked_select(v),
    "masked_scatter": lambda M, v: X(M).masked_scatter(v, X(M)),
    "expand_as": lambda M, v: X(M).expand_as(v),
    "expand_as kw": lambda M, v: X(M).expand_as(other=v),
    "view_as": lambda M, v: X(M).view_as(v),
    "reshape_as": lambda M, v: X(M).reshape_as(v),
    "type_as": lambda M, v: X(M).type_as(v),
    "clamp": lambda M, v: X(M).clamp(v),
    "clamp max": lambda M, v: X(M).clamp(max=v),
    "fn clamp": lambda M, v: M.clamp(X(M), v, 3.0),
    "clamp_min": lambda M, v: X(M).clamp_min(v),
    "clamp_max": lambda M, v: X(M).clamp_max(v),
    "clamp_": lambda M, v: X(M).clamp_(v),
    "lerp end": lambda M, v: X(M).lerp(v, 0.5),
    "lerp weight": lambda M, v: X(M).lerp(X(M), v),
    "lerp weight kw": lambda M, v: X(M).lerp(X(M), weight=v),
    "lerp_": lambda M, v: X(M).lerp_(v, 0.5),
    "addcmul": lambda M, v: X(M).addcmul(v, X(M)),
    "addcdiv": lambda M, v: X(M).addcdiv(X(M), v),
    "cumsum": lambda M, v: X(M).cumsum(v),
    "cumsum kw": lambda M, v: X(M).cumsum(dim=v),
    "fn cumsum": lambda M, v: M.cumsum(X(M), v),
    "sum": lambda M, v: X(M).sum(v),
    "transpose": lambda M, v: X(M).transpose(v, 1),
    "transpose dim1": lambda M, v: X(M).transpose(0, v),
    "fn transpose": lambda M, v: M.transpose(X(M), 0, v),
    "repeat": lambda M, v: X(M).repeat(v),
    "flip": lambda M, v: X(M).flip(v),
    "roll": lambda M, v: X(M).roll(v),
    "narrow": lambda M, v: X(M).narrow(0, v, 1),
    "select": lambda M, v: X(M).select(0, v),
    "unsqueeze": lambda M, v: X(M).unsqueeze(v),
    "unsqueeze kw": lambda M, v: X(M).unsqueeze(dim=v),
    "fn unsqueeze": lambda M, v: M.unsqueeze(X(M), v),
    "topk": lambda M, v: X(M).topk(v),
    "pad": lambda M, v: M.nn.functional.pad(X(M), v),
    "bucketize": lambda M, v: M.bucketize(X(M), v),
    "searchsorted": lambda M, v: M.searchsorted(v, X(M)),
    "tril": lambda M, v: X(M).tril(v),
    "triu": lambda M, v: X(M).triu(v),
    "diagonal": lambda M, v: X(M).diagonal(v),
    "diagonal kw": lambda M, v: X(M).diagonal(offset=v),
    "fill_": lambda M, v: X(M).fill_(v),
    "copysign": lambda M, v: X(M).copysign(v),
    "new_full": lambda M, v: X(M).new_full((2,), v),
    "full": lambda M, v: M.full((2,), v),
    "view": lambda M, v: X(M).view(v),
    "view two": lambda M, v: X(M).view(4, v),
    "reshape": lambda M, v: X(M).reshape(v),
    "permute": lambda M, v: X(M).permute(v),
    "expand": lambda M, v: X(M).expand(v),
    "tile": lambda M, v: X(M).tile(v),
    "zeros": lambda M, v: M.zeros(v),
    "ones two": lambda M, v: M.ones(2, v),
    "randn": lambda M, v: M.randn(v),
    "squeeze": lambda M, v: X(M).squeeze(v),
    "chunk": lambda M, v: X(M).chunk(v),
    "chunk dim": lambda M, v: X(M).chunk(2, v),
    "cat": lambda M, v: M.cat(v),
    "cat element": lambda M, v: M.cat([X(M), v]),
    "cat dim": lambda M, v: M.cat([X(M)], v),
    "cat dim kw": lambda M, v: M.cat([X(M)], dim=v),
    "stack": lambda M, v: M.stack(v),
    "softmax": lambda M, v: X(M).softmax(v),
    "log_softmax": lambda M, v: X(M).log_softmax(v),
    "F.softmax": lambda M, v: M.nn.functional.softmax(X(M), v),
    "F.softmax kw": lambda M, v: M.nn.functional.softmax(X(M), dim=v),
    "F.linear": lambda M, v: M.nn.functional.linear(X(M), v),
    "F.linear bias": lambda M, v: M.nn.functional.linear(X(M), X(M), v),
    "F.cross_entropy": lambda M, v: M.nn.functional.cross_entropy(X(M), v),
    "F.leaky_relu": lambda M, v: M.nn.functional.leaky_relu(X(M), v),
    "F.one_hot": lambda M, v: M.nn.functional.one_hot(v),
    "F.one_hot classes": lambda M, v: M.nn.functional.one_hot(M.tensor([1]), v),
    "max": lambda M, v: X(M).max(v),
    "max kw": lambda M, v: X(M).max(dim=v),
    "argmax": lambda M, v: X(M).argmax(v),
    "argmax kw": lambda M, v: X(M).argmax(dim=v),
    "std": lambda M, v: X(M).std(v),
    "var kw": lambda M, v: X(M).var(dim=v),
    "prod": lambda M, v: X(M).prod(v),
    "mean": lambda M, v: X(M).mean(v),
    "all": lambda M, v: X(M).all(v),
    "logsumexp": lambda M, v: X(M).logsumexp(v),
    "sort": lambda M, v: X(M).sort(v),
    "sort descending": lambda M, v: X(M).sort(descending=v),
    "argsort": lambda M, v: X(M).argsort(v),
    "kthvalue": lambda M, v: X(M).kthvalue(v),
    "cummax": lambda M, v: X(M).cummax(v),
    "diff": lambda M, v: X(M).diff(v),
    "movedim": lambda M, v: X(M).movedim(v, 0),
    "flatten": lambda M, v: X(M).flatten(v),
    "requires_grad_": lambda M, v: X(M).requires_grad_(v),
    "round": lambda M, v: X(M).round(decimals=v),
    "unfold": lambda M, v: X(M).unfold(0, v, 1),
    "unfold step": lambda M, v: X(M).unfold(0, 1, v),
    "as_strided": lambda M, v: X(M).as_strided(v, (1, 1)),
    "as_strided stride": lambda M, v: X(M).as_strided((1, 1), v),
    "tensor_split": lambda M, v: X(M).tensor_split(v),
    "unbind": lambda M, v: X(M).unbind(v),
    "masked_fill_": lambda M, v: X(M).masked_fill_(v, 1.0),
    "split": lambda M, v: X(M).split(v),
    "split dim": lambda M, v: X(M).split(1, v),
    "split sizes dim": lambda M, v: X(M).split([1, 1], v),
    "fn split": lambda M, v: M.split(X(M), v),
    "unflatten": lambda M, v: X(M).unflatten(0, v),
    "repeat_interleave": lambda M, v: X(M).repeat_interleave(v),
    "linspace": lambda M, v: M.linspace(0, 1, v),
    "nan_to_num": lambda M, v: X(M).nan_to_num(v),
    "nan_to_num posinf": lambda M, v: X(M).nan_to_num(posinf=v),
    "div rounding_mode": lambda M, v: X(M).div(2, rounding_mode=v),
    "index_put_": lambda M, v: X(M).index_put_(v, M.tensor(1.0)),
    "tensor with dtype": lambda M, v: M.tensor([1.0, v], dtype=M.float32),
    "new_tensor": lambda M, v: X(M).new_tensor(v),
    "arange": lambda M, v: M.arange(v),
    "arange two": lambda M, v: M.arange(0, v),
    "eye": lambda M, v: M.eye(v),
    "eye two": lambda M, v: M.eye(2, v),
    "to": lambda M, v: X(M).to(v),
    "type": lambda M, v: X(M).type(v),
    "autograd.grad inputs": lambda M, v: M.autograd.grad(M.ones(1, requires_grad=True).sum(),
                                                         v),
}
VALUES = {
    "list": lambda M: [[0, 1], [1, 0]],
    "str": lambda M: "a",
    "None": lambda M: None,
    "float": lambda M: 1.5,
    "tuple": lambda M: (0, 1),
    "bool": lambda M: True,
    "np_int": lambda M: np.int64(1),
    "0d_int": lambda M: M.tensor(1),
    "dict": lambda M: {},
}


# where PyTorch's parser has a quirk viewgrad does not copy (printed as the skip reason)
QUIRKS = {
    ("unflatten", "None"): "PyTorch reads None as an empty size list there (then 'sizes must "
                           "be non-empty'); viewgrad refuses the None itself",
    ("unflatten", "dict"): "PyTorch iterates a dict's keys as sizes there; viewgrad refuses it",
}


def _outcome(M, f, v):
    try:
        f(M, VALUES[v](M))
        return ("ok",)
    except Exception as e:   # the exception type and its first line
        return ("raise", type(e).__name__, str(e).split("\n")[0])


@pytest.mark.parametrize("value", sorted(VALUES))
@pytest.mark.parametrize("case", sorted(CASES))
def test_argument_kinds_are_checked_as_torch_checks_them(case, value):
    torch = torch_or_skip()
    if (case, value) in QUIRKS:
        pytest.skip(QUIRKS[case, value])
    ours = _outcome(vg, CASES[case], value)
    theirs = _outcome(torch, CASES[case], value)
    if theirs[0] == "ok":
        # accepted there: accepted here (or refused for a VALUE, as a RuntimeError or
        # IndexError of the op itself, never a TypeError of the argument's kind)
        assert ours[0] == "ok" or ours[1] not in ("TypeError", "AttributeError"), ours
    elif theirs[1] == "TypeError":
        assert ours == theirs
    else:   # a value error of the op: the same type, and no internal error
        assert ours[0] == "raise" and ours[1] == theirs[1], (ours, theirs)


def test_the_wrappers_keep_names_docs_and_the_fast_path():
    assert vg.Tensor.index_select.__name__ == "index_select"
    assert vg.Tensor.index_select.__doc__ and vg.index_select.__doc__
    assert vg.Tensor.unsqueeze.__wrapped__ is not None   # REPL signature help follows it
    # arithmetic, indexing and the in-place updates stay unwrapped (the hot paths)
    for name in ("__mul__", "__getitem__", "mul_", "add_", "sub_", "tanh", "sigmoid", "exp"):
        assert not hasattr(getattr(vg.Tensor, name), "_checked_kinds"), name
