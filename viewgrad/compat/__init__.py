"""``viewgrad.compat``: run code written for PyTorch on viewgrad, unchanged.

``with torch_imports(): exec(...)`` (what ``viewgrad run --torch SCRIPT`` and
``viewgrad --torch`` do) resolves ``import torch``, ``import torch.nn.functional as F``,
``from torch import nn, optim``, ``from torch.utils.data import DataLoader``... to viewgrad,
through an import hook (a meta-path finder, ``hook.py``) that lives only as long as the
``with`` block: nothing named ``torch`` is ever written into site-packages, and a real
PyTorch installed beside viewgrad is untouched (its modules are set aside and put back).

What ``torch.X`` means is declared once, in ``namespaces.py`` (a table from torch module
names to viewgrad modules, plus the few torch-only basics such as ``torch.__version__`` or
``torch.backends.cudnn``). Anything else fails with a plain sentence naming the missing
piece: ``torch.fft is not provided by viewgrad (it covers autograd, tensors, nn, optim,
utils.data: see the README's coverage table)`` — a ``NotProvidedError``, which is both an
``AttributeError`` (so ``hasattr``/``getattr(..., default)`` keep working) and, for whole
modules, a ``ModuleNotFoundError``.

``python -m viewgrad.compat.coverage`` prints the README's coverage table from the same
declarations.
"""
from .hook import NotProvidedError, NotProvidedModuleError, install, uninstall, torch_imports
from .namespaces import MODULES, not_provided_message

__all__ = ["NotProvidedError", "NotProvidedModuleError", "install", "uninstall",
           "torch_imports", "MODULES", "not_provided_message"]
