"""Every tutorial shows its pictures in its Markdown, and every committed picture is what the
tutorial's code draws today.

Each tutorial runs once (``tutorial_cmd.TutorialSession``), drawing — not rendering — the
pictures its steps make (``cli/tutorial_pictures.py``): the before/after of its in-place
events and the graphs its steps ask for (```` ```python graph=y ````). Then:

* the image lines under each step of the Markdown name exactly the pictures that step draws;
* each picture file exists under ``tutorials/pictures/`` and was written from the same
  drawing: the hash of the normalised DOT source it carries equals the hash of the DOT
  drawn now (the renderer's bytes do not matter);
* no picture file is left that no tutorial shows.

When the pictures' code changes (a new look, a new label), regenerate them all with one
command: ``viewgrad tutorial --update``.
"""
import functools
import os

import pytest

from viewgrad import backend as B
from viewgrad_cli import tutorial_cmd, tutorial_pictures as pics, tutorials

pytestmark = pytest.mark.once

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TUT_DIR = os.path.join(ROOT, "tutorials")
PIC_DIR = os.path.join(TUT_DIR, pics.PICTURES)
ALL = tutorials.discover(TUT_DIR)
REGENERATE = "regenerate them with `viewgrad tutorial --update` and commit the result"


@functools.cache
def drawn(number):
    """{step number (1-based): [Picture]} and the step numbers skipped (gpu) for a tutorial."""
    tut = next(t for t in ALL if t.number == number)
    B.set_default_device("cpu")
    try:
        session = tutorial_cmd.TutorialSession(tutorial_cmd.capture_console(),
                                               show_graphs=False, number=number)
        skipped = {i + 1 for i, _, out in tutorial_cmd.step_outputs(tut, session) if out is None}
    finally:
        B.set_default_device(None)
    assert not session.failed, session.failed
    return session.pictures, skipped


@pytest.mark.parametrize("tut", ALL, ids=lambda t: os.path.basename(t.path))
def test_the_markdown_shows_the_pictures_its_code_draws(tut):
    pictures, skipped = drawn(tut.number)
    for k, step in enumerate(tut.steps, 1):
        if k in skipped:
            continue
        want = [p.link for p in pictures.get(k, [])]
        have = [link for _, link in step.pictures]
        assert have == want, f"step {k}: the Markdown shows {have}, the code draws {want}; " \
                             + REGENERATE
    shown = [link for s in tut.steps for _, link in s.pictures]
    assert shown, "every tutorial shows pictures of what its code does"


@pytest.mark.parametrize("tut", ALL, ids=lambda t: os.path.basename(t.path))
def test_committed_pictures_match_what_the_code_draws(tut):
    pictures, _ = drawn(tut.number)
    stale = []
    for step_pics in pictures.values():
        for p in step_pics:
            path = os.path.join(PIC_DIR, p.name)
            if not os.path.exists(path):
                stale.append(f"{p.name} (missing)")
            elif pics.key_of_file(path) != p.key:
                stale.append(f"{p.name} (drawn differently now)")
    assert not stale, f"pictures out of date: {stale}; " + REGENERATE


def test_no_picture_is_left_that_no_tutorial_shows():
    shown = {os.path.basename(link) for t in ALL for s in t.steps for _, link in s.pictures}
    files = {f for f in os.listdir(PIC_DIR) if f.endswith(".svg")} if os.path.isdir(PIC_DIR) \
        else set()
    assert files - shown == set(), f"unreferenced pictures: {sorted(files - shown)}"
    assert shown - files == set(), f"pictures shown but not committed: {sorted(shown - files)}"


def test_the_normalised_dot_ignores_process_wide_ids_only():
    a = 'b_t3 -> b_n1 [label="saved self=t5 @v0"]\nb_n1 -> b_n2\n// at 0x7f00aa12'
    b = 'b_t9 -> b_n4 [label="saved self=t11 @v0"]\nb_n4 -> b_n7\n// at 0x7f00bb34'
    assert pics.dot_key(a) == pics.dot_key(b)
    assert pics.dot_key(a) != pics.dot_key(a.replace("@v0", "@v1"))
    assert pics.dot_key(a) != pics.dot_key(b.replace("b_n4 -> b_n7", "b_n7 -> b_n4"))
    assert pics.normalise_dot("float32 #e3ecf7") == "float32 #e3ecf7"


def test_every_committed_picture_is_well_formed_xml():
    """Strict SVG readers (librsvg, an <img> in a browser) refuse a file that is not XML: the
    hash comment once said "--update", and "--" is not allowed inside an XML comment."""
    import xml.etree.ElementTree as ET
    for f in sorted(os.listdir(PIC_DIR)):
        if f.endswith(".svg"):
            ET.parse(os.path.join(PIC_DIR, f))   # raises ParseError on a malformed file
