"""pyproject.toml lists its packages by hand (``[tool.setuptools] packages``): every
package directory of viewgrad and the CLI must be in it, or a wheel (``pip install .``,
not editable) ships without it and ``import viewgrad`` fails there."""
import pathlib
import tomllib

import pytest

pytestmark = pytest.mark.once   # reads files: the same on every device pass

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_every_package_directory_is_listed():
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    st = conf["tool"]["setuptools"]
    listed = set(st["packages"])
    found = set()
    for name, where in st["package-dir"].items():
        base = ROOT / where
        for init in base.rglob("__init__.py"):
            rel = init.parent.relative_to(base)
            found.add(".".join((name, *rel.parts)))
    assert found, "no package found: the check reads the wrong place"
    assert not (found - listed), f"packages missing from pyproject.toml: {sorted(found - listed)}"
    assert not (listed - found), f"listed but not packages: {sorted(listed - found)}"
