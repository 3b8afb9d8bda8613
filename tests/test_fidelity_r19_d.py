"""Run 23000's s23052-8 (tools/difftest/triage_23000_d.md, d1): vmap of checkpoint keeps the
operands' batch axes (JAX's remat_vmap), moving only batched outputs to axis 0 inside the body;
minijax transposed the operands first, and XLA compiled the sharded backward dot of complex
infinities differently (inf+nanj where JAX gives nan+nanj).

Expected values are hard-coded, recorded from JAX 0.10.2 (/work/venv_jax) by running these
same expressions with ``jax`` for ``minijax`` (8 virtual CPU devices for the sharded one).
"""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp

inf, nan = float("inf"), float("nan")


def test_vmap_of_checkpoint_keeps_the_operands_batch_axes():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    f = jax.vmap(jax.checkpoint(lambda a, b: (a @ a.T, b * 2.0, jnp.sin(b))), in_axes=(2, None))
    jaxpr = jax.make_jaxpr(f)(x, np.float32(3)).jaxpr
    # JAX 0.10.2: the remat equation comes first, on a f32[2,3,4] as given; outputs
    # f32[4,2,2] (batch at 0, from dot_general's batch dim), f32[], f32[]
    eqn = jaxpr.eqns[0]
    assert eqn.primitive.name == "remat2"
    assert [v.aval.shape for v in eqn.invars] == [(2, 3, 4), ()]
    assert [v.aval.shape for v in eqn.outvars] == [(4, 2, 2), (), ()]
    # a batched output whose batch lies elsewhere is moved to 0 inside the body, as JAX:
    # { c:f32[2,3,4]. d = mul c 2.0; e:f32[4,2,3] = transpose[(2, 0, 1)] d }, then (1, 0, 2)
    jaxpr = jax.make_jaxpr(jax.vmap(jax.checkpoint(lambda a: a * 2.0), in_axes=2,
                                    out_axes=1))(x).jaxpr
    body = jaxpr.eqns[0].params["jaxpr"]
    body = getattr(body, "jaxpr", body)
    assert [e.primitive.name for e in body.eqns] == ["mul", "transpose"]
    assert body.eqns[1].params["permutation"] == (2, 0, 1)
    assert [e.primitive.name for e in jaxpr.eqns] == ["remat2", "transpose"]


@pytest.mark.devices(4)
def test_s23052_8_sharded_vjp_of_vmapped_checkpoint_with_complex_infinities():
    x = np.array([[[0, nan], [inf, 0.4 + 0.1j]], [[-1.2 + 1j, 0.5], [inf, 0.8 - 1.2j]]],
                 np.complex64)
    ct = np.linspace(0.5, 1.5, 8).reshape(2, 2, 2).astype(np.complex64)
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("d",))

    def g(x):
        f = jax.vmap(jax.checkpoint(lambda a: a @ a.T + 2 * jnp.eye(2, dtype=a.dtype)),
                     in_axes=2)
        return jax.vjp(f, x)[1](ct)[0]

    r = np.asarray(jax.jit(g)(jax.device_put(x, jax.NamedSharding(mesh, jax.P("d")))))
    # JAX 0.10.2: [[[-1.7142857+1.4285715j, nan+nanj], [nan+nanj, 2.9142857-2.8714287j]],
    #              [[-2.2285714+1.8571428j, nan+nanj], [nan+nanj, 3.4285717-3.3428574j]]]
    off = r[:, [0, 1], [1, 0]]
    assert np.isnan(off.real).all() and np.isnan(off.imag).all()  # minijax had inf+nanj
    np.testing.assert_allclose(r[:, [0, 1], [0, 1]],
                               [[-1.7142857 + 1.4285715j, 2.9142857 - 2.8714287j],
                                [-2.2285714 + 1.8571428j, 3.4285717 - 3.3428574j]], rtol=1e-6)
