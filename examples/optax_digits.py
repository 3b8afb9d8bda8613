"""An MLP on handwritten digits written as a JAX + optax user writes it, run on minijax.

    python -m minijax.run_as_jax examples/optax_digits.py          # >= 95% test accuracy
    python -m minijax.run_as_jax examples/optax_digits.py --quick  # CI's short run

This file says ``import jax`` and ``import optax`` and nothing about minijax: the opt-in
(``python -m minijax.run_as_jax``, or ``minijax.compat.install()`` first thing in a notebook)
answers every ``jax`` import with minijax, so optax's Adam, its warmup-cosine schedule and
its gradient clipping run on minijax unchanged. Run it with plain ``python`` and it runs on
whatever real JAX is installed: the same program, for comparison.

The data set is scikit-learn's ``load_digits`` (shipped inside scikit-learn: no download).
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # examples/_common.py

import _common  # noqa: E402  (flags, progress bar, plot: no jax calls)
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import optax  # noqa: E402

from mlp_digits import load_data  # noqa: E402  (the same split as mlp_digits.py)

HIDDEN = (256, 128)
BATCH = 128
PEAK_LR = 3e-3
TARGET_ACCURACY = 0.95


def init_params(key, sizes):
    """He-initialized dense layers: a list of {"w", "b"}."""
    params = []
    for k, (fan_in, fan_out) in zip(jax.random.split(key, len(sizes) - 1),
                                    zip(sizes, sizes[1:])):
        w = jax.random.normal(k, (fan_in, fan_out)) * jnp.sqrt(2.0 / fan_in)
        params.append({"w": w, "b": jnp.zeros(fan_out)})
    return params


def predict(params, x):
    for layer in params[:-1]:
        x = jax.nn.relu(x @ layer["w"] + layer["b"])
    return x @ params[-1]["w"] + params[-1]["b"]


def loss_fn(params, x, y):
    logits = predict(params, x)
    return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()


def make_optimizer(steps):
    schedule = optax.warmup_cosine_decay_schedule(
        init_value=0.0, peak_value=PEAK_LR, warmup_steps=max(1, steps // 20),
        decay_steps=steps, end_value=PEAK_LR / 50)
    return optax.chain(optax.clip_by_global_norm(1.0),
                       optax.adamw(schedule, weight_decay=1e-4))


def main(argv=None):
    args = _common.parse_args(__doc__.splitlines()[0], steps=2000, quick_steps=150, argv=argv)
    print(f"jax {jax.__version__} ({jax.numpy.__name__.split('.')[0]}): "
          f"{jax.default_backend()} x {len(jax.devices())}")
    (x_train, y_train), (x_test, y_test) = load_data(args.seed)

    params = init_params(jax.random.PRNGKey(args.seed), (x_train.shape[1], *HIDDEN, 10))
    optimizer = make_optimizer(args.steps)
    opt_state = optimizer.init(params)

    @jax.jit
    def train_step(params, opt_state, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    @jax.jit
    def accuracy(params, x, y):
        return jnp.mean(jnp.argmax(predict(params, x), axis=-1) == y)

    rng = np.random.default_rng(args.seed)
    losses, pending = [], []
    bar = _common.progress(args.steps, "optax_digits", disable=args.no_progress)
    meter = _common.Throughput()
    for step in range(args.steps):
        idx = rng.choice(len(x_train), BATCH, replace=False)
        params, opt_state, loss = train_step(params, opt_state, x_train[idx], y_train[idx])
        pending.append(loss)  # device values: read them in bulk, not every step
        meter.add(BATCH)
        if (step + 1) % 50 == 0 or step + 1 == args.steps:
            losses.extend(float(v) for v in pending)
            pending = []
            bar.set_postfix(loss=f"{losses[-1]:.4f}", ex_per_s=f"{meter.rate():.0f}")
        bar.update(1)
    bar.close()

    test_acc = float(accuracy(params, x_test, y_test))
    print(f"test accuracy: {test_acc:.4f}")
    _common.save_loss_curve(losses, os.path.join(args.out_dir, "optax_digits_loss.png"),
                            f"optax AdamW + warmup-cosine on digits (test acc {test_acc:.3f})")
    _common.assert_loss_dropped(losses, 0.5)
    if not args.quick:
        assert test_acc >= TARGET_ACCURACY, f"test accuracy {test_acc:.4f} < {TARGET_ACCURACY}"
    return {"losses": losses, "test_accuracy": test_acc}


if __name__ == "__main__":
    main()
