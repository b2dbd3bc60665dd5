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
  user-defined ``__dir__`` is not called;
* an object is never asked for anything: ``isinstance(obj, C)`` asks ``obj.__class__`` when
  the type does not match (a ``__class__`` property or a ``__getattribute__`` would run),
  so types are tested with ``_isa`` (the type alone); an instance ``__dict__`` is read only
  through the C descriptor (a ``__dict__`` property is not called); a string annotation is
  resolved as a dotted name, never ``eval``-ed.

Anything else (calls, subscripts, a descriptor written in Python) is "unknown": no
completions rather than a side effect.
"""
from __future__ import annotations

import builtins
import inspect
import re
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


def _isa(obj, cls) -> bool:
    """``isinstance(obj, cls)`` from ``obj``'s type alone (module docstring)."""
    return issubclass(type(obj), cls)


_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
_OPTIONAL = re.compile(r"^(?:Optional\[(.+)\]|(.+?)\s*\|\s*None|None\s*\|\s*(.+))$")


def _named_class(text: str, globals_: dict):
    """The class a string annotation (``"Node"``, ``"vg.Tensor | None"``) names, found in
    ``globals_`` and builtins without evaluating anything; None otherwise."""
    text = text.strip()
    m = _OPTIONAL.match(text)
    if m:
        text = next(g for g in m.groups() if g).strip()
    if not _DOTTED.fullmatch(text):
        return None
    head, *rest = text.split(".")
    obj = globals_.get(head, vars(builtins).get(head, _MISSING))
    for part in rest:
        if not _isa(obj, (types.ModuleType, type)):
            return None
        obj = inspect.getattr_static(obj, part, _MISSING)
    return obj if _isa(obj, type) else None


def _unwrap_optional(tp):
    """``Node | None`` / ``Optional[Node]`` -> ``Node``; anything not a class -> None."""
    if _isa(tp, type):
        return tp
    if type(tp).__module__ not in ("typing", "types"):
        return None     # not a typing construct: never asked anything
    args = [a for a in typing.get_args(tp) if a is not type(None)]
    if len(args) == 1 and _isa(args[0], type):
        return args[0]
    return None


def property_type(owner: type, name: str, prop: property):
    """The class a property's value has, from annotations or ``KNOWN_TYPES``; None when
    unknown. Never calls the getter."""
    for klass in getattr(owner, "__mro__", (owner,)):
        cls = KNOWN_TYPES().get((klass, name))
        if cls is not None:
            return cls
    fget = prop.fget if _isa(prop, property) else None
    if not _isa(fget, types.FunctionType):
        return None
    ann = (fget.__annotations__ or {}).get("return")
    if _isa(ann, str):           # from __future__ import annotations, or a quoted name
        return _named_class(ann, fget.__globals__)
    return _unwrap_optional(ann)


def _is_data_descriptor_safe(attr) -> bool:
    """Descriptors implemented in C that run no Python code when read."""
    return _isa(attr, (types.MemberDescriptorType, types.GetSetDescriptorType))


def attribute(target, name: str):
    """``target.name`` without running user code; raises Unknown when that would be needed.
    ``target`` is an object, a module, a class, or an ``Instance`` (only its class known)."""
    if _isa(target, types.ModuleType):
        d = _instance_dict(target)
        if name in d:
            return d[name]
        raise Unknown(name)
    known = not _isa(target, Instance)  # do we hold the object itself?
    is_class = known and _isa(target, type)
    owner = (target if is_class else type(target)) if known else target.cls
    attr = inspect.getattr_static(target if known else owner, name, _MISSING)
    if attr is _MISSING:
        raise Unknown(name)
    on_class = inspect.getattr_static(owner, name, None)
    if known and not is_class and _instance_dict(target).get(name, _MISSING) \
            is attr and not _isa(on_class, property) \
            and not _is_data_descriptor_safe(on_class):
        return attr  # the object's own attribute, a plain value
    if _isa(attr, property):
        tp = property_type(owner, name, attr)
        if tp is None:
            raise Unknown(name)
        return Instance(tp)
    if _isa(attr, (staticmethod, classmethod)):
        return attr.__func__
    if _is_data_descriptor_safe(attr):
        if not known:
            raise Unknown(name)  # a slot of an object we do not have
        try:
            return attr.__get__(None if is_class else target, owner)
        except Exception:  # noqa: BLE001 - e.g. an empty slot
            raise Unknown(name) from None
    if hasattr(type(attr), "__get__") and not _isa(attr, _PLAIN_CALLABLES + (type,)):
        # some other descriptor (written in Python): reading it would run its __get__
        raise Unknown(name)
    return attr if is_class else _bind(attr, target)


