"""JSON export and import of traces (never pickle: a trace file is data, not code).

Format (``"format": "viewgrad-trace", "version": 1``)::

    {"format": "viewgrad-trace", "version": 1,
     "events": [{"index", "op", "tensor", "tensor_id", "operands", "source",
                 "grad_enabled", "before": SNAPSHOT, "after": SNAPSHOT}],
     "backward": [{"index", "graph": SNAPSHOT, "deps0", "steps", "source"}]}
    SNAPSHOT = {"tensors": [...], "nodes": [...], "edges": [...], "focus", "omitted",
                "view_replay", "grad_enabled"}

Loading checks every field's presence and type and the references between them (an edge
names nodes that exist, a tensor's grad_fn is a node of the snapshot...), and a bad file
raises ``TraceFormatError`` naming the field, e.g. ``events[0].after.nodes[3].saved[0]
.saved_version: expected an integer, got 'x'``.
"""
from __future__ import annotations

import dataclasses
import json

from .snapshot import (EdgeInfo, Geometry, GraphSnapshot, NodeInfo, SavedInfo, TensorInfo)
from .tracer import EventLog, InplaceEvent, Source
from .sanitize import SAFE_ID
from .backward import BackwardError, BackwardStep, BackwardTrace, GradInfo

__all__ = ["TraceFormatError", "Trace", "dumps", "loads", "load", "snapshot_to_dict",
           "snapshot_from_dict"]

FORMAT = "viewgrad-trace"
VERSION = 1


class TraceFormatError(ValueError):
    """A trace JSON file that is malformed or was edited into an inconsistent state."""


def _enc(v):
    if dataclasses.is_dataclass(v):
        return {f.name: _enc(getattr(v, f.name)) for f in dataclasses.fields(v)
                if not f.name.startswith("_")}
    if isinstance(v, (tuple, list)):
        return [_enc(x) for x in v]
    return v


def snapshot_to_dict(s: GraphSnapshot) -> dict:
    return _enc(s)


def _event_dict(e: InplaceEvent) -> dict:
    return {"index": e.index, "op": e.op, "tensor": e.tensor, "tensor_id": e.tensor_id,
            "operands": list(e.operands),
            "source": list(e.source) if e.source is not None else None,
            "grad_enabled": e.grad_enabled, "library": e.library,
            "before": snapshot_to_dict(e.before), "after": snapshot_to_dict(e.after)}


def _backward_dict(bt) -> dict:
    return {"index": bt.index, "graph": snapshot_to_dict(bt.graph),
            "deps0": [list(x) for x in bt.deps0], "steps": _enc(bt.steps),
            "source": list(bt.source) if bt.source is not None else None,
            "error": _enc(bt.error) if bt.error is not None else None}


def dumps(events, backwards=(), order=None, dropped=0) -> str:
    doc = {"format": FORMAT, "version": VERSION,
           "events": [_event_dict(e) for e in events],
           "backward": [_backward_dict(b) for b in backwards]}
    if dropped:
        doc["dropped"] = dropped      # earlier events the tracer's ring let go
    if order:
        doc["order"] = [list(x) for x in order]
    return json.dumps(doc, indent=1)


# -- loading with checks ----------------------------------------------------------------
# A trace file is untrusted (Note [Untrusted text] in sanitize.py): every field is checked
# here, with the field named in the error; free text is escaped later, where it is drawn.

MAX_BYTES = 64 * 1024 * 1024      # the largest trace file ``load`` reads
MAX_INPUT_NR = 100_000            # a node's input number (cat of 100,000 tensors is the most)
INT_LIMIT = 2 ** 64               # |an integer| in a trace (sizes, versions, counts)
_ARG_DEPTH = 3                    # nesting of a view op's arguments: ((1, 2), 0) at most


def _fail(path, msg):
    raise TraceFormatError(f"{path}: {msg}")


def _show(v) -> str:
    from .sanitize import safe_repr, clean
    return clean(safe_repr(v, 80))


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and -INT_LIMIT <= v <= INT_LIMIT


