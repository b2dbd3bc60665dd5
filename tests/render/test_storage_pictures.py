"""Storage pictures: the base's cells, each view's elements outlined with its geometry,
the region an in-place op wrote filled — as DOT (golden) and in the terminal."""
import re

import pytest
from rich.console import Console

import viewgrad as vg
from viewgrad.render.storage import (WRITTEN_FILL, cells_of, draw_storage, render_storage,
                                     storage_groups)
from viewgrad.trace import storage_snapshot


def _text(renderable, width=120):
    con = Console(record=True, width=width, color_system=None)
    con.print(renderable)
    return con.export_text()


def _views():
    b = vg.arange(12.).reshape(3, 4).clone()
    return b, {"sel": b.select(0, 1), "sl": b[:, 1:3], "tr": b.t(), "dg": b.diagonal(),
               "st": b.as_strided((2, 2), (1, 4), 1)}


# storage cell -> the view's index there, for each kind of view (by the stride formula)
EXPECTED = {
    "sel": {4: (0,), 5: (1,), 6: (2,), 7: (3,)},
    "sl": {1: (0, 0), 2: (0, 1), 5: (1, 0), 6: (1, 1), 9: (2, 0), 10: (2, 1)},
    "tr": {c: (c % 4, c // 4) for c in range(12)},
    "dg": {0: (0,), 5: (1,), 10: (2,)},
    "st": {1: (0, 0), 2: (1, 0), 5: (0, 1), 6: (1, 1)},
}


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_each_view_outlines_the_cells_it_covers(kind):
    b, views = _views()
    v = views[kind]
    snap = storage_snapshot(v, namespace={"b": b, kind: v})
    (group,) = storage_groups(snap)
    assert group.base == "b" and group.size == 12
    assert group.values == tuple(f"{i}." for i in range(12))      # as torch prints them
    member = next(m for m in group.members if m.label == kind)
    assert member.cells == EXPECTED[kind]
    assert member.geometry() == (f"size {tuple(v.shape)} stride {tuple(v.stride())} "
                                 f"offset {v.storage_offset()}")
    # the DOT table: one outlined cell per element, marked with the view's own index
    src = draw_storage(snap).source
    assert src.count("BORDER=\"2\"") == len(EXPECTED[kind])
    for idx in EXPECTED[kind].values():
        assert f">{','.join(map(str, idx))}</FONT>" in src
    # and the terminal row of cells
    out = _text(render_storage(snap))
    row = next(ln for ln in out.splitlines() if ln.startswith(kind + " "))
    marks = re.findall(r"\S+", row)[1:]
    assert len(marks) == 12
    for c, mark in enumerate(marks):
        want = EXPECTED[kind].get(c)
        assert mark == (",".join(map(str, want)) if want else "·"), (kind, c, row)


def test_all_live_views_in_one_picture_golden():
    b, views = _views()
    ns = {"b": b, **views}
    out = _text(vg.viz.storage(b, namespace=ns) and render_storage(
        storage_snapshot(b, namespace=ns)))
    assert out.splitlines()[:9] == [
        "storage",
        "cell         0    1    2    3    4    5    6    7    8    9   10   11 ",
        "b storage [0. ][1. ][2. ][3. ][4. ][5. ][6. ][7. ][8. ][9. ][10.][11.]",
        "sel          ·    ·    ·    ·    0    1    2    3    ·    ·    ·    · ",
        "sl           ·  0,0  0,1    ·    ·  1,0  1,1    ·    ·  2,0  2,1    · ",
        "tr         0,0  1,0  2,0  3,0  0,1  1,1  2,1  3,1  0,2  1,2  2,2  3,2 ",
        "dg           0    ·    ·    ·    ·    1    ·    ·    ·    ·    2    · ",
        "st           ·  0,0  1,0    ·    ·  0,1  1,1    ·    ·    ·    ·    · ",
        "  sel: size (4,) stride (1,) offset 4",
    ]


def test_an_inplace_event_fills_the_written_region():
    x = vg.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    bb = x.clone()
    v = bb[1:3]
    with vg.trace() as tr:
        v.mul_(2)
    ev = tr.events[0]
    (group,) = storage_groups(ev.after, ev.tensor_id)
    assert group.written == frozenset({1, 2})
    assert group.values == ("1.", "4.", "6.", "4.")
    src = draw_storage(ev).source
    assert src.count(f'BGCOLOR="{WRITTEN_FILL}"') == 4    # 2 storage cells + 2 view cells
    assert "storage after v.mul_(2)" in src
    out = _text(render_storage(ev))
    assert "v: size (2,) stride (1,) offset 1  (written)" in out


def test_cells_of_expanded_and_big_storages():
    assert cells_of((2, 3), (0, 1), 0) == {0: (0, 0), 1: (0, 1), 2: (0, 2)}   # expand
    big = vg.zeros(200)
    v = big[::50]
    src = draw_storage(storage_snapshot(v, namespace={"big": big, "v": v})).source
    assert "⋯ 104 more cells" in src
