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
            "grad_enabled": e.grad_enabled,
            "before": snapshot_to_dict(e.before), "after": snapshot_to_dict(e.after)}


def _backward_dict(bt) -> dict:
    return {"index": bt.index, "graph": snapshot_to_dict(bt.graph),
            "deps0": [list(x) for x in bt.deps0], "steps": _enc(bt.steps),
            "source": list(bt.source) if bt.source is not None else None,
            "error": _enc(bt.error) if bt.error is not None else None}


def dumps(events, backwards=(), order=None) -> str:
    doc = {"format": FORMAT, "version": VERSION,
           "events": [_event_dict(e) for e in events],
           "backward": [_backward_dict(b) for b in backwards]}
    if order:
        doc["order"] = [list(x) for x in order]
    return json.dumps(doc, indent=1)


# -- loading with checks ----------------------------------------------------------------

def _fail(path, msg):
    raise TraceFormatError(f"{path}: {msg}")


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
    if types is int and (isinstance(v, bool) or not isinstance(v, int)):
        _fail(f"{path}.{key}", f"expected an integer, got {v!r}")
    if types is not int and not isinstance(v, types):
        want = {str: "a string", bool: "true or false", list: "a list",
                dict: "an object"}.get(types, str(types))
        _fail(f"{path}.{key}", f"expected {want}, got {v!r}")
    return v


def _int_list(d, key, path):
    v = _get(d, key, path, list)
    for i, x in enumerate(v):
        if isinstance(x, bool) or not isinstance(x, int):
            _fail(f"{path}.{key}[{i}]", f"expected an integer, got {x!r}")
    return tuple(v)


def _tup(v):
    if isinstance(v, list):
        return tuple(_tup(x) for x in v)
    return v


def _view_fns(d, key, path):
    v = _get(d, key, path, list)
    out = []
    for i, item in enumerate(v):
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)
                and isinstance(item[1], list)):
            _fail(f"{path}.{key}[{i}]", f"expected [op name, [args]], got {item!r}")
        out.append((item[0], _tup(item[1])))
    return tuple(out)


