"""Records JAX 0.10.2's einsum paths and jaxprs, and jnp.fft's jaxprs and values, for
tests/test_fidelity_r25_e.py:

    /work/venv_jax/bin/python tests/data/record_fidelity_r25_e.py \
        > tests/data/fidelity_r25_e_jax.json

The einsum table is drawn here with a fixed seed (2 to 9 operands; shared, batch, repeated,
size-1 and ellipsis labels) and stored with the results, so the test replays the same cases.
"""
import json

import jax
import jax.numpy as jnp
import numpy as np

LETTERS = "abcdefgh"


def draw_einsum_cases(n_cases=34, seed=25):
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(n_cases):
        n_ops = int(rng.integers(2, 6)) if k < 28 else int(rng.integers(6, 10))
        sizes = {c: int(rng.integers(1, 6)) for c in LETTERS}
        terms = []
        for _ in range(n_ops):
            term = "".join(rng.choice(list(LETTERS), size=int(rng.integers(1, 4)), replace=False))
            terms.append(term)
        if k % 7 == 3:  # a repeated label in one operand
            terms[0] = terms[0] + terms[0][0]
        shapes = [[sizes[c] for c in t] for t in terms]
        if k % 5 == 4:  # a broadcast size-1 axis
            shapes[-1][0] = 1
        if k % 9 == 2:  # ellipses
            terms = ["..." + t for t in terms]
            shapes = [[2, 3] + s for s in shapes]
        counts = {c: "".join(terms).count(c) for c in LETTERS}
        out = "".join(c for c in LETTERS if counts[c] == 1 and rng.random() < 0.7)
        spec = ",".join(terms) + ("->" + ("..." if k % 9 == 2 else "") + out
                                  if k % 3 else "")
        cases.append([spec, shapes])
    return cases


# jnp.fft: sources evaluated with x (f32[2,3,4,5]), c (c64 of the same shape), xi (i32[3,4]):
# jaxprs compared as printed, values to the last bit
FFT_SETUP = """
x = (np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5) * 0.37) % 1.3
c = (x + 1j * x[::-1]).astype(np.complex64)
xi = np.arange(12, dtype=np.int32).reshape(3, 4)
def sq(f):
    return lambda x: jnp.sum(jnp.real(f(x)) ** 2)
"""
FFT_CALLS = [
    "jnp.fft.fft(x, n=3)", "jnp.fft.fft(x, n=8, axis=1)", "jnp.fft.rfft(x, n=9)",
    "jnp.fft.rfftn(x)", "jnp.fft.rfft2(x, axes=(0, 3))", "jnp.fft.irfftn(c)",
    "jnp.fft.irfftn(c, s=(3, 4, 5, 6))", "jnp.fft.irfftn(c, axes=(2, 0), s=(3, 7))",
    "jnp.fft.fftn(c, s=(2, 3, 5, 4))", "jnp.fft.ifftn(c)", "jnp.fft.irfft2(c, norm='ortho')",
    "jnp.fft.ifft(c, n=7, axis=1, norm='ortho')", "jnp.fft.irfft(c, n=9, norm='forward')",
    "jnp.fft.hfft(c)", "jnp.fft.hfft(c, norm='ortho')", "jnp.fft.hfft(c, n=6, norm='forward')",
    "jnp.fft.ihfft(x)", "jnp.fft.ihfft(x, norm='ortho')", "jnp.fft.ihfft(x, n=7, axis=0)",
    "jnp.fft.fft(xi)", "jnp.fft.rfft(xi, n=3)",
    "jnp.fft.fftfreq(7)", "jnp.fft.fftfreq(8, 0.1)", "jnp.fft.fftfreq(5, dtype=jnp.float16)",
    "jnp.fft.fftfreq(4, dtype=jnp.int32)", "jnp.fft.rfftfreq(7, 2.5)",
    "jnp.fft.rfftfreq(10, dtype=jnp.int32)",
]
FFT_TRANSFORMED = [  # (function, argument) pairs
    "jax.grad(sq(jnp.fft.rfft)), x[0, 0]", "jax.grad(sq(jnp.fft.irfft)), x[0, 0]",
    "jax.grad(sq(jnp.fft.hfft)), x[0, 0]", "jax.grad(sq(jnp.fft.ihfft)), x[0, 0]",
    "jax.grad(sq(jnp.fft.ifft2)), x[0, 0]", "jax.grad(sq(jnp.fft.rfft2)), x[0, 0]",
    "jax.vmap(jnp.fft.hfft), x[0]", "jax.vmap(lambda v: jnp.fft.irfftn(v, s=(2, 5))), x[0]",
    "jax.vmap(jnp.fft.fft2), c[0]",
]


def _bits(v):
    v = np.asarray(v)
    if np.iscomplexobj(v):
        return [str(v.dtype), v.real.tolist(), v.imag.tolist()]
    return [str(v.dtype), v.tolist()]


def record_fft():
    env = {"jax": jax, "jnp": jnp, "np": np}
    exec(FFT_SETUP, env)
    calls = [[src, str(jax.make_jaxpr(eval("lambda: " + src, env))()), _bits(eval(src, env))]
             for src in FFT_CALLS]
    transformed = []
    for src in FFT_TRANSFORMED:
        fn, arg = eval(src, env)
        transformed.append([src, str(jax.make_jaxpr(fn)(arg)), _bits(fn(arg))])
    return calls, transformed


def record():
    cases = draw_einsum_cases()
    rows = []
    for spec, shapes in cases:
        ops = [np.arange(1, 1 + np.prod(s), dtype=np.float32).reshape(s) / 7 for s in shapes]
        row = {"spec": spec, "shapes": shapes}
        for opt in ("default", "greedy", "optimal", "branch-2", False):
            kw = {} if opt == "default" else {"optimize": opt}
            path, info = jnp.einsum_path(spec, *ops, **kw)
            row[f"path_{opt}"] = [list(p) for p in path]
            if opt == "default":
                row["info"] = str(info)
            row[f"jaxpr_{opt}"] = str(jax.make_jaxpr(
                lambda *xs, kw=kw: jnp.einsum(spec, *xs, **kw))(*ops))
        row["value"] = np.asarray(jnp.einsum(spec, *ops)).tolist()
        rows.append(row)
    return rows


fft_calls, fft_transformed = record_fft()
print(json.dumps({"jax_version": jax.__version__, "einsum": record(), "fft_setup": FFT_SETUP,
                  "fft_calls": fft_calls,
                  "fft_transformed": fft_transformed}, indent=1))
