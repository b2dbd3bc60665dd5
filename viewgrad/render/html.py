"""A trace as ONE self-contained web page: step through every in-place event.

``to_html(trace_or_events, path=None)`` → the page's text (and writes it to ``path``).
Each event is a ``<section id="event-N">`` with the user's source line, the before and
after graphs as inline SVG side by side (what the op added highlighted, what it dropped
dashed), the diff, the functionalized rewrite, and the versions of the tensors involved.
Backward passes recorded by the tracer follow, one section per executed node
(``#backward-0-step-2``): the graph with what ran, what runs now and what is ready, and the
table of steps so far. Previous/next buttons, the arrow keys and the URL fragment
(``#event-3``, a deep link) move between sections.

Self-contained: no network, no external scripts, styles or fonts; a Content-Security-
Policy forbids loading anything. The page is well-formed XML (XHTML-compatible markup,
the script in CDATA), so tests can parse it with xml.etree.
"""
from __future__ import annotations

import base64
import hashlib
import re

from ..trace.sanitize import html_text

__all__ = ["to_html"]

_CSS = """
body { font-family: -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; margin: 0;
       color: #212121; background: #fafafa; }
header { position: sticky; top: 0; background: #263238; color: white; padding: 8px 16px;
         display: flex; gap: 12px; align-items: center; z-index: 2; }
header h1 { font-size: 16px; margin: 0; flex: 1; }
header button { font-size: 14px; padding: 4px 12px; }
section.event { padding: 12px 16px; }
section.event[hidden] { display: none; }
h2 { font-size: 17px; margin: 4px 0 8px 0; }
.source { font-family: monospace; background: #eceff1; padding: 4px 8px; display: inline-block; }
.graphs { display: flex; gap: 12px; align-items: flex-start; overflow-x: auto; }
.graph { background: white; border: 1px solid #cfd8dc; padding: 6px; flex: 1 1 0;
         min-width: 0; }
.graph h3 { font-size: 14px; margin: 0 0 4px 0; }
.graph svg { max-width: 100%; height: auto; }
.cols { display: flex; gap: 16px; flex-wrap: wrap; }
.cols > div { flex: 1 1 320px; }
pre { background: #263238; color: #eceff1; padding: 8px; overflow-x: auto; }
ul.diff li.added { color: #e65100; } ul.diff li.stale { color: #ef6c00; }
ul.diff li.broken { color: #c62828; font-weight: bold; }
table.versions { border-collapse: collapse; } table.versions td, table.versions th {
  border: 1px solid #cfd8dc; padding: 2px 8px; font-family: monospace; }
.hint { color: #90a4ae; font-size: 12px; }
tr.current td { background: #ffe082; }
p.legend { font-size: 12px; color: #616161; } p.legend span { padding: 1px 6px; margin: 0 2px; }
pre.error { background: #ffebee; color: #b71c1c; white-space: pre-wrap; }
"""

_JS = """
(function () {
  var events = document.querySelectorAll('section.event');
  var current = -1;
  function show(i, push) {
    if (events.length === 0) { return; }
    i = Math.max(0, Math.min(events.length - 1, i));
    for (var k = 0; k < events.length; k++) { events[k].hidden = (k !== i); }
    current = i;
    document.getElementById('pos').textContent = (i + 1) + ' / ' + events.length;
    document.getElementById('prev').disabled = (i === 0);
    document.getElementById('next').disabled = (i === events.length - 1);
    var id = events[i].id;
    if (push !== false && location.hash !== '#' + id) { location.hash = id; }
  }
  function fromHash() {
    var id = location.hash.slice(1);
    if (id) {
      for (var k = 0; k < events.length; k++) {
        if (events[k].id === id) { show(k, false); return; }
      }
    }
    if (current < 0) { show(0, false); }
  }
  document.getElementById('prev').addEventListener('click', function () { show(current - 1); });
  document.getElementById('next').addEventListener('click', function () { show(current + 1); });
  document.addEventListener('keydown', function (e) {
    if (e.key === 'ArrowRight' || e.key === 'PageDown') { show(current + 1); e.preventDefault(); }
    if (e.key === 'ArrowLeft' || e.key === 'PageUp') { show(current - 1); e.preventDefault(); }
  });
  var gotos = document.querySelectorAll('.goto');
  for (var g = 0; g < gotos.length; g++) {
    gotos[g].addEventListener('click', function (e) {
      var want = e.currentTarget.getAttribute('data-goto');
      for (var k = 0; k < events.length; k++) { if (events[k].id === want) { show(k); } }
    });
  }
  window.addEventListener('hashchange', fromHash);
  fromHash();
})();
"""

