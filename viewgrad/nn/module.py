"""``Module`` (the base of every layer) and saving state dicts as ``.npz`` files (never
pickle); the containers (``Sequential``, ``ModuleList``, ...) are in ``container.py``, the
hooks in ``module_hooks.py``.

A Module keeps three ordered registries, filled by plain attribute assignment as in
PyTorch: ``_parameters`` (Parameters), ``_buffers`` (tensors that are state but not
trained: BatchNorm's running statistics) and ``_modules`` (children). Everything else —
``parameters()``, ``state_dict()``, ``train()``/``eval()``, ``zero_grad()`` — walks them.

``load_state_dict`` copies values INTO the existing tensors (in place, under no_grad), so a
parameter keeps its identity (an optimizer holding it still works) and its ``_version``
moves.
"""
from __future__ import annotations

import copy

from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from .. import backend as B
from ..autograd.grad_mode import no_grad
from ..ops.memory import parse_to
from ..tensor import Tensor
from .module_hooks import ModuleHooks
from .module_lookup import SubmoduleLookup
from .parameter import Buffer, Parameter, is_lazy

__all__ = ["Module", "Sequential", "ModuleList", "save", "load"]   # (containers: below)


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns; reads as PyTorch's."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _typename(obj):
    """The type named in a registration error: PyTorch names it with its module
    (``torch.typename``), whose paths viewgrad's do not share, so the class's own name."""
    return type(obj).__name__


