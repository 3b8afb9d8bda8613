"""Refs (``new_ref``) as arguments of ``jit`` and ``eval_shape``: the value goes in, the
function sees a Ref cell, what it writes comes back into the caller's Ref. Expected values
are computed by hand; errors and their texts are JAX 0.10.2's (recorded from /work/venv_jax)."""

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp


def test_write_comes_back_and_output():
    r = jax.new_ref(jnp.arange(3.0))
    traces = []

    @jax.jit
    def f(r, x):
        traces.append(1)
        r[...] = r[...] + x
        return r[0] * 2

    out = f(r, 1.0)
    np.testing.assert_allclose(out, 2.0)  # JAX 0.10.2: 2.0, Ref([1., 2., 3.])
    np.testing.assert_allclose(r[...], [1.0, 2.0, 3.0])
    assert isinstance(r, jax.Ref) and r.dtype == jnp.float32
    np.testing.assert_allclose(f(r, 1.0), 4.0)  # the second call reads the new value
    np.testing.assert_allclose(r[...], [2.0, 3.0, 4.0])
    r2 = jax.new_ref(jnp.arange(3.0) + 5)  # same AbstractRef: no new trace
    np.testing.assert_allclose(f(r2, 1.0), 12.0)  # JAX 0.10.2: 12.0, Ref([6., 7., 8.])
    np.testing.assert_allclose(r2[...], [6.0, 7.0, 8.0])
    np.testing.assert_allclose(r[...], [2.0, 3.0, 4.0])
    assert len(traces) == 1  # as in JAX 0.10.2


def test_refs_in_pytrees_read_only_and_indexed_writes():
    a = jax.new_ref(jnp.arange(3.0))
    b = jax.new_ref(jnp.ones(2))

    @jax.jit
    def k(d, y):
        d["b"][1] = y
        return d["a"][...] + d["b"][0]

    np.testing.assert_allclose(k({"a": a, "b": b}, 5.0), [1.0, 2.0, 3.0])
    np.testing.assert_allclose(a[...], [0.0, 1.0, 2.0])  # read only: unchanged
    np.testing.assert_allclose(b[...], [1.0, 5.0])


def test_kwargs_and_static_args():
    r = jax.new_ref(jnp.zeros(()))

    @jax.jit(static_argnums=1)
    def f(x, n, *, acc):
        for _ in range(n):
            acc[...] += x
        return x

    f(2.0, 3, acc=r)
    np.testing.assert_allclose(r[...], 6.0)


def test_same_ref_twice_is_an_error():
    s = jax.new_ref(jnp.float32(1))

    @jax.jit
    def g(a, b):
        a[...] += 1.0
        return b[...]

    # JAX 0.10.2's message
    with pytest.raises(ValueError, match=r"only one reference to a mutable array may be passed "
                       r"as an argument to a function, but when tracing g at .* for jit the "
                       r"mutable array reference of type Ref\{float32\[\]\} appeared at both a "
                       r"and b\."):
        g(s, s)


def test_returning_a_ref_is_an_error():
    r = jax.new_ref(jnp.arange(3.0))

    @jax.jit
    def h(r):
        return r

    with pytest.raises(ValueError, match=r"function h at .* traced for jit returned a mutable "
                       r"array reference of type Ref\{float32\[3\]\}, but mutable array "
                       r"references cannot be returned\.\n\nThe returned mutable array was "
                       r"passed in as the argument r\."):
        h(r)


def test_eval_shape_leaves_the_ref_alone():
    r = jax.new_ref(jnp.arange(3.0))

    def f(r, x):
        r[...] = r[...] + x
        return r[0] * 2

    out = jax.eval_shape(f, r, 1.0)
    assert out.shape == () and out.dtype == jnp.float32  # JAX: ShapeDtypeStruct((), float32)
    np.testing.assert_allclose(r[...], [0.0, 1.0, 2.0])


def test_jit_inside_jit_threads_the_ref():
    r = jax.new_ref(jnp.ones(2))

    @jax.jit
    def inner(r, x):
        r[...] = r[...] * x
        return x

    @jax.jit
    def outer(x):
        q = jax.new_ref(jnp.ones(2))
        inner(q, x)
        inner(q, x)
        return q[...]

    np.testing.assert_allclose(outer(3.0), [9.0, 9.0])
    inner(r, 2.0)
    np.testing.assert_allclose(r[...], [2.0, 2.0])


def test_with_out_shardings():
    r = jax.new_ref(jnp.zeros(2))

    @jax.jit(out_shardings=(None, None))
    def f(r, x):
        r[...] = x
        return x + 1, x * 2

    a, b = f(r, jnp.ones(2))
    np.testing.assert_allclose(a, [2.0, 2.0])
    np.testing.assert_allclose(b, [2.0, 2.0])
    np.testing.assert_allclose(r[...], [1.0, 1.0])


# --- refs made outside a loop body and written in it join the loop's carry ----------------------
# (values recorded from JAX 0.10.2, /work/venv_jax)


def test_scan_threads_a_closed_over_ref():
    r = jax.new_ref(jnp.arange(3.0))

    def body(c, x):
        r[...] = r[...] + x
        return c + r[0], None

    c, _ = jax.lax.scan(body, 0.0, jnp.ones(3))
    np.testing.assert_allclose(c, 6.0)  # JAX: 6.0, Ref([3., 4., 5.])
    np.testing.assert_allclose(r[...], [3.0, 4.0, 5.0])


