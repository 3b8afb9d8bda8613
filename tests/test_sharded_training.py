"""examples/sharded_training.py on 8 virtual CPU devices: each mode (dp, tp, fsdp) trains in
quick mode with a falling loss, and one sharded training step (the example's own compiled step)
matches the same step unsharded on one device: the loss and the Adam first moments
(0.1 x the gradients) of every parameter."""

import os
import sys

import numpy as np
import pytest

import minijax
from minijax import tree_util

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "examples"))
import sharded_training as ex  # noqa: E402

_unsharded = {}


def _unsharded_step(cfg, lr, dtype):
    if "step" not in _unsharded:
        _unsharded["step"] = ex.build_step(cfg, None, "dp", lr, dtype)[0]
    return _unsharded["step"]


@pytest.mark.devices(8)
@pytest.mark.parametrize("mode", ["dp", "tp", "fsdp"])
def test_mode_trains_and_matches_unsharded_step(mode):
    out = ex.main(["--quick", "--parallel", mode, "--no-progress", "--steps", "15"])
    assert out["losses"][-1] < out["losses"][0]
    mesh, cfg = out["mesh"], out["cfg"]
    assert mesh.size == 8 and dict(mesh.shape) == ({"data": 4, "model": 2} if mode == "tp"
                                                   else {"data": 8, "model": 1})
    params = ex.init_params(cfg, seed=3)
    opt = ex._common.adam_init(params)
    tokens, targets = next(ex.batches(cfg, seed=5))
    sp, so = out["shard"](params, opt)
    if mode != "dp":  # parameters really are split
        w1 = sp["layers"][0]["w1"]
        shapes = {s.data.shape for s in w1.addressable_shards}
        assert shapes == ({(cfg.d_model, cfg.mlp * cfg.d_model // 2)} if mode == "tp"
                          else {(cfg.d_model, cfg.mlp * cfg.d_model // 8)})
    bs = out["batch_sharding"]
    p1, o1, loss = out["step"](sp, so, minijax.device_put(tokens, bs),
                               minijax.device_put(targets, bs))
    ref_step = _unsharded_step(cfg, out["lr"], out["dtype"])
    rp, ro, rloss = ref_step(params, opt, tokens, targets)
    np.testing.assert_allclose(float(loss), float(rloss), rtol=1e-5)
    for a, b in zip(tree_util.tree_leaves(o1["m"]), tree_util.tree_leaves(ro["m"])):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-3, atol=2e-6)
    for a, b in zip(tree_util.tree_leaves(p1), tree_util.tree_leaves(rp)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=2.5 * out["lr"])