def _get(d, key, path, types, optional=False):
    if not isinstance(d, dict):
        _fail(path, f"expected an object, got {type(d).__name__}")
    if key not in d:
        if optional:
            return None
        _fail(f"{path}.{key}", "missing field")
    v = d[key]
    if v is None and optional:
        return None
    if types is int and not _is_int(v):
        _fail(f"{path}.{key}", f"expected an integer (|n| <= 2**64), got {_show(v)}")
    if types is not int and not isinstance(v, types):
        want = {str: "a string", bool: "true or false", list: "a list",
                dict: "an object"}.get(types, str(types))
        _fail(f"{path}.{key}", f"expected {want}, got {_show(v)}")
    return v


def _id(d, key, path, kind, optional=False):
    """A node id (``n12``) or tensor id (``t3``): exactly what the tracer writes, so an id
    can never carry text into a picture (DOT names are made from them)."""
    v = _get(d, key, path, str, optional)
    if v is not None and not (SAFE_ID.match(v) and v[0] == kind):
        what = "node id like 'n12'" if kind == "n" else "tensor id like 't3'"
        _fail(f"{path}.{key}", f"expected a {what}, got {_show(v)}")
    return v


def _int_list(d, key, path, nonneg=False):
    v = _get(d, key, path, list)
    for i, x in enumerate(v):
        if not _is_int(x) or (nonneg and x < 0):
            _fail(f"{path}.{key}[{i}]", f"expected a{' non-negative' if nonneg else 'n'} "
                  f"integer, got {_show(x)}")
    return tuple(v)


def _str_list(d, key, path):
    v = _get(d, key, path, list)
    for i, x in enumerate(v):
        if not isinstance(x, str):
            _fail(f"{path}.{key}[{i}]", f"expected a string, got {_show(x)}")
    return tuple(v)


def _arg(v, path, depth=0):
    """A view op's argument: a number, string, true/false, null, or a short list of them."""
    if isinstance(v, list):
        if depth >= _ARG_DEPTH:
            _fail(path, "view op arguments nest too deeply")
        return tuple(_arg(x, f"{path}[{i}]", depth + 1) for i, x in enumerate(v))
    if v is None or isinstance(v, (bool, str, float)) or _is_int(v):
        return v
    _fail(path, f"expected a number, string or list, got {_show(v)}")


def _view_fns(d, key, path):
    v = _get(d, key, path, list)
    out = []
    for i, item in enumerate(v):
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)
                and isinstance(item[1], list)):
            _fail(f"{path}.{key}[{i}]", f"expected [op name, [args]], got {_show(item)}")
        out.append((item[0], _arg(item[1], f"{path}.{key}[{i}][1]")))
    return tuple(out)


def _saved(d, path):
    return SavedInfo(
        name=_get(d, "name", path, str), shape=_int_list(d, "shape", path, True),
        dtype=_get(d, "dtype", path, str), saved_version=_get(d, "saved_version", path, int),
        current_version=_get(d, "current_version", path, int),
        is_output=_get(d, "is_output", path, bool),
        tensor=_id(d, "tensor", path, "t", True),
        tensor_label=_get(d, "tensor_label", path, str, True))


def _node(d, path):
    saved = tuple(_saved(s, f"{path}.saved[{i}]")
                  for i, s in enumerate(_get(d, "saved", path, list)))
    attrs = []
    for i, a in enumerate(_get(d, "attrs", path, list)):
        if not (isinstance(a, list) and len(a) == 2 and all(isinstance(x, str) for x in a)):
            _fail(f"{path}.attrs[{i}]", f"expected [name, text], got {a!r}")
        attrs.append(tuple(a))
    geo = _get(d, "geometry", path, dict, True)
    if geo is not None:
        gp = f"{path}.geometry"
        geo = Geometry(_int_list(geo, "base_sizes", gp, True), _int_list(geo, "base_strides", gp),
                       _int_list(geo, "view_sizes", gp, True), _int_list(geo, "view_strides", gp),
                       _get(geo, "view_offset", gp, int), _view_fns(geo, "view_fns", gp),
                       _get(geo, "replay", gp, bool))
    kind = _get(d, "kind", path, str)
    kinds = ("function", "view", "copyslices", "wrapped", "accumulate", "custom", "root")
    if kind not in kinds:
        _fail(f"{path}.kind", f"expected one of {', '.join(kinds)}, got {kind!r}")
    return NodeInfo(
        id=_id(d, "id", path, "n"), name=_get(d, "name", path, str), kind=kind,
        seq=_get(d, "seq", path, int), saved=saved, attrs=tuple(attrs),
        freed=_get(d, "freed", path, bool), wrapped=_id(d, "wrapped", path, "n", True),
        parent=_id(d, "parent", path, "n", True), geometry=geo,
        variable=_id(d, "variable", path, "t", True),
        variable_label=_get(d, "variable_label", path, str, True),
        more=_get(d, "more", path, int))


