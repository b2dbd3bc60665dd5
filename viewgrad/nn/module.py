"""``Module`` (the base of every layer), ``Sequential``, ``ModuleList``, and saving state
dicts as ``.npz`` files (never pickle).

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

from .. import backend as B
from ..autograd.grad_mode import no_grad
from ..ops.memory import parse_to
from ..tensor import Tensor
from .module_lookup import SubmoduleLookup
from .parameter import Buffer, Parameter

__all__ = ["Module", "Sequential", "ModuleList", "save", "load"]


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns; reads as PyTorch's."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class Module(SubmoduleLookup):
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
        params, buffers, modules = self._registries()
        if isinstance(value, Parameter):
            buffers.pop(name, None)
            modules.pop(name, None)
            self.__dict__.pop(name, None)
            params[name] = value
        elif isinstance(value, Module):
            params.pop(name, None)
            buffers.pop(name, None)
            self.__dict__.pop(name, None)
            modules[name] = value
        elif isinstance(value, Buffer):   # (nn.Buffer: registered with its persistence)
            params.pop(name, None)
            modules.pop(name, None)
            self.__dict__.pop(name, None)
            self.register_buffer(name, value, value.persistent)
        elif name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter "
                                f"'{name}' (viewgrad.nn.Parameter or None expected)")
            params[name] = None
        elif name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module "
                                f"'{name}' (viewgrad.nn.Module or None expected)")
            modules[name] = None
        elif name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' "
                                "(viewgrad.Tensor or None expected)")
            buffers[name] = value
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

    def register_parameter(self, name, param):
        if "." in name or not name:
            raise KeyError(f"parameter name can't contain \".\" or be empty, got {name!r}")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter "
                            f"'{name}' (viewgrad.nn.Parameter or None required)")
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        if "." in name or not name:
            raise KeyError(f"buffer name can't contain \".\" or be empty, got {name!r}")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer "
                            f"'{name}' (viewgrad.Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent.discard(name)
        else:
            self._non_persistent.add(name)

    def add_module(self, name, module):
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._modules[name] = module

    register_module = add_module

    # -- calling --------------------------------------------------------------------------
    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    def __call__(self, *args, **kwargs):
        hooks = self.__dict__.get("_forward_hooks")
        if not hooks:
            return self.forward(*args, **kwargs)
        backward = [h for kind, h in hooks.values() if kind == "backward"]
        state = None
        if backward:
            state = _BackwardHookState(self, backward)
            args = state.wrap_inputs(args)
        for kind, hook in list(hooks.values()):
            if kind == "pre":
                r = hook(self, args)
                if r is not None:
                    args = r if isinstance(r, tuple) else (r,)
        out = self.forward(*args, **kwargs)
        for kind, hook in list(hooks.values()):
            if kind == "post":
                r = hook(self, args, out)
                if r is not None:
                    out = r
        return state.wrap_outputs(out) if state is not None else out

    def _add_forward_hook(self, kind, hook):
        hooks = self.__dict__.setdefault("_forward_hooks", {})
        key = object()
        hooks[key] = (kind, hook)
        return _HookHandle(hooks, key)

    def register_forward_pre_hook(self, hook):
        """``hook(module, args)`` before each forward; returning a value replaces the args.
        Returns a handle with ``.remove()`` (as torch)."""
        return self._add_forward_hook("pre", hook)

    def register_full_backward_hook(self, hook, prepend=False):
        """``hook(module, grad_input, grad_output)`` when the gradients w.r.t. the module's
        tensor inputs are computed; returning a tuple replaces grad_input. As PyTorch, the
        inputs and outputs pass through an identity Function (BackwardHookFunctionBackward
        in the graph) that catches those gradients."""
        return self._add_forward_hook("backward", hook)

    def register_forward_hook(self, hook):
        """``hook(module, args, output)`` after each forward; returning a value replaces
        the output. Returns a handle with ``.remove()`` (as torch)."""
        return self._add_forward_hook("post", hook)

    # -- walking ----------------------------------------------------------------------------
    def named_modules(self, memo=None, prefix=""):
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is None:
                continue
            yield from m.named_modules(memo, f"{prefix}.{name}" if prefix else name)

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
        mods = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for mprefix, m in mods:
            for name, v in getattr(m, registry).items():
                if v is None or (remove_duplicate and id(v) in seen):
                    continue
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
                    new = fn(p.detach())
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
        """name -> tensor for every parameter and persistent buffer (sharing memory)."""
        out = OrderedDict() if destination is None else destination
        for mprefix, m in self.named_modules(prefix=prefix.rstrip(".")):
            for name, p in m._parameters.items():
                if p is not None:
                    out[f"{mprefix}.{name}" if mprefix else name] = p if keep_vars else \
                        p.detach()
            for name, b in m._buffers.items():
                if b is not None and name not in m._non_persistent:
                    out[f"{mprefix}.{name}" if mprefix else name] = b if keep_vars else \
                        b.detach()
        return out

    def load_state_dict(self, state_dict, strict=True):
        """Copy ``state_dict``'s values into this module's parameters and buffers in place.
        With ``strict``, missing or unexpected keys are an error (listed by name); a shape
        mismatch always is."""
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        if strict:
            if unexpected:
                errors.append("Unexpected key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.append("Missing key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in missing) + ". ")
        for k, t in own.items():
            if k not in state_dict:
                continue
            v = state_dict[k]
            if not isinstance(v, Tensor):
                v = _to_tensor(v, t)
            if tuple(v.shape) != tuple(t.shape):
                errors.append(f"size mismatch for {k}: copying a param with shape "
                              f"{v.shape!r} from checkpoint, the shape in current model is "
                              f"{t.shape!r}.")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                               + "\n\t".join(errors))
        with no_grad():
            for k, t in own.items():
                if k in state_dict:
                    v = state_dict[k]
                    if not isinstance(v, Tensor):
                        v = _to_tensor(v, t)
                    t.copy_(v.to(t.dtype))
        return _IncompatibleKeys(missing, unexpected)

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


class _BackwardHookState:
    """One call's bookkeeping for full backward hooks: the output identity's backward
    records grad_output; the input identity's backward calls the hooks with grad_input."""

    def __init__(self, module, hooks):
        self.module, self.hooks = module, hooks
        self.grad_output = None
        self.inputs_need_grad = False

    def _call_hooks(self, grad_input):
        for hook in self.hooks:
            r = hook(self.module, grad_input, self.grad_output)
            if r is not None:
                grad_input = tuple(r) if isinstance(r, (tuple, list)) else (r,)
        return grad_input

    def wrap_inputs(self, args):
        idx = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        if not idx:
            return args
        self.inputs_need_grad = True
        outs = _BackwardHookFunction.apply(self, "input", *[args[i] for i in idx])
        outs = outs if isinstance(outs, tuple) else (outs,)
        args = list(args)
        for i, o in zip(idx, outs):
            args[i] = o
        return tuple(args)

    def wrap_outputs(self, out):
        single = isinstance(out, Tensor)
        items = (out,) if single else out
        if not isinstance(items, tuple) or not any(isinstance(o, Tensor) and o.requires_grad
                                                   for o in items):
            return out
        idx = [i for i, o in enumerate(items) if isinstance(o, Tensor) and o.requires_grad]
        res = _BackwardHookFunction.apply(self, "output", *[items[i] for i in idx])
        res = res if isinstance(res, tuple) else (res,)
        items = list(items)
        for i, o in zip(idx, res):
            items[i] = o
        return items[0] if single else tuple(items)


