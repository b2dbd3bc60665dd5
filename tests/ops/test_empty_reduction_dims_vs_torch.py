"""An empty dim reduced by amax/amin/max/argmax, against PyTorch: amax and amin name the
dim as it was given (-1 stays -1), in the order given; max and argmax name it wrapped;
with no dim, an empty input is PyTorch's RuntimeError (argmax's IndexError)."""
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

CALLS = [("amax", (2, 0)), ("amax", (-1, 0)), ("amax", (0, -1)), ("amin", -1), ("amin", 2),
         ("amax", None), ("max", -1), ("argmax", -1), ("min", 2), ("argmin", -1)]


@pytest.mark.parametrize("name,dim", CALLS, ids=[f"{n}{d}" for n, d in CALLS])
def test_empty_reduction_dims_named_as_torch(name, dim):
    torch = torch_or_skip()
    seen = []
    for M in (vg, torch):
        x = M.zeros(2, 3, 0)
        with pytest.raises((IndexError, RuntimeError)) as e:
            getattr(x, name)() if dim is None else getattr(x, name)(dim)
        seen.append((e.type, str(e.value)))
    assert seen[0] == seen[1]