def _tensor(d, path):
    return TensorInfo(
        id=_id(d, "id", path, "t"), label=_get(d, "label", path, str),
        shape=_int_list(d, "shape", path, True), stride=_int_list(d, "stride", path),
        offset=_get(d, "offset", path, int), dtype=_get(d, "dtype", path, str),
        version=_get(d, "version", path, int), is_view=_get(d, "is_view", path, bool),
        base=_id(d, "base", path, "t", True), base_label=_get(d, "base_label", path, str, True),
        requires_grad=_get(d, "requires_grad", path, bool),
        is_leaf=_get(d, "is_leaf", path, bool), grad_fn=_id(d, "grad_fn", path, "n", True),
        output_nr=_get(d, "output_nr", path, int),
        accumulator=_id(d, "accumulator", path, "n", True),
        stale=_get(d, "stale", path, bool), view_fns=_view_fns(d, "view_fns", path),
        creation_meta=_get(d, "creation_meta", path, str, True),
        roles=_str_list(d, "roles", path), name=_get(d, "name", path, str, True),
        values=_get(d, "values", path, str, True))


def snapshot_from_dict(d, path="snapshot") -> GraphSnapshot:
    nodes = tuple(_node(n, f"{path}.nodes[{i}]")
                  for i, n in enumerate(_get(d, "nodes", path, list)))
    tensors = tuple(_tensor(t, f"{path}.tensors[{i}]")
                    for i, t in enumerate(_get(d, "tensors", path, list)))
    edges = []
    for i, e in enumerate(_get(d, "edges", path, list)):
        p = f"{path}.edges[{i}]"
        edges.append(EdgeInfo(_id(e, "src", p, "n"), _id(e, "dst", p, "n"),
                              _get(e, "index", p, int), _get(e, "input_nr", p, int),
                              _get(e, "hidden", p, bool)))
    # references between the parts
    ids = {n.id for n in nodes}
    tids = {t.id for t in tensors}
    for what, items, seen in (("nodes", nodes, ids), ("tensors", tensors, tids)):
        if len(seen) != len(items):
            dup = next(x.id for k, x in enumerate(items)
                       if any(y.id == x.id for y in items[:k]))
            _fail(f"{path}.{what}", f"id {dup!r} is used twice")
    for i, e in enumerate(edges):
        if e.src not in ids:
            _fail(f"{path}.edges[{i}].src", f"names node {e.src!r}, which is not in nodes")
        if e.dst not in ids and not e.hidden:
            _fail(f"{path}.edges[{i}].dst", f"names node {e.dst!r}, which is not in nodes")
    for i, t in enumerate(tensors):
        for key in ("grad_fn", "accumulator"):
            v = getattr(t, key)
            if v is not None and v not in ids:
                _fail(f"{path}.tensors[{i}].{key}", f"names node {v!r}, which is not in nodes")
        if t.base is not None and t.base not in tids:
            _fail(f"{path}.tensors[{i}].base", f"names tensor {t.base!r}, which is not in "
                  "tensors")
    for i, n in enumerate(nodes):
        if n.wrapped is not None and n.wrapped not in ids:
            _fail(f"{path}.nodes[{i}].wrapped", f"names node {n.wrapped!r}, which is not in "
                  "nodes")
    focus = _id(d, "focus", path, "t", True)
    if focus is not None and focus not in tids:
        _fail(f"{path}.focus", f"names tensor {focus!r}, which is not in tensors")
    return GraphSnapshot(tensors, nodes, tuple(edges), focus=focus,
                         omitted=_get(d, "omitted", path, int),
                         view_replay=_get(d, "view_replay", path, bool),
                         grad_enabled=_get(d, "grad_enabled", path, bool))


def _source(e, p):
    src = _get(e, "source", p, list, True)
    if src is not None:
        if len(src) != 3 or not isinstance(src[0], str) or not _is_int(src[1]) \
                or not isinstance(src[2], (str, type(None))):
            _fail(f"{p}.source", f"expected [file, line, text or null], got {_show(src)}")
        src = Source(*src)
    return src


