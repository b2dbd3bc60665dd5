"""Every ``Note [name]`` the code refers to is written down somewhere in the package: a
line that starts with it (``# Note [name]``, ``# -- Note [name] --``, or a docstring
paragraph ``Note [name]: ...``). A renamed or deleted Note leaves no dangling pointer."""
import pathlib
import re

import pytest

pytestmark = pytest.mark.once   # reads source files: the same on every device pass

ROOT = pathlib.Path(__file__).resolve().parent.parent / "viewgrad"
_NOTE = re.compile(r"Note \[([^\]]+)\]")
_DEFINES = re.compile(r"^\s*(#\s*(--\s*)?)?Note \[([^\]]+)\]")


def test_every_referenced_note_is_written_down():
    defined, referenced = set(), {}
    for path in ROOT.rglob("*.py"):
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = _DEFINES.match(line)
            if m:
                defined.add(m.group(3))
            for name in _NOTE.findall(line):
                referenced.setdefault(name, f"{path.relative_to(ROOT)}:{i}")
    dangling = {n: where for n, where in referenced.items() if n not in defined}
    assert not dangling, f"Notes referred to but never written down: {dangling}"
    assert len(defined) >= 30   # the check reads what it should
