"""Small training programs written against JAX's API, the way flax and equinox users write them:
flax.linen + optax (an MLP; a CNN on scikit-learn's digits; ``nn.scan`` over ``nn.remat``
layers), flax.nnx with ``nnx.Optimizer``, equinox with filter_jit/filter_grad/filter_vmap (an
MLP; ``eqx.nn.MultiheadAttention``; a checkpointed ``eqx.internal.while_loop``). Each runs
STEPS float32 training steps and returns its losses.

``python flax_equinox_programs.py [NAME ...]`` prints ``{"losses": {name: [...]}, "real_jax":
[...]}`` as JSON (all programs when no name is given; ``real_jax`` lists modules loaded from
the real jax package's files). tests/ecosystem/test_flax_equinox.py runs it once under
minijax's opt-in, tests/data/record_flax_equinox.py under real JAX.
"""

import importlib.machinery
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np
import optax

STEPS = 100
_rng = np.random.default_rng(0)
X = _rng.normal(size=(16, 4)).astype(np.float32)
Y = (np.sin(X.sum(axis=1, keepdims=True)) + 0.1 * X[:, :1]).astype(np.float32)


def _train(step, state, batches):
    """Runs ``state, loss = step(state, *batch)`` over the batches; the float losses."""
    losses = []
    for batch in batches:
        state, loss = step(state, *batch)
        losses.append(float(loss))
    return losses


def linen_mlp():
    import flax.linen as nn

    class MLP(nn.Module):
        @nn.compact
        def __call__(self, x):
            x = nn.relu(nn.Dense(8)(x))
            return nn.Dense(1)(x)

    model = MLP()
    params = model.init(jax.random.PRNGKey(0), X)
    tx = optax.adam(1e-2)

    @jax.jit
    def step(state, x, y):
        params, opt_state = state

        def loss_fn(p):
            return jnp.mean((model.apply(p, x) - y) ** 2)
        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, opt_state = tx.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), loss

    return _train(step, (params, tx.init(params)), [(X, Y)] * STEPS)


