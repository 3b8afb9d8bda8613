"""An MLP classifier for handwritten digits, trained with Adam written in minijax.

    python examples/mlp_digits.py            # full run: >= 95% test accuracy, asserted
    python examples/mlp_digits.py --quick    # CI: a few hundred steps, asserts the loss drops

The data set is scikit-learn's `load_digits` (1,797 8x8 images, shipped inside scikit-learn:
no download). The whole training step -- forward, `value_and_grad`, the Adam update -- is one
`jit`-compiled XLA program; the batch is split across all local devices when there are several.
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # examples/_common.py

import _common  # noqa: E402

import minijax  # noqa: E402
import minijax.numpy as jnp  # noqa: E402
from minijax import nn, random  # noqa: E402

HIDDEN = (256, 128)
BATCH = 128
LR = 2e-3
TARGET_ACCURACY = 0.95


def load_data(seed):
    """Standardized features, integer labels; a fixed 75/25 train/test split."""
    from sklearn.datasets import load_digits

    x, y = load_digits(return_X_y=True)
    x = (x / 16.0).astype(np.float32)
    perm = np.random.default_rng(seed).permutation(len(x))
    x, y = x[perm], y[perm].astype(np.int32)
    n_test = len(x) // 4
    mean, std = x[n_test:].mean(0), x[n_test:].std(0) + 0.1  # train statistics only
    x = (x - mean) / std
    return (x[n_test:], y[n_test:]), (x[:n_test], y[:n_test])


def init_params(key, sizes):
    """He-initialized dense layers: a list of (w, b)."""
    params = []
    for k, (fan_in, fan_out) in zip(random.split(key, len(sizes) - 1), zip(sizes, sizes[1:])):
        w = random.normal(k, (fan_in, fan_out)) * np.sqrt(2.0 / fan_in)
        params.append((w, jnp.zeros(fan_out)))
    return params


def predict(params, x):
    for w, b in params[:-1]:
        x = nn.relu(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def loss_fn(params, x, y):
    logp = nn.log_softmax(predict(params, x))
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))


@minijax.jit
def train_step(params, opt_state, x, y):
    loss, grads = minijax.value_and_grad(loss_fn)(params, x, y)
    params, opt_state = _common.adam_update(grads, opt_state, params, LR, weight_decay=1e-4)
    return params, opt_state, loss


@minijax.jit
def accuracy(params, x, y):
    return jnp.mean(jnp.argmax(predict(params, x), axis=-1) == y)


def main(argv=None):
    args = _common.parse_args(__doc__.splitlines()[0], steps=2000, quick_steps=150, argv=argv)
    _common.describe_devices()
    (x_train, y_train), (x_test, y_test) = load_data(args.seed)
    print(f"digits: {len(x_train)} train, {len(x_test)} test, {x_train.shape[1]} features")

    params = init_params(random.PRNGKey(args.seed), (x_train.shape[1], *HIDDEN, 10))
    opt_state = _common.adam_init(params)
    rng = np.random.default_rng(args.seed)
    losses, loss_values = [], []
    bar = _common.progress(args.steps, "mlp_digits", disable=args.no_progress)
    meter = _common.Throughput()
    window = _common.ProfileWindow(args.profile)
    for step in range(args.steps):
        idx = rng.choice(len(x_train), BATCH, replace=False)  # sampling on the host: cheap
        xb, yb = _common.shard_batch(x_train[idx], y_train[idx])
        with window.step(step, params):
            params, opt_state, loss = train_step(params, opt_state, xb, yb)
        loss_values.append(loss)  # device values: read them in bulk, not every step
        meter.add(BATCH)
        if (step + 1) % 50 == 0 or step + 1 == args.steps:
            losses.extend(float(v) for v in loss_values)
            loss_values = []
            bar.set_postfix(loss=f"{losses[-1]:.4f}", ex_per_s=f"{meter.rate():.0f}")
        bar.update(1)
    bar.close()
    window.close(params)

    train_acc = float(accuracy(params, *_common.shard_batch(x_train, y_train)))
    test_acc = float(accuracy(params, x_test, y_test))
    print(f"train accuracy: {train_acc:.4f}")
    print(f"test accuracy: {test_acc:.4f}")
    _common.save_loss_curve(losses, os.path.join(args.out_dir, "mlp_digits_loss.png"),
                            f"MLP on digits (test accuracy {test_acc:.3f})")
    _common.assert_loss_dropped(losses, 0.5)
    if not args.quick:  # a short run is not expected to reach the target
        assert test_acc >= TARGET_ACCURACY, f"test accuracy {test_acc:.4f} < {TARGET_ACCURACY}"
    return {"losses": losses, "test_accuracy": test_acc}


if __name__ == "__main__":
    main()