class _BackwardHookFunction:
    """Placeholder replaced below by an autograd.Function subclass (import order)."""


def _make_backward_hook_function():
    from ..autograd.function import Function

    class BackwardHookFunction(Function):
        """Identity whose backward hands the gradients to a module's full backward hooks."""

        @staticmethod
        def forward(ctx, state, where, *tensors):
            ctx.state, ctx.where = state, where
            return tensors[0] if len(tensors) == 1 else tensors

        @staticmethod
        def backward(ctx, *grads):
            st = ctx.state
            if ctx.where == "output":
                st.grad_output = grads
                if not st.inputs_need_grad:
                    st._call_hooks((None,))
                return (None, None) + grads
            return (None, None) + tuple(st._call_hooks(grads))
    return BackwardHookFunction


_BackwardHookFunction = _make_backward_hook_function()


class _HookHandle:
    """What ``register_forward_hook`` returns: ``.remove()`` takes the hook off."""

    def __init__(self, hooks, key):
        self._hooks, self._key = hooks, key

    def remove(self):
        self._hooks.pop(self._key, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _to_tensor(v, like):
    from ..ops.factories import tensor
    return tensor(v, dtype=like.dtype, device=like.device)


class Sequential(Module):
    """Modules called one after the other: ``Sequential(Conv2d(...), ReLU(), ...)`` or
    ``Sequential(OrderedDict(name=module, ...))``."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], (dict, OrderedDict)):
            for name, m in args[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(args):
                self.add_module(str(i), m)

    def forward(self, input):
        for m in self._modules.values():
            input = m(input)
        return input

    def __getitem__(self, idx):
        mods = list(self._modules.items())
        if isinstance(idx, slice):
            return Sequential(OrderedDict(mods[idx]))
        n = len(mods)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range for Sequential of length {n}")
        return mods[idx][1]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self


class ModuleList(Module):
    """A list of modules whose parameters the parent module sees."""

    def __init__(self, modules=None):
        super().__init__()
        for m in modules or ():
            self.append(m)

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self

    def __getitem__(self, idx):
        mods = list(self._modules.values())
        if isinstance(idx, slice):
            return ModuleList(mods[idx])
        return mods[idx]

    def __repr__(self):
        """As PyTorch: a run of equal consecutive modules prints once, as
        ``(0-5): 6 x Block(...)``."""
        runs = []    # [first index, last index, repr]
        for i, m in enumerate(self._modules.values()):
            r = repr(m)
            if runs and runs[-1][2] == r:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        if not runs:
            return type(self).__name__ + "()"
        lines = [(f"({a}): {r}" if a == b else f"({a}-{b}): {b - a + 1} x {r}")
                 .replace("\n", "\n  ") for a, b, r in runs]
        return type(self).__name__ + "(\n  " + "\n  ".join(lines) + "\n)"

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())


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
