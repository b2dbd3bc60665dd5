"""``torch.nn.utils.parametrize``: make a module's parameter (or buffer) a function of other
tensors, recomputed on every read.

``register_parametrization(module, "weight", P())`` moves the tensor ``module.weight`` into
``module.parametrizations.weight.original`` (a ``ParametrizationList``, itself a
``ModuleList`` holding ``P()``), and from then on reading ``module.weight`` returns
``P()(original)``, so gradients reach ``original`` through ``P``'s graph. A parametrization
may have a ``right_inverse``: it gives the initial ``original`` from the old value, and it
makes ``module.weight = value`` write ``right_inverse(value)`` into ``original``. When
``right_inverse`` returns a tuple, the originals are ``original0``, ``original1``, ...
and ``P.forward`` takes them all (weight norm keeps ``g`` and ``v`` so).

As in PyTorch, the property lives on the CLASS: the module's class is swapped for a
subclass made for it, named ``Parametrized<Class>``, with one property per parametrized
name; removing the last parametrization swaps the original class back. So the structure a
user sees is PyTorch's: ``type(m).__name__``, the repr, ``named_parameters()`` and the
state dict keys (``parametrizations.weight.original``).

``cached()`` computes each parametrized tensor once per ``with`` block (a weight read many
times in a recurrent loop), and ``remove_parametrizations`` folds a parametrization away,
leaving either its current value or the unconstrained original.
"""
from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager

from .. import backend as B
from ..autograd.grad_mode import no_grad
from ..tensor import Tensor
from .container import ModuleDict, ModuleList
from .module import Module
from .parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations",
           "transfer_parametrizations_and_params"]


class _CacheState:
    """How many ``cached()`` blocks are open, and what they computed (keyed by module
    identity and tensor name); one per process, as PyTorch's module globals."""
    depth = 0
    values: dict = {}


@contextmanager
def cached():
    """Inside this block every parametrized tensor is computed on its first read and the
    same tensor (the same graph) is returned on every later read; leaving the outermost
    block forgets the values. Use it around a forward that reads one parametrized weight
    many times (an RNN's recurrent kernel, tied weights), in training and in eval."""
    _CacheState.depth += 1
    try:
        yield
    finally:
        _CacheState.depth -= 1
        if not _CacheState.depth:
            _CacheState.values = {}


def _dtype(dt):
    return f"torch.{B.dtype_name(dt)}"


def _size(shape):
    return f"torch.Size({list(shape)})"


def _register_parameter_or_buffer(module, name, value):
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set_into(dest, src):
    """``dest.set_(src)`` under no_grad: ``dest`` (keeping its identity, so an optimizer
    holding it still works) now looks at ``src``'s memory, and its version moves once, as
    an in-place op's would."""
    if src is not dest:
        dest.data = src
    dest._version_counter.bump()


