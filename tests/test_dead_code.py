"""Code that never runs, in ``viewgrad/`` and ``bench/``: no statement follows a
``return``, ``raise``, ``continue`` or ``break`` in the same block, and no class or module
defines one function name twice (the later one silently replaces the first; a property's
setter and deleter excepted).

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


def redefined(source, filename="<string>"):
    """(name, first line, line of the definition that replaces it) for each function or
    class defined twice in one class or module body (a property's setter or deleter, which
    extends the property, is not a redefinition)."""
    tree = ast.parse(source, filename)
    found = []
    for body in [tree.body] + [n.body for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]:
        first = {}
        for st in body:
            if not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if any(isinstance(d, ast.Attribute) and d.attr in ("setter", "deleter")
                   and isinstance(d.value, ast.Name) and d.value.id == st.name
                   for d in st.decorator_list):
                continue
            if st.name in first:
                found.append((st.name, first[st.name], st.lineno))
            first[st.name] = st.lineno
    return found


def _sources():
    for area in ("viewgrad", "bench"):
        for path in sorted((ROOT / area).rglob("*.py")):
            yield path.relative_to(ROOT), path.read_text()


def test_no_statement_follows_the_end_of_its_block():
    bad = [f"{rel}:{b} (after the line {a} that leaves the block)"
           for rel, src in _sources() for a, b in unreachable(src, str(rel))]
    assert bad == [], "unreachable statements:\n" + "\n".join(bad)


def test_no_function_is_defined_twice_in_one_body():
    bad = [f"{rel}:{b}: {name} again (first at line {a})"
           for rel, src in _sources() for name, a, b in redefined(src, str(rel))]
    assert bad == [], "redefinitions:\n" + "\n".join(bad)


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


def test_the_checker_sees_a_method_defined_twice_but_not_a_property_setter():
    src = ("class A:\n"
           "    @property\n"
           "    def x(self):\n"
           "        return 1\n"
           "    @x.setter\n"
           "    def x(self, v):\n"
           "        pass\n"
           "    def f(self):\n"
           "        return 1\n"
           "    def f(self):\n"
           "        return 2\n")
    assert redefined(src) == [("f", 8, 10)]
