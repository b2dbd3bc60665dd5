"""Calls written for PyTorch with keyword arguments (``x.view(size=...)``,
``x.sum(dim=1, keepdim=True)``, ``vg.zeros(size=...)``...) work the same way: both accept,
or both refuse."""
import pytest

import viewgrad as vg
from tests.helpers import raised, torch_or_skip

pytestmark = pytest.mark.host_only("compared with torch CPU tensors")

# Keyword spellings viewgrad does not take yet (each works positionally): the ``input=``
# keyword of the functions that are also methods (their first parameter is ``self``),
# where's and split's keyword names, the factories' ``size=`` (their ``*size`` signature
# is what the REPL shows), and memory-format objects.
KNOWN = {"where kw", "split kw", "F.sigmoid input kw", "sigmoid input kw", "exp input kw",
         "add input kw", "ones_like kw", "clone memfmt", "zeros size kw", "new_zeros kw"}


def calls(M):
    x = M.ones(2, 3); i = M.tensor([[0, 1, 0]]); m = M.tensor([[True, False, True], [False, True, False]])
    return {
     "sum dim kw": lambda: x.sum(dim=1, keepdim=True), "mean dim kw": lambda: x.mean(dim=0),
     "max dim kw": lambda: x.max(dim=1), "min dim kw": lambda: x.min(dim=1, keepdim=True),
     "transpose kw": lambda: x.transpose(dim0=0, dim1=1), "view size kw": lambda: x.view(size=(3, 2)),
     "reshape shape kw": lambda: x.reshape(shape=(3, 2)), "expand size kw": lambda: M.ones(1, 3).expand(size=(2, 3)),
     "clamp kw": lambda: x.clamp(min=0.5, max=2), "to dtype kw": lambda: x.to(dtype=M.float64),
     "softmax dim kw": lambda: x.softmax(dim=1), "index_select kw": lambda: x.index_select(dim=1, index=M.tensor([0])),
     "gather kw": lambda: x.gather(dim=0, index=i), "masked_fill kw": lambda: x.masked_fill(mask=m, value=0.0),
     "repeat kw": lambda: x.repeat(repeats=(2, 1)), "permute dims kw": lambda: x.permute(dims=(1, 0)),
     "squeeze dim kw": lambda: M.ones(1, 3).squeeze(dim=0), "unsqueeze dim kw": lambda: x.unsqueeze(dim=0),
     "flatten kw": lambda: x.flatten(start_dim=0, end_dim=1), "cat kw": lambda: M.cat(tensors=[x, x], dim=0),
     "stack kw": lambda: M.stack(tensors=[x, x], dim=1), "matmul other kw": lambda: x.matmul(other=M.ones(3, 2)),
     "add other alpha kw": lambda: x.add(other=x, alpha=2), "mul other kw": lambda: x.mul(other=x),
     "pow exponent kw": lambda: x.pow(exponent=2), "where kw": lambda: M.where(condition=m, input=x, other=x * 2),
     "split kw": lambda: x.split(split_size=1, dim=0), "chunk kw": lambda: x.chunk(chunks=3, dim=1),
     "narrow kw": lambda: x.narrow(dim=1, start=0, length=2), "topk kw": lambda: x.topk(k=2, dim=1, largest=False),
     "sort kw": lambda: x.sort(dim=1, descending=True), "argmax kw": lambda: x.argmax(dim=1, keepdim=True),
     "norm kw": lambda: x.norm(p=2, dim=1), "std kw": lambda: x.std(dim=1, unbiased=False), "var correction": lambda: x.var(dim=1, correction=0),
     "cumsum kw": lambda: x.cumsum(dim=1), "roll kw": lambda: x.roll(shifts=1, dims=1), "flip kw": lambda: x.flip(dims=(0,)),
     "tril kw": lambda: x.tril(diagonal=1), "diagonal kw": lambda: x.diagonal(offset=0, dim1=0, dim2=1),
     "unbind kw": lambda: x.unbind(dim=1), "movedim kw": lambda: x.movedim(source=0, destination=1),
     "F.softmax input kw": lambda: M.nn.functional.softmax(input=x, dim=1), "F.linear kw": lambda: M.nn.functional.linear(input=x, weight=M.ones(2, 3)),
     "F.relu input kw": lambda: M.nn.functional.relu(input=x), "F.sigmoid input kw": lambda: M.nn.functional.sigmoid(input=x),
     "sigmoid input kw": lambda: M.sigmoid(input=x), "exp input kw": lambda: M.exp(input=x), "add input kw": lambda: M.add(input=x, other=x),
     "zeros size kw": lambda: M.zeros(size=(2, 3)), "full kw": lambda: M.full(size=(2,), fill_value=3.0), "arange kw": lambda: M.arange(start=0, end=3, step=1),
     "ones_like kw": lambda: M.ones_like(input=x), "allclose kw": lambda: M.allclose(input=x, other=x),
     "einsum": lambda: M.einsum("ij,jk->ik", x, M.ones(3, 2)), "max other": lambda: M.max(x, x), "new_zeros kw": lambda: x.new_zeros(size=(2,)),
     "type_as": lambda: x.type_as(M.ones(1, dtype=M.float64)), "masked_select kw": lambda: x.masked_select(mask=m),
     "scatter kw": lambda: x.scatter(dim=0, index=i, value=2.0), "index_add kw": lambda: x.index_add(dim=1, index=M.tensor([0]), source=M.ones(2, 1)),
     "squeeze dims tuple": lambda: M.ones(1, 3, 1).squeeze((0, 2)), "amax kw": lambda: x.amax(dim=(0, 1), keepdim=False),
     "logsumexp kw": lambda: x.logsumexp(dim=1, keepdim=True), "clone memfmt": lambda: x.clone(memory_format=M.contiguous_format),
     "contiguous": lambda: x.t().contiguous(), "detach": lambda: x.detach(), "requires_grad_ kw": lambda: M.ones(2).requires_grad_(requires_grad=True),
     "backward gradient kw": lambda: (M.ones(2, requires_grad=True) * 2).backward(gradient=M.ones(2)),
    }

NAMES = sorted(calls(vg))


@pytest.mark.parametrize("name", [n for n in NAMES if n not in KNOWN])
def test_keyword_call_is_accepted_as_in_torch(name):
    torch = torch_or_skip()
    theirs, ours = (raised(calls(m)[name]) for m in (torch, vg))
    assert ours == theirs