class ParametrizationList(ModuleList):
    """``module.parametrizations[name]``: the parametrizations registered on ``name``,
    applied in order, and the unconstrained tensor(s) they start from (``original``, or
    ``original0``, ``original1``... when the first one's ``right_inverse`` returns several).
    Calling it computes the parametrized value. ``register_parametrization`` makes these;
    they are not meant to be built by hand.

    Unless ``unsafe``, registration checks that the parametrization keeps the tensor's
    dtype and shape."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        shape, dtype = original.shape, original.dtype

        new = original
        with no_grad():
            for m in reversed(self):
                if hasattr(m, "right_inverse"):
                    try:
                        new = m.right_inverse(new)
                    except NotImplementedError:   # "no inverse": keep the value as it is
                        pass
        if not isinstance(new, (Tensor, Sequence)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")

        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if new.dtype != original.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change "
                                 f"the dtype.\noriginal.dtype: {_dtype(original.dtype)}\n"
                                 f"right_inverse(original).dtype: {_dtype(new.dtype)}")
            if new.device != original.device:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change "
                                 f"the device.\noriginal.device: {original.device}\n"
                                 f"right_inverse(original).device: {new.device}")
            # The module's own tensor object stays the original (an optimizer built before
            # registration keeps training it); it only takes the inverse's values.
            with no_grad():
                _set_into(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, t in enumerate(new):
                if not isinstance(t, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of "
                                     "tensors (list, tuple...). Got element "
                                     f"{i} of the sequence with type {type(t).__name__}.")
                if isinstance(original, Parameter):
                    t = Parameter(t, original.requires_grad)
                t.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", t)

        if not self.unsafe:
            Z = self()
            if not isinstance(Z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got "
                                 f"{type(Z).__name__}.")
            if Z.dtype != dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized dtype: {_dtype(dtype)}\n"
                    f"parametrized dtype: {_dtype(Z.dtype)}")
            if Z.shape != shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized shape: {_size(shape)}\n"
                    f"parametrized shape: {_size(Z.shape)}")

    def right_inverse(self, value):
        """Store ``value`` as the parametrized tensor's value: run every parametrization's
        ``right_inverse`` from the last registered to the first (under no_grad) and write
        the result into ``original`` (or ``original0``, ``original1``, ...) in place."""
        with no_grad():
            for m in reversed(self):
                if not hasattr(m, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(m).__name__} does not "
                                       "implement right_inverse.")
                value = m.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError("`right_inverse` should return a tensor. Got "
                                     f"{type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype "
                                     f"{_dtype(value.dtype)} while `original` has dtype "
                                     f"{_dtype(self.original.dtype)}")
                _set_into(self.original, value)
                return
            if not isinstance(value, Sequence):
                raise ValueError("'right_inverse' must return a sequence of tensors. Got "
                                 f"{type(value).__name__}.")
            if len(value) != self.ntensors:
                raise ValueError("'right_inverse' must return a sequence of tensors of length "
                                 f"{self.ntensors}. Got a sequence of length {len(value)}.")
            for i, t in enumerate(value):
                orig = getattr(self, f"original{i}")
                if not isinstance(t, Tensor):
                    raise ValueError("'right_inverse' must return a sequence of tensors or "
                                     f"reference-type opaques. Got element {i} of type "
                                     f"{type(t).__name__}.")
                if t.dtype != orig.dtype:
                    raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype "
                                     f"{_dtype(t.dtype)} while `original{i}` has dtype "
                                     f"{_dtype(orig.dtype)}")
                _set_into(orig, t)

    def forward(self):
        """The parametrized value: the first parametrization applied to the original(s),
        each later one to the previous result."""
        mods = iter(self._modules.values())
        first = next(mods)
        if self.is_tensor:
            x = first(self.original)
        else:
            x = first(*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for m in mods:
            x = m(x)
        return x


_PICKLE_REFUSAL = ("Serialization of parametrized modules is only supported through "
                   "state_dict(). See:\nhttps://pytorch.org/tutorials/beginner/"
                   "saving_loading_models.html#saving-loading-a-general-checkpoint-for-"
                   "inference-and-or-resuming-training")


def _refuse_pickle(self, *args):
    raise RuntimeError(_PICKLE_REFUSAL)


def _add_load_pre_hook(module, hook):
    """Call ``hook(state_dict, prefix)`` before ``module`` (parametrized) loads its keys."""
    hooks = module.__dict__.get("_parametrize_load_hooks")
    if hooks is None:
        hooks = []
        object.__setattr__(module, "_parametrize_load_hooks", hooks)
    hooks.append(hook)


def _swap_in_parametrized_class(module):
    # A class per module (not one shared ParametrizedLinear): the properties are added to
    # and removed from it as names are parametrized, and must not reach other instances.
    cls = type(module)

    def _load_from_state_dict(self, state_dict, prefix, *rest):
        # Stands in for torch's load_state_dict pre-hooks, which viewgrad's Module lacks:
        # a hook may rename keys (weight_norm reads old ``weight_g``/``weight_v``
        # checkpoints) before this module and its children look for theirs.
        for hook in self.__dict__.get("_parametrize_load_hooks", ()):
            hook(state_dict, prefix)
        cls._load_from_state_dict(self, state_dict, prefix, *rest)

    ns = {"__getstate__": _refuse_pickle, "__reduce_ex__": _refuse_pickle,
          "_load_from_state_dict": _load_from_state_dict}
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), ns)


def _add_property(module, tensor_name):
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get(self):
        plist = self.parametrizations[tensor_name]
        if not _CacheState.depth:
            return plist()
        key = (id(self), tensor_name)
        value = _CacheState.values.get(key)
        if value is None:
            value = _CacheState.values[key] = plist()
        return value

    def set(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(type(module), tensor_name, property(get, set))


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make ``module.<tensor_name>`` read as ``parametrization(original)``; returns
    ``module``.

    The first registration on a name moves the parameter or buffer into
    ``module.parametrizations[tensor_name]`` (``original``, set to
    ``parametrization.right_inverse(value)`` when the parametrization has one, or
    ``original0``, ``original1``, ... when that returns a sequence); later ones chain
    after it. ``parametrization`` takes the module's training mode. Unless ``unsafe``, it is
    called once to check that the dtype and shape are kept."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            Y = getattr(module, tensor_name)
            X = parametrization(Y)
            if not isinstance(X, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got "
                                 f"{type(X).__name__}.")
            if X.dtype != Y.dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, "
                    "unless the `unsafe` flag is enabled.\n"
                    f"module.{tensor_name}.dtype: {_dtype(Y.dtype)}\n"
                    f"parametrization(module.{tensor_name}).dtype: {_dtype(X.dtype)}")
            if X.shape != Y.shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, "
                    "unless the `unsafe` flag is enabled.\n"
                    f"module.{tensor_name}.shape: {_size(Y.shape)}\n"
                    f"parametrization(module.{tensor_name}).shape: {_size(X.shape)}")
            if hasattr(parametrization, "right_inverse"):
                try:
                    Z = parametrization.right_inverse(X)
                except NotImplementedError:
                    Z = None
                if Z is not None:
                    _check_chained_inverse(Z, Y, tensor_name)
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        plist = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _swap_in_parametrized_class(module)
            module.parametrizations = ModuleDict()
        _add_property(module, tensor_name)
        module.parametrizations[tensor_name] = plist
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def _check_chained_inverse(Z, Y, tensor_name):
    if not isinstance(Z, Tensor):
        raise ValueError("parametrization.right_inverse must return a tensor. Got: "
                         f"{type(Z).__name__}")
    if Z.dtype != Y.dtype:
        raise ValueError(
            "The tensor returned by parametrization.right_inverse must have the same dtype "
            f"as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
            f"module.{tensor_name}.dtype: {_dtype(Y.dtype)}\n"
            f"returned dtype: {_dtype(Z.dtype)}")
    if Z.shape != Y.shape:
        raise ValueError(
            "The tensor returned by parametrization.right_inverse must have the same shape "
            f"as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
            f"module.{tensor_name}.shape: {_size(Y.shape)}\n"
            f"returned shape: {_size(Z.shape)}")


def is_parametrized(module, tensor_name=None):
    """Whether ``module`` has a parametrization on ``tensor_name`` (on any tensor, when
    ``tensor_name`` is None)."""
    plists = getattr(module, "parametrizations", None)
    if not isinstance(plists, ModuleDict):
        return False
    return len(plists) > 0 if tensor_name is None else tensor_name in plists


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo the parametrizations of ``module.<tensor_name>``; returns ``module``.

    With ``leave_parametrized=True`` the tensor keeps its current parametrized value
    (written into the original Parameter object, so an optimizer holding it still
    works; a parametrization on several originals gives a new Parameter); with ``False``
    it goes back to the unconstrained ``original`` (refused for several originals). The
    last removal gives the module its own class back."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
                _set_into(original, value)
    elif leave_parametrized:
        value = getattr(module, tensor_name)
        original = Parameter(value) if value.requires_grad else value
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                         "that is parametrized in terms of a sequence of tensors.")
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module).__bases__[0]
    return module


def type_before_parametrizations(module):
    """The module's own class (``Linear`` for a ``ParametrizedLinear``)."""
    if is_parametrized(module):
        return type(module).__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Register ``from_module``'s parametrizations (the same parametrization objects) on
    ``to_module`` and make its originals the very tensors of ``from_module`` (shared,
    not copied); only ``tensor_name``'s when given. A name ``to_module`` lacks is created
    first from ``from_module``'s current value. Returns ``to_module``."""
    if not is_parametrized(from_module):
        return to_module
    src = from_module.parametrizations
    for name in (list(src) if tensor_name is None else [tensor_name]):
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for p in src[name]:
            register_parametrization(to_module, name, p)
        dst = to_module.parametrizations[name]
        if hasattr(src[name], "original"):
            dst.original = src[name].original
        else:
            i = 0
            while hasattr(src[name], f"original{i}"):
                setattr(dst, f"original{i}", getattr(src[name], f"original{i}"))
                i += 1
    return to_module