class Module(SubmoduleLookup, ModuleHooks):
    """Base class of every layer; subclasses define ``forward``."""

    training: bool

    def __init__(self):
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)

    # -- registration -------------------------------------------------------------------
    def _registries(self):
        try:
            return (object.__getattribute__(self, "_parameters"),
                    object.__getattribute__(self, "_buffers"),
                    object.__getattribute__(self, "_modules"))
        except AttributeError:
            raise AttributeError(
                f"cannot assign to {type(self).__name__} before Module.__init__() call "
                "(call super().__init__() first in your __init__)") from None

    def __setattr__(self, name, value):
        # PyTorch's order: a Parameter, then a name already a parameter, a Module, a name
        # already a child, a Buffer or a name already a buffer; anything else is a plain
        # attribute. A value of the wrong kind for a registered name is a TypeError.
        if "_modules" not in self.__dict__:
            # Before Module.__init__: PyTorch refuses only what needs a registry (with
            # these words); a plain attribute set first (``self.k = k`` above the super()
            # call, common enough) is kept.
            for kind, what in ((Parameter, "parameters"), (Module, "module"),
                               (Buffer, "buffer")):
                if isinstance(value, kind):
                    raise AttributeError(f"cannot assign {what} before Module.__init__() "
                                         "call (call super().__init__() first in your "
                                         "__init__)")
            object.__setattr__(self, name, value)
            return
        params, buffers, modules = self._registries()
        d = self.__dict__

        def remove_from(*regs):
            for r in regs:
                r.pop(name, None)
            self._non_persistent.discard(name)

        if isinstance(value, Parameter):
            remove_from(d, buffers, modules)
            self.register_parameter(name, value)
        elif name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(viewgrad.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            remove_from(d, params, buffers)
            modules[name] = value
        elif name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module "
                                f"'{name}' (viewgrad.nn.Module or None expected)")
            modules[name] = value
        elif isinstance(value, Buffer) or name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(viewgrad.nn.Buffer, viewgrad.Tensor or None expected)")
            persistent = (value.persistent if isinstance(value, Buffer)
                          else name not in self._non_persistent)
            self.register_buffer(name, value, persistent)
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        # only called when normal lookup fails: parameters, buffers and children live here
        d = self.__dict__
        for reg in ("_parameters", "_buffers", "_modules"):
            r = d.get(reg)
            if r is not None and name in r:
                return r[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for reg in self._registries():
            if name in reg:
                del reg[name]
                self._non_persistent.discard(name)
                return
        object.__delattr__(self, name)

    def _check_name(self, kind, name, registry):
        """PyTorch's checks of a name being registered: a str, no ".", not empty, not an
        attribute of another kind already."""
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if kind == "module":    # (add_module checks the attribute before the dot)
            if hasattr(self, name) and name not in registry:
                raise KeyError(f"attribute '{name}' already exists")
            if "." in name:
                raise KeyError(f'module name can\'t contain ".", got: {name}')
        elif "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in registry:
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name, param):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name("parameter", name, self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter "
                            f"'{name}' (viewgrad.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                             f"parameters must be created explicitly. To express '{name}' as "
                             "a function of another Tensor, compute the value in the "
                             "forward() method.")
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name("buffer", name, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer "
                            f"'{name}' (viewgrad.Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent.discard(name)
        else:
            self._non_persistent.add(name)

    def add_module(self, name, module):
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        self._check_name("module", name, self._modules)
        self._modules[name] = module

    def register_module(self, name, module):
        """``add_module`` (PyTorch's alias)."""
        self.add_module(name, module)

    # -- calling --------------------------------------------------------------------------
    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    # -- walking ----------------------------------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(dotted name, module) for this module and every descendant, each once (by
        identity) unless ``remove_duplicate=False``: a shared child is then listed under
        every name it has (as PyTorch)."""
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is None:
                continue
            yield from m.named_modules(memo, f"{prefix}.{name}" if prefix else name,
                                       remove_duplicate)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        seen = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def children(self):
        for _, m in self.named_children():
            yield m

    def _named_members(self, registry, prefix, recurse, remove_duplicate=True):
        seen = set()
        mods = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                if recurse else [(prefix, self)])
        for mprefix, m in mods:
            for name, v in getattr(m, registry).items():
                if v is None or id(v) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(v))
                yield (f"{mprefix}.{name}" if mprefix else name), v

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def apply(self, fn):
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # -- modes and grads ----------------------------------------------------------------------
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Forget the gradients: ``.grad = None`` (default), or zero them in place."""
        for p in self.parameters():
            if p._grad is None:
                continue
            if set_to_none:
                p._grad = None
            else:
                g = p._grad
                if g.grad_fn is not None:
                    p._grad = g = g.detach()
                with no_grad():
                    g.zero_()

    # -- devices and dtypes -------------------------------------------------------------------
    def _convert(self, fn):
        """Replace every parameter's and buffer's data by fn(tensor) (in place: the
        Parameter objects stay the same, so optimizers holding them keep working)."""
        for m in self.modules():
            for p in m._parameters.values():
                if p is not None:
                    # (a lazy module's placeholder has no data to detach: nn/uninitialized.py)
                    new = fn(p if is_lazy(p) else p.detach())
                    if new is not p:
                        p._data, p._storage, p._device = new._data, new._storage, new._device
                        if p._grad is not None:
                            p._grad = fn(p._grad)
            for k, b in m._buffers.items():
                if b is not None:
                    m._buffers[k] = fn(b)
        return self

    def to(self, *args, **kwargs):
        """Move and/or cast the parameters and buffers, in place, as ``torch.nn.Module.to``
        (``Tensor.to``'s arguments): a dtype converts only the floating-point ones (an
        int64 counter stays int64), a ``memory_format`` only the 4-D and 5-D ones."""
        device, dtype, non_blocking, _, fmt = parse_to(args, kwargs)
        if dtype is not None:
            dt = B.to_dtype(dtype)
            if dt.kind not in "fc":
                raise TypeError("nn.Module.to only accepts floating point or complex dtypes, "
                                f"but got desired dtype=torch.{B.dtype_name(dt)}")

        def convert(t):
            dt_t = dtype if (t.is_floating_point() or t.is_complex()) else None
            if fmt is not None and t.dim() in (4, 5):
                return t.to(device, dt_t, non_blocking, memory_format=fmt)
            return t.to(device, dt_t, non_blocking)
        return self._convert(convert)

    def double(self):
        return self._convert(lambda t: t.double() if t.is_floating_point() else t)

    def float(self):
        return self._convert(lambda t: t.float() if t.is_floating_point() else t)

    def half(self):
        return self._convert(lambda t: t.half() if t.is_floating_point() else t)

    def cpu(self):
        return self.to("cpu")

    def cuda(self):
        return self.to("cuda")

    # -- state dicts ---------------------------------------------------------------------------
    def state_dict(self, destination=None, prefix="", keep_vars=False):
        """name -> tensor for every parameter and persistent buffer (sharing memory). As
        PyTorch: the names are ``prefix`` + the dotted path (plain concatenation), and a
        child shared under two names is listed under both."""
        out = OrderedDict() if destination is None else destination
        for name, p in self._parameters.items():
            if p is not None:
                out[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent:
                out[prefix + name] = b if keep_vars else b.detach()
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=out, prefix=prefix + name + ".", keep_vars=keep_vars)
        return out

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy ``state_dict``'s tensors into this module's parameters and persistent
        buffers in place (``assign=True``: make them the module's, as Parameters where
        parameters were), module by module as PyTorch's. Missing and unexpected keys are
        returned, and with ``strict`` an error (missing listed first); a value that is not
        a tensor, or of another shape, always is."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        state_dict = OrderedDict(state_dict)

        def load(module, local, prefix=""):
            module._load_from_state_dict(local, prefix, missing, unexpected, errors, assign)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local.items() if k.startswith(child_prefix)},
                         child_prefix)

        load(self, state_dict)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in missing) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                               + "\n\t".join(errors))
        return _IncompatibleKeys(missing, unexpected)

    def _load_from_state_dict(self, state_dict, prefix, missing, unexpected, errors, assign):
        """This module's own part of ``load_state_dict`` (PyTorch's method of that name)."""
        local = {k: v for k, v in self._parameters.items() if v is not None}
        local.update((k, v) for k, v in self._buffers.items()
                     if v is not None and k not in self._non_persistent)
        for name, param in local.items():
            key = prefix + name
            if key not in state_dict:
                missing.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                errors.append(f'While copying the parameter named "{key}", expected '
                              "torch.Tensor or Tensor-like object from checkpoint but "
                              f"received {type(value)}")
                continue
            if param.dim() == 0 and value.dim() == 1 and value.shape[0] == 1:
                value = value[0]    # (PyTorch's allowance for a 1-element vector)
            if tuple(value.shape) != tuple(param.shape):
                errors.append(f"size mismatch for {key}: copying a param with shape "
                              f"{value.shape} from checkpoint, the shape in current model "
                              f"is {param.shape}.")
                continue
            try:
                with no_grad():
                    if assign:
                        if isinstance(param, Parameter) and not isinstance(value, Parameter):
                            value = Parameter(value, requires_grad=param.requires_grad)
                        elif isinstance(param, Parameter):
                            value.requires_grad_(param.requires_grad)
                        setattr(self, name, value)
                    else:
                        param.copy_(value)
            except Exception as ex:
                errors.append(f'While copying the parameter named "{key}", whose dimensions '
                              f"in the model are {param.shape} and whose dimensions in the "
                              f"checkpoint are {value.shape}, an exception occurred : "
                              f"{ex.args}.")
        for key in state_dict:   # (PyTorch always collects them; strict makes them errors)
            if key.startswith(prefix):
                head = key[len(prefix):].split(".", 1)
                if (head[0] not in self._modules) if len(head) > 1 else (head[0] not in local):
                    unexpected.append(key)

    def save(self, path):
        """Write ``state_dict()`` to ``path`` as an .npz file."""
        save(self.state_dict(), path)

    def load(self, path, strict=True):
        """Read an .npz state dict from ``path`` and load it."""
        return self.load_state_dict(load(path), strict=strict)

    # -- printing --------------------------------------------------------------------------
    def extra_repr(self):
        return ""

    def __repr__(self):
        lines = []
        extra = self.extra_repr()
        if extra:
            lines = extra.split("\n")
        for name, m in self._modules.items():
            body = repr(m).replace("\n", "\n  ")
            lines.append(f"({name}): {body}")
        main = type(self).__name__ + "("
        if lines:
            if len(lines) == 1 and not self._modules:
                return main + lines[0] + ")"
            return main + "\n  " + "\n  ".join(lines) + "\n)"
        return main + ")"

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers)
                      | set(self._modules))

    def __deepcopy__(self, memo):
        """``copy.deepcopy(module)``: the same class with every attribute deep-copied (its
        parameters become new leaves holding copies), as ``torch.nn.Module``; what
        ``nn.TransformerEncoder`` does to clone its layer. Not pickling."""
        new = object.__new__(type(self))
        memo[id(self)] = new
        for k, v in self.__dict__.items():
            object.__setattr__(new, k, copy.deepcopy(v, memo))
        return new

    def __reduce_ex__(self, proto):
        raise TypeError("viewgrad modules are not pickled; save the weights with "
                        "module.save(path) (an .npz file) and load them into a new module "
                        "with module.load(path)")


# -- .npz files -----------------------------------------------------------------------------

def save(state_dict, path):
    """Save a dict of tensors (a state dict) as an .npz file: arrays only, no pickle."""
    arrays = {}
    for k, v in state_dict.items():
        if not isinstance(v, Tensor):
            raise TypeError(f"save: value for {k!r} is a {type(v).__name__}; only tensors can "
                            "be saved (the .npz format holds arrays, never pickled objects)")
        arrays[k] = v._device.to_host(v._data)
    B.save_npz(path, arrays)


def load(path, device=None):
    """Read an .npz file written by ``save`` into an OrderedDict of tensors (arrays only:
    loading never unpickles)."""
    from ..ops.factories import tensor
    return OrderedDict((k, tensor(a, device=device)) for k, a in B.load_npz(path).items())


from .container import ModuleList, Sequential  # noqa: E402,F401  (they subclass Module)
