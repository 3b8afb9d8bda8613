"""Survey of issue 21's jaxpr structure (helper r23_c): small programs whose ``make_jaxpr`` text
and equation param names are printed, to diff the same script under JAX 0.10.2 and minijax:

    cd /tmp && /work/venv_jax/bin/python survey_jaxpr_r23_c.py > jax.txt
    cd /tmp && PYTHONPATH=/work/main python3 -m minijax.run_as_jax survey_jaxpr_r23_c.py > mj.txt

(optionally with program names as arguments). Sections start with ``===== name``."""
import sys
import numpy as np
import jax, jax.numpy as jnp
from jax import lax

x3 = np.linspace(-1.0, 1.0, 3, dtype=np.float32)
m = np.arange(6, dtype=np.float32).reshape(2, 3)
sq = np.arange(9, dtype=np.float32).reshape(3, 3)
v8 = np.arange(8, dtype=np.float32)

P = {
 "idx_np_int": (lambda x: x[np.int32(2)], (x3,)),
 "idx_neg": (lambda x: x[-1], (x3,)),
 "idx_py": (lambda x: x[1], (x3,)),
 "idx_np_neg": (lambda x: x[np.int32(-1)], (x3,)),
 "idx_slice_np": (lambda x: x[np.int32(1):np.int32(3)], (v8,)),
 "idx_slice_neg": (lambda x: x[-3:-1], (v8,)),
 "idx_slice_step": (lambda x: x[1:7:2], (v8,)),
 "idx_2d": (lambda x: x[1, -1], (m,)),
 "idx_2d_np": (lambda x: x[np.int64(1), np.int32(2)], (m,)),
 "idx_arr_np": (lambda x: x[np.array([0, 2])], (x3,)),
 "idx_arr_neg": (lambda x: x[np.array([0, -1])], (x3,)),
 "idx_list": (lambda x: x[[0, 2]], (x3,)),
 "at_set_np": (lambda x: x.at[1].set(5.0), (x3,)),
 "at_add_np": (lambda x: x.at[np.int32(1)].add(5.0), (x3,)),
 "at_add_arr": (lambda x: x.at[np.array([0, 2])].add(5.0), (x3,)),
 "softmax": (jax.nn.softmax, (m,)),
 "log_softmax": (jax.nn.log_softmax, (m,)),
 "softmax_ax0": (lambda x: jax.nn.softmax(x, axis=0), (m,)),
 "grad_softmax": (jax.grad(lambda x: jax.nn.softmax(x).sum()), (m,)),
 "grad_log_softmax": (jax.grad(lambda x: jax.nn.log_softmax(x)[0, 0]), (m,)),
 "jit_softmax": (jax.jit(jax.nn.softmax), (m,)),
 "logsumexp": (jax.nn.logsumexp, (m,)),
 "logsumexp_ax": (lambda x: jax.nn.logsumexp(x, axis=1), (m,)),
 "sp_logsumexp": (lambda x: jax.scipy.special.logsumexp(x, axis=0, keepdims=True), (m,)),
 "grad_logsumexp": (jax.grad(jax.nn.logsumexp), (m,)),
 "logsumexp_b": (lambda x: jax.nn.logsumexp(x, b=2.0), (x3,)),
 "tril": (jnp.tril, (sq,)),
 "triu": (jnp.triu, (sq,)),
 "tril_k": (lambda x: jnp.tril(x, -1), (sq,)),
 "triu_k": (lambda x: jnp.triu(x, 1), (m,)),
 "grad_tril": (jax.grad(lambda x: jnp.tril(x).sum()), (sq,)),
 "jit_tril": (jax.jit(jnp.tril), (sq,)),
 "diag_v": (jnp.diag, (x3,)),
 "diag_m": (jnp.diag, (sq,)),
 "diag_k": (lambda x: jnp.diag(x, 1), (sq,)),
 "diagonal": (jnp.diagonal, (sq,)),
 "diagonal_off": (lambda x: jnp.diagonal(x, -1), (m,)),
 "trace": (jnp.trace, (sq,)),
 "diagflat": (jnp.diagflat, (x3,)),
 "grad_diag": (jax.grad(lambda x: jnp.diag(x).sum()), (sq,)),
 "linspace": (lambda x: x + jnp.linspace(0.0, 1.0, 3), (x3,)),
 "linspace_traced": (lambda a: jnp.linspace(a, 2.0, 5), (np.float32(0.0),)),
 "linspace_noend": (lambda a: jnp.linspace(a, 2.0, 4, endpoint=False), (np.float32(0.0),)),
 "linspace_int": (lambda x: jnp.linspace(0, 10, 5, dtype=jnp.int32) + x, (np.int32(1),)),
 "fft": (jnp.fft.fft, (v8,)),
 "ifft": (jnp.fft.ifft, (v8.astype(np.complex64),)),
 "rfft": (jnp.fft.rfft, (v8,)),
 "irfft": (jnp.fft.irfft, (v8[:5].astype(np.complex64),)),
 "fft2": (jnp.fft.fft2, (sq,)),
 "fftn": (jnp.fft.fftn, (sq,)),
 "rfft_n": (lambda x: jnp.fft.rfft(x, n=6), (v8,)),
 "fft_norm": (lambda x: jnp.fft.fft(x, norm="ortho"), (v8,)),
 "fftfreq": (lambda x: x + jnp.fft.fftfreq(8), (v8,)),
 "fftshift": (jnp.fft.fftshift, (v8,)),
 "jit_fft": (jax.jit(jnp.fft.fft), (v8,)),
 "grad_rfft": (jax.grad(lambda x: jnp.abs(jnp.fft.rfft(x)).sum()), (v8,)),
 "mul": (lambda x: x * 2, (x3,)),
 "cond": (lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x), (1.0,)),
 "dot_general": (lambda x: lax.dot_general(x, x, (((1,), (1,)), ((), ()))), (m,)),
 "convert": (lambda x: x.astype(jnp.int32), (x3,)),
 "one_hot": (lambda i: jax.nn.one_hot(i, 3), (np.array([0, 2], np.int32),)),
 "gelu": (jax.nn.gelu, (x3,)),
 "silu": (jax.nn.silu, (x3,)),
 "sigmoid": (jax.nn.sigmoid, (x3,)),
 "softplus": (jax.nn.softplus, (x3,)),
 "standardize": (jax.nn.standardize, (m,)),
}

def keys(closed):
    out = []
    def walk(j, d):
        for e in j.eqns:
            out.append("  " * d + e.primitive.name + " " + repr(sorted(e.params)))
    walk(closed.jaxpr, 0)
    return "\n".join(out)

sel = sys.argv[1:] or list(P)
for name in sel:
    fn, args = P[name]
    print("=====", name)
    try:
        c = jax.make_jaxpr(fn)(*args)
        print(c)
        print("--params")
        print(keys(c))
    except Exception as e:
        print("ERR", type(e).__name__, e)
