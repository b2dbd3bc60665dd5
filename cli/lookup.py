"""What a dotted name refers to, found *without running any user code*.

Completion, the signature toolbar and ``x?`` need to know what ``c.p.q`` is while the user
types. Evaluating it would run code: a property (a looping one freezes the prompt), a
``__getattr__``, a ``__dir__`` — or viewgrad's own ``Tensor.grad_fn``, whose getter
regenerates a stale view's node, changing what the learner is inspecting. So, like the
"limited" evaluation of IPython and ptpython's completer, this module reads only what is
already there:

* a name: the namespace dictionary, then builtins;
* an attribute: ``inspect.getattr_static`` (instance ``__dict__``, class dictionaries;
  no descriptor is called, no ``__getattr__``); slots and built-in (C) attributes are read,
  since they run no Python code;
* a **property** is never called: its type comes from the getter's return annotation
  (``-> Node``) or, for viewgrad's own unannotated properties, from ``KNOWN_TYPES``; the
  result is then ``Instance(cls)``, "some object of this class", whose attributes come from
  the class alone;
* names of an object: its instance ``__dict__`` plus ``type.__dir__`` of its class — a
  user-defined ``__dir__`` is not called.

Anything else (calls, subscripts, a descriptor written in Python) is "unknown": no
completions rather than a side effect.
"""
from __future__ import annotations

import builtins
import inspect
import types
import typing


class Instance:
    """Stands for an object of class ``cls`` that is not evaluated (a property's value)."""
    __slots__ = ("cls",)

    def __init__(self, cls):
        self.cls = cls

    def __repr__(self):
        return f"<an instance of {self.cls.__name__}>"


def _known_types() -> dict:
    """viewgrad's properties without annotations: (class, name) -> the class of the value."""
    import viewgrad as vg
    from viewgrad.autograd.graph import Node
    T = vg.Tensor
    known = {(T, n): T for n in ("grad", "data", "T", "mT", "H", "mH", "real", "imag")}
    known.update({(T, "grad_fn"): Node, (T, "shape"): vg.Size, (T, "device"): vg.Device,
                  (T, "is_leaf"): bool, (T, "requires_grad"): bool, (T, "ndim"): int,
                  (T, "is_cuda"): bool, (T, "output_nr"): int, (T, "retains_grad"): bool,
                  (T, "name"): str, (T, "_version"): int})
    return known


_KNOWN: dict | None = None


def KNOWN_TYPES() -> dict:  # noqa: N802 - a constant, built on first use (imports viewgrad)
    global _KNOWN
    if _KNOWN is None:
        _KNOWN = _known_types()
    return _KNOWN


class Unknown(LookupError):
    """The name cannot be followed without running code (or does not exist)."""


_MISSING = object()


def _unwrap_optional(tp):
    """``Node | None`` / ``Optional[Node]`` -> ``Node``; anything not a class -> None."""
    if isinstance(tp, type):
        return tp
    args = [a for a in typing.get_args(tp) if a is not type(None)]
    if len(args) == 1 and isinstance(args[0], type):
        return args[0]
    return None


def property_type(owner: type, name: str, prop: property):
    """The class a property's value has, from annotations or ``KNOWN_TYPES``; None when
    unknown. Never calls the getter."""
    for klass in getattr(owner, "__mro__", (owner,)):
        cls = KNOWN_TYPES().get((klass, name))
        if cls is not None:
            return cls
    fget = getattr(prop, "fget", None)
    if fget is None:
        return None
    try:
        hints = typing.get_type_hints(fget)
    except Exception:  # noqa: BLE001 - a string annotation that does not resolve
        return None
    return _unwrap_optional(hints.get("return"))


def _is_data_descriptor_safe(attr) -> bool:
    """Descriptors implemented in C that run no Python code when read."""
    return isinstance(attr, (types.MemberDescriptorType, types.GetSetDescriptorType))


