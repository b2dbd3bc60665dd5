"""Smoke test of the benchmark runner (bench/): correctness only, NO timing assertions.

For each workload, in its --quick sizes: viewgrad, the hand-written NumPy baseline and
(when installed) PyTorch compute the same loss and gradients; the memory workload finds no
reference cycles; and ``python -m bench --quick`` runs end to end and writes its JSON.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from bench import workloads as W

# The bench compares viewgrad with host NumPy (and runs its own CPU subprocess): cpu pass only.
pytestmark = pytest.mark.host_only("the benchmark compares against host NumPy on the CPU")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOL = 1e-4   # float32, relative to the largest reference value


class _Ctx:
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is an optional oracle
        torch = None
    torch_reason = "torch not installed"


@pytest.mark.parametrize("name", [n for n in W.ORDER if n in W.CHECKS])
def test_engines_agree(name):
    diffs = W.CHECKS[name](W.QUICK[name], _Ctx)
    for key, d in diffs.items():
        if key.startswith("skipped"):
            print(f"{name}: {key}: {d}")      # a part built elsewhere is not there yet
            continue
        assert np.isfinite(d) and d <= TOL, f"{name}: {key} differs by {d:.3g}"


@pytest.mark.parametrize("name", ["chain", "chain_mix", "mlp", "mlp_modules", "cnn",
                                  "inplace"])
def test_gradients_are_checked_against_torch(name):
    # the benchmark reports max |viewgrad grad - torch grad| for each timed workload
    pytest.importorskip("torch", reason="torch (the test-only oracle) is not installed")
    diffs = W.CHECKS[name](W.QUICK[name], _Ctx)
    assert W.MAXABS in diffs and diffs[W.MAXABS] <= TOL


def test_growth_is_a_ratio_of_paired_ratios():
    # (a/b)/(c/d) is taken round by round from the same rounds' samples
    from bench.harness import Engine, measure
    engs = [Engine(n, lambda: sum(range(50))) for n in ("a", "b", "c", "d")]
    r = measure(engs, 3, [("a", "b"), ("c", "d"), (("a", "b"), ("c", "d"))], min_time=0.001)
    q = r["ratios"]["(a/b)/(c/d)"]["per_round"]
    ab, cd = r["ratios"]["a/b"]["per_round"], r["ratios"]["c/d"]["per_round"]
    assert q == pytest.approx([x / y for x, y in zip(ab, cd)])


def test_chain_gradient_is_not_trivial():
    # the quick chain's gradient must not have vanished, or the check above proves nothing
    x, c = W._chain_inputs(8, seed=1)
    g = W.chain_numpy(x, c, W.chain_ops(W.QUICK["chain"]["n_ops"]))
    assert np.abs(g).max() > 1e-6


def test_numpy_baselines_match_torch_formulas():
    # the hand-written CNN backward (im2col/col2im) against finite differences of its loss
    cfg = W.QUICK["cnn"]
    P, X, y = W.cnn_data(cfg, seed=7)
    P = [p.astype(np.float64) for p in P]
    Xn = np.ascontiguousarray(X.transpose(0, 2, 3, 1)).astype(np.float64)
    _, grads = W.cnn_step_numpy([p.copy() for p in P], Xn, y, 0.0, update=False)
    rng = np.random.default_rng(0)
    for k in (0, 2):                      # both conv weights
        idx = tuple(rng.integers(0, s) for s in P[k].shape)
        eps = 1e-6
        Pp = [p.copy() for p in P]
        Pm = [p.copy() for p in P]
        Pp[k][idx] += eps
        Pm[k][idx] -= eps
        lp, _ = W.cnn_step_numpy(Pp, Xn, y, 0.0, update=False)
        lm, _ = W.cnn_step_numpy(Pm, Xn, y, 0.0, update=False)
        assert abs((lp - lm) / (2 * eps) - grads[k][idx]) < 1e-6


def test_memory_loop_has_no_reference_cycles():
    r = W.memory_run(W.QUICK["memory"])
    assert r["gc_unreachable_after_loop"] == 0   # DESIGN §5: saving outputs makes no cycle
    assert r["first_window_peak_bytes"] > 0


def test_quick_run_end_to_end(tmp_path):
    out = tmp_path / "r.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run([sys.executable, "-m", "bench", "--quick", "--rounds", "1", "-q",
                        "--json", str(out)], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    data = json.loads(out.read_text())
    assert set(data["workloads"]) == set(W.ORDER)
    for name, w in data["workloads"].items():
        assert "error" not in w, (name, w)
    assert data["blas"]["env"]["OPENBLAS_NUM_THREADS"] == "1"
    assert "summary" in p.stdout


def test_compare_reports_each_issue19_target_before_and_after():
    from bench.report import ISSUE19, compare

    def run(value):
        ws = {}
        for _, name, key, _thr in ISSUE19:
            ws.setdefault(name, {"ratios": {}})["ratios"][key] = {
                "median": value, "min": value, "max": value}
        return {"workloads": ws}
    table = compare(run(2.0), run(0.4)).splitlines()
    assert len(table) == 2 + len(ISSUE19)
    assert all("2.00×" in row and "0.40×" in row and "**met**" in row for row in table[2:])


def test_mlp_floor_engine_computes_numpys_gradients():
    """bench/mlp_floor.py's minimal engine is a floor only if it computes the same step:
    its gradients are the hand-written step's (and its runner runs)."""
    from bench import mlp_floor as F
    P, X, y = W.mlp_data({"sizes": (12, 8, 8, 5), "batch": 6, "lr": 0.0}, seed=3)
    _, want = W.mlp_step_numpy([p.copy() for p in P], X, y, 0.0, update=False)
    fP = [F.T(p.copy(), rg=True) for p in P]
    W1, b1, W2, b2, W3, b3 = fP
    h = F.relu(F.linear(F.T(X), W1, b1))
    h = F.relu(F.linear(h, W2, b2))
    F.backward(F.cross_entropy(F.linear(h, W3, b3), y))
    for p, g in zip(fP, want):
        np.testing.assert_allclose(p.grad.data, g, rtol=1e-5, atol=1e-6)
    assert F.main(["--steps", "2", "--phases"]) == 0