def _saved(d, path):
    return SavedInfo(
        name=_get(d, "name", path, str), shape=_int_list(d, "shape", path),
        dtype=_get(d, "dtype", path, str), saved_version=_get(d, "saved_version", path, int),
        current_version=_get(d, "current_version", path, int),
        is_output=_get(d, "is_output", path, bool),
        tensor=_get(d, "tensor", path, str, True),
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
        geo = Geometry(_int_list(geo, "base_sizes", gp), _int_list(geo, "base_strides", gp),
                       _int_list(geo, "view_sizes", gp), _int_list(geo, "view_strides", gp),
                       _get(geo, "view_offset", gp, int), _view_fns(geo, "view_fns", gp),
                       _get(geo, "replay", gp, bool))
    kind = _get(d, "kind", path, str)
    kinds = ("function", "view", "copyslices", "wrapped", "accumulate", "custom", "root")
    if kind not in kinds:
        _fail(f"{path}.kind", f"expected one of {', '.join(kinds)}, got {kind!r}")
    return NodeInfo(
        id=_get(d, "id", path, str), name=_get(d, "name", path, str), kind=kind,
        seq=_get(d, "seq", path, int), saved=saved, attrs=tuple(attrs),
        freed=_get(d, "freed", path, bool), wrapped=_get(d, "wrapped", path, str, True),
        parent=_get(d, "parent", path, str, True), geometry=geo,
        variable=_get(d, "variable", path, str, True),
        variable_label=_get(d, "variable_label", path, str, True),
        more=_get(d, "more", path, int))


def _tensor(d, path):
    return TensorInfo(
        id=_get(d, "id", path, str), label=_get(d, "label", path, str),
        shape=_int_list(d, "shape", path), stride=_int_list(d, "stride", path),
        offset=_get(d, "offset", path, int), dtype=_get(d, "dtype", path, str),
        version=_get(d, "version", path, int), is_view=_get(d, "is_view", path, bool),
        base=_get(d, "base", path, str, True), base_label=_get(d, "base_label", path, str, True),
        requires_grad=_get(d, "requires_grad", path, bool),
        is_leaf=_get(d, "is_leaf", path, bool), grad_fn=_get(d, "grad_fn", path, str, True),
        output_nr=_get(d, "output_nr", path, int),
        accumulator=_get(d, "accumulator", path, str, True),
        stale=_get(d, "stale", path, bool), view_fns=_view_fns(d, "view_fns", path),
        creation_meta=_get(d, "creation_meta", path, str, True),
        roles=tuple(_get(d, "roles", path, list)), name=_get(d, "name", path, str, True),
        values=_get(d, "values", path, str, True))


def snapshot_from_dict(d, path="snapshot") -> GraphSnapshot:
    nodes = tuple(_node(n, f"{path}.nodes[{i}]")
                  for i, n in enumerate(_get(d, "nodes", path, list)))
    tensors = tuple(_tensor(t, f"{path}.tensors[{i}]")
                    for i, t in enumerate(_get(d, "tensors", path, list)))
    edges = []
    for i, e in enumerate(_get(d, "edges", path, list)):
        p = f"{path}.edges[{i}]"
        edges.append(EdgeInfo(_get(e, "src", p, str), _get(e, "dst", p, str),
                              _get(e, "index", p, int), _get(e, "input_nr", p, int),
                              _get(e, "hidden", p, bool)))
    # references between the parts
    ids = {n.id for n in nodes}
    tids = {t.id for t in tensors}
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
    focus = _get(d, "focus", path, str, True)
    if focus is not None and focus not in tids:
        _fail(f"{path}.focus", f"names tensor {focus!r}, which is not in tensors")
    return GraphSnapshot(tensors, nodes, tuple(edges), focus=focus,
                         omitted=_get(d, "omitted", path, int),
                         view_replay=_get(d, "view_replay", path, bool),
                         grad_enabled=_get(d, "grad_enabled", path, bool))


def _source(e, p):
    src = _get(e, "source", p, list, True)
    if src is not None:
        if len(src) != 3 or not isinstance(src[0], str) or isinstance(src[1], bool) \
                or not isinstance(src[1], int) or not isinstance(src[2], (str, type(None))):
            _fail(f"{p}.source", f"expected [file, line, text or null], got {src!r}")
        src = Source(*src)
    return src


def _grad(d, p):
    shape = _get(d, "shape", p, list, True)
    stride = _get(d, "stride", p, list, True)
    return GradInfo(_tup(shape) if shape is not None else None,
                    _get(d, "dtype", p, str, True), _get(d, "values", p, str, True),
                    _tup(stride) if stride is not None else None)


def _delivered(v, p, graph):
    out = []
    for i, x in enumerate(v):
        if not (isinstance(x, list) and len(x) == 3 and isinstance(x[0], str)
                and isinstance(x[1], int) and isinstance(x[2], dict)):
            _fail(f"{p}[{i}]", f"expected [node id, input nr, gradient], got {x!r}")
        if not graph.has_node(x[0]):
            _fail(f"{p}[{i}]", f"names node {x[0]!r}, which is not in the graph")
        out.append((x[0], x[1], _grad(x[2], f"{p}[{i}][2]")))
    return tuple(out)


def _error(d, p, graph):
    if d is None:
        return None
    node = _get(d, "node", p, str)
    if not graph.has_node(node):
        _fail(f"{p}.node", f"names node {node!r}, which is not in the graph")
    return BackwardError(node, _get(d, "name", p, str), _get(d, "message", p, str),
                         _get(d, "kind", p, str), _get(d, "blame", p, int, True))


def _pairs(v, p, n):
    out = []
    for i, x in enumerate(v):
        if not (isinstance(x, list) and len(x) == n and isinstance(x[0], str)):
            _fail(f"{p}[{i}]", f"expected a list of {n} items starting with a node id, "
                  f"got {x!r}")
        out.append(tuple(x))
    return tuple(out)


def _backward(d, p):
    graph = snapshot_from_dict(_get(d, "graph", p, dict), f"{p}.graph")
    steps = []
    for i, st in enumerate(_get(d, "steps", p, list)):
        q = f"{p}.steps[{i}]"
        node = _get(st, "node", q, str)
        if not graph.has_node(node):
            _fail(f"{q}.node", f"names node {node!r}, which is not in the graph")
        steps.append(BackwardStep(
            index=_get(st, "index", q, int), node=node, name=_get(st, "name", q, str),
            inputs=tuple(_grad(g, f"{q}.inputs[{j}]")
                         for j, g in enumerate(_get(st, "inputs", q, list))),
            outputs=tuple(_grad(g, f"{q}.outputs[{j}]")
                          for j, g in enumerate(_get(st, "outputs", q, list))),
            ready=_pairs(_get(st, "ready", q, list), f"{q}.ready", 2),
            lowered=_pairs(_get(st, "lowered", q, list), f"{q}.lowered", 3),
            accumulate=_get(st, "accumulate", q, str, True),
            variable=_get(st, "variable", q, str, True),
            delivered=_delivered(_get(st, "delivered", q, list, True) or [],
                                 f"{q}.delivered", graph),
            strides=_get(st, "strides", q, str, True)))
    return BackwardTrace(_get(d, "index", p, int), graph,
                         _pairs(_get(d, "deps0", p, list), f"{p}.deps0", 2), tuple(steps),
                         _source(d, p), _error(_get(d, "error", p, dict, True), f"{p}.error",
                                               graph))


class Trace(EventLog):
    """A loaded trace: ``.events`` and ``.backwards`` like a Tracer's (records nothing)."""

    def __init__(self, events, backwards=(), order=()):
        self.events = list(events)
        self.backwards = list(backwards)
        self.order = [tuple(x) for x in order]

    def __repr__(self):
        return f"<Trace {len(self.events)} events>"


def loads(text, origin="trace") -> Trace:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise TraceFormatError(f"{origin}: not valid JSON: {e}") from None
    if not isinstance(doc, dict):
        raise TraceFormatError(f"{origin}: expected a JSON object at the top, got "
                               f"{type(doc).__name__}")
    fmt = doc.get("format")
    if fmt != FORMAT:
        raise TraceFormatError(f"{origin}.format: expected {FORMAT!r}, got {fmt!r} (is this "
                               "a file written by Tracer.to_json?)")
    ver = _get(doc, "version", origin, int)
    if ver != VERSION:
        raise TraceFormatError(f"{origin}.version: this viewgrad reads version {VERSION}, the "
                               f"file is version {ver}")
    events = []
    for i, e in enumerate(_get(doc, "events", origin, list)):
        p = f"events[{i}]"
        src = _source(e, p)
        operands = _get(e, "operands", p, list)
        for j, o in enumerate(operands):
            if not isinstance(o, str):
                _fail(f"{p}.operands[{j}]", f"expected a string, got {o!r}")
        ev = InplaceEvent(_get(e, "index", p, int), _get(e, "op", p, str),
                          _get(e, "tensor", p, str), _get(e, "tensor_id", p, str),
                          operands, snapshot_from_dict(_get(e, "before", p, dict),
                                                       f"{p}.before"),
                          snapshot_from_dict(_get(e, "after", p, dict), f"{p}.after"), src,
                          _get(e, "grad_enabled", p, bool))
        if not ev.before.has_tensor(ev.tensor_id):
            _fail(f"{p}.tensor_id", f"names tensor {ev.tensor_id!r}, which is not in before")
        events.append(ev)
    backwards = [_backward(b, f"backward[{i}]")
                 for i, b in enumerate(_get(doc, "backward", origin, list, True) or [])]
    order = []
    for i, x in enumerate(_get(doc, "order", origin, list, True) or []):
        if not (isinstance(x, list) and len(x) == 2 and x[0] in ("event", "backward")
                and isinstance(x[1], int) and not isinstance(x[1], bool)
                and 0 <= x[1] < len(events if x[0] == "event" else backwards)):
            _fail(f"order[{i}]", f"expected [\"event\" or \"backward\", index], got {x!r}")
        order.append(tuple(x))
    return Trace(events, backwards, order)


def load(path) -> Trace:
    """Read a trace written by ``Tracer.to_json(path)``."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise TraceFormatError(f"cannot read trace file {path!r}: {e.strerror}") from None
    return loads(text, origin=str(path))
