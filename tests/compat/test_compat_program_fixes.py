"""What real PyTorch programs run through viewgrad.compat tripped on (a differential run
of 52 programs): a hand-written optimizer reading ``self.state[p]`` (a defaultdict),
``torch.autograd.gradcheck`` the function (not its submodule), ``f"{loss}"`` of a 0-d
tensor, the thread and determinism switches at the top of a script, is_pinned/pin_memory."""
import pytest

import viewgrad as vg
import viewgrad.compat as compat
from tests.helpers import torch_or_skip


def _program(torch):
    out = []
    p = torch.nn.Parameter(torch.ones(2))
    opt = torch.optim.SGD([p], lr=0.1)
    out.append(opt.state[p])                         # {} (a defaultdict)
    x = torch.ones(2, dtype=torch.double, requires_grad=True)
    out.append(torch.autograd.gradcheck(torch.sin, (x,)))
    out.append(torch.autograd.gradgradcheck(torch.sin, (x,)))
    loss = torch.tensor(0.25, requires_grad=True) * 2
    out.append(f"loss {loss} {loss:.3f} {torch.tensor(3)}")
    torch.set_num_threads(1)
    out.append(torch.get_num_threads())
    torch.use_deterministic_algorithms(True)
    out.append((torch.are_deterministic_algorithms_enabled(),
                torch.is_deterministic_algorithms_warn_only_enabled()))
    torch.use_deterministic_algorithms(False)
    out.append(torch.ones(2).is_pinned())
    try:
        torch.set_num_threads(0)
    except RuntimeError as e:
        out.append(str(e))
    return out


def test_the_program_runs_as_under_torch():
    torch = torch_or_skip()
    threads = torch.get_num_threads()
    try:
        want = _program(torch)
    finally:
        torch.set_num_threads(threads)
    with compat.torch_imports():
        import torch as shim
        assert shim.__version__.endswith("+viewgrad")   # (the shim, not PyTorch)
        got = _program(shim)
    assert got == want


def test_pin_memory_without_an_accelerator():
    if vg.cuda.is_available():
        pytest.skip("an accelerator is there: pin_memory returns the tensor")
    with pytest.raises(RuntimeError, match="Cannot access accelerator device"):
        vg.ones(2).pin_memory()
