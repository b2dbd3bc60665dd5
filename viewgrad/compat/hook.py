"""The import hook: ``torch`` and its submodules resolved to viewgrad, for one run only.

``install()`` puts ``TorchFinder`` first on ``sys.meta_path`` and sets aside any real
``torch`` modules already imported (a PyTorch installed beside viewgrad, e.g. the tests'
oracle); ``uninstall()`` removes the finder and the shim modules and puts them back.
``torch_imports()`` is the two as a ``with`` block (re-entrant: nested blocks share one
installation).

Each torch module is a ``TorchModule``: a real module object whose attributes come, in
this order, from the torch-only basics declared in ``namespaces.py``, from a torch
submodule of that name (``torch.nn`` is the shim for ``viewgrad.nn``, so that its missing
names get the plain message too), and from the viewgrad module serving it. Anything else
raises ``NotProvidedError`` — an ``AttributeError`` (``hasattr`` keeps working) whose
message says what is missing and what viewgrad covers. A torch submodule with no entry in
the table raises ``NotProvidedModuleError`` (a ``ModuleNotFoundError``) on import.
"""
from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.machinery
import sys
import threading
import types

from .namespaces import (MODULES, exported, extras, is_provided, not_provided_message,
                         target_module)


class NotProvidedError(AttributeError):
    """A torch name viewgrad does not provide (an AttributeError, so hasattr works)."""


class NotProvidedModuleError(ModuleNotFoundError):
    """A torch module viewgrad does not provide."""


def _is_torch(fullname: str) -> bool:
    return fullname == "torch" or fullname.startswith("torch.")


class TorchModule(types.ModuleType):
    """A torch namespace served by viewgrad (see the module docstring for the lookup)."""

    def __init__(self, name):
        super().__init__(name)
        ns = MODULES[name]
        target = target_module(name)
        self.__dict__.update(
            __doc__=f"{name} as provided by viewgrad"
                    + (f" (served by {ns.target})" if target is not None else ""),
            __path__=[], __file__=getattr(target, "__file__", None),
            _vg_target=target)
        self.__dict__.update(extras(name))   # plain attributes: a script may set them

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)     # dunders: Python's own protocol probes
        sub = f"{self.__name__}.{name}"
        target = self.__dict__.get("_vg_target")
        if target is not None and name in exported(self.__name__):
            value = getattr(target, name)
            # a function shadows its own submodule, as in PyTorch (torch.autograd.gradcheck
            # is the function; ``import torch.autograd.gradcheck`` still finds the module)
            if callable(value) and not isinstance(value, (type, types.ModuleType)):
                return value
        if sub in MODULES and is_provided(sub):
            return importlib.import_module(sub)
        if target is not None and name in exported(self.__name__):
            return getattr(target, name)
        raise NotProvidedError(not_provided_message(sub))

    def __dir__(self):
        names = set(self.__dict__) | exported(self.__name__)
        names |= {m.rsplit(".", 1)[1] for m in MODULES
                  if "." in m and m.rsplit(".", 1)[0] == self.__name__ and is_provided(m)}
        return sorted(names)


class TorchFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``torch`` and ``torch.*`` before any real PyTorch can be found."""

    def find_spec(self, fullname, path=None, target=None):
        if not _is_torch(fullname):
            return None
        if not is_provided(fullname):
            raise NotProvidedModuleError(not_provided_message(fullname), name=fullname)
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        return TorchModule(spec.name)

    def exec_module(self, module):
        pass   # everything is looked up lazily, in TorchModule.__getattr__


_lock = threading.Lock()
_state = {"depth": 0, "finder": None, "stash": {}}


def install():
    """Resolve ``import torch`` to viewgrad until ``uninstall()``."""
    with _lock:
        _state["depth"] += 1
        if _state["depth"] > 1:
            return
        _state["stash"] = {k: sys.modules.pop(k) for k in list(sys.modules) if _is_torch(k)}
        _state["finder"] = TorchFinder()
        sys.meta_path.insert(0, _state["finder"])


def uninstall():
    """Remove the hook and the shim modules; put back any real torch modules set aside."""
    with _lock:
        if _state["depth"] == 0:
            return
        _state["depth"] -= 1
        if _state["depth"]:
            return
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(_state["finder"])
        for k in [k for k in sys.modules if _is_torch(k)]:
            del sys.modules[k]
        sys.modules.update(_state["stash"])
        _state["stash"], _state["finder"] = {}, None


@contextlib.contextmanager
def torch_imports():
    """``with torch_imports(): ...``: inside, ``import torch`` gives viewgrad."""
    install()
    try:
        yield
    finally:
        uninstall()
