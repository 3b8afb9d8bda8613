"""Three small training programs written against JAX's API (flax.linen + optax, flax.nnx with
nnx.Optimizer, equinox with filter_jit/filter_grad). ``python flax_equinox_programs.py NAME``
prints the losses of a few steps as JSON; tests/ecosystem/test_flax_equinox.py runs them
under minijax's opt-in, tests/data/record_flax_equinox.py under real JAX."""

import json
import sys

import jax
import jax.numpy as jnp
import numpy as np
import optax

STEPS = 5
_rng = np.random.default_rng(0)
X = _rng.normal(size=(16, 4)).astype(np.float32)
Y = (np.sin(X.sum(axis=1, keepdims=True)) + 0.1 * X[:, :1]).astype(np.float32)


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
    opt_state = tx.init(params)

    @jax.jit
    def step(params, opt_state, x, y):
        def loss_fn(p):
            return jnp.mean((model.apply(p, x) - y) ** 2)
        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    losses = []
    for _ in range(STEPS):
        params, opt_state, loss = step(params, opt_state, X, Y)
        losses.append(float(loss))
    return losses


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

    return [float(step(model, optimizer, X, Y)) for _ in range(STEPS)]


def equinox_mlp():
    import equinox as eqx

    model = eqx.nn.MLP(4, 1, width_size=8, depth=1, key=jax.random.PRNGKey(0))
    tx = optax.adam(1e-2)
    opt_state = tx.init(eqx.filter(model, eqx.is_array))

    def loss_fn(m, x, y):
        return jnp.mean((jax.vmap(m)(x) - y) ** 2)

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


PROGRAMS = {"linen_mlp": linen_mlp, "nnx_mlp": nnx_mlp, "equinox_mlp": equinox_mlp}

if __name__ == "__main__":
    print(json.dumps(PROGRAMS[sys.argv[1]]()))
