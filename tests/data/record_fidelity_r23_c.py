"""Records ``str(jax.make_jaxpr(fn)(*args))`` (and the param names of some equations) from
real JAX for the programs below, which tests/test_fidelity_r23_c.py runs through minijax (issue
21's jaxpr structure: jax.nn's softmax/logsumexp sequences, tril/triu/tri, linspace, static
slices with steps, NumPy ints in transposes' params, jnp.fft's conversion and norm,
mul's out_dtype).

    /work/venv_jax/bin/python tests/data/record_fidelity_r23_c.py   # writes fidelity_r23_c_jax.json

``programs`` takes the framework's modules, so the very same programs run under both."""

import json
import os

import numpy as np


def programs(jax, jnp, lax):
    x3 = np.linspace(-1.0, 1.0, 3, dtype=np.float32)
    m = np.arange(6, dtype=np.float32).reshape(2, 3)
    sq = np.arange(9, dtype=np.float32).reshape(3, 3)
    v8 = np.arange(8, dtype=np.float32)
    f16 = np.ones(3, np.float16)
    mask = np.array([[True, False, True], [True, True, False]])
    return {
        "softmax": (jax.nn.softmax, (m,)),
        "softmax_axis0": (lambda x: jax.nn.softmax(x, axis=0), (m,)),
        "softmax_where": (lambda x: jax.nn.softmax(x, where=mask), (m,)),
        "grad_softmax": (jax.grad(lambda x: jax.nn.softmax(x).sum()), (m,)),
        "log_softmax": (jax.nn.log_softmax, (m,)),
        "grad_log_softmax": (jax.grad(lambda x: jax.nn.log_softmax(x)[0, 0]), (m,)),
        "logsumexp": (jax.nn.logsumexp, (m,)),
        "logsumexp_keepdims": (lambda x: jax.scipy.special.logsumexp(x, axis=0, keepdims=True),
                               (m,)),
        "logsumexp_b": (lambda x: jax.nn.logsumexp(x, b=2.0), (x3,)),
        "grad_logsumexp": (jax.grad(jax.nn.logsumexp), (m,)),
        "max_initial": (lambda x: jnp.max(x, axis=1, initial=0.5), (m,)),
        "sum_initial": (lambda x: jnp.sum(x, initial=2.0), (m,)),
        "tril": (jnp.tril, (sq,)),
        "triu_k": (lambda x: jnp.triu(x, 1), (m,)),
        "tril_batched": (lambda x: jnp.tril(x, -1), (np.ones((2, 3, 3), np.float32),)),
        "grad_triu": (jax.grad(lambda x: jnp.triu(x).sum()), (sq,)),
        "tri": (lambda: jnp.tri(3, 4, 1, dtype=jnp.float32), ()),
        "linspace": (lambda x: x + jnp.linspace(0.0, 1.0, 3), (x3,)),
        "linspace_traced": (lambda a: jnp.linspace(a, 2.0, 5), (np.float32(0.0),)),
        "linspace_retstep": (lambda a, b: jnp.linspace(a, b, 3, axis=1, retstep=True),
                             (np.zeros((2,), np.float32), np.ones((3, 1), np.float32))),
        "linspace_int_noend": (lambda a: jnp.linspace(a, 7, 4, endpoint=False, dtype=jnp.int32),
                               (np.float32(1.0),)),
        "linspace_one": (lambda a: jnp.linspace(a, 2, 1, endpoint=False, retstep=True),
                         (np.float32(0.0),)),
        "linspace_none": (lambda a: jnp.linspace(a, 2, 0, retstep=True), (np.float32(0.0),)),
        "slice_step": (lambda x: x[1:7:2], (v8,)),
        "slice_neg_step": (lambda x: x[6:1:-2], (v8,)),
        "slice_empty": (lambda x: x[5:2], (v8,)),
        "grad_slice_step": (jax.grad(lambda x: x[1:7:2].sum()), (v8,)),
        "grad_index": (jax.grad(lambda x: x[0, 1]), (m,)),
        "grad_sum_axis": (jax.grad(lambda x: jnp.sum(x, 0).prod()), (m,)),
        "lax_np_ints": (lambda x: lax.pad(lax.broadcast_in_dim(x, (2, 3), (np.int64(1),)), 0.0,
                                          [(np.int32(1), np.int64(0), 0), (0, 0, 0)]), (x3,)),
        "fft": (jnp.fft.fft, (v8,)),
        "fft_ortho": (lambda x: jnp.fft.fft(x, norm="ortho"), (v8,)),
        "rfft_int": (jnp.fft.rfft, (np.arange(8, dtype=np.int32),)),
        "irfft_forward": (lambda x: jnp.fft.irfft(x, norm="forward"),
                          (v8[:5].astype(np.complex64),)),
        "ifft2_backward": (lambda x: jnp.fft.ifft2(x, norm="backward"), (sq,)),
        "fftn_no_axes": (lambda x: jnp.fft.fftn(x, axes=()), (sq,)),
        "softplus": (jax.nn.softplus, (x3,)),
        "logaddexp2": (jnp.logaddexp2, (x3, x3)),
        "mul": (lambda x: x * 2, (x3,)),
        "mul_out_dtype": (lambda x, y: lax.mul(x, y, out_dtype=np.dtype(np.float32)), (f16, x3)),
        "grad_mul_out_dtype": (jax.grad(lambda x, y: lax.mul(x, y, out_dtype=np.dtype(
            np.float32)).sum(), (0, 1)), (f16, x3)),
    }


# Equations whose param names the tests compare (convert_element_type's ``sharding`` and
# dot_general's ``out_sharding`` are not minijax's yet)
PARAMS_OF = ("mul", "max", "reduce_max", "reduce_sum", "stop_gradient", "broadcast_in_dim",
             "pad", "slice", "iota", "reshape", "concatenate", "select_n")


def eqn_params(closed):
    """[primitive name, sorted param names] of each top-level equation of ``PARAMS_OF``."""
    return [[e.primitive.name, sorted(e.params)] for e in closed.jaxpr.eqns
            if e.primitive.name in PARAMS_OF]


def main():
    import jax
    import jax.numpy as jnp
    from jax import lax

    cases, params = {}, {}
    for name, (fn, args) in programs(jax, jnp, lax).items():
        closed = jax.make_jaxpr(fn)(*args)
        cases[name] = str(closed)
        params[name] = eqn_params(closed)
    out = os.path.join(os.path.dirname(__file__), "fidelity_r23_c_jax.json")
    with open(out, "w") as fh:
        json.dump({"jax_version": jax.__version__, "cases": cases, "params": params}, fh,
                  indent=1)


if __name__ == "__main__":
    main()
