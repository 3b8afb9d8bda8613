"""shard_map's varying-manual-axes types (JAX 0.10's default check_vma=True) on 4 virtual CPU
devices: types in the body and in jaxprs, pcast, the summed gradient w.r.t. a replicated input,
check_vma/check_rep, the out-spec error, and a data-parallel training step against numbers
recorded from real JAX 0.10.2 (tests/data/shard_map_vma_jax.py)."""

import numpy as np
import pytest

import minijax as mj
import minijax.numpy as jnp
import minijax.scipy.linalg as slinalg
import minijax.scipy.sparse.linalg as sparse_linalg
from minijax import lax, random
from minijax.experimental import checkify
from minijax.experimental.shard_map import shard_map as experimental_shard_map
from minijax.scipy import optimize, special
from minijax.sharding import Mesh
from minijax.sharding import PartitionSpec as P

pytestmark = pytest.mark.devices(4)


def mesh():
    return Mesh(np.array(mj.devices()[:4]), ("d",))


def test_types_in_the_body_and_the_jaxpr():
    seen = {}

    def body(a, w):
        seen["a"], seen["w"] = mj.typeof(a), mj.typeof(w)
        seen["prod"] = mj.typeof(a * w)
        seen["psum"] = mj.typeof(lax.psum(a, "d"))
        seen["index"] = mj.typeof(lax.axis_index("d"))
        seen["pcast"] = mj.typeof(lax.pcast(w, "d", to="varying"))
        return a * w

    f = mj.shard_map(body, mesh=mesh(), in_specs=(P("d"), P()), out_specs=P("d"))
    text = str(mj.make_jaxpr(f)(jnp.ones((8, 2)), jnp.ones(2)))
    assert seen["a"].manual_axis_type.varying == frozenset({"d"})
    # JAX 0.10.2's ManualAxisType is interned and not a tuple
    assert seen["w"].manual_axis_type is mj.core.ManualAxisType(varying=frozenset())
    assert seen["w"].manual_axis_type != (frozenset(), frozenset(), frozenset())
    assert str(seen["a"]) == "float32[2,2]{V:d}" and str(seen["w"]) == "float32[2]"
    assert seen["prod"].vma == {"d"} and seen["psum"].vma == frozenset()
    assert seen["index"].vma == {"d"} and seen["pcast"].vma == {"d"}
    # the implicit broadcast of the replicated w is an explicit pvary, as JAX prints it
    # (the body's names go on from the caller's, a b c, as JAX prints them)
    assert "d:f32[2,2]{V:d}" in text and "pvary[axes=('d',)]" in text, text


def test_grad_wrt_replicated_input_is_summed():
    # FINDINGS #24: JAX 0.10.2 gives [4. 8.] (the transpose of the implicit pvary is a psum)
    m = mesh()
    f = mj.shard_map(lambda a, w: lax.psum(mj.grad(lambda w: jnp.sum(a * w))(w), "d"),
                     mesh=m, in_specs=(P("d"), P()), out_specs=P())
    a = jnp.arange(8.0).reshape(4, 2)
    np.testing.assert_allclose(f(a, jnp.ones(2)), 4 * np.asarray(a).sum(0))
    # without the psum the gradient is already replicated, so out_specs=P() type-checks
    g = mj.shard_map(lambda a, w: mj.grad(lambda w: jnp.sum(a * w))(w),
                     mesh=m, in_specs=(P("d"), P()), out_specs=P())
    np.testing.assert_allclose(g(a, jnp.ones(2)), np.asarray(a).sum(0))


def test_grad_of_psum_of_replicated_value():
    # d/dw psum(w) = N: pvary then psum_invariant, as JAX
    f = mj.shard_map(lambda w: mj.grad(lambda w: lax.psum(w, "d").sum())(w),
                     mesh=mesh(), in_specs=P(), out_specs=P())
    np.testing.assert_allclose(f(jnp.ones(3)), 4 * np.ones(3))


def test_out_spec_error_and_check_vma_off():
    m = mesh()
    with pytest.raises(ValueError, match=r"(?s)varies over mesh axis 'd'.*test_shard_map_vma.py"):
        mj.shard_map(lambda a: a, mesh=m, in_specs=P("d"), out_specs=P())(jnp.ones(4))
    for smap in (lambda f: mj.shard_map(f, mesh=m, in_specs=P("d"), out_specs=P(),
                                        check_vma=False),
                 lambda f: experimental_shard_map(f, m, P("d"), P(), check_rep=False)):
        assert smap(lambda a: a)(jnp.arange(4.0)).shape == (1,)


