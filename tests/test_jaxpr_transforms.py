"""The jaxpr-level transformations, each in its interpreter (``ad.jvp_jaxpr``,
``ad.transpose_jaxpr``, ``batching.batch_jaxpr``/``batch_open``/``batch_flat``,
``partial_eval.partial_eval_jaxpr``/``split_known_staged``), and the one walker over nested
jaxprs, checked against NumPy and finite differences."""

import numpy as np

import minijax
from minijax import lax
from minijax.core import ClosedJaxpr, jaxpr_as_fun
from minijax.interpreters import ad, batching, lax_ops, partial_eval, walk

X = np.array([0.5, -1.0, 2.0], np.float32)
Y = np.array([1.5, 0.25, -0.75], np.float32)


def f(x, y):
    return [lax.sin(x) * y, lax.reduce_sum(x * x, (0,))]


def closed_f():
    return minijax.make_jaxpr(f)(X, Y)


def test_lax_installs_the_interpreters_ops():
    assert lax_ops.add is lax.add and lax_ops.transpose is lax.transpose
    assert lax_ops.full is lax.full and lax_ops.broadcast_in_dim is lax.broadcast_in_dim


def test_jvp_jaxpr_matches_finite_differences():
    jvp, out_nz = ad.jvp_jaxpr(closed_f(), [True, False], [False, False])
    assert out_nz == [True, True]
    dx = np.array([1.0, 2.0, -1.0], np.float32)
    p1, p2, t1, t2 = jaxpr_as_fun(jvp)(X, Y, dx)
    np.testing.assert_allclose(p1, np.sin(X) * Y, rtol=1e-6)
    eps = 1e-3
    x64, dx64 = X.astype(np.float64), dx.astype(np.float64)
    fd1 = (np.sin(x64 + eps * dx64) - np.sin(x64 - eps * dx64)) / (2 * eps) * Y
    fd2 = (np.sum((x64 + eps * dx64) ** 2) - np.sum((x64 - eps * dx64) ** 2)) / (2 * eps)
    np.testing.assert_allclose(t1, fd1, rtol=1e-4)
    np.testing.assert_allclose(t2, fd2, rtol=1e-4)


def test_jvp_jaxpr_instantiates_zero_tangents_on_request():
    closed = minijax.make_jaxpr(lambda x, y: [x * 2.0, y + 1.0])(X, Y)
    jvp, out_nz = ad.jvp_jaxpr(closed, [True, False], [False, True])
    assert out_nz == [True, True]
    *_, t_y = jaxpr_as_fun(jvp)(X, Y, np.ones(3, np.float32))
    np.testing.assert_array_equal(t_y, np.zeros(3, np.float32))


def test_transpose_jaxpr_is_the_vjp():
    closed = minijax.make_jaxpr(lambda w, x: [w * x + x])(Y, X)  # linear in x
    t, nonzero = ad.transpose_jaxpr(closed, [False, True], [True])
    assert nonzero == [True]
    ct = np.array([1.0, -2.0, 3.0], np.float32)
    (x_ct,) = jaxpr_as_fun(t)(Y, ct)
    np.testing.assert_allclose(x_ct, ct * (Y + 1.0), rtol=1e-6)


def test_batch_jaxpr_maps_the_batched_inputs():
    xs = np.stack([X, 2 * X])
    batched, out_b = batching.batch_jaxpr(closed_f(), batching.AxisData(None, 2, None),
                                          [True, False], [False, False])
    assert out_b == [True, True]
    o1, o2 = jaxpr_as_fun(batched)(xs, Y)
    np.testing.assert_allclose(o1, np.sin(xs) * Y, rtol=1e-6)
    np.testing.assert_allclose(o2, np.sum(xs * xs, axis=1), rtol=1e-6)


