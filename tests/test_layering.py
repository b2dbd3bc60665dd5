"""The one-way flow of the house, checked on the source (like test_no_numpy_leaks.py).

    backend ← tensor ← autograd ← ops ← nn / optim;   trace observes;   render draws;
    viz wires drawing for users;   cli wires everything;   nothing in viewgrad/ imports cli.

Every ``import`` in every module under ``viewgrad/`` — at the top of a module or inside a
function, ``from . import x`` or ``importlib.import_module("viewgrad.x")`` — is read with
``ast`` (nothing is imported) and must point at the module's own area or one BELOW it in
RANK. ``trace`` may read the core (it observes it) but never ``render``: trace objects get
their pictures through ``trace/display.py``, which ``render/`` fills when imported.

ALLOWED_UP lists the few upward imports that are part of the design (each says why);
KNOWN_VIOLATIONS lists what is being removed by another piece of work, and must shrink to
nothing.
"""
import ast
import pathlib

import pytest

pytestmark = pytest.mark.once   # reads source files: the same on every device pass

ROOT = pathlib.Path(__file__).resolve().parent.parent / "viewgrad"

# area -> rank: a module may import its own area and any area of lower rank
RANK = {
    "backend": 0, "strict": 0,
    "blas": 0,            # NumPy's own BLAS routine that NumPy does not expose (axpy)
    "layouts": 0,         # PyTorch's stride arithmetic (shapes and strides, no arrays)
    "printing": 1, "tensor": 1,
    "return_types": 1,    # the named tuples of max/sort/topk... (plain data, no imports)
    "autograd": 2,
    "ops": 3,
    "nn": 4, "optim": 4,
    "linalg": 4,          # vg.linalg: torch.linalg's norms, over ops (like nn)
    "serialization": 4,   # save/load: tensors and parameters
    "utils": 4,           # data loading (Dataset, DataLoader) over tensors and ops
    "amp": 4,             # autocast / GradScaler: scale grads over tensors and ops
    "trace": 5,
    "render": 6,
    "viz": 7,
    "viewgrad": 8,        # the package's __init__: wires the public names
    "_docs": 8,           # installs docstrings on the public names, after they exist
    "_tensor_docs": 8,    # ... the Tensor methods' docstrings (data)
    "compat": 8,          # torch-shaped namespaces over the public API (issue 16)
    "distributions": 8,   # torch.distributions, written over the public API (vg.*)
}
CLI = ("viewgrad_cli", "cli")

# (importing area, imported area) -> why it is part of the design
ALLOWED_UP = {
    ("tensor", "autograd"):
        "Tensor's autograd entry points (backward, grad_fn of a view, register_hook, "
        "grad mode) call into autograd, as torch/_tensor.py calls torch.autograd; "
        "autograd never needs Tensor's module at import time",
    ("printing", "tensor"): "printing formats tensors (never imported by the core)",
}

# (importing module, imported module) -> who removes it. Empty: perf's move of node
# recording into autograd/ removed the last of them; keep it that way.
KNOWN_VIOLATIONS = {}


def _area(mod: str) -> str:
    parts = mod.split(".")
    if parts[0] != "viewgrad":
        return parts[0]
    return parts[1] if len(parts) > 1 else "viewgrad"


def _is_module(mod: str) -> bool:
    rel = pathlib.Path(*mod.split(".")[1:])
    base = ROOT / rel
    return base.with_suffix(".py").exists() or (base / "__init__.py").exists()


def _module_name(path: pathlib.Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imports_of(path: pathlib.Path):
    """[(line, imported module)] of every import of viewgrad (or the cli) in ``path``."""
    mod = _module_name(path)
    pkg = mod if path.name == "__init__.py" else mod.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")[:len(pkg.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
                if node.module is None:      # from . import a, b: each is a module or name
                    found += [(node.lineno, f"{target}.{a.name}" if _is_module(
                        f"{target}.{a.name}") else target) for a in node.names]
                    continue
                found.append((node.lineno, target))
            elif node.module and node.module.split(".")[0] in ("viewgrad",) + CLI:
                found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names
                      if a.name.split(".")[0] in ("viewgrad",) + CLI]
        elif isinstance(node, ast.Call):
            f = node.func
            fname = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            if fname in ("import_module", "__import__") and node.args and isinstance(
                    node.args[0], ast.Constant) and isinstance(node.args[0].value, str) \
                    and node.args[0].value.split(".")[0] in ("viewgrad",) + CLI:
                found.append((node.lineno, node.args[0].value))
    return mod, found


def violations():
    out = []
    for path in sorted(ROOT.rglob("*.py")):
        mod, found = imports_of(path)
        src = _area(mod)
        for line, target in found:
            dst = _area(target)
            where = f"{path.relative_to(ROOT.parent)}:{line}"
            if dst in CLI:
                if mod == "viewgrad.__main__":
                    continue        # `python -m viewgrad` IS the cli's launcher (wiring)
                out.append((where, mod, target, "nothing in viewgrad/ imports the cli"))
                continue
            if src == dst or (src, dst) in ALLOWED_UP:
                continue
            if src == "__main__":
                continue
            rs, rd = RANK.get(src), RANK.get(dst)
            if rs is None or rd is None:
                out.append((where, mod, target, f"area {src if rs is None else dst!r} has "
                            "no rank in RANK: place it in the flow"))
            elif rd > rs:
                out.append((where, mod, target, f"{src} (rank {rs}) imports {dst} "
                            f"(rank {rd}): against the one-way flow"))
    return out


def test_imports_follow_the_one_way_flow():
    bad = [v for v in violations() if (v[1], v[2]) not in KNOWN_VIOLATIONS]
    assert not bad, "imports against the flow (backend ← tensor ← autograd ← ops ← " \
        "nn/optim; trace observes; render draws; cli wires):\n" + "\n".join(
            f"  {w}: {m} imports {t} — {why}" for w, m, t, why in bad)


def test_known_violations_are_still_real():
    """An entry that no longer happens must be removed from KNOWN_VIOLATIONS."""
    real = {(m, t) for _w, m, t, _why in violations()}
    gone = set(KNOWN_VIOLATIONS) - real
    assert not gone, f"remove from KNOWN_VIOLATIONS (fixed): {sorted(gone)}"


def test_trace_never_imports_render():
    for path in sorted((ROOT / "trace").rglob("*.py")):
        _mod, found = imports_of(path)
        assert not [t for _l, t in found if _area(t) == "render"], path


def test_the_checker_sees_every_kind_of_import(tmp_path):
    pkg = tmp_path / "viewgrad" / "trace"
    pkg.mkdir(parents=True)
    (tmp_path / "viewgrad" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "bad.py").write_text(
        "from ..render import dot\n"
        "def f():\n    from ..render.svg import x\n"
        "import importlib\nimportlib.import_module('viewgrad.render.html')\n"
        "import viewgrad_cli.main\n")
    global ROOT
    saved, ROOT = ROOT, tmp_path / "viewgrad"
    try:
        got = [(m, t) for _w, m, t, _why in violations()]
    finally:
        ROOT = saved
    assert ("viewgrad.trace.bad", "viewgrad.render") in got
    assert ("viewgrad.trace.bad", "viewgrad.render.svg") in got
    assert ("viewgrad.trace.bad", "viewgrad.render.html") in got
    assert ("viewgrad.trace.bad", "viewgrad_cli.main") in got
