"""``benchmarks/run_all.py --quick`` runs every workload (the GPU ones at tiny sizes on the CPU)
for minijax alone and writes a complete JSON report. A smoke test, not a timing."""

import json
import math
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

EXPECTED = {
    "dispatch": ["jit_dispatch_us", "eager_op_us", "mlp64_trace_lower_s"],
    "grad_trace": ["mlp64_grad_trace_lower_s", "transformer12_grad_trace_lower_s"],
    "train_steps": ["mlp64_step_trace_lower_s", "mlp64_step_compile_s", "mlp64_step_ms",
                    "transformer12_step_trace_lower_s", "transformer12_step_compile_s",
                    "transformer12_step_ms"],
    "per_example_grads": ["jit_ms", "first_call_s", "eager_ms"],
    "scan_rnn": ["trace_lower_s", "first_call_s", "jit_ms"],
    "gpu_train": ["mlp_f32_step_ms", "mlp_f32_tflops", "mlp_bf16_step_ms", "gpt_bf16_step_ms",
                  "gpt_bf16_tflops"],
}


def test_run_all_quick_writes_complete_json(tmp_path):
    out = tmp_path / "bench.json"
    res = subprocess.run(
        [sys.executable, os.path.join(REPO, "benchmarks", "run_all.py"), "--quick",
         "--json", str(out)],
        capture_output=True, text=True, timeout=300, cwd=REPO)
    assert res.returncode == 0, res.stderr[-3000:] + res.stdout[-3000:]
    report = json.loads(out.read_text())
    assert report["quick"] and report["rounds"] == 1 and report["date"]
    assert report["versions"]["jaxlib"] and report["machine"]["cores"] >= 1
    assert set(report["results"]) == set(EXPECTED)
    for workload, keys in EXPECTED.items():
        metrics = report["results"][workload]["metrics"]
        assert "errors" not in report["results"][workload]
        for k in keys:
            row = metrics[k]
            assert set(row) >= {"minijax", "minijax_rounds"} and "jax" not in row
            assert math.isfinite(row["minijax"]) and row["minijax"] > 0, (workload, k, row)
    assert "train_steps.transformer12_step_ms" in res.stdout
