"""Finding a module's parts by dotted name, as ``torch.nn.Module`` does:
``get_submodule("encoder.layers.0")``, ``get_parameter("encoder.layers.0.weight")``,
``get_buffer("bn.running_mean")`` — with PyTorch's errors for a name that is missing or
names something of another kind. ``Module`` takes these methods from ``SubmoduleLookup``.
"""
from __future__ import annotations

__all__ = ["SubmoduleLookup"]


class SubmoduleLookup:
    """The dotted-name lookups of ``Module`` (a mixin: it reads ``_modules``,
    ``_parameters`` and ``_buffers``)."""

    __slots__ = ()

    def _get_name(self):
        return type(self).__name__

    def get_submodule(self, target):
        """The submodule at dotted path ``target`` (``""``: this module)."""
        from .module import Module
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def _dotted_owner(self, target):
        """(the module holding dotted path ``target``'s last name, that name), after
        PyTorch's check that the module has it."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        return mod, name

    def get_parameter(self, target):
        """The parameter at dotted path ``target`` (``"fc.weight"``)."""
        from .parameter import Parameter
        mod, name = self._dotted_owner(target)
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        """The buffer at dotted path ``target`` (``"bn.running_mean"``)."""
        mod, name = self._dotted_owner(target)
        if name not in mod.__dict__.get("_buffers", {}):
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(mod, name)
