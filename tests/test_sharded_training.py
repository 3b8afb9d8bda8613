"""examples/sharded_training.py on 8 virtual CPU devices: each mode (dp, tp, fsdp) trains in
quick mode with a falling loss; its sharded init makes the same parameters as the unsharded
one; one sharded training step (the example's own compiled step) matches the same step
unsharded on one device: the loss, the Adam first moments (0.1 x the gradients) and the
parameters. The figures the example reports (parameter count, FLOPs per step, memory per
device) are checked against what XLA says about the compiled program."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import random, tree_util

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples"))
import sharded_training as ex  # noqa: E402

_unsharded = {}


def _unsharded_step(cfg, lr, dtype):
    if "step" not in _unsharded:
        _unsharded["step"] = ex.build_step(cfg, None, "dp", lr, dtype)[:2]
    return _unsharded["step"]


@pytest.mark.devices(8)
@pytest.mark.parametrize("mode", ["dp", "tp", "fsdp"])
def test_mode_trains_and_matches_unsharded_step(mode):
    out = ex.main(["--quick", "--parallel", mode, "--no-progress", "--steps", "15"])
    assert out["losses"][-1] < out["losses"][0]
    mesh, cfg = out["mesh"], out["cfg"]
    assert mesh.size == 8 and dict(mesh.shape) == ({"data": 4, "model": 2} if mode == "tp"
                                                   else {"data": 8, "model": 1})
    ref_step, ref_init = _unsharded_step(cfg, out["lr"], out["dtype"])
    key = random.PRNGKey(3)
    sp, so = out["init_state"](key)
    params, opt = ref_init(key)
    # The sharded init draws the same numbers as the unsharded one.
    for a, b in zip(tree_util.tree_leaves((sp, so)), tree_util.tree_leaves((params, opt))):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    w1 = sp["layers"][0]["w1"]
    shapes = {s.data.shape for s in w1.addressable_shards}
    d, f = cfg.d_model, cfg.mlp * cfg.d_model
    assert shapes == {{"dp": (d, f), "tp": (d, f // 2), "fsdp": (d, f // 8)}[mode]}
    assert {s.data.shape for s in so["v"]["layers"][0]["w1"].addressable_shards} == shapes

    tokens, targets = next(ex.batches(cfg, seed=5))
    bs = out["batch_sharding"]
    # Both steps donate their parameters and Adam state; compare against host copies.
    p1, o1, loss = out["step"](sp, so, minijax.device_put(tokens, bs),
                               minijax.device_put(targets, bs))
    rp, ro, rloss = ref_step(params, opt, tokens, targets)
    np.testing.assert_allclose(float(loss), float(rloss), rtol=1e-5)
    for a, b in zip(tree_util.tree_leaves(o1["m"]), tree_util.tree_leaves(ro["m"])):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-3, atol=2e-6)
    for a, b in zip(tree_util.tree_leaves(p1), tree_util.tree_leaves(rp)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=2.5 * out["lr"])
    summary = out["summary"]
    assert summary["devices"] == 8 and summary["mfu"] is None  # no MFU claimed on a CPU
    assert summary["tokens_per_s"] == pytest.approx(cfg.batch * cfg.seq / summary["step_ms"]
                                                    * 1e3)


def _abstract_compile(cfg, mesh, mode):
    step, init_state, _ = ex.build_step(cfg, mesh, mode, 1e-3, jnp.float32)
    state = minijax.eval_shape(init_state, random.PRNGKey(0))
    tokens = minijax.ShapeDtypeStruct((cfg.batch, cfg.seq), np.int32)
    return step.lower(*state, tokens, tokens).compile()


def test_parameter_count_and_flops_match_xla():
    cfg = ex.Config(vocab=64, seq=64, d_model=256, heads=4, layers=2, mlp=4, batch=8)
    params = ex.init_params(cfg, random.PRNGKey(0))
    assert sum(x.size for x in tree_util.tree_leaves(params)) == ex.n_params(cfg)
    # PaLM's count leaves out elementwise work, which is small next to the matmuls here.
    # Compiled for the CPU everywhere: XLA's GPU cost analysis counts fused work otherwise.
    grads = minijax.jit(minijax.value_and_grad(lambda p, x, y: ex.loss_fn(p, x, y, cfg)),
                        backend="cpu")
    tokens = minijax.ShapeDtypeStruct((cfg.batch, cfg.seq), np.int32)
    xla_flops = grads.lower(params, tokens, tokens).compile().cost_analysis()["flops"]
    assert 0.9 < ex.flops_per_step(cfg) / xla_flops < 1.0


@pytest.mark.devices(8)
def test_fsdp_splits_the_training_state_eight_ways():
    """XLA's per-device argument bytes: FSDP holds 1/8 of what data parallelism replicates
    (every dimension of this config divides 8; the batch is split either way). ``--plan``
    reports the same estimate without allocating anything."""
    cfg = ex.Config()
    devices = minijax.local_devices()[:8]
    args = {}
    for mode in ("dp", "fsdp"):
        compiled = _abstract_compile(cfg, ex.make_mesh_for(mode, devices), mode)
        args[mode] = compiled.memory_analysis().argument_size_in_bytes
    state_bytes = 3 * 4 * ex.n_params(cfg)  # f32 parameters and two Adam moments
    tokens_bytes = 2 * 4 * cfg.batch * cfg.seq // 8
    assert args["dp"] == pytest.approx(state_bytes + tokens_bytes, abs=64)
    assert args["fsdp"] == pytest.approx(state_bytes / 8 + tokens_bytes, abs=64)
    planned = ex.main(["--parallel", "fsdp", "--plan"])
    estimate, _ = ex.memory_per_device(
        _abstract_compile(cfg, ex.make_mesh_for("fsdp", devices), "fsdp"), [])
    assert planned == estimate


@pytest.mark.devices(2)
def test_scaling_driver_runs_each_mode(tmp_path):
    """benchmarks/sharded_scaling.py on 2 CPU devices: one process per run (two for the
    multi-process job), a table row each; the job's losses equal the one-process run's."""
    env = dict(os.environ, MINIJAX_NUM_CPU_DEVICES="2", PYTHONPATH=ROOT)
    proc = subprocess.run(
        [sys.executable, os.path.join(ROOT, "benchmarks", "sharded_scaling.py"), "--devices",
         "1,2", "--preset", "quick", "--steps", "4", "--multiprocess", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    with open(tmp_path / "scaling.json") as f:
        runs = {r["name"]: r for r in json.load(f)["runs"]}
    assert list(runs) == ["dp1", "dp2", "tp2", "fsdp2", "dp2-mp"]
    for name, r in runs.items():
        assert "error" not in r and r["steps"] == 4 and r["step_ms"] > 0
        assert r["devices"] == (1 if name == "dp1" else 2)
        assert r["processes"] == (2 if name == "dp2-mp" else 1)
        assert r["config"]["batch"] == 16 * r["devices"]
    assert runs["tp2"]["mesh"]["model"] == 2
    np.testing.assert_allclose(runs["dp2-mp"]["losses"], runs["dp2"]["losses"], rtol=2e-5)
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| ")]
    assert len(rows) == 1 + 5 and rows[1].startswith("| dp1 | 1 |")