# The page's one script, allowed by its hash: no 'unsafe-inline' for scripts, so an
# injected handler or <script> (say, from a hostile trace file) could not run even if some
# text escaped escaping. Styles stay inline (the SVGs carry style attributes).
_SCRIPT = "//<![CDATA[\n" + _JS + "\n//]]>"
_HASH = base64.b64encode(hashlib.sha256(_SCRIPT.encode("utf-8")).digest()).decode("ascii")
_CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src 'sha256-{_HASH}'; base-uri 'none'; form-action 'none'")

_PROLOG = re.compile(r"^\s*(<\?xml[^>]*\?>\s*)?(<!DOCTYPE[^>]*>\s*)?", re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)


def _inline_svg(svg: str) -> str:
    """An SVG document as an element to put inside the page."""
    svg = _PROLOG.sub("", svg, count=1)
    return _COMMENT.sub("", svg)


def _e(s, limit=2000) -> str:
    """Any value as escaped HTML text (Note [Untrusted text]: loaded traces are untrusted;
    every value that reaches the page goes through here, numbers included)."""
    return html_text(s, limit)


def _legend():
    """The pictures' legend as HTML (the same samples as the SVG's, render/dot.py)."""
    from .dot import GRAPH_LEGEND
    items = []
    for text, fill, color, style in GRAPH_LEGEND:
        border = f"1px solid {color}" if style != "none" else "none"
        radius = "6px" if style == "rounded" else "0"
        items.append(f'<span style="background:{fill};border:{border};border-radius:{radius};'
                     f'color:{color if style == "none" else "#212121"}">{_e(text)}</span>')
    return f'<p class="legend">legend: {" ".join(items)}</p>'


