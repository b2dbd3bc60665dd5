"""Names in pictures: what a tensor is called, and how a view chain reads.

``Labeler`` names tensors after the user's code (``.name``, ``params=``, variables,
Modules' parameters by path, a view of a named base as ``b.select(0, 2)``, else a short
id); ``chain_text`` writes a view chain as code; ``fmt_args`` a call's arguments.
"""
from __future__ import annotations

from .registry import IDS

__all__ = ["Labeler", "chain_text", "fmt_args", "plain_view_fns"]


def fmt_args(args) -> str:
    return ", ".join(_fmt(a) for a in args)


def _fmt(a):
    if isinstance(a, (tuple, list)):
        return "(" + ", ".join(_fmt(x) for x in a) + ("," if len(a) == 1 else "") + ")"
    return repr(a)


def chain_text(view_fns) -> str:
    """``((select, (0, 2)),)`` → ``.select(0, 2)``."""
    return "".join(f".{name}({fmt_args(args)})" for name, args in view_fns)


def _plain(v):
    """Make a view_fn argument JSON-friendly and hashable (ints, floats, None, tuples)."""
    if isinstance(v, (list, tuple)):
        return tuple(_plain(x) for x in v)
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    try:
        return int(v)
    except (TypeError, ValueError):
        return repr(v)


def plain_view_fns(view_fns) -> tuple:
    return tuple((getattr(fn, "__name__", str(fn)), _plain(args)) for fn, args in view_fns)


class Labeler:
    """Names for tensors, the user's first:

    1. the tensor's ``name``;
    2. ``params`` (``dict(model.named_parameters())``, as torchviz's ``make_dot`` takes it);
    3. a variable holding it in ``namespace`` (a dict or a list of dicts: the caller's
       locals and globals, the REPL's namespace);
    4. a parameter or buffer of a Module held in ``namespace``, by its path
       (``model.0.weight``), and ``w.grad`` for a named tensor's gradient;
    5. a view of a named base: the base's name plus the view chain (``b[2]`` reads
       ``b.select(0, 2)``);
    6. otherwise a short stable id (``t7``): a tensor nobody holds.

    ``output_label(node, nr)`` names the output of a node (for a saved result): the
    variable whose ``grad_fn`` it is.
    """

    def __init__(self, namespace=None, ids=IDS, params=None):
        from ..tensor import Tensor
        self.ids = ids
        self.names = {}
        if isinstance(namespace, dict):
            namespace = [namespace]
        namespace = list(namespace or ())
        for k, v in (params or {}).items():
            if isinstance(v, Tensor):
                self.names.setdefault(id(v), str(k))
        modules = []
        for mapping in namespace:
            for k, v in list(mapping.items()):
                if k.startswith("_"):
                    continue
                if isinstance(v, Tensor):
                    self.names.setdefault(id(v), k)
                elif _is_module(v):
                    modules.append((k, v))
        for k, m in modules:             # parameters by module path: model.0.weight
            try:
                named = list(m.named_parameters(prefix=k)) + list(m.named_buffers(prefix=k))
            except Exception:  # noqa: BLE001 - a half-built module: skip it
                continue
            for path, t in named:
                if isinstance(t, Tensor):
                    self.names.setdefault(id(t), path)
        # a named tensor's gradient is "w.grad" (w.grad.zero_() in an optimizer step)
        grads = {}
        for mapping in namespace:
            for v in list(mapping.values()):
                if isinstance(v, Tensor) and v._grad is not None and id(v) in self.names:
                    grads.setdefault(id(v._grad), f"{self.names[id(v)]}.grad")
        for k, m in modules:
            try:
                for _path, t in m.named_parameters():
                    if t._grad is not None and id(t) in self.names:
                        grads.setdefault(id(t._grad), f"{self.names[id(t)]}.grad")
            except Exception:  # noqa: BLE001
                continue
        for gid, lab in grads.items():
            self.names.setdefault(gid, lab)
        self._namespace = namespace
        self._outputs = None
        self._cache = {}

    def named(self, t):
        """The user's name for ``t`` (``.name``, params, variable, module path), or None."""
        if t._name:
            return t._name
        return self.names.get(id(t))

    def output_label(self, node, output_nr=0):
        """The name of the tensor whose grad_fn is ``node`` (output ``output_nr``)."""
        if self._outputs is None:
            from ..tensor import Tensor
            self._outputs = {}
            for mapping in self._namespace:
                for k, v in list(mapping.items()):
                    if isinstance(v, Tensor) and v._grad_fn is not None:
                        self._outputs.setdefault((id(v._grad_fn), int(v._output_nr)),
                                                 self.named(v) or k)
        return self._outputs.get((id(node), int(output_nr)))

    def __call__(self, t) -> str:
        lab = self._cache.get(id(t))
        if lab is not None:
            return lab
        lab = self.named(t)
        if lab is None and t._view_info is not None:
            bl = self.named(t._view_info.base)
            if bl is not None and len(t._view_info.view_fns) <= 2:
                lab = bl + chain_text(plain_view_fns(t._view_info.view_fns))
        if lab is None:
            lab = self.ids.tensor(t)
        self._cache[id(t)] = lab
        return lab


def _is_module(v) -> bool:
    from ..nn.module import Module
    return isinstance(v, Module)
