"""Hostile trace files (issue 15): each is refused at load with the loader's own error
naming the field, or it loads and renders to the terminal, DOT/SVG and HTML without error
and without any payload escaping its text.

The files are built here from a real trace (a view mutated in place, a backward pass,
view replay so CopySlices carries its view_fns), then edited. A hypothesis fuzzer edits
one field at a time with every JSON type and with strings carrying markup (HTML, DOT,
rich), lone surrogates, NUL/ESC and very long text.
"""
import io
import json
import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import viewgrad as vg
from viewgrad.trace import TraceFormatError, load, loads

PAYLOADS = [
    "<img src=x onerror=alert(1)>",
    "</title><script>alert(1)</script>",
    '"] ; x [URL="javascript:alert(1)" label="',
    "a\\",
    "n1 -> n2",
    "}",
    "[/]",
    "[bold red]x[/bold red][link=javascript:alert(1)]y",
    "[nan, 2.0]",
    "\ud800",
    "x\x00y",
    "\x1b[31mred\x1b]0;title\x07",
    "&lt;script&gt;",
    "<<B>x</B>>",
    "x" * 20_000,
]
MARKERS = ("alert", "javascript", "onerror", "URL")


def _real_trace():
    vg.autograd.set_view_replay(True)
    try:
        a = vg.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = vg.tensor(4.0, requires_grad=True)
        ns = {"a": a, "y": y}
        with vg.trace(namespace=ns) as tr:
            b = a.clone()
            ns["b"] = b
            x = b[1:].view(2)
            ns["x"] = x
            x.mul_(y)
            (b * b).sum().backward()
        return tr
    finally:
        vg.autograd.set_view_replay(False)


@pytest.fixture(scope="module")
def doc():
    d = json.loads(_real_trace().to_json())
    assert d["backward"] and d["events"]
    # every optional field present at least once, so the fuzzer edits all of them
    assert any(n.get("geometry") and n["geometry"]["view_fns"]
               for n in d["events"][0]["after"]["nodes"])
    return d


# -- checking a loaded trace's renderings ------------------------------------------------

_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)


def _strip_html_labels(src):
    """DOT source without its <...> HTML-like labels (balanced angle brackets)."""
    out, depth = [], 0
    for ch in src:
        if ch == "<":
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def check_dot(src):
    src.encode("utf-8")                                   # no lone surrogates
    assert "\x00" not in src and "\x1b" not in src
    residue = _strip_html_labels(_QUOTED.sub('""', src))
    for m in MARKERS:                                     # nothing outside a string/label
        assert m not in residue, (m, residue[:500])
    inside_html = re.findall(r"<<.*?>>", src, re.S)
    for lab in inside_html:
        for tag in re.findall(r"</?([A-Za-z]+)", lab):
            assert tag.upper() in ("TABLE", "TR", "TD", "B", "FONT", "I", "BR"), tag


def check_markup_tree(root, own_scripts=0):
    """No element or attribute that could run code, in an (X)HTML or SVG tree."""
    scripts = 0
    for el in root.iter():
        tag = el.tag.split("}")[-1].lower()
        assert tag not in ("img", "iframe", "object", "embed", "a", "foreignobject"), tag
        scripts += tag == "script"
        for k, v in el.attrib.items():
            k = k.split("}")[-1].lower()
            assert not k.startswith("on"), k
            assert "javascript" not in v.lower(), (k, v)
            assert k not in ("href", "src"), k
    assert scripts == own_scripts


def check_html(page):
    page.encode("utf-8")
    root = ET.fromstring(page)                            # well-formed: nothing broke out
    check_markup_tree(root, own_scripts=1)
    csp = [m.get("content") for m in root.iter("{http://www.w3.org/1999/xhtml}meta")
           if m.get("http-equiv") == "Content-Security-Policy"][0]
    assert "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
    assert "\x1b" not in page and "\x00" not in page


def check_terminal(tr):
    from rich.console import Console
    from viewgrad.render.terminal import render_backward, render_event
    buf = io.StringIO()
    con = Console(file=buf, width=120, color_system=None, force_terminal=False)
    for ev in tr.events:
        con.print(render_event(ev))
        con.print(render_event(ev, compact=True))
    for bt in tr.backwards:
        con.print(render_backward(bt))
    out = buf.getvalue()
    out.encode("utf-8")
    assert "\x1b" not in out and "\x00" not in out
    return out