def _grad(d, p):
    shape = _int_list(d, "shape", p, True) if _get(d, "shape", p, list, True) is not None \
        else None
    stride = _int_list(d, "stride", p) if _get(d, "stride", p, list, True) is not None \
        else None
    return GradInfo(shape,
                    _get(d, "dtype", p, str, True), _get(d, "values", p, str, True), stride)


def _delivered(v, p, graph):
    """Items ``[node id, input nr, gradient]``: what a step wrote into input buffers."""
    out = []
    for i, x in enumerate(v):
        if not (isinstance(x, list) and len(x) == 3 and isinstance(x[0], str)
                and SAFE_ID.match(x[0]) and x[0][0] == "n" and _is_int(x[1])
                and 0 <= x[1] < MAX_INPUT_NR and isinstance(x[2], dict)):
            _fail(f"{p}[{i}]", f"expected [node id, input nr (0 to {MAX_INPUT_NR - 1}), "
                  f"gradient], got {_show(x)}")
        if not graph.has_node(x[0]):
            _fail(f"{p}[{i}]", f"names node {x[0]!r}, which is not in the graph")
        out.append((x[0], x[1], _grad(x[2], f"{p}[{i}][2]")))
    return tuple(out)


def _error(d, p, graph):
    """A failed pass: the node that raised, its message, the event to blame."""
    if d is None:
        return None
    node = _id(d, "node", p, "n")
    if not graph.has_node(node):
        _fail(f"{p}.node", f"names node {node!r}, which is not in the graph")
    return BackwardError(node, _get(d, "name", p, str), _get(d, "message", p, str),
                         _get(d, "kind", p, str), _get(d, "blame", p, int, True))


_KINDS = {str: "a string", int: "a count"}


def _pairs(v, p, types):
    """Items ``[node id, *rest]`` with ``rest`` of ``types`` (str: a name, int: a count)."""
    out = []
    want = ", ".join(["node id"] + [_KINDS[t] for t in types])
    for i, x in enumerate(v):
        if not (isinstance(x, list) and len(x) == len(types) + 1 and isinstance(x[0], str)
                and SAFE_ID.match(x[0]) and x[0][0] == "n"
                and all(_is_int(y) if t is int else isinstance(y, t)
                        for y, t in zip(x[1:], types))):
            _fail(f"{p}[{i}]", f"expected [{want}], got {_show(x)}")
        out.append(tuple(x))
    return tuple(out)


def _backward(d, p):
    graph = snapshot_from_dict(_get(d, "graph", p, dict), f"{p}.graph")
    steps = []
    for i, st in enumerate(_get(d, "steps", p, list)):
        q = f"{p}.steps[{i}]"
        node = _id(st, "node", q, "n")
        if _get(st, "index", q, int) != i:
            _fail(f"{q}.index", f"expected {i} (steps are numbered in order), got "
                  f"{_show(st['index'])}")
        if not graph.has_node(node):
            _fail(f"{q}.node", f"names node {node!r}, which is not in the graph")
        steps.append(BackwardStep(
            index=_get(st, "index", q, int), node=node, name=_get(st, "name", q, str),
            inputs=tuple(_grad(g, f"{q}.inputs[{j}]")
                         for j, g in enumerate(_get(st, "inputs", q, list))),
            outputs=tuple(_grad(g, f"{q}.outputs[{j}]")
                          for j, g in enumerate(_get(st, "outputs", q, list))),
            ready=_pairs(_get(st, "ready", q, list), f"{q}.ready", (str,)),
            lowered=_pairs(_get(st, "lowered", q, list), f"{q}.lowered", (str, int)),
            accumulate=_get(st, "accumulate", q, str, True),
            variable=_get(st, "variable", q, str, True),
            delivered=_delivered(_get(st, "delivered", q, list, True) or [],
                                 f"{q}.delivered", graph),
            strides=_get(st, "strides", q, str, True)))
    return BackwardTrace(_get(d, "index", p, int), graph,
                         _pairs(_get(d, "deps0", p, list), f"{p}.deps0", (int,)), tuple(steps),
                         _source(d, p), _error(_get(d, "error", p, dict, True), f"{p}.error",
                                               graph))


