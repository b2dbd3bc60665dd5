"""Blame: the version error names where the tensor was saved and which in-place op at
which line moved it; the forbidden-view errors name where the view was made and where its
base was modified. Each demo script fails on purpose; we run it and read the message."""
import os
import runpy

import pytest

import viewgrad as vg

HERE = os.path.dirname(os.path.abspath(__file__))


def run_demo(name):
    with pytest.raises(RuntimeError) as ei:
        runpy.run_path(os.path.join(HERE, name), run_name="__main__")
    return str(ei.value)


def test_saved_input_modified_names_both_lines():
    msg = run_demo("demo_saved_input.py")
    assert "modified by an inplace operation" in msg
    assert ("saved by MulBackward0 at demo_saved_input.py:4 (y = x * w) at version 0; "
            "modified by add_ at demo_saved_input.py:6 (x.add_(1)) -> version 1") in msg


def test_saved_output_modified_through_a_view():
    msg = run_demo("demo_saved_output_view.py")
    assert "which is output 0 of Exp," in msg
    assert ("saved by ExpBackward0 at demo_saved_output_view.py:3 (e = a.exp()) at version 0; "
            "modified by mul_ at demo_saved_output_view.py:5 (head.mul_(2)) -> version 1") in msg


def test_base_modified_after_a_no_grad_view():
    msg = run_demo("demo_nograd_view.py")
    assert "A view was created in no_grad mode and its base or another view of its base " \
           "has been modified inplace" in msg
    assert "the view was made by SliceBackward0 at demo_nograd_view.py:4 (v = b[1:])" in msg
    assert "its base was modified by mul_ at demo_nograd_view.py:5 (b.mul_(2)) -> version 1" \
        in msg


def test_blame_can_be_turned_off():
    vg.autograd.set_blame(False)
    try:
        msg = run_demo("demo_saved_input.py")
        assert "saved by" not in msg and "modified by add_" not in msg
        assert msg.startswith("one of the variables needed for gradient computation")
    finally:
        vg.autograd.set_blame(True)
    assert vg.autograd.is_blame_enabled()


def test_only_the_last_bumps_are_kept():
    b = vg.zeros(3)
    for _ in range(10):
        b.add_(1)
    assert len(b._version_counter.bumps) == 4 and b._version == 10
