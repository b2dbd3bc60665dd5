"""The README's coverage table: which ``torch`` namespaces and names viewgrad provides,
generated from the same declarations the import hook uses (``namespaces.py``), so it
cannot drift from what ``import torch`` gives under ``viewgrad run --torch``.

    python -m viewgrad.compat.coverage            print the table (Markdown)
    python -m viewgrad.compat.coverage --write    rewrite it in README.md, between the
                                                  <!-- coverage:start/end --> markers

``tests/compat/test_coverage.py`` fails when the README's copy is stale.
"""
from __future__ import annotations

import pathlib
import sys

from .namespaces import MODULES, exported, extras, is_provided

START, END = "<!-- coverage:start -->", "<!-- coverage:end -->"

# torch namespaces people reach for that viewgrad deliberately leaves out
NOT_PROVIDED = ("torch.fft", "torch.special", "torch.jit",
                "torch.func", "torch.amp", "torch.cuda.amp",
                "torch.distributed", "torch.sparse", "torch.onnx", "torch.hub",
                "torch.quantization", "torch.nn.utils.rnn", "torch.utils.tensorboard",
                "torch.utils.checkpoint")


def provided_names(name: str) -> list[str]:
    """The public names ``import torch...`` resolves in namespace ``name``."""
    names = {k for k in extras(name) if not k.startswith("_") or k == "__version__"}
    subs = {m.rsplit(".", 1)[1] for m in MODULES
            if m.rsplit(".", 1)[0] == name and "." in m and is_provided(m)}
    return sorted(names | exported(name) | subs, key=lambda n: (n.lower(), n))


def tensor_methods() -> list[str]:
    from ..tensor import Tensor
    return sorted((n for n in dir(Tensor) if not n.startswith("_")), key=lambda n: (n.lower(), n))


def table() -> str:
    rows = ["| torch namespace | served by | what it holds | names |", "|---|---|---|---|"]
    for name in sorted(MODULES):
        if not is_provided(name):
            continue
        ns = MODULES[name]
        names = provided_names(name)
        served = f"`{ns.target}`" if ns.target else "viewgrad.compat"
        rows.append(f"| `{name}` | {served} | {ns.doc} | {len(names)}: "
                    + ", ".join(f"`{n}`" for n in names) + " |")
    methods = tensor_methods()
    rows.append(f"| `torch.Tensor` methods | `viewgrad.Tensor` | tensor methods and "
                f"properties | {len(methods)}: " + ", ".join(f"`{n}`" for n in methods) + " |")
    missing = [n for n in NOT_PROVIDED if not is_provided(n)]
    rows.append("| not provided | — | importing or using them says so plainly | "
                + ", ".join(f"`{n}`" for n in missing) + " |")
    return "\n".join(rows) + "\n"


def readme_path() -> pathlib.Path:
    return pathlib.Path(__file__).resolve().parent.parent.parent / "README.md"


def current_section(text: str) -> str | None:
    if START not in text or END not in text:
        return None
    return text.split(START, 1)[1].split(END, 1)[0].strip("\n") + "\n"


def write(path=None) -> bool:
    """Rewrite the table in the README; returns whether it changed."""
    path = path or readme_path()
    text = path.read_text(encoding="utf-8")
    if START not in text or END not in text:
        raise SystemExit(f"{path}: no {START} ... {END} markers to write the table between")
    head, rest = text.split(START, 1)
    tail = rest.split(END, 1)[1]
    new = f"{head}{START}\n{table()}{END}{tail}"
    if new != text:
        path.write_text(new, encoding="utf-8")
        return True
    return False


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--write" in argv:
        changed = write()
        print(f"{readme_path()}: coverage table {'updated' if changed else 'already current'}")
        return 0
    sys.stdout.write(table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