def test_batch_jaxpr_broadcasts_forced_outputs():
    closed = minijax.make_jaxpr(lambda x, y: [x + 1.0, y * 2.0])(X, Y)
    batched, out_b = batching.batch_jaxpr(closed, batching.AxisData(None, 2, None),
                                          [True, False], [False, True])
    assert out_b == [True, True]
    _, o2 = jaxpr_as_fun(batched)(np.stack([X, X]), Y)
    np.testing.assert_allclose(o2, np.stack([2 * Y, 2 * Y]))


def test_batch_open_moves_the_batch_to_axis_0():
    jaxpr = closed_f().jaxpr
    xs_t = np.stack([X, 3 * X], axis=1)  # batch along axis 1
    new, consts, args, in_axes, out_dims = batching.batch_open(jaxpr, [xs_t, Y], [1, None])
    assert in_axes == (0, None) and consts == [] and out_dims == [0, 0]
    o1, o2 = minijax.core.eval_jaxpr(new, [], *args)
    np.testing.assert_allclose(o1, np.sin(xs_t.T) * Y, rtol=1e-6)
    np.testing.assert_allclose(o2, np.sum(xs_t.T ** 2, axis=1), rtol=1e-6)


def test_batch_flat_reports_output_batch_dims():
    outs, dims = batching.batch_flat(lambda x, y: [x * y, y], [np.stack([X, X]), Y],
                                     [0, None], batching.AxisData(None, 2, None))
    assert dims == [0, None]
    np.testing.assert_allclose(outs[0], np.stack([X * Y, X * Y]))


def test_partial_eval_jaxpr_splits_known_and_unknown():
    closed = minijax.make_jaxpr(lambda x, y: [lax.sin(x) * y, lax.cos(x)])(X, Y)
    known, unknown, out_unk, res_avals, fwd = partial_eval.partial_eval_jaxpr(
        closed, [False, True], [False, False])
    assert out_unk == [True, False]
    k_outs = jaxpr_as_fun(known)(X)
    np.testing.assert_allclose(k_outs[0], np.cos(X), rtol=1e-6)
    residuals = k_outs[1:]
    assert len(residuals) == len(res_avals) == len(fwd)
    (u,) = jaxpr_as_fun(unknown)(*residuals, Y)
    np.testing.assert_allclose(u, np.sin(X) * Y, rtol=1e-6)


def test_split_known_staged_recomposes():
    jaxpr = minijax.make_jaxpr(lambda x, y: [lax.exp(x) * y, lax.exp(x)])(X, Y).jaxpr
    split = partial_eval.split_known_staged(jaxpr, [False, True])
    assert split.out_known == [False, True]
    known = split.known_jaxpr([v for v, k in zip(jaxpr.outvars, split.out_known) if k],
                              split.residuals)
    staged = split.staged_jaxpr(split.residuals)
    k_exp, *res = minijax.core.eval_jaxpr(known, [], X)
    (s,) = minijax.core.eval_jaxpr(staged, [], *res, Y)
    np.testing.assert_allclose(k_exp, np.exp(X), rtol=1e-6)
    np.testing.assert_allclose(s, np.exp(X) * Y, rtol=1e-6)


def test_walker_finds_nested_jaxprs_in_mixed_params():
    def g(x):
        return lax.cond(x[0] > 0, lambda v: lax.scan(lambda c, a: (c + a, a), 0.0, v)[0],
                        lambda v: lax.reduce_sum(v, (0,)), x)

    closed = minijax.make_jaxpr(g)(X)
    (cond_eqn,) = walk.find_eqns(closed, "cond", recursive=False)
    names = [n for n, _ in walk.sub_jaxprs(cond_eqn.params)]
    assert names == ["branches[0]", "branches[1]"]
    assert walk.find_eqns(closed, "scan")  # inside a branch
    body = ClosedJaxpr(closed.jaxpr, [])
    mixed = {"a": (1, body, "x"), "b": body.jaxpr}
    assert [n for n, _ in walk.sub_jaxprs(mixed)] == ["a[1]", "b"]
    mapped = walk.map_sub_jaxprs(mixed, lambda c: c)
    assert mapped["a"][0] == 1 and mapped["a"][2] == "x"