def check_all(tr, svg=False, monkeypatch=None):
    from viewgrad.render.dot import draw, draw_backward_step
    check_terminal(tr)
    for ev in tr.events:
        check_dot(draw(ev).source)
    for bt in tr.backwards:
        for st_ in bt.steps:
            check_dot(draw_backward_step(bt, st_.index).source)
    if svg:
        from viewgrad.render.svg import render_source
        for ev in tr.events:
            s = render_source(draw(ev).source)
            check_markup_tree(ET.fromstring(s.split("?>", 1)[-1].split("-->", 1)[-1]
                                            if s.lstrip().startswith("<?") else s))
        check_html(tr.to_html())
    else:
        import viewgrad.render.svg as S
        monkeypatch.setattr(S, "render_source", lambda src, renderer=None: (
            check_dot(src) or '<svg xmlns="http://www.w3.org/2000/svg"></svg>'))
        check_html(tr.to_html())


def _paths(d, prefix=()):
    """Every (path, value) in a JSON document."""
    yield prefix, d
    if isinstance(d, dict):
        for k, v in d.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(d, list):
        for i, v in enumerate(d):
            yield from _paths(v, prefix + (i,))


def _set(d, path, value):
    d = json.loads(json.dumps(d))
    if not path:
        return value
    cur = d
    for k in path[:-1]:
        cur = cur[k]
    cur[path[-1]] = value
    return d


def load_or_refuse(d):
    """The loaded Trace, or None when it was refused with TraceFormatError."""
    text = json.dumps(d)
    try:
        return loads(text)
    except TraceFormatError:
        return None


# -- one test per defect --------------------------------------------------------------

def test_stored_xss_through_a_backward_step_count_is_refused(doc):
    d = _set(doc, ("backward", 0, "steps", 0, "lowered"),
             [["n1", "MulBackward0", "<img src=x onerror=alert(1)>"]])
    with pytest.raises(TraceFormatError, match=r"backward\[0\]\.steps\[0\]\.lowered\[0\]"):
        loads(json.dumps(d))


@pytest.mark.parametrize("payload", PAYLOADS, ids=range(len(PAYLOADS)))
def test_hostile_names_render_safely_everywhere(doc, payload, monkeypatch):
    d = json.loads(json.dumps(doc))
    ev = d["events"][0]
    ev["tensor"] = payload
    ev["operands"] = [payload]
    ev["op"] = payload
    ev["source"] = [payload, 3, payload]
    for snap in (ev["before"], ev["after"]):
        for t in snap["tensors"]:
            t["label"] = t["name"] = t["base_label"] = t["values"] = payload
            t["roles"] = [payload]
            t["dtype"] = t["creation_meta"] = payload
        for n in snap["nodes"]:
            n["name"] = payload
            n["attrs"] = [[payload, payload]]
            if n["geometry"]:
                n["geometry"]["view_fns"] = [[payload, [payload, 1]]]
    bt = d["backward"][0]
    for st_ in bt["steps"]:
        st_["name"] = payload
        st_["ready"] = [[r[0], payload] for r in st_["ready"]]
        st_["lowered"] = [[x[0], payload, x[2]] for x in st_["lowered"]]
        for g in st_["inputs"] + st_["outputs"]:
            g["values"] = g["dtype"] = payload
        if st_["accumulate"]:
            st_["accumulate"] = st_["variable"] = payload
    tr = loads(json.dumps(d))
    check_all(tr, monkeypatch=monkeypatch)


def test_hostile_file_full_svg_and_html(doc):
    """The real renderer once: payloads in labels reach SVG only as text."""
    d = json.loads(json.dumps(doc))
    for snap in (d["events"][0]["before"], d["events"][0]["after"]):
        for t in snap["tensors"]:
            t["label"] = PAYLOADS[2] + PAYLOADS[0] + "\ud800\x00\x1b"
        for n in snap["nodes"]:
            n["name"] = PAYLOADS[1] + PAYLOADS[3]
    d["events"][0]["tensor"] = PAYLOADS[0]
    d["backward"] = []
    d.pop("order", None)
    tr = loads(json.dumps(d))
    check_all(tr, svg=True)


@pytest.mark.parametrize("bad_id", ['n1" URL="javascript:alert(1)', "n1 -> n2", "x", "n",
                                    "t1", "n1\x00", "n" + "9" * 40])
def test_ids_that_the_writer_would_not_write_are_refused(doc, bad_id):
    d = _set(doc, ("events", 0, "after", "nodes", 0, "id"), bad_id)
    with pytest.raises(TraceFormatError, match=r"events\[0\]\.after\.nodes\[0\]\.id: "
                                               "expected a node id"):
        loads(json.dumps(d))