def test_fori_loop_static_bounds_and_while_loop():
    q = jax.new_ref(jnp.int32(0))

    def fb(i, c):
        q[...] += i
        return c * 2

    np.testing.assert_allclose(jax.lax.fori_loop(0, 4, fb, 1.0), 16.0)  # JAX: 16.0, Ref(6)
    assert int(q[...]) == 6 and q.dtype == jnp.int32
    w = jax.new_ref(jnp.float32(1))

    def bd(c):
        w[...] = w[...] * 3
        return c + 1

    assert int(jax.lax.while_loop(lambda c: c < 3, bd, 0)) == 3  # JAX: 3, Ref(27.)
    np.testing.assert_allclose(w[...], 27.0)


def test_nested_scans_and_a_ref_argument_of_jit():
    z = jax.new_ref(jnp.zeros(2))

    def outer(c, x):
        def inner(c2, y):
            z[...] = z[...] + y
            return c2, None

        c, _ = jax.lax.scan(inner, c, jnp.ones((2, 2)) * x)
        return c + z[1], z[0]

    c, ys = jax.lax.scan(outer, 0.0, jnp.arange(3.0))
    # JAX: (8.0, [0., 2., 6.]), Ref([6., 6.])
    np.testing.assert_allclose(c, 8.0)
    np.testing.assert_allclose(ys, [0.0, 2.0, 6.0])
    np.testing.assert_allclose(z[...], [6.0, 6.0])

    @jax.jit
    def fj(rr, xs):
        def b(c, x):
            rr[...] = rr[...] * x
            return c, None

        return jax.lax.scan(b, 0.0, xs)[0]

    t = jax.new_ref(jnp.ones(()))
    np.testing.assert_allclose(fj(t, jnp.arange(1.0, 4.0)), 0.0)  # JAX: 0.0, Ref(6.)
    np.testing.assert_allclose(t[...], 6.0)


# --- refs a jitted function closes over: their values go in, written ones come back ------------


def test_jit_closing_over_refs():
    r = jax.new_ref(jnp.arange(3.0))

    @jax.jit
    def f(x):
        r[...] = r[...] * x
        return r[1]

    np.testing.assert_allclose(f(2.0), 2.0)  # JAX: 2.0, Ref([0., 2., 4.])
    np.testing.assert_allclose(r[...], [0.0, 2.0, 4.0])
    np.testing.assert_allclose(f(3.0), 6.0)  # JAX: 6.0, Ref([0., 6., 12.])
    np.testing.assert_allclose(r[...], [0.0, 6.0, 12.0])
    out = jax.eval_shape(f, 1.0)  # JAX: ShapeDtypeStruct((), float32), the ref unchanged
    assert out.shape == () and out.dtype == jnp.float32
    np.testing.assert_allclose(r[...], [0.0, 6.0, 12.0])

    def body(c, x):
        r[...] = r[...] + x
        return c, None

    jax.jit(lambda: jax.lax.scan(body, 0.0, jnp.ones(3)))()
    np.testing.assert_allclose(r[...], [3.0, 9.0, 15.0])  # JAX: Ref([3., 9., 15.])


def test_jit_reads_the_current_value_of_a_closed_over_ref():
    ro = jax.new_ref(jnp.ones(2))
    h = jax.jit(lambda x: ro[...] * x)
    np.testing.assert_allclose(h(2.0), [2.0, 2.0])
    ro[...] = jnp.full(2, 5.0)
    np.testing.assert_allclose(h(2.0), [10.0, 10.0])  # JAX: [10., 10.], not a stale constant


def test_jit_closing_over_a_ref_with_static_args():
    acc = jax.new_ref(jnp.zeros(()))

    @jax.jit(static_argnums=1)
    def g(x, n):
        for _ in range(n):
            acc[...] += x
        return x

    g(1.5, 2)
    g(1.0, 3)
    np.testing.assert_allclose(acc[...], 6.0)


# --- grad of a function writing a Ref made outside it (JAX 0.10.2's behaviour) -----------------


def test_grad_writing_a_non_differentiated_value():
    q = jax.new_ref(0.0)
    c = jax.new_ref(jnp.int32(0))

    def loss(x):
        q[...] = jax.lax.stop_gradient(x) * 0 + 7.0
        c[...] += 1
        return x**2 + jnp.sin(x)

    np.testing.assert_allclose(jax.grad(loss)(3.0), 6.0 + np.cos(3.0), rtol=1e-6)
    np.testing.assert_allclose(q[...], 7.0)  # JAX: Ref(7.)
    assert int(c[...]) == 1
    np.testing.assert_allclose(jax.jit(jax.grad(loss))(3.0), 6.0 + np.cos(3.0), rtol=1e-6)
    assert int(c[...]) == 2  # JAX: Ref(2)


def test_grad_writing_a_differentiated_value_is_an_error():
    q = jax.new_ref(jnp.float32(0.0))

    def loss(x):
        q[...] = x
        return x**2

    with pytest.raises(Exception, match=r"performing a set/swap operation with a differentiated "
                       r"value on a non-differentiated array reference of type "
                       r"Ref\{float32\[\]\}\. Move the array reference to be an argument of the "
                       r"differentiated function\?"):
        jax.grad(loss)(3.0)

    def inner_ref(x):  # a ref made inside the differentiated function may hold x
        r = jax.new_ref(jnp.float32(0.0))
        r[...] = x * 2
        return r[...] ** 2

    np.testing.assert_allclose(jax.grad(inner_ref)(3.0), 24.0)
