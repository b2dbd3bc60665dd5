"""Incomplete statements continue on the next line, as in Python's REPL."""
import pytest
from .replkit import drive

from viewgrad_cli.multiline import is_complete, next_indent

# the REPL does not depend on the test pass's device: run it in the first pass only
pytestmark = pytest.mark.once


@pytest.mark.parametrize("text,complete", [
    ("x = 1", True), ("", True), (":graph x", True),
    ("x = (1,", False), ("def f():", False), ("if x:\n    y = 1", False),
    ("if x:\n    y = 1\n", True), ("a = 1\\", False), ("x = [\n1,\n2]", True),
    ("x = )", True),              # a syntax error is complete: running it shows the error
    ("for i in r:\n    pass\nelse:", False),
])
def test_is_complete(text, complete):
    assert is_complete(text) is complete


def test_next_indent():
    assert next_indent("def f():") == "    "
    assert next_indent("def f():\n    x = 1") == "    "
    assert next_indent("def f():\n    return 1") == ""
    assert next_indent("x = 1") == ""


def test_block_in_the_prompt():
    # auto-indent supplies the body's indentation; the empty line ends the block
    out, s = drive("def twice(x):\r", "return x * 2\r", "\r", "twice(21)\r")
    assert "42" in out
    out, s = drive("total = 0\r", "for i in range(4):\r", "total += i\r", "\r", "total\r")
    assert "6" in out.split()


def test_open_bracket_continues():
    out, s = drive("pair = (1,\r", "2)\r", "pair\r")
    assert "(1, 2)" in out