def test_pcast_errors():
    def body(a):
        with pytest.raises(ValueError, match="Unsupported pcast from=varying"):
            lax.pcast(a, "d", to="varying")
        with pytest.raises(ValueError, match="Allowed `to` values"):
            lax.pcast(a, "d", to="invarying")
        return a

    mj.shard_map(body, mesh=mesh(), in_specs=P("d"), out_specs=P("d"))(jnp.ones(4))


def test_data_parallel_training_step_matches_jax():
    x = np.arange(32, dtype=np.float32).reshape(8, 4) / 10.0 - 1.5
    y = np.sin(np.arange(8, dtype=np.float32)).reshape(8, 1)
    w = np.arange(4, dtype=np.float32).reshape(4, 1) / 4.0 - 0.3
    b = np.float32(0.1) * np.ones((1,), np.float32)

    def step(w, b, x, y):
        def loss(w, b):
            return jnp.mean((jnp.tanh(x @ w) + b - y) ** 2)
        val, (gw, gb) = mj.value_and_grad(loss, argnums=(0, 1))(w, b)
        return w - 0.1 * gw, b - 0.1 * gb, lax.pmean(val, "d")

    f = mj.jit(mj.shard_map(step, mesh=mesh(), in_specs=(P(), P(), P("d"), P("d")),
                            out_specs=(P(), P(), P())))
    losses = []
    for _ in range(3):
        w, b, l = f(w, b, x, y)
        losses.append(float(l))
    # recorded from JAX 0.10.2 by tests/data/shard_map_vma_jax.py
    np.testing.assert_allclose(losses, [0.6472649574279785, 0.5105456113815308,
                                        0.47660359740257263], rtol=1e-5)
    np.testing.assert_allclose(np.asarray(w).ravel(), [
        -0.4732831120491028, -0.24107497930526733, -0.008866867981851101, 0.22334125638008118],
        rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(b).ravel(), [0.015248680487275124], rtol=1e-4)


# A call inside the body (checkpoint, jit) keeps its operands' types, as JAX's: the replicated
# ``a`` is not pvary'd to the varying ``b``'s axes at the call, so its cotangent is summed over
# the devices once (by the pvary of the add inside), not twice. The expected values are JAX
# 0.10.2's (4 cos(a) on 2 devices: the inner pvary's psum, then the psum of a replicated value);
# minijax gave 8 cos(a). Oracle cases s5001-160, s5025-49, s5028-171.
def _grad_then_psum(f, a, b):
    def body(a, b):
        g = mj.grad(f, argnums=(0, 1))(a, b)
        return [lax.psum(x, "d") for x in g]

    m = Mesh(np.array(mj.devices()[:2]), ("d",))
    return mj.shard_map(body, mesh=m, in_specs=(P(), P("d")), out_specs=P())(a, b)


@pytest.mark.parametrize("wrap", [mj.checkpoint, mj.jit,
                                  lambda f: mj.checkpoint(f, policy=mj.checkpoint_policies.
                                                          nothing_saveable)])
def test_call_in_the_body_keeps_a_replicated_operand_replicated(wrap):
    a = np.array([0.5, -0.9, 1.07], np.float32)
    b = np.array([1.0, 2.0], np.float32)
    ga, gb = _grad_then_psum(wrap(lambda a, b: jnp.sum(jnp.sin(a)) * b[0]), a, b)
    np.testing.assert_allclose(ga, 4 * np.cos(a) * 1.5, rtol=1e-5)  # b[0]: 1 and 2 summed
    np.testing.assert_allclose(gb, [2 * np.sum(np.sin(a))], rtol=1e-5)


def test_grad_seed_has_the_outputs_type():
    # The seed cotangent of a varying output is varying (JAX: pvary 1.0), so the gradient
    # w.r.t. a varying input is varying, and a loss built from it varies: the second-order
    # gradient below is JAX 0.10.2's 8 (-2a / (1 + a^2)^2); minijax gave half (s5047-257).
    seen = {}

    def f(a, b):
        ga, gb = mj.grad(lambda a, b: jnp.sum(jnp.arctan(a)) + jnp.sum(b), argnums=(0, 1))(a, b)
        seen["gb"] = mj.typeof(gb)
        return jnp.sum(ga) + jnp.sum(gb)

    a = np.array([0.5, -0.9, 1.07], np.float32)
    ga, _ = _grad_then_psum(f, a, np.zeros(2, np.float32))
    assert seen["gb"].vma == {"d"}  # JAX: f32[1]{V:d}
    np.testing.assert_allclose(ga, 8 * (-2 * a / (1 + a * a) ** 2), rtol=1e-5)


