"""QR derivatives for every shape and mode JAX 0.10.2 differentiates: wide (m < n, the
X = [X1 X2] split), tall with full_matrices=True (arXiv 2409.13374 eqs. 32-33), square and
batched; real and complex. Checked against finite differences and JAX 0.10.2's recorded
jvp/vjp values (tests/data/qr_derivatives_jax.json, tests/data/record_qr_derivatives.py)."""

import json
import pathlib

import numpy as np
import pytest

import minijax
from minijax import lax
from minijax.test_util import check_grads

pytestmark = pytest.mark.usefixtures("x64")

DATA = json.loads((pathlib.Path(__file__).parents[1] / "data" /
                   "qr_derivatives_jax.json").read_text())
CASES = DATA["cases"]


def unpack(pair, cplx):
    re, im = (np.asarray(p, np.float64) for p in pair)
    return re + 1j * im if cplx else re


def case_id(c):
    return f"{'x'.join(map(str, c['shape']))}-{'full' if c['full_matrices'] else 'reduced'}" \
           f"-{'complex' if c['complex'] else 'real'}"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_jvp_and_vjp_match_jax(case):
    cplx = case["complex"]
    x, dx, gq, gr = (unpack(case[k], cplx) for k in ("x", "dx", "gq", "gr"))
    qr = lambda a: lax.linalg.qr(a, full_matrices=case["full_matrices"])  # noqa: E731
    (q, r), (dq, dr) = minijax.jvp(qr, (x,), (dx,))
    np.testing.assert_allclose(dq, unpack(case["dq"], cplx), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(dr, unpack(case["dr"], cplx), rtol=1e-9, atol=1e-9)
    (gx,) = minijax.vjp(qr, x)[1]((gq, gr))
    np.testing.assert_allclose(gx, unpack(case["gx"], cplx), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("shape,full", [((3, 5), True), ((5, 3), True), ((2, 4, 2), True),
                                        ((2, 3, 4), False)])
@pytest.mark.parametrize("cplx", [False, True])
def test_against_finite_differences(shape, full, cplx):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if cplx else 0)
    check_grads(lambda a: lax.linalg.qr(a, full_matrices=full), (x,), 1,
                modes=("fwd", "rev"), jit=True)


def test_grad_of_a_scalar_loss_matches_jax():
    # grad of sum(real(q * gq) + real(r * gr)) is the vjp of (gq, gr) for a real input
    c = next(c for c in CASES if c["shape"] == [2, 4] and c["full_matrices"]
             and not c["complex"])
    x, gq, gr = (unpack(c[k], False) for k in ("x", "gq", "gr"))

    def loss(a):
        q, r = lax.linalg.qr(a, full_matrices=True)
        return (q * gq).sum() + (r * gr).sum()

    np.testing.assert_allclose(minijax.jit(minijax.grad(loss))(x), unpack(c["gx"], False),
                               rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("shape,full", [((2, 3, 5), True), ((2, 5, 3), True)])
def test_vmap_of_jvp_is_the_batched_jvp(shape, full):
    c = next(c for c in CASES if c["shape"] == list(shape) and c["full_matrices"] == full
             and c["complex"])
    x, dx = unpack(c["x"], True), unpack(c["dx"], True)
    jvp = lambda a, t: minijax.jvp(  # noqa: E731
        lambda b: lax.linalg.qr(b, full_matrices=full), (a,), (t,))[1]
    dq, dr = minijax.vmap(jvp)(x, dx)
    np.testing.assert_allclose(dq, unpack(c["dq"], True), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(dr, unpack(c["dr"], True), rtol=1e-9, atol=1e-9)


def test_svd_full_matrices_jvp_refusal_is_jax_s():
    # JAX 0.10.2's svd_jvp_rule refuses full_matrices=True for non-square input only.
    x = np.random.default_rng(2).standard_normal((3, 3))
    u_dot = minijax.jvp(lambda a: lax.linalg.svd(a, full_matrices=True)[0], (x,), (x,))[1]
    np.testing.assert_allclose(u_dot, 0, atol=1e-12)  # d/dt svd((1 + t) x) leaves U alone
    with pytest.raises(NotImplementedError, match="not implemented for full matrices"):
        minijax.jvp(lambda a: lax.linalg.svd(a, full_matrices=True), (x[:2],), (x[:2],))
