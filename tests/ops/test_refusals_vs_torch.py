"""Common mistakes, made in viewgrad and in PyTorch: both refuse, with the same exception
type (or both accept). A sweep of what a user coming from PyTorch types wrong — shapes,
dtypes, leaves, freed graphs, empty lists, bad ranges."""
import pytest

import viewgrad as vg
from tests.helpers import raised, torch_or_skip

pytestmark = pytest.mark.host_only("compared with torch CPU tensors through .numpy()")


def cases(m):
    ag = m.autograd
    return {
    "backward nonscalar": lambda: (m.ones(2, requires_grad=True) * 2).backward(),
    "backward no grad": lambda: m.ones(2).sum().backward(),
    "int requires_grad": lambda: m.tensor([1, 2], requires_grad=True),
    "requires_grad_ int": lambda: m.tensor([1, 2]).requires_grad_(),
    "nonleaf requires_grad_ False": lambda: (m.ones(2, requires_grad=True) * 2).requires_grad_(False),
    "grad unused": lambda: ag.grad((m.ones(2, requires_grad=True) * 2).sum(), [m.ones(2, requires_grad=True)]),
    "grad no req": lambda: ag.grad(m.ones(2).sum(), [m.ones(2)]),
    "leaf inplace": lambda: m.ones(2, requires_grad=True).add_(1),
    "view leaf inplace": lambda: m.ones(2, requires_grad=True)[0].add_(1),
    "second backward": lambda: (lambda y: (y.backward(), y.backward()))((m.ones(2, requires_grad=True).exp()).sum()),
    "numpy req grad": lambda: m.ones(2, requires_grad=True).numpy(),
    "item multi": lambda: m.ones(2).item(),
    "mm shapes": lambda: m.ones(2, 3) @ m.ones(2, 3),
    "add shapes": lambda: m.ones(2, 3) + m.ones(4),
    "view bad": lambda: m.ones(2, 3).t().view(6),
    "reshape bad": lambda: m.ones(2, 3).reshape(4),
    "index oob": lambda: m.ones(2)[5],
    "dim oob": lambda: m.ones(2).sum(3),
    "cat empty": lambda: m.cat([]),
    "cat dims": lambda: m.cat([m.ones(2, 3), m.ones(2, 4)]),
    "stack shapes": lambda: m.stack([m.ones(2), m.ones(3)]),
    "expand bad": lambda: m.ones(2, 3).expand(4, 3),
    "squeeze dim oob": lambda: m.ones(2).squeeze(3),
    "permute bad": lambda: m.ones(2, 3).permute(0, 0),
    "transpose oob": lambda: m.ones(2, 3).transpose(0, 2),
    "bool tensor ambiguous": lambda: bool(m.ones(2)),
    "float of 2": lambda: float(m.ones(2)),
    "grad set wrong shape": lambda: setattr(m.ones(2, requires_grad=True), "grad", m.ones(3)),
    "grad set wrong dtype": lambda: setattr(m.ones(2, requires_grad=True), "grad", m.ones(2, dtype=m.float64)),
    "detach_ view": lambda: m.ones(2, requires_grad=True)[0:1].detach_(),
    "unbind inplace": lambda: (lambda a: a[0].mul_(2))((m.ones(2, 2, requires_grad=True) * 1).unbind(0)),
    "gather dtype": lambda: m.ones(2).gather(0, m.tensor([0.0])),
    "max empty": lambda: m.ones(0).max(),
    "matmul 0d": lambda: m.tensor(1.0) @ m.tensor(2.0),
    "arange bad": lambda: m.arange(0, 10, -1),
    "randn neg": lambda: m.randn(-1),
    "zeros float size": lambda: m.zeros(2.5),
    "norm int": lambda: m.tensor([1, 2]).norm(),
    "std int": lambda: m.tensor([1, 2]).std(),
    "retain_grad leaf noreq": lambda: m.ones(2).retain_grad(),
    "hook noreq": lambda: m.ones(2).register_hook(lambda g: g),
    "backward inputs empty": lambda: (m.ones(2, requires_grad=True) * 2).sum().backward(inputs=[]),
    "where cond float": lambda: m.where(m.ones(2), m.ones(2), m.ones(2)),
    "masked_fill float mask": lambda: m.ones(2).masked_fill(m.ones(2), 0.0),
    "one_hot float": lambda: m.nn.functional.one_hot(m.tensor([1.0])),
    "ce target float": lambda: m.nn.functional.cross_entropy(m.ones(2, 3), m.tensor([0.0, 1.0])),
    "linear shapes": lambda: m.nn.functional.linear(m.ones(2, 3), m.ones(4, 5)),
    }

NAMES = sorted(cases(vg))


@pytest.mark.parametrize("name", NAMES)
def test_the_same_mistake_gets_the_same_answer(name):
    torch = torch_or_skip()
    theirs, ours = (raised(cases(m)[name]) for m in (torch, vg))
    assert (ours and ours[0]) == (theirs and theirs[0]), f"torch: {theirs}, viewgrad: {ours}"


# Where the words knowingly differ: PyTorch names itself ("torch.cat()"), and its argument
# parser's wording for sizes is not viewgrad's.
WORDING_DIFFERS = {"cat empty", "zeros float size"}


@pytest.mark.parametrize("name", [n for n in NAMES if n not in WORDING_DIFFERS])
def test_the_same_mistake_gets_torchs_words(name):
    """The message starts with PyTorch's words (viewgrad may name the op first, "mul_: ",
    and add what to do after them)."""
    torch = torch_or_skip()
    words = [r and r[1] for r in (raised(cases(m)[name]) for m in (torch, vg))]
    if words[0] is None:
        assert words[1] is None
        return
    ours, theirs = words[1], words[0][:40]
    head, _, rest = (ours or "").partition(": ")
    # viewgrad may name the op first ("mm: ", "mul_: "): one word, no spaces
    assert ours is not None and (ours.startswith(theirs) or (
        " " not in head and rest.startswith(theirs))), words
