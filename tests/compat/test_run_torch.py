"""``viewgrad run --torch SCRIPT`` runs an unchanged PyTorch script end to end with tracing
on, and ``viewgrad --torch`` is the REPL with ``torch`` resolved to viewgrad."""
import json
import sys
import textwrap

import pytest

pytestmark = pytest.mark.once   # the command line: device-independent

SCRIPT = textwrap.dedent("""\
    import torch
    import torch.nn.functional as F
    from torch import nn

    x = torch.linspace(-1, 1, 5, requires_grad=True)
    y = x.clone()
    y[1:3].mul_(2)                      # in place on a view: one traced event
    loss = F.mse_loss(y, torch.zeros(5))
    loss.backward()
    print("grad", x.grad.tolist())
    """)


def test_run_torch_traces_an_unchanged_script(tmp_path, capsys):
    from viewgrad_cli.commands import run
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    status = run([str(script), "--torch", "--json", str(tmp_path / "t.json"),
                  "--html", str(tmp_path / "t.html")])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "grad [-0.4000000059604645, -0.800000011920929, 0.0, 0.20000000298023224, " \
           "0.4000000059604645]" in out
    assert "mul_" in out and "(train.py:7)" in out          # the event, blamed on the line
    assert "CopySlices" in out and "backward #0" in out
    events = json.loads((tmp_path / "t.json").read_text())
    assert "mul_" in json.dumps(events)
    assert "<html" in (tmp_path / "t.html").read_text().lower()
    assert not any(k == "torch" and type(v).__name__ == "TorchModule"
                   for k, v in sys.modules.items())       # the hook is gone afterwards


def test_run_torch_reports_what_is_missing(tmp_path, capsys):
    from viewgrad_cli.commands import run
    script = tmp_path / "fft.py"
    script.write_text("import torch\nimport torch.fft\n")
    assert run([str(script), "--torch"]) == 1
    err = capsys.readouterr().err
    assert "torch.fft is not provided by viewgrad" in err


def test_run_without_torch_flag_does_not_resolve_torch(tmp_path, capsys, monkeypatch):
    from viewgrad_cli.commands import run
    script = tmp_path / "s.py"
    script.write_text("import torch\nprint(type(torch.ones(1)).__module__)\n")
    monkeypatch.setitem(sys.modules, "torch", None)   # as if PyTorch were not installed
    assert run([str(script)]) == 1
    assert "ModuleNotFoundError" in capsys.readouterr().err


def test_repl_torch(tmp_path, capsys):
    from viewgrad_cli.launch import start
    script = tmp_path / "lines.txt"
    script.write_text("t = torch.ones(2, requires_grad=True)\n(t * 2).sum()\n"
                      "F.relu(torch.tensor([-1., 2.]))\nnn.Linear\ntorch.fft\n")
    assert start(script=str(script), torch=True) == 1     # the last line raised
    out = capsys.readouterr().out
    assert "SumBackward0" in out and "tensor([0., 2.])" in out, out
    assert "torch.fft is not provided by viewgrad" in " ".join(out.split())