def test_dot_names_never_come_from_snapshot_text():
    """Even a snapshot built in code (not loaded) with odd ids gets generated DOT names."""
    import dataclasses
    from viewgrad.render.dot import draw
    tr = _real_trace()
    ev = tr.events[0]
    bad = 'n1" URL="javascript:alert(1)'
    old = ev.after.nodes[0].id
    nodes = tuple(dataclasses.replace(n, id=bad) if n.id == old else n
                  for n in ev.after.nodes)
    edges = tuple(dataclasses.replace(e, src=bad if e.src == old else e.src,
                                      dst=bad if e.dst == old else e.dst)
                  for e in ev.after.edges)
    tensors = tuple(dataclasses.replace(t, grad_fn=bad if t.grad_fn == old else t.grad_fn)
                    for t in ev.after.tensors)
    snap = dataclasses.replace(ev.after, nodes=nodes, edges=edges, tensors=tensors)
    check_dot(draw(snap).source)


def test_type_errors_name_the_field(doc):
    cases = [
        (("events", 0, "after", "tensors", 0, "roles"), [1], "tensors[0].roles[0]"),
        (("events", 0, "operands"), [None], "events[0].operands[0]"),
        (("backward", 0, "steps", 0, "index"), 7, "steps[0].index"),
        (("backward", 0, "steps", 0, "outputs", 0, "shape"), ["x"], "outputs[0].shape[0]"),
        (("backward", 0, "deps0"), [["n1", "two"]], "deps0[0]"),
        (("events", 0, "before", "tensors", 0, "shape"), [-1], "tensors[0].shape[0]"),
        (("events", 0, "before", "tensors", 0, "version"), 2 ** 80, "tensors[0].version"),
        (("events", 0, "after", "nodes", 0, "id"), doc["events"][0]["after"]["nodes"][1]["id"],
         "after.nodes: id"),
    ]
    for path, value, where in cases:
        with pytest.raises(TraceFormatError) as e:
            loads(json.dumps(_set(doc, path, value)))
        assert where in str(e.value), (path, str(e.value))


def test_a_huge_input_number_in_a_backward_step_is_refused(doc, monkeypatch):
    """A delivered gradient's input number sized the engine picture's buffer list: 2**62
    was an OverflowError in the drawing, found by the fuzz test below."""
    steps = doc["backward"][0]["steps"]
    k = next(i for i, st in enumerate(steps) if st.get("delivered"))
    item = list(steps[k]["delivered"][0])
    for nr in (2 ** 62, 100_000, -1):
        item[1] = nr
        with pytest.raises(TraceFormatError, match=r"delivered\[0\]"):
            loads(json.dumps(_set(doc, ("backward", 0, "steps", k, "delivered", 0), item)))
    item[1] = 3   # a plausible number still loads and draws
    check_all(loads(json.dumps(_set(doc, ("backward", 0, "steps", k, "delivered", 0), item))),
              monkeypatch=monkeypatch)


def test_deep_nesting_and_huge_integers_are_format_errors(doc):
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(TraceFormatError, match="nests too deeply|not a trace"):
        loads(deep)
    d = _set(doc, ("events", 0, "after", "nodes", 0, "geometry"), None)
    nested = []
    for _ in range(50):
        nested = [nested]
    d = _set(doc, ("events", 0, "before", "tensors", 0, "view_fns"), [["view", nested]])
    with pytest.raises(TraceFormatError, match="nest too deeply"):
        loads(json.dumps(d))
    text = json.dumps(doc).replace('"version": 1', '"version": 1' + "0" * 5000, 1)
    with pytest.raises(TraceFormatError):
        loads(text)


def test_file_size_is_capped(tmp_path):
    with pytest.raises(TraceFormatError, match="larger than"):
        load("/dev/zero")
    p = tmp_path / "big.json"
    p.write_text(" " * 2000 + "{}")
    with pytest.raises(TraceFormatError, match="larger than 2000 bytes"):
        load(p, max_bytes=2000)
    p.write_bytes(b'{"format": "\xff"}')
    with pytest.raises(TraceFormatError, match="not UTF-8"):
        load(p)


def test_round_trip_unchanged_after_hardening(doc):
    tr = loads(json.dumps(doc))
    assert json.loads(tr.to_json()) == {**doc}


# -- the fuzzer ------------------------------------------------------------------------

_strings = st.one_of(st.sampled_from(PAYLOADS), st.text(max_size=30),
                     st.sampled_from(["n1", "t1", "n999", "t999", "", "function", "view",
                                      "copyslices", "accumulate", "event", "backward"]))
_scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3),
                     st.sampled_from([2 ** 63, -(2 ** 70), 10 ** 30]),
                     st.floats(allow_nan=True, allow_infinity=True), _strings)
_json = st.recursive(_scalars, lambda c: st.one_of(st.lists(c, max_size=3),
                                                   st.dictionaries(_strings, c, max_size=3)),
                     max_leaves=6)