def test_zero_cotangent_has_the_inputs_type():
    # The gradient w.r.t. a varying input the function does not use is varying zeros (JAX's
    # zeros_like_aval pvary's them), so a loss that sums it varies: JAX 0.10.2's second-order
    # gradient below is 4 (-2a / (1 + a^2)^2); minijax gave half (s5047-257).
    def f(a, b):
        ga, gb = mj.grad(lambda a, b: jnp.sum(jnp.arctan(a)), argnums=(0, 1))(a, b)
        return jnp.sum(ga) + jnp.sum(gb)

    a = np.array([0.5, -0.9, 1.07], np.float32)
    ga, _ = _grad_then_psum(f, a, np.zeros(2, np.float32))
    np.testing.assert_allclose(ga, 4 * (-2 * a / (1 + a * a) ** 2), rtol=1e-5)


# Loops keep each carry's own type (JAX: no pvary of the carries to a common set of axes), so
# the gradient w.r.t. a replicated carry is the per-device one, summed once by the psum below.
# Expected values are JAX 0.10.2's on 2 virtual CPU devices (minijax gave twice the first, from
# the pvary's transpose summing the replicated carry's cotangent; s5035-93).
_LOOP_A = np.array([0.5, 1.0, -2.0], np.float32)
_LOOP_B = np.arange(4.0, dtype=np.float32)


def _loop_smap(body, out_specs):
    m = Mesh(np.array(mj.devices()[:2]), ("d",))
    return mj.shard_map(body, mesh=m, in_specs=(P(), P("d")), out_specs=out_specs)(
        _LOOP_A, _LOOP_B)


@pytest.mark.parametrize("wrap", [lambda f: f, lambda f: mj.checkpoint(
    f, policy=mj.checkpoint_policies.nothing_saveable)])
def test_fori_loop_mixed_carry_grad_of_the_replicated_carry(wrap):
    def loss(a, b):
        return jnp.sum(lax.fori_loop(0, 2, lambda i, c: (jnp.sin(c[0]), c[1] * 2), (a, b))[0])

    def body(a, b):
        ga, gb = mj.grad(wrap(loss), argnums=(0, 1))(a, b)
        return lax.psum(ga, "d"), gb

    ga, gb = _loop_smap(body, (P(), P("d")))
    np.testing.assert_allclose(ga, [1.5572878, 0.72007895, -0.5112783], rtol=1e-5)
    np.testing.assert_allclose(ga, 2 * np.cos(np.sin(_LOOP_A)) * np.cos(_LOOP_A), rtol=1e-5)
    np.testing.assert_array_equal(gb, np.zeros(4, np.float32))


def test_scan_mixed_carry_grad():
    def loss(a, b):
        c, ys = lax.scan(lambda c, x: ((jnp.sin(c[0]) * 2.0, c[1] + x), jnp.sum(c[0]) * x),
                         (a, b), jnp.stack([b, b]))
        return jnp.sum(c[0]) + jnp.sum(ys) + jnp.sum(c[1])

    def body(a, b):
        ga, gb = mj.grad(loss, argnums=(0, 1))(a, b)
        return lax.psum(ga, "d"), gb

    ga, gb = _loop_smap(body, (P(), P("d")))
    np.testing.assert_allclose(ga, [41.12817, 23.999805, 3.6455708], rtol=1e-5)
    np.testing.assert_allclose(gb, np.full(4, 3.3231983, np.float32), rtol=1e-5)


def test_loop_results_have_the_carries_types():
    seen = {}

    def body(a, b):
        r = lax.fori_loop(0, 2, lambda i, c: (jnp.sin(c[0]), c[1] * 2), (a, b))
        s = lax.scan(lambda c, x: ((c[0] + 1.0, c[1] + x), c[0] * x[0]), (a, b),
                     jnp.stack([b, b]))
        w = lax.while_loop(lambda c: c[2] < 3, lambda c: (c[0] * 2, c[1] + 1, c[2] + 1),
                           (a, b, 0))
        seen["types"] = [str(mj.typeof(t)) for t in mj.tree_util.tree_leaves((r, s, w))]
        p, t = mj.jvp(lambda a, b: lax.fori_loop(0, 2, lambda i, c: (jnp.sin(c[0]),
                                                                   c[1] * c[1]), (a, b)),
                      (a, b), (a, b))
        seen["jvp"] = [str(mj.typeof(x)) for x in (*p, *t)]
        return t

    ta, tb = _loop_smap(body, (P(), P("d")))
    # JAX 0.10.2 (str of jax.typeof; the while's weak int counter aside)
    assert seen["types"][:7] == ["float32[3]", "float32[2]{V:d}", "float32[3]",
                                 "float32[2]{V:d}", "float32[2,3]{V:d}", "float32[3]",
                                 "float32[2]{V:d}"]
    assert seen["jvp"] == ["float32[3]", "float32[2]{V:d}", "float32[3]", "float32[2]{V:d}"]
    np.testing.assert_allclose(ta, [0.38932195, 0.36003947, 0.5112783], rtol=1e-5)
    np.testing.assert_allclose(tb, [0.0, 4.0, 64.0, 324.0], rtol=1e-5)


