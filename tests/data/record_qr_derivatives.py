"""Records JAX's QR derivatives for tests/lax/test_qr_derivatives.py.

    /work/venv_jax/bin/python tests/data/record_qr_derivatives.py > tests/data/qr_derivatives_jax.json

Each case: an input x, a tangent dx and cotangents (gq, gr) (float64 or complex128, stored
as [real, imag]), JAX's jvp (dq, dr) of lax.linalg.qr and its vjp of (gq, gr).
"""

import json

import jax
import numpy as np

jax.config.update("jax_enable_x64", True)

# (shape, full_matrices): wide, tall full (the arXiv 2409.13374 rule), batched, square.
CASES = [((2, 4), False), ((2, 4), True), ((4, 2), True), ((2, 3, 5), True),
         ((2, 5, 3), True), ((3, 3), True)]


def draw(rng, shape, cplx):
    x = rng.standard_normal(shape)
    return x + 1j * rng.standard_normal(shape) if cplx else x


def pack(a):
    a = np.asarray(a)
    return [a.real.tolist(), a.imag.tolist()]


def record():
    out = []
    for i, (shape, full) in enumerate(CASES):
        for cplx in (False, True):
            rng = np.random.default_rng(i)
            x, dx = draw(rng, shape, cplx), draw(rng, shape, cplx)
            qr = lambda a: jax.lax.linalg.qr(a, full_matrices=full)  # noqa: E731
            (q, r), (dq, dr) = jax.jvp(qr, (x,), (dx,))
            gq, gr = draw(rng, q.shape, cplx), draw(rng, r.shape, cplx)
            (gx,) = jax.vjp(qr, x)[1]((gq, gr))
            out.append({"shape": list(shape), "full_matrices": full, "complex": cplx,
                        "x": pack(x), "dx": pack(dx), "gq": pack(gq), "gr": pack(gr),
                        "dq": pack(dq), "dr": pack(dr), "gx": pack(gx)})
    return {"jax_version": jax.__version__, "cases": out}


if __name__ == "__main__":
    print(json.dumps(record()))
