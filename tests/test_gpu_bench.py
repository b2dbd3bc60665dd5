"""bench/gpu_bench.py's code path, run against the strict device (no GPU needed): the MLP
and CNN steps build, train, and start from the same loss on both devices. Timings are not
checked (the strict device is numpy underneath). On a GPU machine ``python
bench/gpu_bench.py`` gives the real cuda vs cpu numbers."""
import pytest

from bench import gpu_bench

pytestmark = pytest.mark.once   # names its devices itself


def test_gpu_bench_skips_with_a_reason_without_cuda():
    if gpu_bench.gpu_reason() is None:
        pytest.skip("cuda is available here: the real benchmark runs instead")
    res = gpu_bench.run(quick=True, log=None)
    assert "skipped" in res and "cuda" in res["skipped"]


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_gpu_bench_code_path_on_the_strict_device(name):
    res = gpu_bench.run(quick=True, rounds=1, vs="strict", only=(name,), log=None)
    r = res["workloads"][name]
    if "skipped" in r:
        pytest.skip(f"{name} workload unavailable: {r['skipped']}")
    assert r["first_loss"]["cpu"] == pytest.approx(r["first_loss"]["strict"], rel=1e-5)
    assert set(r["median_step_s"]) == {"cpu", "strict"} and r["speedup_strict_vs_cpu"] > 0


def test_steps_train():
    step = gpu_bench.mlp_step("strict", **gpu_bench.QUICK["mlp"] | {"lr": 0.5})
    first = float(step().item())
    for _ in range(20):
        last = float(step().item())
    assert last < first