# functions and methods, Python and C: reading them from a class runs nothing
_PLAIN_CALLABLES = (types.FunctionType, types.BuiltinFunctionType, types.MethodType,
                    types.MethodDescriptorType, types.WrapperDescriptorType,
                    types.ClassMethodDescriptorType, types.MethodWrapperType)


def _instance_dict(target) -> dict:
    """``target.__dict__`` through the C descriptor only (a ``__dict__`` property or a
    ``__getattribute__`` is never called); {} when there is none."""
    for klass in _mro(type(target)):
        d = _class_dict(klass).get("__dict__", _MISSING)
        if d is _MISSING:
            continue
        if not _is_data_descriptor_safe(d):
            return {}
        try:
            value = d.__get__(target, type(target))
        except Exception:  # noqa: BLE001
            return {}
        return value if _isa(value, dict) else {}
    return {}


def _mro(cls) -> tuple:
    try:
        return type.__dict__["__mro__"].__get__(cls)
    except Exception:  # noqa: BLE001
        return (cls,)


def _class_dict(klass):
    try:
        return type.__dict__["__dict__"].__get__(klass)
    except Exception:  # noqa: BLE001
        return {}


def _bind(attr, target):
    """A plain function read from a class, seen from an instance: a bound method (made
    without calling anything), so its signature drops ``self``."""
    if _isa(attr, types.FunctionType):
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
    if _isa(target, Instance):
        cls = target.cls
    elif _isa(target, types.ModuleType):
        return sorted(n for n in _instance_dict(target) if _isa(n, str))
    else:
        found.update(n for n in _instance_dict(target) if _isa(n, str))
        cls = target if _isa(target, type) else type(target)
    try:
        found.update(type.__dir__(cls))
    except Exception:  # noqa: BLE001
        pass
    return sorted(n for n in found if _isa(n, str))


def kind(target, name: str) -> str:
    """What ``target.name`` is, for the completion menu: read from the class dictionaries,
    never by reading the attribute (module, class, function, method, property, …)."""
    if _isa(target, types.ModuleType):
        v = _instance_dict(target).get(name)
        if v is None:
            return "attribute"
        if _isa(v, types.ModuleType):
            return "module"
        if _isa(v, type):
            return "class"
        if callable(v):
            return "function"
        return type(v).__name__
    cls = target.cls if _isa(target, Instance) else (
        target if _isa(target, type) else type(target))
    for klass in _mro(cls):
        v = _class_dict(klass).get(name, _MISSING)
        if v is _MISSING:
            continue
        if _isa(v, property):
            return "property"
        if _isa(v, (staticmethod, classmethod) + _PLAIN_CALLABLES):
            return "method"
        if _is_data_descriptor_safe(v):
            return "attribute"
        return type(v).__name__
    return "attribute"


def signature_of(obj):
    """``inspect.Signature`` of a callable found by ``resolve`` (a class: its constructor),
    or None. Only for functions, methods and plain classes: asking an arbitrary object
    for its signature could run its ``__getattr__``; a function's ``__wrapped__`` chain is
    followed only through functions (``functools.wraps``), never through other objects."""
    if _isa(obj, types.ModuleType) and callable(obj):  # vg.trace: a callable module
        obj = types.MethodType(type(obj).__call__, obj)
    elif not (_isa(obj, _PLAIN_CALLABLES) or type(obj) is type):
        return None
    bound = None
    if _isa(obj, types.MethodType) and _isa(obj.__func__, types.FunctionType) and \
            _isa(_instance_dict(obj.__func__).get("__wrapped__"), _PLAIN_CALLABLES):
        # a bound method whose function wraps another (``functools.wraps``, as viewgrad's
        # ``Tensor.add`` wraps the operator): the inner one's signature, self left out
        bound, obj = obj, obj.__func__
    for _ in range(100):
        inner = _instance_dict(obj).get("__wrapped__") if _isa(obj, types.FunctionType) \
            else None
        if not _isa(inner, _PLAIN_CALLABLES):
            break
        obj = inner
    if bound is not None and _isa(obj, types.FunctionType) and \
            "__signature__" not in _instance_dict(obj):
        try:
            sig = inspect.signature(obj, follow_wrapped=False)
        except (TypeError, ValueError):
            return None
        params = list(sig.parameters.values())[1:]
        return sig.replace(parameters=params)
    if _isa(obj, types.FunctionType) and "__signature__" in _instance_dict(obj):
        return None   # a signature someone set by hand: reading it could run code
    try:
        return inspect.signature(obj, follow_wrapped=False)
    except (TypeError, ValueError):
        return None
