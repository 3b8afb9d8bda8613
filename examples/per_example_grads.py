"""Per-example gradients with `vmap(grad(...))`, clipped and noised as in DP-SGD.

    python examples/per_example_grads.py            # full run
    python examples/per_example_grads.py --quick    # CI: a short run that must lower the loss

Differentially private SGD (Abadi et al., 2016) bounds each example's influence on an update:
every example's gradient is clipped to L2 norm <= C, the clipped gradients are summed, and
Gaussian noise of standard deviation sigma * C is added before averaging. That needs one
gradient per example, which `vmap(grad(loss))` gives in one batched program instead of a loop
of batch-size-1 gradients. (Privacy accounting -- turning sigma, the sampling rate and the
step count into an (epsilon, delta) guarantee -- is outside this example.)

The data are synthetic (a noisy nonlinear two-class problem), so the example needs nothing
beyond minijax.
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # examples/_common.py

import _common  # noqa: E402

import minijax  # noqa: E402
import minijax.numpy as jnp  # noqa: E402
from minijax import nn, random, tree_util  # noqa: E402

FEATURES, HIDDEN = 16, 64
BATCH = 256
LR = 0.5
CLIP_NORM = 1.0  # C: the largest L2 norm one example's gradient may have
NOISE_MULTIPLIER = 1.0  # sigma: noise std is sigma * C on the summed gradient


def make_data(seed, n):
    """Labels from a fixed random 'teacher' network (the same for every split), 5% flipped."""
    teacher_rng = np.random.default_rng(1234)
    teacher = teacher_rng.normal(size=(FEATURES, 8)), teacher_rng.normal(size=8)
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, FEATURES)).astype(np.float32)
    y = (np.tanh(x @ teacher[0]) @ teacher[1] > 0).astype(np.int32)
    flip = rng.random(n) < 0.05
    y[flip] = 1 - y[flip]
    return x, y


def init_params(key):
    k1, k2 = random.split(key)
    return {"w1": random.normal(k1, (FEATURES, HIDDEN)) / np.sqrt(FEATURES),
            "b1": jnp.zeros(HIDDEN),
            "w2": random.normal(k2, (HIDDEN, 2)) / np.sqrt(HIDDEN),
            "b2": jnp.zeros(2)}


def predict(params, x):
    return jnp.tanh(x @ params["w1"] + params["b1"]) @ params["w2"] + params["b2"]


def example_loss(params, x, y):
    """The loss of ONE example: x is (FEATURES,), y a scalar label. vmap adds the batch."""
    return -nn.log_softmax(predict(params, x))[y]


# One (loss, gradient) per example: params shared (in_axes None), x and y split along axis 0.
per_example_value_and_grad = minijax.vmap(minijax.value_and_grad(example_loss),
                                          in_axes=(None, 0, 0))


def global_norms(grads):
    """Each example's gradient norm over all parameters: (batch,)."""
    squares = [jnp.sum(g.reshape(g.shape[0], -1) ** 2, axis=1)
               for g in tree_util.tree_leaves(grads)]
    return jnp.sqrt(sum(squares))


def private_gradient(params, x, y, key):
    """Clip each example's gradient to CLIP_NORM, sum, add N(0, (sigma C)^2) noise, average."""
    losses, grads = per_example_value_and_grad(params, x, y)
    norms = global_norms(grads)
    scale = jnp.minimum(1.0, CLIP_NORM / (norms + 1e-12))  # (batch,)
    clipped_sum = tree_util.tree_map(
        lambda g: jnp.tensordot(scale, g, axes=1), grads)  # sum_i scale_i * g_i
    leaves, treedef = tree_util.tree_flatten(clipped_sum)
    keys = random.split(key, len(leaves))
    noisy = [g + NOISE_MULTIPLIER * CLIP_NORM * random.normal(k, g.shape)
             for g, k in zip(leaves, keys)]
    batch = x.shape[0]
    grad = tree_util.tree_unflatten(treedef, [g / batch for g in noisy])
    stats = {"loss": losses.mean(), "mean_norm": norms.mean(),
             "clipped": jnp.mean(norms > CLIP_NORM)}
    return grad, stats


@minijax.jit
def dp_sgd_step(params, x, y, key):
    grad, stats = private_gradient(params, x, y, key)
    params = tree_util.tree_map(lambda p, g: p - LR * g, params, grad)
    return params, stats


@minijax.jit
def accuracy(params, x, y):
    return jnp.mean(jnp.argmax(predict(params, x), axis=-1) == y)


def check_against_a_loop(params, x, y):
    """vmap(grad) must agree with one grad call per example (the slow way it replaces)."""
    _, batched = per_example_value_and_grad(params, x, y)
    for i in range(x.shape[0]):
        single = minijax.grad(example_loss)(params, x[i], y[i])
        for name in single:
            np.testing.assert_allclose(np.asarray(batched[name][i]), np.asarray(single[name]),
                                       rtol=1e-5, atol=1e-6)
    print(f"vmap(grad) matches a loop of grad on {x.shape[0]} examples")


def main(argv=None):
    args = _common.parse_args(__doc__.splitlines()[0], steps=1000, quick_steps=100, argv=argv)
    _common.describe_devices()
    x_train, y_train = make_data(args.seed, 8192)
    x_test, y_test = make_data(args.seed + 1, 2048)
    key = random.PRNGKey(args.seed)
    params = init_params(key)
    check_against_a_loop(params, x_train[:4], y_train[:4])

    rng = np.random.default_rng(args.seed)
    losses, pending = [], []
    bar = _common.progress(args.steps, "dp-sgd", disable=args.no_progress)
    meter = _common.Throughput()
    window = _common.ProfileWindow(args.profile)
    for step in range(args.steps):
        idx = rng.choice(len(x_train), BATCH, replace=False)
        xb, yb = _common.shard_batch(x_train[idx], y_train[idx])
        with window.step(step, params):
            params, stats = dp_sgd_step(params, xb, yb, random.fold_in(key, step))
        pending.append(stats)
        meter.add(BATCH)
        if (step + 1) % 25 == 0 or step + 1 == args.steps:
            losses.extend(float(s["loss"]) for s in pending)
            last = pending[-1]
            pending = []
            bar.set_postfix(loss=f"{losses[-1]:.3f}", clipped=f"{float(last['clipped']):.2f}",
                            ex_per_s=f"{meter.rate():.0f}")
        bar.update(1)
    bar.close()
    window.close(params)

    test_acc = float(accuracy(params, x_test, y_test))
    print(f"test accuracy: {test_acc:.4f}  (clip norm {CLIP_NORM}, noise multiplier "
          f"{NOISE_MULTIPLIER}, batch {BATCH})")
    _common.save_loss_curve(losses, os.path.join(args.out_dir, "per_example_grads_loss.png"),
                            f"DP-SGD (test accuracy {test_acc:.3f})")
    _common.assert_loss_dropped(losses, 0.85 if args.quick else 0.75)
    if not args.quick:  # the teacher's labels are 95% clean: noisy, clipped SGD still learns
        assert test_acc >= 0.85, f"test accuracy {test_acc:.4f} < 0.85"
    return {"losses": losses, "test_accuracy": test_acc}


if __name__ == "__main__":
    main()
