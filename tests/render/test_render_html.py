"""The HTML report: well-formed, self-contained, and stepped through in headless Chromium."""
import re
import xml.etree.ElementTree as ET

import pytest

import viewgrad as vg
from tests.render.browser import Browser
from tests.trace.scenarios import seed, stale_views

XHTML = "{http://www.w3.org/1999/xhtml}"


def training_step():
    vg.manual_seed(0)
    w = vg.randn(3, 2, requires_grad=True)
    x = vg.randn(4, 3)
    with vg.trace() as tr:
        h = x.mm(w)
        h.relu_()
        loss = h.sum()
        loss.backward()
        with vg.no_grad():
            w.sub_(0.1 * w.grad)
            w.grad.zero_()
    return tr


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    d = tmp_path_factory.mktemp("html")
    out = {}
    for name, tr in (("seed", seed()), ("stale", stale_views()), ("train", training_step())):
        path = d / f"{name}.html"
        tr.to_html(path)
        out[name] = (tr, path)
    return out


@pytest.mark.parametrize("name", ["seed", "stale", "train"])
def test_page_is_well_formed_and_self_contained(pages, name):
    tr, path = pages[name]
    text = path.read_text(encoding="utf-8")
    root = ET.fromstring(text)                       # well-formed XML (XHTML markup)
    sections = [s for s in root.iter(XHTML + "section")]
    want = []
    for item in tr.timeline():                       # in the order they happened
        if hasattr(item, "steps"):
            want += [f"backward-{item.index}-step-{st.index}" for st in item.steps]
        else:
            want.append(f"event-{item.index}")
    assert [s.get("id") for s in sections] == want
    from viewgrad.render.storage import storage_groups
    for s in sections:
        svgs = list(s.iter("{http://www.w3.org/2000/svg}svg"))
        # an in-place event: before and after (and its storage when views share it);
        # a backward step: the graph at that step
        want = 1
        if s.get("id").startswith("event-"):
            ev = tr.events[int(s.get("id").split("-")[1])]
            want = 3 if any(g.members[1:] for g in storage_groups(ev.after, ev.tensor_id)) \
                else 2
        assert len(svgs) == want
    # nothing is loaded from anywhere: no src/href attributes, no url(), a strict CSP
    assert not re.search(r"\s(src|href)\s*=", text)
    assert "url(" not in text and "@import" not in text
    assert "default-src 'none'" in text


def test_training_step_page_has_every_event(pages):
    tr, path = pages["train"]
    assert [e.op for e in tr.events] == ["relu_", "sub_", "zero_"]
    (bt,) = tr.backwards
    assert [type(x).__name__ for x in tr.timeline()] == [
        "InplaceEvent", "BackwardTrace", "InplaceEvent", "InplaceEvent"]
    text = path.read_text(encoding="utf-8")
    assert f'id="backward-0-step-{len(bt.steps) - 1}"' in text and "x.grad" not in text
    assert "w.grad: " in text                      # what AccumulateGrad did for w


@pytest.fixture(scope="module")
def browser():
    exe = Browser.find()
    if exe is None:  # tests never install system packages: .ci/run does, where it can
        pytest.skip("no headless Chromium on PATH (chromium, chromium-browser, google-chrome):"
                    " install Debian's `chromium` package (apt-get install chromium; .ci/run "
                    "does it in CI) to run the browser test")
    b = Browser(exe)
    try:
        yield b
    finally:
        b.close()


def test_step_through_in_chromium(pages, browser, tmp_path):
    _tr, path = pages["stale"]
    browser.open(path.as_uri())
    visible = ("(() => { const s = [...document.querySelectorAll('section.event')]"
               ".filter(e => !e.hidden); return s.map(e => [e.id, "
               "[...e.querySelectorAll('.graph.before svg, .graph.after svg')]"
               ".filter(g => g.getBoundingClientRect()"
               ".width > 50 && g.getBoundingClientRect().height > 50).length]); })()")
    assert browser.eval(visible) == [["event-0", 2]]     # first event, both graphs shown
    browser.key("ArrowRight", "ArrowRight", 39)
    browser.wait_for("location.hash === '#event-1'")
    assert browser.eval(visible) == [["event-1", 2]]
    assert browser.eval("document.getElementById('pos').textContent") == "2 / 2"
    shot = tmp_path / "event-1.png"
    data = browser.screenshot(shot)
    assert shot.stat().st_size > 1000
    # not blank: let the browser decode its own screenshot and count colours
    colours = browser.eval(
        "new Promise(r => { const i = new Image(); i.onload = () => { "
        "const c = document.createElement('canvas'); c.width = i.width; c.height = i.height;"
        " const x = c.getContext('2d'); x.drawImage(i, 0, 0);"
        " const d = x.getImageData(0, 0, c.width, c.height).data; const s = new Set();"
        " for (let k = 0; k < d.length; k += 4 * 37) s.add((d[k] << 16) | (d[k+1] << 8) | d[k+2]);"
        " r(s.size); }; i.src = 'data:image/png;base64," + data + "'; })",
        await_promise=True)
    assert colours > 10
    # the deep link works the other way too, and nothing went to the network
    browser.eval("location.hash = '#event-0'")
    browser.wait_for("!document.getElementById('event-0').hidden")
    requests = [e for e in browser.events if e.get("method") == "Network.requestWillBeSent"]
    urls = [e["params"]["request"]["url"] for e in requests]
    assert all(u.startswith(("file:", "data:", "about:")) for u in urls), urls


def test_run_writes_html(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import viewgrad as vg\na = vg.tensor([1.0, 2.0], requires_grad=True)\n"
                      "b = a.clone()\nb[0].mul_(2)\n")
    out = tmp_path / "out.html"
    import viewgrad_cli.commands as C
    assert C.run([str(script), "--html", str(out)]) == 0
    root = ET.fromstring(out.read_text(encoding="utf-8"))
    assert [s.get("id") for s in root.iter(XHTML + "section")] == ["event-0"]
