"""Lazy modules: layers whose input size is read from their first input, as PyTorch's
``nn.LazyLinear``, ``nn.LazyConv1d/2d/3d``, ``nn.LazyConvTranspose1d/2d/3d``,
``nn.LazyBatchNorm1d/2d/3d`` and ``nn.LazyInstanceNorm1d/2d/3d``, and ``LazyModuleMixin``
(served as ``torch.nn.modules.lazy.LazyModuleMixin``) to write one's own.

Until its first call a lazy module holds placeholders (``UninitializedParameter`` /
``UninitializedBuffer``, ``nn/uninitialized.py``) that refuse to be used. The first call
runs ``initialize_parameters(*args, **kwargs)`` before anything else: it reads
``in_features`` / ``in_channels`` / ``num_features`` from the input, ``materialize``s each
placeholder (the same objects become plain Parameters and Tensors) and runs
``reset_parameters`` — the very initialisation of the non-lazy layer, drawing from the
random generator in the same order. Then the module's class becomes ``cls_to_become``
(``LazyLinear`` becomes ``Linear``): afterwards it is indistinguishable from a layer built
with the size given.

As in PyTorch: the state dict of an uninitialised module holds the placeholders, and
loading real tensors into one materialises its placeholders with their shapes (the
inferred size attribute stays 0 until the first call); an optimizer must be built after
the first call, as it can only hold real parameters.

viewgrad runs the initialisation from the module's call, before the forward pre-hooks
(PyTorch registers it as the first forward pre-hook: a hook registered with
``prepend=True`` would run before it there).
"""
from __future__ import annotations

import itertools
from collections import OrderedDict

from ..autograd.grad_mode import no_grad
from ..ops.factories import zeros
from .layers import BatchNorm1d, BatchNorm2d, Conv1d, Conv2d, ConvTranspose2d, Linear
from .layers_cnn import BatchNorm3d, InstanceNorm3d
from .layers_extra import Conv3d, ConvTranspose1d, InstanceNorm1d, InstanceNorm2d
from .layers_rest import ConvTranspose3d
from .module import Module
from .uninitialized import UninitializedBuffer, UninitializedParameter, is_lazy

# (LazyModuleMixin is torch.nn.modules.lazy's, not torch.nn's: left out of the star import)
__all__ = ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d",
           "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
           "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class LazyModuleMixin(Module):
    """Mix in before a Module class to make its parameters lazy: define
    ``initialize_parameters(*args, **kwargs)`` (materialize the placeholders from the
    first input) and, optionally, ``cls_to_become`` (the class the module takes after)."""

    # (a Module subclass, unlike PyTorch's plain mixin: CPython lets an object's class be
    # swapped for cls_to_become only when both share the base that lays their instances
    # out, and viewgrad's Module gets its __dict__ below slotted mixins of its own)
    __slots__ = ()
    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # (a plain attribute, not a hook registration: a deep copy of the module, as
        # AveragedModel makes, then initialises itself, not the module it was copied from)
        self._lazy_pending = True

    def __call__(self, *args, **kwargs):
        if self.__dict__.get("_lazy_pending"):
            self._infer_parameters(self, args, kwargs)
        # (Module's, named: the class may have just become one that super() cannot see)
        return Module.__call__(self, *args, **kwargs)

    def _infer_parameters(self, module, args, kwargs=None):
        """Initialise ``module`` from the first call's arguments, then make it a
        ``cls_to_become`` (PyTorch's hook of that name)."""
        kwargs = kwargs if kwargs else {}
        module.initialize_parameters(*args, **kwargs)
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
        del module._lazy_pending
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def initialize_parameters(self, *args, **kwargs):
        """Materialize the placeholders from the first call's arguments (each lazy layer
        defines it)."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self):
        """Whether a parameter or buffer of this module (not its children) is still a
        placeholder."""
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(),
                                                       self._buffers.values()))

    # -- state dicts: the placeholders go in and out as they are ---------------------------
    def state_dict(self, destination=None, prefix="", keep_vars=False):
        """As ``Module.state_dict``, but a placeholder is put in itself (it has no data to
        detach), as PyTorch's ``_save_to_state_dict`` of lazy modules does."""
        out = OrderedDict() if destination is None else destination
        persistent = ((n, b) for n, b in self._buffers.items() if n not in self._non_persistent)
        for name, t in itertools.chain(self._parameters.items(), persistent):
            if t is not None:
                out[prefix + name] = t if (keep_vars or is_lazy(t)) else t.detach()
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=out, prefix=prefix + name + ".", keep_vars=keep_vars)
        return out

    def _load_from_state_dict(self, state_dict, prefix, missing, unexpected, errors, assign):
        # A real tensor loaded into a placeholder materializes it with the tensor's shape
        # first (PyTorch's _lazy_load_hook); a placeholder loaded into a placeholder leaves
        # it as it is (there is nothing to copy).
        both_lazy = set()
        with no_grad():
            for name, t in itertools.chain(self._parameters.items(), self._buffers.items()):
                key = prefix + name
                if t is None or key not in state_dict or not is_lazy(t):
                    continue
                if is_lazy(state_dict[key]):
                    both_lazy.add(key)
                else:
                    t.materialize(state_dict[key].shape)
        n = len(missing)
        super()._load_from_state_dict(
            {k: v for k, v in state_dict.items() if k not in both_lazy}, prefix, missing,
            unexpected, errors, assign)
        missing[n:] = [k for k in missing[n:] if k not in both_lazy]