def _like(orig):
    """Values of the original's JSON type (so that many edited files still load)."""
    if isinstance(orig, bool):
        return st.booleans()
    if isinstance(orig, int):
        return st.one_of(st.integers(-2, 2 ** 20), st.sampled_from([2 ** 64, -1, 0]))
    if isinstance(orig, str):
        return _strings
    if isinstance(orig, list) and orig:
        # drop, duplicate or reorder items; or replace one with a payload string
        return st.one_of(st.lists(st.sampled_from(orig), max_size=len(orig) + 2),
                         st.permutations(orig))
    if isinstance(orig, dict) and orig:
        return st.sampled_from(sorted(orig)).map(
            lambda k: {kk: v for kk, v in orig.items() if kk != k})
    return _json


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_every_field(doc, data, monkeypatch):
    paths = list(_paths(doc))
    path, orig = data.draw(st.sampled_from(paths), label="path")
    value = data.draw(st.one_of(_like(orig), _like(orig), _json), label="value")
    d = _set(doc, path, value)
    tr = load_or_refuse(d)
    if tr is None:
        return
    check_all(tr, monkeypatch=monkeypatch)


# -- files that describe huge graphs: drawn in bounded work ----------------------------------

def _render_sizes(tr):
    """(terminal characters, DOT edges, DOT nodes) of the first event's pictures."""
    from viewgrad.render.dot import draw
    out = check_terminal(tr)
    src = draw(tr.events[0]).source
    check_dot(src)
    return len(out), src.count("->"), src.count("[label=")


def test_parallel_edges_are_drawn_as_one(doc):
    """stack([x] * 20000) gives one node 20,000 edges to one node: drawn one by one they
    took minutes (and a file can claim them); more than 8 become one labelled edge."""
    d = json.loads(json.dumps(doc))
    edges = d["events"][0]["after"]["edges"]
    src, dst = edges[0]["src"], edges[0]["dst"]
    base = _render_sizes(loads(json.dumps(d)))
    edges += [{"src": src, "dst": dst, "index": i, "input_nr": 0, "hidden": False}
              for i in range(20_000)]
    tr = loads(json.dumps(d))
    out_len, n_edges, _ = _render_sizes(tr)
    assert n_edges <= base[1] + 2 and out_len < 2 * base[0] + 2000
    from viewgrad.render.dot import draw
    assert "×20,000" in draw(tr.events[0]).source or "×20,001" in draw(tr.events[0]).source


def test_small_parallel_edges_are_still_drawn_one_by_one():
    from viewgrad.render.dot import draw
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    with vg.trace(namespace={"x": x, "y": y}) as tr:
        z = y * y
        z.mul_(2)
    src = draw(tr.events[-1]).source
    assert 'label=0' in src.replace('"', '') and 'label=1' in src.replace('"', '')


@pytest.mark.parametrize("field,value", [("shape", [10 ** 9]), ("offset", 10 ** 12),
                                         ("stride", [2 ** 63]), ("shape", [2 ** 63]),
                                         ("shape", [10 ** 5] * 8)])
def test_claimed_sizes_and_offsets_never_allocate_them(doc, field, value, monkeypatch):
    """A storage picture once built a tuple per claimed cell: a size of 10**9 was an
    out-of-memory kill, an offset of 10**12 a MemoryError."""
    d = _set(doc, ("events", 0, "after", "tensors", 0, field), value)
    tr = load_or_refuse(d)
    if tr is not None:
        check_all(tr, monkeypatch=monkeypatch)


@pytest.mark.parametrize("what", ["nodes", "tensors", "views"])
def test_thousands_of_nodes_tensors_or_views_draw_a_bounded_picture(doc, what):
    d = json.loads(json.dumps(doc))
    after = d["events"][0]["after"]
    base = _render_sizes(loads(json.dumps(d)))
    # fresh ids past every id in the file (the doc's own ids come from the session's
    # counters, which earlier tests may have pushed past any fixed number)
    first = 1 + max(int(x) for x in re.findall(r'"[nt](\d+)"', json.dumps(d)))
    for i in range(3000):
        if what == "nodes":      # new in "after": each one would be forced into the picture
            n = dict(after["nodes"][0], id=f"n{first + i}")
            after["nodes"].append(n)
        else:
            t = dict(after["tensors"][0], id=f"t{first + i}", label=f"v{i}")
            if what == "tensors":
                t.update(is_view=False, base=None, base_label=None)
            after["tensors"].append(t)
    sizes = _render_sizes(loads(json.dumps(d)))
    assert sizes[0] < 20 * base[0] + 20_000 and sizes[2] < base[2] + 200, (base, sizes)