class Trace(EventLog):
    """A loaded trace: ``.events`` and ``.backwards`` like a Tracer's (records nothing)."""

    def __init__(self, events, backwards=(), order=(), dropped=0):
        self.events = list(events)
        self.backwards = list(backwards)
        self.order = [tuple(x) for x in order]
        self.dropped = dropped        # events the tracer's ring had dropped before writing

    def __repr__(self):
        return f"<Trace {len(self.events)} events>"


def loads(text, origin="trace") -> Trace:
    """A Trace from JSON text; a malformed or inconsistent document raises
    ``TraceFormatError`` naming the field (never another exception)."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise TraceFormatError(f"{origin}: not valid JSON: {e}") from None
    except RecursionError:
        raise TraceFormatError(f"{origin}: not a trace: the JSON nests too deeply") from None
    except (ValueError, TypeError) as e:   # e.g. an integer with 10,000 digits, bad bytes
        raise TraceFormatError(f"{origin}: not a trace: {e}") from None
    try:
        return _document(doc, origin)
    except RecursionError:
        raise TraceFormatError(f"{origin}: not a trace: it nests too deeply") from None


def _document(doc, origin) -> Trace:
    if not isinstance(doc, dict):
        raise TraceFormatError(f"{origin}: expected a JSON object at the top, got "
                               f"{type(doc).__name__}")
    fmt = doc.get("format")
    if fmt != FORMAT:
        raise TraceFormatError(f"{origin}.format: expected {FORMAT!r}, got {_show(fmt)} (is "
                               "this a file written by Tracer.to_json?)")
    ver = _get(doc, "version", origin, int)
    if ver != VERSION:
        raise TraceFormatError(f"{origin}.version: this viewgrad reads version {VERSION}, the "
                               f"file is version {ver}")
    events = []
    for i, e in enumerate(_get(doc, "events", origin, list)):
        p = f"events[{i}]"
        src = _source(e, p)
        operands = _str_list(e, "operands", p)
        ev = InplaceEvent(_get(e, "index", p, int), _get(e, "op", p, str),
                          _get(e, "tensor", p, str), _id(e, "tensor_id", p, "t"),
                          operands, snapshot_from_dict(_get(e, "before", p, dict),
                                                       f"{p}.before"),
                          snapshot_from_dict(_get(e, "after", p, dict), f"{p}.after"), src,
                          _get(e, "grad_enabled", p, bool), _get(e, "library", p, str, True))
        for key in ("before", "after"):
            if not getattr(ev, key).has_tensor(ev.tensor_id):
                _fail(f"{p}.tensor_id", f"names tensor {ev.tensor_id!r}, which is not in "
                      f"{key}")
        events.append(ev)
    backwards = [_backward(b, f"backward[{i}]")
                 for i, b in enumerate(_get(doc, "backward", origin, list, True) or [])]
    order = []
    for i, x in enumerate(_get(doc, "order", origin, list, True) or []):
        if not (isinstance(x, list) and len(x) == 2 and x[0] in ("event", "backward")
                and _is_int(x[1])
                and 0 <= x[1] < len(events if x[0] == "event" else backwards)):
            _fail(f"order[{i}]", f"expected [\"event\" or \"backward\", index], got "
                  f"{_show(x)}")
        order.append(tuple(x))
    dropped = _get(doc, "dropped", origin, int, True) or 0
    if dropped < 0:
        _fail(f"{origin}.dropped", f"expected a count, got {dropped}")
    return Trace(events, backwards, order, dropped)


def load(path, max_bytes=None) -> Trace:
    """Read a trace written by ``Tracer.to_json(path)``. Files larger than ``max_bytes``
    (default ``MAX_BYTES``, 64 MiB) are refused before they are read into memory."""
    limit = MAX_BYTES if max_bytes is None else max_bytes
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as e:
        raise TraceFormatError(f"cannot read trace file {path!r}: {e.strerror}") from None
    if len(data) > limit:
        raise TraceFormatError(f"{path}: larger than {limit // (1024 * 1024) or limit} "
                               f"{'MiB' if limit >= 1024 * 1024 else 'bytes'}: not a trace "
                               "viewgrad would write (load(path, max_bytes=...) raises the "
                               "limit)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise TraceFormatError(f"{path}: not UTF-8 text (byte {e.start}): not a trace "
                               "file") from None
    return loads(text, origin=str(path))
