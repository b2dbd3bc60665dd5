"""``torch.nn.utils.weight_norm`` / ``remove_weight_norm``: weight normalisation (Salimans &
Kingma, 2016) as a forward pre-hook, the deprecated API that older code (WaveNet and TCN
implementations, GAN discriminators) still calls.

``weight_norm(module, "weight", dim=0)`` replaces the Parameter ``weight`` by two:
``weight_g`` (the magnitudes: the norm of ``weight`` over every dim but ``dim``, kept with
size-1 dims) and ``weight_v`` (the direction: the old values), and sets ``module.weight``
to the plain tensor ``v * (g / ||v||)``, recomputed by a pre-hook before every forward, so
gradients reach ``g`` and ``v`` through it. ``dim=None`` (or -1, as in PyTorch: not the
last dim) normalises the whole tensor with one scalar ``g``. As PyTorch, a FutureWarning
says the function is deprecated; its successor (``torch.nn.utils.parametrizations``) is
not provided.

The weight is computed by composite ops, so its graph has a Mul/Div/Norm chain where
PyTorch's CPU build records one fused ``WeightNormInterfaceBackward0``: the values and
the gradients are the same.
"""
from __future__ import annotations

import warnings

from .parameter import Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]

_DEPRECATED = ("`torch.nn.utils.weight_norm` is deprecated in favor of "
               "`torch.nn.utils.parametrizations.weight_norm`.")


def norm_except_dim(v, pow=2, dim=0):
    """``torch.norm_except_dim``: the ``pow``-norm of ``v`` over every dim but ``dim``,
    shaped to broadcast against ``v`` (a 0-d norm of everything for ``dim=-1``)."""
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        shape = (v.shape[0],) + (1,) * (v.dim() - 1)
        return v.contiguous().view(v.shape[0], -1).norm(pow, 1).view(shape)
    if dim == v.dim() - 1:
        shape = (1,) * (v.dim() - 1) + (v.shape[-1],)
        return v.contiguous().view(-1, v.shape[-1]).norm(pow, 0).view(shape)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


class WeightNorm:
    """The pre-hook: ``name`` recomputed from ``name_g`` and ``name_v`` before forward."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return v * (g / norm_except_dim(v, 2, self.dim))

    @staticmethod
    def apply(module, name, dim):
        warnings.warn(_DEPRECATED, FutureWarning, stacklevel=3)
        for hook in module._hook_registries().forward_pre.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g",
                                  Parameter(norm_except_dim(weight, 2, fn.dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Reparametrise ``module.<name>`` as ``g * v / ||v||`` (see the module docstring);
    returns the module."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Fold ``g`` and ``v`` back into one Parameter ``<name>`` and drop the hook."""
    hooks = module._hook_registries().forward_pre
    for k, hook in list(hooks.items()):
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