def _digits(n_train=512, batch=64):
    """scikit-learn's 8x8 digits (shipped with it: no download) as NHWC float32 batches."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    images = (digits.images[:n_train, :, :, None] / 16.0).astype(np.float32)
    labels = digits.target[:n_train].astype(np.int32)
    return [(images[i:i + batch], labels[i:i + batch])
            for i in (np.arange(STEPS) * batch) % n_train]


def linen_cnn():
    import flax.linen as nn

    class CNN(nn.Module):
        @nn.compact
        def __call__(self, x):
            x = nn.relu(nn.Conv(8, (3, 3))(x))
            x = nn.avg_pool(x, (2, 2), strides=(2, 2))
            x = nn.relu(nn.Conv(16, (3, 3))(x))
            x = x.reshape((x.shape[0], -1))
            return nn.Dense(10)(nn.relu(nn.Dense(32)(x)))

    batches = _digits()
    model = CNN()
    params = model.init(jax.random.PRNGKey(1), batches[0][0])
    tx = optax.adam(3e-3)

    @jax.jit
    def step(state, x, y):
        params, opt_state = state

        def loss_fn(p):
            logits = model.apply(p, x)
            return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()
        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, opt_state = tx.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), loss

    return _train(step, (params, tx.init(params)), batches)


def linen_scan_remat():
    import flax.linen as nn

    class Block(nn.Module):
        @nn.compact
        def __call__(self, h, _):
            return h + jnp.tanh(nn.Dense(h.shape[-1])(nn.LayerNorm()(h))), None

    class Stack(nn.Module):
        @nn.compact
        def __call__(self, x):
            h = nn.Dense(8)(x)
            layers = nn.scan(nn.remat(Block), variable_axes={"params": 0},
                             split_rngs={"params": True}, length=3)
            h, _ = layers()(h, None)
            return nn.Dense(1)(h)

    model = Stack()
    params = model.init(jax.random.PRNGKey(2), X)
    tx = optax.adam(2e-3)  # the loss stays well above 0, where relative differences are fair

    @jax.jit
    def step(state, x, y):
        params, opt_state = state

        def loss_fn(p):
            return jnp.mean((model.apply(p, x) - y) ** 2)
        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, opt_state = tx.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), loss

    return _train(step, (params, tx.init(params)), [(X, Y)] * STEPS)


def nnx_mlp():
    from flax import nnx

    class MLP(nnx.Module):
        def __init__(self, rngs):
            self.l1 = nnx.Linear(4, 8, rngs=rngs)
            self.l2 = nnx.Linear(8, 1, rngs=rngs)

        def __call__(self, x):
            return self.l2(nnx.relu(self.l1(x)))

    model = MLP(nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.adam(1e-2), wrt=nnx.Param)

    @nnx.jit
    def step(model, optimizer, x, y):
        def loss_fn(m):
            return jnp.mean((m(x) - y) ** 2)
        loss, grads = nnx.value_and_grad(loss_fn)(model)
        optimizer.update(model, grads)
        return loss

    losses = [float(step(model, optimizer, X, Y)) for _ in range(STEPS)]
    assert int(optimizer.step.value) == STEPS  # nnx.Optimizer counted every update
    return losses


def _equinox_train(model, loss_fn, lr, batches):
    import equinox as eqx

    tx = optax.adam(lr)

    @eqx.filter_jit
    def step(state, *batch):
        model, opt_state = state
        loss, grads = eqx.filter_value_and_grad(loss_fn)(model, *batch)
        updates, opt_state = tx.update(grads, opt_state, eqx.filter(model, eqx.is_array))
        return (eqx.apply_updates(model, updates), opt_state), loss

    return _train(step, (model, tx.init(eqx.filter(model, eqx.is_array))), batches)


def equinox_mlp():
    import equinox as eqx

    model = eqx.nn.MLP(4, 1, width_size=8, depth=1, key=jax.random.PRNGKey(0))
    tx = optax.adam(1e-2)
    opt_state = tx.init(eqx.filter(model, eqx.is_array))

    def loss_fn(m, x, y):
        return jnp.mean((eqx.filter_vmap(m)(x) - y) ** 2)

    @eqx.filter_jit
    def step(model, opt_state, x, y):
        loss = loss_fn(model, x, y)
        grads = eqx.filter_grad(loss_fn)(model, x, y)
        updates, opt_state = tx.update(grads, opt_state, eqx.filter(model, eqx.is_array))
        return eqx.apply_updates(model, updates), opt_state, loss

    losses = []
    for _ in range(STEPS):
        model, opt_state, loss = step(model, opt_state, X, Y)
        losses.append(float(loss))
    return losses


def equinox_attention():
    import equinox as eqx

    k_model, k_data = jax.random.split(jax.random.PRNGKey(3))
    seqs = np.asarray(jax.random.normal(k_data, (4, 6, 8)), np.float32)
    targets = np.cumsum(seqs, axis=1) / np.arange(1, 7, dtype=np.float32)[:, None]  # prefix means

    class Model(eqx.Module):
        attn: eqx.nn.MultiheadAttention

        def __call__(self, x):
            mask = jnp.tril(jnp.ones((x.shape[0], x.shape[0]), bool))
            return self.attn(x, x, x, mask=mask)

    model = Model(eqx.nn.MultiheadAttention(num_heads=2, query_size=8, key=k_model))

    def loss_fn(m, x, y):
        return jnp.mean((eqx.filter_vmap(m)(x) - y) ** 2)

    return _equinox_train(model, loss_fn, 1e-2, [(seqs, targets)] * STEPS)


def equinox_while_loop():
    import equinox as eqx
    import equinox.internal as eqxi

    class Flow(eqx.Module):
        """Integrates dh/dt = tanh(W h + b) with explicit Euler steps until t reaches 1."""
        linear: eqx.nn.Linear

        def __call__(self, h0):
            def body(carry):
                t, h = carry
                return t + 0.125, h + 0.125 * jnp.tanh(self.linear(h))

            _, h = eqxi.while_loop(lambda c: c[0] < 1.0, body, (jnp.float32(0.0), h0),
                                   max_steps=8, kind="checkpointed", checkpoints=3)
            return h

    model = Flow(eqx.nn.Linear(4, 4, key=jax.random.PRNGKey(4)))
    targets = np.tanh(X[:, ::-1]).copy()

    def loss_fn(m, x, y):
        return jnp.mean((eqx.filter_vmap(m)(x) - y) ** 2)

    return _equinox_train(model, loss_fn, 1e-2, [(X, targets)] * STEPS)


PROGRAMS = {"linen_mlp": linen_mlp, "linen_cnn": linen_cnn, "linen_scan_remat": linen_scan_remat,
            "nnx_mlp": nnx_mlp, "equinox_mlp": equinox_mlp,
            "equinox_attention": equinox_attention, "equinox_while_loop": equinox_while_loop}


def real_jax_modules():
    """Loaded modules whose file lies in the real jax package (none may under the opt-in)."""
    spec = importlib.machinery.PathFinder.find_spec("jax")
    if spec is None or spec.origin is None:
        return []
    real_dir = pathlib.Path(spec.origin).parent
    return sorted(name for name, m in list(sys.modules.items())
                  if (f := getattr(m, "__file__", None)) and pathlib.Path(f).is_relative_to(
                      real_dir))


if __name__ == "__main__":
    names = sys.argv[1:] or list(PROGRAMS)
    losses = {name: PROGRAMS[name]() for name in names}
    print(json.dumps({"losses": losses, "real_jax": real_jax_modules()}))
