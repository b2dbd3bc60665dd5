"""tutorials/scripts/train_digits.py: trains on scikit-learn's bundled digits when the
optional `digits` extra is installed, and exits cleanly with a message when it is not."""
import importlib.util
import os
import sys

import pytest

_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "tutorials", "scripts",
                     "train_digits.py")


def _load():
    spec = importlib.util.spec_from_file_location("train_digits", _PATH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_without_sklearn_it_says_so_and_exits_0(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "sklearn", None)  # makes `import sklearn` fail
    assert _load().main(["--epochs", "1"]) == 0
    assert "scikit-learn is not installed" in capsys.readouterr().err


def test_trains_on_digits():
    pytest.importorskip("sklearn", reason="scikit-learn (the optional `digits` extra) is not "
                                          "installed")
    acc, model = _load().train(epochs=1, seed=0)
    assert acc > 0.85  # one epoch already reaches ~0.96; the full run gets ~0.99