def test_grad_through_vmapped_fori_loop_with_a_replicated_carry():
    def body(a, b):
        def loss(a):
            return jnp.sum(mj.vmap(lambda r: lax.fori_loop(
                0, 2, lambda i, c: (jnp.sin(c[0]) * r, c[1]), (a, b))[0])(jnp.arange(2.0)))
        return lax.psum(mj.grad(loss)(a), "d")

    np.testing.assert_allclose(_loop_smap(body, P()), [1.5572878, 0.72007895, -0.5112783],
                               rtol=1e-5)


# minijax's own loops and conditionals (rejection samplers, special functions' series, iterative
# solvers, checkify's state) type their initial carries as varying as the values their bodies
# meet, as JAX's library loops pvary theirs, so they pass the carry and branch checks inside
# shard_map on a varying and on a replicated operand alike, with the values they have outside.
_A = np.array([0.5, 1.5, 2.5, 3.5], np.float32)
_M = np.array([[4, 1, 0, 0], [1, 3, 1, 0], [0, 1, 2, 0.5], [0, 0, 0.5, 1]], np.float32)


def _checked_loop(a, key):
    def step(i, c):
        checkify.check(jnp.all(c > -100.0), "small {}", i)
        return c / a

    return checkify.checkify(lambda a: lax.fori_loop(0, 2, step, a) + lax.cond(
        a[0] > 1, jnp.log, lambda x: x, a), errors=checkify.all_checks)(a)[1]


_INTERNAL_LOOPS = {
    "random.gamma": lambda a, key: random.gamma(key, a),
    "random.beta": lambda a, key: random.beta(key, a, a + 1.0),
    "random.binomial": lambda a, key: random.binomial(key, 100.0, a / 4.0),
    "random.multinomial": lambda a, key: random.multinomial(key, 10.0, a / 8.0),
    "jnp.gcd": lambda a, key: jnp.gcd(12, a.astype(np.int32) + 4),
    "jnp.searchsorted": lambda a, key: jnp.searchsorted(_A, a * 0.9, method="scan"),
    "scipy.special.expn": lambda a, key: special.expn(2, a),
    "scipy.special.expn(n)": lambda a, key: special.expn(a.astype(np.int32) + 1, 0.5),
    "scipy.special.hyp2f1": lambda a, key: special.hyp2f1(a, 1.0, 2.0, a / 8.0),
    "scipy.special.hyp2f1(x~1)": lambda a, key: special.hyp2f1(0.5, 1.0, 1.5, 0.95 + a / 100),
    "scipy.special.betainc": lambda a, key: special.betainc(2.0, 3.0, a / 4.0),
    "scipy.linalg.polar": lambda a, key: slinalg.polar(_M * a[:1])[0],
    "scipy.linalg.expm": lambda a, key: slinalg.expm(_M * a[:1] / 4),
    "scipy.linalg.qr(pivoting)": lambda a, key: slinalg.qr(_M * a, pivoting=True)[1],
    "scipy.linalg.solve_sylvester": lambda a, key: slinalg.solve_sylvester(_M, _M, _M * a),
    "sparse.linalg.gmres": lambda a, key: sparse_linalg.gmres(_M, a)[0],
    "sparse.linalg.bicgstab": lambda a, key: sparse_linalg.bicgstab(_M, a)[0],
    "optimize.minimize": lambda a, key: optimize.minimize(
        lambda z: jnp.sum((z - a) ** 2), jnp.zeros(4), method="BFGS").x,
    "checkify": _checked_loop,
}


# polar: JAX 0.10.2's qdwh starts its loops' convergence flag as a Python True, not varying,
# so a varying operand gives a varying flag and the scan refuses the carry (checked against
# JAX); minijax's polar is that qdwh (lax.linalg.qdwh)
_JAX_REFUSES_VARYING = {"scipy.special.expn", "scipy.special.expn(n)", "scipy.linalg.polar"}