def _event_section(ev, renderer, max_nodes):
    from .panels import draw_event
    from .svg import render_source
    from ..trace.explain import explain
    d = ev.diff
    # the two panels come from ONE layout of the union graph (render/panels.py): a node
    # present in both sits at the same place in both pictures
    before = _inline_svg(render_source(draw_event(ev, max_nodes, legend=False,
                                                  sides=("before",)).source, renderer))
    after = _inline_svg(render_source(draw_event(ev, max_nodes, legend=False,
                                                 sides=("after",)).source, renderer))
    parts = [f'<section class="event" id="event-{_e(ev.index)}" hidden="hidden">',
             f"<h2>#{_e(ev.index)} {_e(ev.summary())}</h2>", _legend()]
    if ev.source is not None:
        where = f"{ev.source[0]}:{ev.source[1]}"
        text = ev.source[2] or ev.call_text()
        parts.append(f'<p><span class="source">{_e(text)}</span> '
                     f'<span class="hint">{_e(where)}</span></p>')
    parts.append('<div class="graphs">'
                 f'<div class="graph before"><h3>before</h3>{before}</div>'
                 f'<div class="graph after"><h3>after</h3>{after}</div></div>')
    if 'class="collapsed"' in draw_event(ev, max_nodes, legend=False).source:
        # long chains were collapsed ("… 180 more AddBackward0 …"): the full pictures
        full = [_inline_svg(render_source(draw_event(ev, max_nodes, legend=False, sides=(s,),
                                                     collapse=False).source, renderer))
                for s in ("before", "after")]
        parts.append('<details class="expand"><summary>expand the collapsed chains</summary>'
                     f'<div class="graphs"><div class="graph before full">{full[0]}</div>'
                     f'<div class="graph after full">{full[1]}</div></div></details>')
    from .storage import draw_storage, storage_groups
    if any(g.members[1:] for g in storage_groups(ev.after, ev.tensor_id)):
        cells = _inline_svg(render_source(draw_storage(ev).source, renderer))
        parts.append('<div class="graphs"><div class="graph storage"><h3>memory: the '
                     "base's storage, each view's cells outlined, the written cells "
                     f"filled</h3>{cells}</div></div>")
    items = []
    for n in d.added_nodes:
        inside = " (inside CopySlices)" if n.kind == "wrapped" else ""
        items.append(f'<li class="added">added {_e(n.name)}{_e(inside)}</li>')
    for n in d.removed_nodes:
        items.append(f'<li class="removed">no longer reachable: {_e(n.name)}</li>')
    for m in d.moved:
        items.append(f'<li class="moved">{_e(m.text())}</li>')
    for t in d.stale:
        items.append(f'<li class="stale">{_e(t.label)} went stale (a view of '
                     f'{_e(t.base_label)}): its grad_fn is regenerated when next read</li>')
    for _nid, name, s in d.broken:
        items.append(f'<li class="broken">{_e(name)}: {_e(s.text())}: backward through it '
                     "will raise</li>")
    if not items:
        items.append("<li>no change to the graph</li>")
    rows = []
    b_t = {t.id: t for t in ev.before.tensors}
    for t in ev.after.tensors:
        bt = b_t.get(t.id)
        was = bt.version if bt is not None else "-"
        rows.append(f"<tr><td>{_e(t.label)}</td><td>{_e(', '.join(t.roles))}</td>"
                    f"<td>@v{_e(was)} → @v{_e(t.version)}</td>"
                    f"<td>{'stale' if t.stale else ''}</td></tr>")
    parts.append('<div class="cols"><div><h3>What changed</h3>'
                 f'<ul class="diff">{"".join(items)}</ul>'
                 '<h3>Versions</h3><table class="versions"><tr><th>tensor</th><th>role</th>'
                 f'<th>version</th><th></th></tr>{"".join(rows)}</table></div>'
                 '<div><h3>Functionalized (what the op means)</h3>'
                 f"<pre>{_e(explain(ev), 20000)}</pre></div></div>")
    parts.append("</section>")
    return "\n".join(parts)


MAX_STEP_PICTURES = 40   # a longer backward pass gets its table only
MAX_TABLE_ROWS = 2000    # rows of one steps table


def _steps_table(bt, upto):
    rows = []
    for st in bt.steps[:upto + 1]:
        cls = ' class="current"' if st.index == upto else ""
        acc = f" — {_e(st.variable)}.grad: {_e(st.accumulate)}" if st.accumulate else ""
        if st.strides:
            acc += f" ({_e(st.strides)})"
        low = ", ".join(f"{_e(n)}: {_e(left)}" + (" → ready" if left == 0 else "")
                        for _i, n, left in st.lowered)
        rows.append(f"<tr{cls}><td>{_e(st.index)}</td><td>{_e(st.name)}{acc}</td>"
                    f"<td>{_e(', '.join(g.text() for g in st.inputs) or '-')}</td>"
                    f"<td>{_e(', '.join(g.text() for g in st.outputs) or '-')}</td>"
                    f"<td>{low}</td>"
                    f"<td>{_e(', '.join(n for _i, n in st.ready) or '(empty)')}</td></tr>")
        if len(rows) > MAX_TABLE_ROWS:
            break
    return ('<table class="versions"><tr><th>#</th><th>node ran</th><th>grad in</th>'
            "<th>grads out</th><th>lowered counts</th><th>ready queue</th></tr>"
            + "".join(rows) + "</table>")


