"""``import torch`` resolves to viewgrad inside ``torch_imports()`` only, and whatever
viewgrad does not provide says so plainly."""
import importlib
import sys

import pytest

import viewgrad as vg
from viewgrad.compat import NotProvidedError, torch_imports

pytestmark = pytest.mark.once   # import machinery: the same on every device pass

MSG = ("is not provided by viewgrad (it covers autograd, tensors, nn, optim, utils.data: see "
       "the README's coverage table)")


def test_torch_names_are_viewgrads():
    with torch_imports():
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        from torch import optim
        from torch.autograd import Function
        assert torch.Tensor is vg.Tensor and torch.tensor is vg.tensor
        assert nn.Linear is vg.nn.Linear and F.relu is vg.nn.functional.relu
        assert optim.SGD is vg.optim.SGD and Function is vg.autograd.Function
        assert torch.nn is nn and torch.nn.functional is F   # the shims, not viewgrad's
        assert torch.float32 == vg.float32 and isinstance(torch.float32, torch.dtype)
        assert torch.__version__.startswith("2.13")
        assert torch.cuda.is_available() == vg.cuda.is_available()
        torch.backends.cudnn.deterministic = True     # scripts set these flags
        assert torch.backends.cudnn.deterministic is True
        assert "nn" in dir(torch) and "Linear" in dir(nn)


def test_missing_module_and_attribute_say_so():
    with torch_imports():
        import torch
        with pytest.raises(ModuleNotFoundError, match="torch.fft " + MSG.replace("(", r"\(")
                           .replace(")", r"\)")):
            import torch.fft  # noqa: F401
        with pytest.raises(AttributeError) as e:
            torch.fft.rfft(torch.ones(3))
        assert str(e.value) == f"torch.fft {MSG}"
        assert isinstance(e.value, NotProvidedError)
        with pytest.raises(AttributeError, match=r"torch.nn.functional.conv_tbc is not"):
            torch.nn.functional.conv_tbc
        with pytest.raises(ImportError, match="torch.jit is not provided"):
            from torch.jit import script  # noqa: F401
        assert not hasattr(torch, "compile_something") and hasattr(torch, "tensor")
        # viewgrad's own machinery does not show through torch: torch.trace is the matrix
        # trace there, not vg.trace (the tracer)
        assert torch.trace(torch.eye(3)).item() == 3.0


def test_the_hook_lives_for_the_block_only():
    before = {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}
    with torch_imports():
        with torch_imports():           # re-entrant
            import torch
        assert torch.ones is vg.ones
        assert importlib.import_module("torch").ones is vg.ones
    after = {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}
    assert after == before              # a real PyTorch set aside is back, ours are gone
    assert not any(type(f).__name__ == "TorchFinder" for f in sys.meta_path)