# -- Linear ------------------------------------------------------------------------------

class LazyLinear(LazyModuleMixin, Linear):
    """``nn.Linear`` whose ``in_features`` is the last dim of its first input:
    ``LazyLinear(out_features, bias=True, device=None, dtype=None)``."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)   # (no bias: nothing made only to be replaced)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        """Read ``in_features`` from ``input.shape[-1]``, make the weight (out, in) and the
        bias (out,), and initialise them as ``Linear`` does."""
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:   # (loaded from a state dict: the size from the weight)
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(
                    f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                    f"in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


# -- convolutions ------------------------------------------------------------------------

class _LazyConvXdMixin(LazyModuleMixin):
    """The lazy convolutions' shared part: ``in_channels`` is the input's channel dim
    (dim 1 of a batched input, dim 0 of an unbatched one)."""

    __slots__ = ()

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        """Read ``in_channels`` from ``input``, make the weight and bias, and initialise
        them as the convolution does."""
        if not self.has_uninitialized_params():
            return
        with no_grad():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self._transposed:
                shape = (self.in_channels, self.out_channels // self.groups)
            else:
                shape = (self.out_channels, self.in_channels // self.groups)
            self.weight.materialize(shape + tuple(self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input):
        n = self._nsp + 1   # channels and the spatial dims
        if input.dim() not in (n, n + 1):
            raise RuntimeError(
                f"Expected {n}D (unbatched) or {n + 1}D (batched) input to "
                f"{self.__class__.__name__}, but got input of size: "
                f"torch.Size({list(input.shape)})")
        return input.shape[1] if input.dim() == n + 1 else input.shape[0]


def _lazy_conv(base, doc):
    """A lazy class of convolution ``base`` (weight and bias placeholders; in_channels 0
    until the first call). Its signature is PyTorch's: ``base``'s without in_channels."""
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        # (no bias: nothing made only to be replaced)
        LazyModuleMixin.__init__(self, 0, 0, kernel_size, stride=stride, padding=padding,
                                 dilation=dilation, groups=groups, bias=False,
                                 padding_mode=padding_mode, device=device, dtype=dtype)
        _finish(self, out_channels, bias, device, dtype)
    return _lazy_class(base, doc, __init__)


def _lazy_conv_transpose(base, doc):
    """As ``_lazy_conv`` for a transposed convolution (its own argument order)."""
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                 dtype=None):
        LazyModuleMixin.__init__(self, 0, 0, kernel_size, stride=stride, padding=padding,
                                 output_padding=output_padding, groups=groups, bias=False,
                                 dilation=dilation, padding_mode=padding_mode, device=device,
                                 dtype=dtype)
        _finish(self, out_channels, bias, device, dtype)
    return _lazy_class(base, doc, __init__)


def _finish(conv, out_channels, bias, device, dtype):
    conv.weight = UninitializedParameter(device=device, dtype=dtype)
    conv.out_channels = out_channels
    if bias:
        conv.bias = UninitializedParameter(device=device, dtype=dtype)


def _lazy_class(base, doc, init):
    cls = type(f"Lazy{base.__name__}", (_LazyConvXdMixin, base),
               {"__init__": init, "cls_to_become": base, "__doc__": doc,
                "__module__": __name__, "__qualname__": f"Lazy{base.__name__}"})
    init.__qualname__ = f"Lazy{base.__name__}.__init__"
    return cls


LazyConv1d = _lazy_conv(Conv1d, "``nn.Conv1d`` whose ``in_channels`` is read from its "
                        "first input (``LazyConv1d(out_channels, kernel_size, ...)``).")
LazyConv2d = _lazy_conv(Conv2d, "``nn.Conv2d`` whose ``in_channels`` is read from its "
                        "first input (``LazyConv2d(out_channels, kernel_size, ...)``).")
LazyConv3d = _lazy_conv(Conv3d, "``nn.Conv3d`` whose ``in_channels`` is read from its "
                        "first input (``LazyConv3d(out_channels, kernel_size, ...)``).")
LazyConvTranspose1d = _lazy_conv_transpose(
    ConvTranspose1d, "``nn.ConvTranspose1d`` whose ``in_channels`` is read from its first "
    "input (``LazyConvTranspose1d(out_channels, kernel_size, ...)``).")
LazyConvTranspose2d = _lazy_conv_transpose(
    ConvTranspose2d, "``nn.ConvTranspose2d`` whose ``in_channels`` is read from its first "
    "input (``LazyConvTranspose2d(out_channels, kernel_size, ...)``).")
LazyConvTranspose3d = _lazy_conv_transpose(
    ConvTranspose3d, "``nn.ConvTranspose3d`` whose ``in_channels`` is read from its first "
    "input (``LazyConvTranspose3d(out_channels, kernel_size, ...)``).")


# -- normalisation -----------------------------------------------------------------------

class _LazyNormBase(LazyModuleMixin):
    """The lazy norm layers' shared part: ``num_features`` is ``input.shape[1]`` (for an
    unbatched instance-norm input too, as PyTorch reads it)."""

    __slots__ = ()

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        # (affine and track_running_stats off in the base: no tensors made to be replaced)
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        fk = {"device": device, "dtype": dtype}
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(**fk)
            if bias:
                self.bias = UninitializedParameter(**fk)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(**fk)
            self.running_var = UninitializedBuffer(**fk)
            self.num_batches_tracked = zeros((), dtype="int64", device=device)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        """Read ``num_features`` from ``input.shape[1]``, make the affine parameters and
        the running statistics, and reset them as the layer does."""
        if not self.has_uninitialized_params():
            return
        with no_grad():
            self.num_features = input.shape[1]
            if self.affine:
                self.weight.materialize((self.num_features,))
                if self.bias is not None:
                    self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


def _lazy_norm(base, doc):
    return type(f"Lazy{base.__name__}", (_LazyNormBase, base),
                {"cls_to_become": base, "__doc__": doc, "__module__": __name__,
                 "__qualname__": f"Lazy{base.__name__}"})


LazyBatchNorm1d = _lazy_norm(BatchNorm1d, "``nn.BatchNorm1d`` whose ``num_features`` is "
                             "read from its first input (``input.size(1)``).")
LazyBatchNorm2d = _lazy_norm(BatchNorm2d, "``nn.BatchNorm2d`` whose ``num_features`` is "
                             "read from its first input (``input.size(1)``).")
LazyBatchNorm3d = _lazy_norm(BatchNorm3d, "``nn.BatchNorm3d`` whose ``num_features`` is "
                             "read from its first input (``input.size(1)``).")
LazyInstanceNorm1d = _lazy_norm(InstanceNorm1d, "``nn.InstanceNorm1d`` whose "
                                "``num_features`` is read from its first input "
                                "(``input.size(1)``).")
LazyInstanceNorm2d = _lazy_norm(InstanceNorm2d, "``nn.InstanceNorm2d`` whose "
                                "``num_features`` is read from its first input "
                                "(``input.size(1)``).")
LazyInstanceNorm3d = _lazy_norm(InstanceNorm3d, "``nn.InstanceNorm3d`` whose "
                                "``num_features`` is read from its first input "
                                "(``input.size(1)``).")