def attribute(target, name: str):
    """``target.name`` without running user code; raises Unknown when that would be needed.
    ``target`` is an object, a module, a class, or an ``Instance`` (only its class known)."""
    if isinstance(target, types.ModuleType):
        if name in target.__dict__:
            return target.__dict__[name]
        raise Unknown(name)
    known = not isinstance(target, Instance)  # do we hold the object itself?
    owner = (target if isinstance(target, type) else type(target)) if known else target.cls
    attr = inspect.getattr_static(target if known else owner, name, _MISSING)
    if attr is _MISSING:
        raise Unknown(name)
    on_class = inspect.getattr_static(owner, name, None)
    if known and not isinstance(target, type) and _instance_dict(target).get(name, _MISSING) \
            is attr and not isinstance(on_class, property) \
            and not _is_data_descriptor_safe(on_class):
        return attr  # the object's own attribute, a plain value
    if isinstance(attr, property):
        tp = property_type(owner, name, attr)
        if tp is None:
            raise Unknown(name)
        return Instance(tp)
    if isinstance(attr, (staticmethod, classmethod)):
        return attr.__func__
    if _is_data_descriptor_safe(attr):
        if not known:
            raise Unknown(name)  # a slot of an object we do not have
        try:
            return attr.__get__(None if isinstance(target, type) else target, owner)
        except Exception:  # noqa: BLE001 - e.g. an empty slot
            raise Unknown(name) from None
    if hasattr(type(attr), "__get__") and not inspect.isfunction(attr) \
            and not inspect.isbuiltin(attr) and not inspect.ismethoddescriptor(attr) \
            and not isinstance(attr, type):
        # some other descriptor (written in Python): reading it would run its __get__
        raise Unknown(name)
    return attr if isinstance(target, type) else _bind(attr, target)


def _instance_dict(target) -> dict:
    try:
        d = object.__getattribute__(target, "__dict__")
    except (AttributeError, TypeError):
        return {}
    return d if isinstance(d, dict) else {}


def _bind(attr, target):
    """A plain function read from a class, seen from an instance: a bound method (made
    without calling anything), so its signature drops ``self``."""
    if inspect.isfunction(attr):
        return types.MethodType(attr, target)
    return attr


def resolve(expr: str, namespace: dict):
    """Follow a dotted name (``a.b.c``) through ``namespace`` without running code."""
    head, *rest = expr.strip().split(".")
    if head in namespace:
        obj = namespace[head]
    elif head in vars(builtins):
        obj = vars(builtins)[head]
    else:
        raise Unknown(head)
    for part in rest:
        obj = attribute(obj, part)
    return obj


def names(target) -> list[str]:
    """The attribute names of ``target``, without calling a user ``__dir__``."""
    found = set()
    if isinstance(target, Instance):
        cls = target.cls
    elif isinstance(target, types.ModuleType):
        return sorted(n for n in target.__dict__ if isinstance(n, str))
    else:
        found.update(n for n in _instance_dict(target) if isinstance(n, str))
        cls = target if isinstance(target, type) else type(target)
    try:
        found.update(type.__dir__(cls))
    except Exception:  # noqa: BLE001
        pass
    return sorted(n for n in found if isinstance(n, str))


def kind(target, name: str) -> str:
    """What ``target.name`` is, for the completion menu: read from the class dictionaries,
    never by reading the attribute (module, class, function, method, property, …)."""
    if isinstance(target, types.ModuleType):
        v = target.__dict__.get(name)
        if v is None:
            return "attribute"
        if isinstance(v, types.ModuleType):
            return "module"
        if inspect.isclass(v):
            return "class"
        if callable(v):
            return "function"
        return type(v).__name__
    cls = target.cls if isinstance(target, Instance) else (
        target if inspect.isclass(target) else type(target))
    for klass in getattr(cls, "__mro__", (cls,)):
        if name in getattr(klass, "__dict__", {}):
            v = klass.__dict__[name]
            if isinstance(v, property):
                return "property"
            if isinstance(v, (staticmethod, classmethod)) or inspect.isfunction(v) or \
                    inspect.ismethoddescriptor(v) or inspect.isbuiltin(v):
                return "method"
            if _is_data_descriptor_safe(v):
                return "attribute"
            return type(v).__name__
    return "attribute"


def signature_of(obj):
    """``inspect.Signature`` of a callable found by ``resolve`` (a class: its constructor),
    or None. Only for functions, methods and plain classes: asking an arbitrary object
    for its signature could run its ``__getattr__``."""
    if isinstance(obj, types.ModuleType) and callable(obj):  # vg.trace: a callable module
        obj = types.MethodType(type(obj).__call__, obj)
    elif not (inspect.isfunction(obj) or inspect.ismethod(obj) or inspect.isbuiltin(obj)
              or inspect.ismethoddescriptor(obj)
              or (isinstance(obj, type) and type(obj) is type)):
        return None
    try:
        return inspect.signature(obj)
    except (TypeError, ValueError):
        return None
