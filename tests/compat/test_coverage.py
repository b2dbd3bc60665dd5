"""The README's coverage table is the one the code generates, and says what the hook
does: every listed name resolves under ``import torch``; every not-provided one refuses."""
import importlib

import pytest

from viewgrad.compat import coverage, torch_imports
from viewgrad.compat.namespaces import MODULES, is_provided

pytestmark = pytest.mark.once


def test_readme_table_is_current():
    text = coverage.readme_path().read_text(encoding="utf-8")
    assert coverage.current_section(text) == coverage.table(), (
        "the coverage table in README.md is stale: run "
        "`python -m viewgrad.compat.coverage --write` and commit README.md")


def test_listed_names_resolve_and_missing_ones_refuse():
    with torch_imports():
        for name in MODULES:
            if not is_provided(name):
                continue
            mod = importlib.import_module(name)
            for n in coverage.provided_names(name):
                assert getattr(mod, n) is not None or n in ("cudnn",), f"{name}.{n}"
        for name in coverage.NOT_PROVIDED:
            if is_provided(name):
                continue
            with pytest.raises(ImportError, match=f"{name} is not provided by viewgrad"):
                importlib.import_module(name)