def _failure(bt):
    if bt.error is None:
        return ""
    blame = ""
    if bt.error.blame is not None:
        b = _e(bt.error.blame)
        blame = (f'<button type="button" class="goto" data-goto="event-{b}">'
                 f"the saved tensor was modified by event #{b}: show it</button>")
    return f'<pre class="error">{_e(bt.error.message)}</pre><p>{blame}</p>'


def _backward_sections(bt, renderer, max_nodes):
    from .dot import draw_moment
    from .svg import render_source
    src = ""
    if bt.source is not None:
        src = (f'<p><span class="source">{_e(bt.source[2] or "")}</span> '
               f'<span class="hint">{_e(bt.source[0])}:{_e(bt.source[1])}</span></p>')
    if len(bt.steps) > MAX_STEP_PICTURES or (not bt.steps and bt.error is None):
        return [f'<section class="event" id="backward-{_e(bt.index)}" hidden="hidden">'
                f"<h2>{_e(bt.summary()[:300])}</h2>{src}{_failure(bt)}"
                f"{_steps_table(bt, len(bt.steps) - 1)}</section>"]
    out = []
    note = ("a node runs when every edge into it has delivered its gradient (its count "
            "reached 0): a topological order. Each node shows its input buffer as the "
            "engine holds it at this moment (partial sums before every edge delivered).")
    for m in bt.moments():
        if m.node is None:
            continue                       # the end: the last step's table says it all
        svg = _inline_svg(render_source(draw_moment(m, max_nodes).source, renderer))
        sid = f"backward-{_e(bt.index)}-step-{_e(m.k)}" if not m.failing else \
            f"backward-{_e(bt.index)}-failed"
        upto = m.k if not m.failing else len(bt.steps) - 1
        out.append(f'<section class="event" id="{sid}" hidden="hidden">'
                   f"<h2>{_e(m.title())}</h2>{src}"
                   + (_failure(bt) if m.failing else "")
                   + f'<div class="graphs"><div class="graph"><h3>the engine now (ran: grey, '
                   f"now: amber, ready: green border)</h3>{svg}</div></div>"
                   f'<p class="hint">{_e(note)}</p>{_steps_table(bt, upto)}</section>')
    return out


def to_html(trace, path=None, title="viewgrad trace", renderer=None, max_nodes=60) -> str:
    """A self-contained HTML page stepping through ``trace`` (a Tracer, a loaded Trace or a
    list of events); written to ``path`` when given. Returns the page's text."""
    events = list(getattr(trace, "events", trace))
    timeline = trace.timeline() if hasattr(trace, "timeline") else events
    sections = []
    for item in timeline:          # in the order they happened
        if hasattr(item, "steps"):
            sections += _backward_sections(item, renderer, max_nodes)
        else:
            sections.append(_event_section(item, renderer, max_nodes))
    dropped = getattr(trace, "dropped", 0)
    if dropped:     # the tracer's ring (Tracer.max_events) let the oldest events go
        sections.insert(0, f'<section class="event" id="dropped" hidden="hidden"><h2>… '
                        f"{_e(dropped)} earlier event{'s' * (dropped != 1)} dropped (the "
                        "tracer keeps the last max_events)</h2></section>")
    if not sections:
        sections = ['<section class="event" id="event-0"><h2>No in-place operations were '
                    "traced.</h2></section>"]
    page = f"""<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" lang="en">
<head>
<meta charset="utf-8" />
<meta http-equiv="Content-Security-Policy" content="{_CSP}" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>{_e(title)}</title>
<style>{_CSS}</style>
</head>
<body>
<header><h1>{_e(title)}</h1>
<button id="prev" type="button">← previous</button>
<span id="pos">1 / {max(1, len(sections))}</span>
<button id="next" type="button">next →</button>
<span class="hint">arrow keys move; #event-N links to an event</span></header>
<main>
{chr(10).join(sections)}
</main>
<script>{_SCRIPT}</script>
</body>
</html>
"""
    if path is not None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(page)
    return page
