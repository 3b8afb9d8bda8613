"""debug.print / debug.callback / pure_callback: host callbacks from eager code and compiled
programs, under jit, vmap, grad, checkpoint and scan."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import debug, lax


def _f(x):
    debug.print("x={x}", x=x)
    y = jnp.sin(x)
    debug.print("y={}", y)
    return y * 2.0


def _lines(capsys):
    return capsys.readouterr().out.strip().splitlines()


def test_print_eager_and_jit(capsys):
    _f(np.float32(0.5))
    assert _lines(capsys) == ["x=0.5", f"y={np.float32(np.sin(np.float32(0.5)))}"]
    jf = minijax.jit(_f)
    for v in (1.0, 2.0):  # the cached executable calls back every time, with the new values
        out = jf(np.float32(v))
        np.testing.assert_allclose(np.asarray(out), 2 * np.sin(v), rtol=1e-6)
        lines = _lines(capsys)
        assert lines[0] == f"x={v}" and lines[1].startswith("y=0.")
        assert sorted(lines) == sorted(set(lines)) and len(lines) == 2


def test_print_under_vmap_prints_each_element(capsys):
    xs = np.arange(3, dtype=np.float32)
    for fn in (minijax.vmap(_f), minijax.jit(minijax.vmap(_f))):
        np.asarray(fn(xs))
        lines = _lines(capsys)
        assert sorted(ln for ln in lines if ln.startswith("x=")) == ["x=0.0", "x=1.0", "x=2.0"]
        assert len(lines) == 6


def test_print_under_grad_sees_primals(capsys):
    for fn in (minijax.grad(_f), minijax.jit(minijax.grad(_f))):
        g = fn(np.float32(1.0))
        np.testing.assert_allclose(np.asarray(g), 2 * np.cos(1.0), rtol=1e-6)
        lines = _lines(capsys)
        assert "x=1.0" in lines and len(lines) == 2


def test_print_under_checkpoint_and_jvp(capsys):
    g = minijax.jit(minijax.grad(minijax.checkpoint(_f)))(np.float32(1.0))
    np.testing.assert_allclose(np.asarray(g), 2 * np.cos(1.0), rtol=1e-6)
    assert "x=1.0" in _lines(capsys)
    _, t = minijax.jvp(_f, (np.float32(1.0),), (np.float32(1.0),))
    np.testing.assert_allclose(np.asarray(t), 2 * np.cos(1.0), rtol=1e-6)
    assert "x=1.0" in _lines(capsys)


def test_print_in_scan_runs_each_iteration(capsys):
    def body(c, x):
        debug.print("step {}", x, ordered=True)
        return c + x, None

    xs = np.arange(4, dtype=np.float32)
    out = minijax.jit(lambda v: lax.scan(body, np.float32(0), v)[0])(xs)
    assert float(out) == 6.0
    assert _lines(capsys) == [f"step {float(i)}" for i in range(4)]


def test_ordered_prints_keep_program_order(capsys):
    def f(x):
        for i in range(12):  # independent prints: only the token orders them
            debug.print("{} {}", i, x + i, ordered=True)
        return x

    np.asarray(minijax.jit(f)(np.float32(0)))
    assert _lines(capsys) == [f"{i} {float(i)}" for i in range(12)]


def test_callback_gets_numpy_values_and_pytrees():
    seen = []

    def cb(tree, scale):
        seen.append((type(tree["a"]), tree["a"].copy(), tree["b"].shape, float(scale)))

    def f(x):
        debug.callback(cb, {"a": x * 2, "b": jnp.zeros((2, 3))}, scale=x.sum())
        return x

    minijax.jit(f)(np.arange(3, dtype=np.float32))
    f(np.arange(3, dtype=np.float32))
    assert len(seen) == 2
    for kind, a, bshape, s in seen:
        assert kind is np.ndarray and bshape == (2, 3) and s == 3.0
        np.testing.assert_array_equal(a, [0, 2, 4])


def test_pure_callback_eager_jit_vmap():
    spec = minijax.ShapeDtypeStruct((3,), np.float32)
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(minijax.pure_callback(np.sin, spec, x)), np.sin(x))
    jf = minijax.jit(lambda v: minijax.pure_callback(np.sin, spec, v) * 2)
    np.testing.assert_allclose(np.asarray(jf(x)), 2 * np.sin(x), rtol=1e-6)
    calls = []

    def host(v):
        calls.append(v.shape)
        return np.cos(v)

    xs = np.arange(6, dtype=np.float32).reshape(2, 3)
    for method, shapes in (("sequential", [(3,), (3,)]), ("expand_dims", [(2, 3)])):
        calls.clear()
        fn = minijax.jit(minijax.vmap(lambda v, m=method: minijax.pure_callback(
            host, spec, v, vmap_method=m)))
        np.testing.assert_allclose(np.asarray(fn(xs)), np.cos(xs), rtol=1e-6)
        assert calls == shapes
    with pytest.raises(NotImplementedError, match="vmap_method"):
        minijax.vmap(lambda v: minijax.pure_callback(host, spec, v))(xs)


def test_pure_callback_wrong_result_and_grad_are_errors():
    spec = minijax.ShapeDtypeStruct((3,), np.float32)
    with pytest.raises(TypeError, match="declares f32\\[3\\]"):
        minijax.pure_callback(lambda v: np.zeros(4, np.float32), spec, np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="cannot be differentiated"):
        minijax.grad(lambda v: minijax.pure_callback(np.sin, spec, v).sum())(
            np.zeros(3, np.float32))
    # a failing callback inside jit surfaces as an exception; the process keeps working
    with pytest.raises(Exception, match="declares"):
        np.asarray(minijax.jit(lambda v: minijax.pure_callback(
            lambda a: np.zeros(4, np.float32), spec, v))(np.zeros(3, np.float32)))
    np.testing.assert_allclose(np.asarray(minijax.jit(jnp.sin)(np.float32(0))), 0.0)


@pytest.mark.devices(4)
def test_print_inside_shard_map_prints_each_shard(capsys):
    """Each device runs the body on its own shard, so each prints its own partial sum (as in
    JAX); the psum'd result is the global sum."""
    from minijax.sharding import Mesh
    from minijax.sharding import PartitionSpec as P

    mesh = Mesh(np.array(minijax.devices()[:4]), ("x",))

    def body(x):
        debug.print("shard sum {s}", s=x.sum())
        return lax.psum(x.sum(), "x")

    xs = np.arange(8, dtype=np.float32)
    out = minijax.jit(minijax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P()))(xs)
    np.testing.assert_allclose(np.asarray(out), xs.sum())
    expected = sorted(f"shard sum {xs[2 * k:2 * k + 2].sum()}" for k in range(4))
    assert sorted(_lines(capsys)) == expected

    def loss(x):  # under grad the print lands in the known (primal) part and still runs
        debug.print("shard sum {s}", s=x.sum())
        return lax.psum((x * x).sum(), "x")

    g = minijax.jit(minijax.grad(minijax.shard_map(loss, mesh=mesh, in_specs=P("x"),
                                                   out_specs=P())))(xs)
    np.testing.assert_allclose(np.asarray(g), 2 * xs)
    assert sorted(_lines(capsys)) == expected
