"""No statement of ``viewgrad/`` or ``bench/`` follows a ``return``, ``raise``,
``continue`` or ``break`` in the same block.

Such a statement never runs, and it is rarely meant. Twice an edit pasted a new helper
function into the middle of a class, after a method's ``return``. The methods below it
then became dead nested functions. One was _NllNode's lean backward step, the other
StackBackward0's ``saved_items``. The numbers stayed right and the suite stayed green,
while the nodes quietly took their slower general steps. The check reads the source with
``ast`` (nothing is imported).
"""
import ast
import pathlib

import pytest

pytestmark = pytest.mark.once   # reads source files: the same on every device pass

ROOT = pathlib.Path(__file__).resolve().parent.parent
_ENDS = (ast.Return, ast.Raise, ast.Continue, ast.Break)


def unreachable(source, filename="<string>"):
    """(line of the ending statement, line of the statement after it) for each block of
    ``source`` that goes on after it has ended."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for st, nxt in zip(block, block[1:]):
                if isinstance(st, _ENDS):
                    found.append((st.lineno, nxt.lineno))
    return found


def test_no_statement_follows_the_end_of_its_block():
    bad = []
    for area in ("viewgrad", "bench"):
        for path in sorted((ROOT / area).rglob("*.py")):
            rel = path.relative_to(ROOT)
            bad += [f"{rel}:{b} (after the line {a} that leaves the block)"
                    for a, b in unreachable(path.read_text(), str(rel))]
    assert bad == [], "unreachable statements:\n" + "\n".join(bad)


def test_the_checker_sees_a_method_after_a_helper_pasted_into_its_class():
    src = ("class A:\n"
           "    def f(self):\n"
           "        return 1\n"
           "def helper():\n"
           "    return 2\n"
           "\n"
           "    def g(self):\n"
           "        return 3\n"
           "for i in ():\n"
           "    continue\n"
           "    i += 1\n")
    assert unreachable(src) == [(5, 7), (10, 11)]
