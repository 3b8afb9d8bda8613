"""Records JAX's ``.at[]`` scatters for tests/test_fidelity_r13_j.py (run under /work/venv_jax).

    XLA_FLAGS=--xla_force_host_platform_device_count=4 /work/venv_jax/bin/python \
        tests/data/record_fidelity_r13_j.py > tests/data/fidelity_r13_j_jax.json

For each update form: the scatter primitive's dimension numbers, sortedness, uniqueness and
indices shape (JAX's ``_index_to_gather``), and the updated value; and the output sharding
spec of triage_16000_w W4 (case s16026-268).
"""
import json

import numpy as np


def programs(jnp):
    """name -> fn of x f32[3, 4, 5]: the same programs for JAX and minijax."""
    return {
        "int": lambda x: x.at[1].set(2.0),
        "neg_int_pair": lambda x: x.at[-1, :, 2].add(2.0),
        "slice": lambda x: x.at[:, 1:3].set(jnp.arange(10.0).reshape(2, 5)),
        "step": lambda x: x.at[:, ::2].set(jnp.arange(2.0)[:, None]),
        "neg_step": lambda x: x.at[:, ::-2].mul(jnp.arange(2.0)[:, None] + 3),
        "none": lambda x: x.at[None, 1].set(2.0),
        "ellipsis": lambda x: x.at[..., 1].add(jnp.arange(4.0)),
        "array": lambda x: x.at[np.array([0, 2, 0])].add(2.0),
        "arrays_apart": lambda x: x.at[np.array([0, 2]), :, np.array([1, -1])].set(
            jnp.arange(8.0).reshape(2, 4)),
        "arrays_adjacent": lambda x: x.at[:, np.array([[0], [3]]), np.array([1, 2])].max(9.0),
        "mask": lambda x: x.at[np.array([True, False, True])].set(2.0),
        "bool_scalar": lambda x: x.at[True, 1].set(2.0),
        "full": lambda x: x.at[:].set(2.0),
        "out_of_bounds": lambda x: x.at[7, 1:].set(2.0),
        "clip": lambda x: x.at[7, np.array([1, 9])].set(2.0, mode="clip"),
    }


def scatter_record(jaxpr, out):
    eqn = next(e for e in jaxpr.jaxpr.eqns if e.primitive.name.startswith("scatter"))
    dn = eqn.params["dimension_numbers"]
    return {"prim": eqn.primitive.name.replace("-", "_"),
            "update_window_dims": list(dn.update_window_dims),
            "inserted_window_dims": list(dn.inserted_window_dims),
            "scatter_dims_to_operand_dims": list(dn.scatter_dims_to_operand_dims),
            "indices_shape": list(eqn.invars[1].aval.shape),
            "indices_are_sorted": bool(eqn.params["indices_are_sorted"]),
            "unique_indices": bool(eqn.params["unique_indices"]),
            "value": np.asarray(out).tolist()}


def w4_spec(jax, jnp, Mesh, NamedSharding, P):
    """s16026-268 reduced: the update's split on 'd' carries to the result."""
    mesh = Mesh(np.array(jax.devices()[:2]), ("d",))
    b = jax.device_put(np.arange(4.0, dtype=np.float32).reshape(2, 2),
                       NamedSharding(mesh, P(None, "d")))
    out = {}
    for kind, fn in [("set", lambda a, b: a.at[:, 0].set(b)),
                     ("mul", lambda a, b: a.at[:, 0].mul(b))]:
        r = jax.jit(fn)(jnp.ones((2, 1, 2)), b)
        out[kind] = {"spec": [s for s in r.sharding.spec], "value": np.asarray(r).tolist()}
    return out


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    x = jnp.arange(60.0, dtype=np.float32).reshape(3, 4, 5)
    rec = {name: scatter_record(jax.make_jaxpr(f)(x), f(x))
           for name, f in programs(jnp).items()}
    print(json.dumps({"jax_version": jax.__version__, "scatters": rec,
                      "w4": w4_spec(jax, jnp, Mesh, NamedSharding, P)}))