@pytest.mark.parametrize("varying", [True, False], ids=["varying", "replicated"])
@pytest.mark.parametrize("name", list(_INTERNAL_LOOPS))
def test_internal_loops_type_their_carries(name, varying):
    f = _INTERNAL_LOOPS[name]
    key_data = random.key_data(random.key(0))

    def body(a, kd):
        # a varying operand comes with a varying key (JAX refuses a key less varying than
        # the arguments of gamma and beta)
        kd = lax.pcast(kd, "d", to="varying") if varying else kd
        return f(a, random.wrap_key_data(kd))

    spec = P("d") if varying else P()
    g = mj.shard_map(body, mesh=mesh(), in_specs=(spec, P()), out_specs=spec, check_vma=True)
    if varying and name in _JAX_REFUSES_VARYING:
        # JAX 0.10.2's expn is a jnp.piecewise whose constant branches are not varying: its
        # switch refuses the branches' types (checked against JAX), and so does minijax's
        with pytest.raises(TypeError, match="must have equal"):
            g(np.tile(_A, 4), key_data)
        return
    out = np.asarray(g(np.tile(_A, 4) if varying else _A, key_data))
    expected = np.asarray(f(jnp.asarray(_A), random.wrap_key_data(key_data)))
    if varying:  # every device computed the same function of the same values
        out = out.reshape(4, *expected.shape)
    np.testing.assert_allclose(out, np.broadcast_to(expected, out.shape), rtol=2e-5, atol=1e-6)


def test_a_users_loop_and_cond_still_get_the_type_errors():
    def loop(a):
        return lax.fori_loop(0, 2, lambda i, c: c + a, jnp.zeros(4))

    def branches(a):
        return lax.cond(a[0] > 0, lambda x: x + a, lambda x: x, jnp.zeros(4))

    for body, match in ((loop, "scan body function carry input and carry output must have "
                               "equal types"),
                        (branches, "cond branches must have equal output types")):
        f = mj.shard_map(body, mesh=mesh(), in_specs=P("d"), out_specs=P("d"))
        with pytest.raises(TypeError, match=match):
            f(np.tile(_A, 4))


def test_pcast_of_a_typed_key_varies_its_data():
    # JAX 0.10.2 (tests/data/shard_map_vma_r7_jax.py): pcast takes a key<fry> array; the key's
    # varying axes are its data's, uint32[2]{V:d}
    seen = {}

    def body(x):
        k = lax.pcast(random.key(0), "d", to="varying")
        seen["key"], seen["data"] = k, mj.typeof(random.key_data(k))
        return random.uniform(random.fold_in(k, lax.axis_index("d")), (2,))

    f = mj.shard_map(body, mesh=mesh(), in_specs=P("d"), out_specs=P("d"))
    out = f(jnp.arange(8.0))
    assert isinstance(seen["key"], random.PRNGKeyArray)
    assert str(seen["data"]) == "uint32[2]{V:d}"
    np.testing.assert_allclose(out, [0.8423141241073608, 0.1823786497116089,
                                     0.007293820381164551, 0.020891189575195312,
                                     0.9024494886398315, 0.9122928380966187,
                                     0.26698946952819824, 0.733950138092041], rtol=1e-6)


def test_vmap_of_a_while_whose_predicate_varies():
    # JAX 0.10.2 (tests/data/shard_map_vma_r7_jax.py): the predicate varies (it reads x), the
    # carries do not; each example stops at its own step and the carries keep their
    # (replicated) types, as JAX selects them in the while's lowering
    seen = {}

    def body(x):
        r = mj.vmap(lambda x: lax.while_loop(lambda c: c[1] < x,
                                             lambda c: (c[0] + 1, c[1] + 1.0), (0, 0.0)))(x)
        seen["types"] = [mj.typeof(a) for a in r]
        return r

    f = mj.shard_map(body, mesh=mesh(), in_specs=P("d"), out_specs=P("d"))
    n, c = f(jnp.arange(8.0))
    # JAX's ~int32[2], ~float32[2]: weak (Python scalars), not varying
    assert [(str(a), a.vma, a.weak_type) for a in seen["types"]] == [
        ("~int32[2]", frozenset(), True), ("~float32[2]", frozenset(), True)]
    assert n.dtype == np.int32 and c.dtype == np.float32
    np.testing.assert_array_equal(n, np.arange(8))
    np.testing.assert_array_equal(c, np.arange(8.0))