def test_op_sweep_runs_every_case(capsys):
    """``python -m bench.op_sweep``: every case runs (forward and backward) in both
    libraries, or viewgrad's alone without torch, and prints a row."""
    from bench import op_sweep
    assert op_sweep.main(["--n", "2", "--rounds", "1"]) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    assert [r.split("  ")[0].strip() for r in rows] == [n.strip() for n in op_sweep.CASES]


def test_forms_runs_every_form(capsys):
    """``python -m bench.forms``: every way of writing the MLP step and the row loop runs
    in viewgrad (and torch, when installed) and prints its row of ratios."""
    from bench import forms
    assert forms.main(["--small", "--rounds", "1"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert [r.split()[0] for r in rows] == list(forms.FORMS)
    import importlib.util
    if importlib.util.find_spec("torch") is not None:   # (the row forms compare with torch)
        assert all("viewgrad/torch" in r for r in rows)


def test_ab_swaps_the_old_functions_in_and_back(capsys, tmp_path):
    """``python -m bench.ab``: the old checkout's function is compiled from its own file,
    runs in its arm (a marker only the old source has shows it was called), and the
    module's own function is back afterwards; a null A/B prints its note."""
    from bench import ab
    from viewgrad.ops import nn_fast
    new = nn_fast.lean_linear
    src = os.path.join(ROOT, "viewgrad", "ops", "nn_fast.py")
    old_root = tmp_path / "old"
    (old_root / "viewgrad" / "ops").mkdir(parents=True)
    with open(src, encoding="utf-8") as f:
        text = f.read()
    marker = "    OLD_CALLS.append(1)\n"
    head = 'def lean_linear(input, weight, bias, T, ADDMM, t_fn):\n'
    assert text.count(head) == 1
    text = text.replace(head, head + marker.replace("OLD_CALLS", "_AB_OLD_CALLS"), 1)
    (old_root / "viewgrad" / "ops" / "nn_fast.py").write_text(text, encoding="utf-8")
    calls = []
    nn_fast._AB_OLD_CALLS = calls
    try:
        swaps = ab.old_functions(["viewgrad.ops.nn_fast:lean_linear"], str(old_root))
        (holder, attr, old, got_new), = swaps.values()
        assert holder is nn_fast and attr == "lean_linear" and got_new is new and old is not new
        r = ab.run(swaps, "mlp", steps=2, small=True)
        assert len(r["old"]) == len(r["new"]) == 2 and r["reference"] == "numpy"
        assert calls, "the old arm did not run the old function"
        assert nn_fast.lean_linear is new
    finally:
        del nn_fast._AB_OLD_CALLS
    assert ab.main(["viewgrad.ops.nn_fast:AddmmNode._lean_apply", "--workload", "chain",
                    "--small", "--steps", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("old  viewgrad/") and out[1].startswith("new  viewgrad/")
    assert "null A/B" in out[2]
    with pytest.raises(SystemExit, match="module:function"):
        ab.old_functions(["lean_linear"], None)


def _samples_with(knob, value, engine):
    """``harness.measure`` of ``engine`` with ``COLLECTOR[knob]`` set to ``value``, the
    harness's default put back after."""
    from bench import harness
    default = harness.COLLECTOR[knob]
    harness.COLLECTOR[knob] = value
    try:
        harness.measure([engine], rounds=2, min_time=0.0, warmup=0)
    finally:
        harness.COLLECTOR[knob] = default


def test_samples_keep_the_collector_on_when_asked(monkeypatch):
    """``COLLECTOR["on"]``: samples run with the cyclic collector on (a program does not
    switch it off; ``python -m bench`` sets it unless ``--no-gc``), or off as timeit does;
    either way it is on again afterwards. ``COLLECTOR["collect"]``: a ``gc.collect()``
    before every sample, or none at all (``--no-collect``: the heap as a program has it)."""
    import gc
    from bench import harness, run
    seen, calls = [], []
    for on in (False, True):
        seen.clear()
        _samples_with("on", on, harness.Engine("probe", lambda: seen.append(gc.isenabled())))
        assert seen and set(seen) == {on}
        assert gc.isenabled()
    monkeypatch.setattr(harness.gc, "collect", lambda *a: calls.append(1) or 0)
    for collect in (True, False):
        calls.clear()
        _samples_with("collect", collect, harness.Engine("probe", lambda: None))
        assert bool(calls) == collect
    assert run.parse_args([]).gc and not run.parse_args(["--no-gc"]).gc
    assert run.parse_args([]).collect and not run.parse_args(["--no-collect"]).collect


def test_tracked_counts_what_a_live_graph_adds(capsys):
    """``python -m bench.tracked``: every graph is counted, each adds its nodes (at least
    one tracked object per node, row or step), and the chain's nodes are among its types."""
    from bench import tracked
    assert tracked.main(["--small"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert [r.split()[0] for r in rows] == ["chain", "inplace", "mlp"]
    assert all(float(r.split()[1]) >= 1 for r in rows)
    assert "MulBackward0" in rows[0] and "CopySlices" in rows[1]


def test_chain_floor_engines_agree_and_report(capsys):
    """``python -m bench.chain_floor``: the three minimal engines compute the chain's
    gradient as the hand-written NumPy chain does, and each gets its row."""
    from bench import chain_floor
    x, c = W._chain_inputs(8)
    ops = W.chain_ops(30)
    want = W.chain_numpy(x, c, ops)
    for name, engine in chain_floor.ENGINES.items():
        np.testing.assert_allclose(engine(x, c, ops), want, rtol=1e-6, err_msg=name)
    assert chain_floor.main(["--small", "--rounds", "1"]) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    assert [r.split()[0] for r in rows] == list(chain_floor.ENGINES) + ["numpy"]
