"""Tracing, differentiating, vmapping and running from several threads at once.

Each thread has its own current trace: a barrier in the middle of every thread's trace makes
all of them be inside their transformations at the same moment, so a shared slot would hand
one thread's tracers to another (JAX returns each thread's own answer, and so must we).
"""

import threading

import numpy as np

import minijax
import minijax.numpy as jnp
from minijax import lax

N_THREADS = 4


def _run_in_threads(make_work):
    """Runs ``make_work(i, barrier)()`` in N_THREADS threads; returns results in thread order,
    re-raising the first exception a thread hit."""
    barrier = threading.Barrier(N_THREADS, timeout=60)
    results, errors = [None] * N_THREADS, []

    def run(i):
        try:
            results[i] = make_work(i, barrier)()
        except BaseException as e:  # noqa: BLE001 - re-raised in the main thread
            errors.append(e)
            barrier.abort()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(N_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    if errors:
        raise errors[0]
    return results


def _wait(barrier):
    barrier.wait()


def test_jit_of_grad_in_threads_meeting_mid_trace():
    def make_work(i, barrier):
        def f(x):
            y = jnp.sin(x) * (i + 1)
            _wait(barrier)  # every thread is inside its jit(grad) trace here
            return jnp.sum(y * x)

        x = np.linspace(-1, 1, 5, dtype=np.float32) + i
        return lambda: (x, np.asarray(minijax.jit(minijax.grad(f))(x)))

    for i, (x, g) in enumerate(_run_in_threads(make_work)):
        expected = (i + 1) * (np.cos(x) * x + np.sin(x))
        np.testing.assert_allclose(g, expected, rtol=1e-5, atol=1e-6)


def test_vmap_and_jvp_in_threads_meeting_mid_trace():
    def make_work(i, barrier):
        def f(x):
            y = x ** 2 + 0.1 * i
            _wait(barrier)
            return jnp.tanh(y)

        x = np.arange(6, dtype=np.float32).reshape(3, 2) / 7
        return lambda: (x, minijax.vmap(lambda r: minijax.jvp(f, (r,), (jnp.ones_like(r),)))(x))

    for i, (x, (y, t)) in enumerate(_run_in_threads(make_work)):
        th = np.tanh(x.astype(np.float64) ** 2 + 0.1 * i)
        np.testing.assert_allclose(np.asarray(y), th, rtol=1e-5)
        np.testing.assert_allclose(np.asarray(t), (1 - th ** 2) * 2 * x, rtol=1e-4, atol=1e-6)


def test_control_flow_grads_in_threads_meeting_mid_trace():
    def make_work(i, barrier):
        def body(c, x):
            if not waited[i]:  # inside the scan body's trace, inside jit(grad)'s
                waited[i] = True
                _wait(barrier)
            c = c * x + i
            return c, lax.cond(c > 0, jnp.sin, jnp.cos, c)

        def f(x):
            c, ys = lax.scan(body, 1.0, x)
            return c + jnp.sum(ys)

        x = np.array([0.5, 1.5, -0.25], np.float32)
        return lambda: (x, np.asarray(minijax.jit(minijax.grad(f))(x)))

    waited = [False] * N_THREADS
    for i, (x, g) in enumerate(_run_in_threads(make_work)):
        step = 1e-3

        def loop(xs, i=i):
            c, total = 1.0, 0.0
            for v in xs:
                c = c * v + i
                total += np.sin(c) if c > 0 else np.cos(c)
            return c + total

        xd = x.astype(np.float64)
        fd = [(loop(xd + step * e) - loop(xd - step * e)) / (2 * step) for e in np.eye(3)]
        np.testing.assert_allclose(g, fd, rtol=2e-3, atol=2e-3)


def test_one_thread_traces_while_another_executes():
    big = minijax.jit(lambda a: jnp.linalg.matrix_power(a @ a.T, 8))
    a = np.random.default_rng(0).standard_normal((256, 256)).astype(np.float32) / 16
    big(a).block_until_ready()  # compiled: the worker below only executes
    started = threading.Event()
    done = []

    def execute():
        started.set()
        for _ in range(20):
            done.append(np.asarray(big(a)))

    t = threading.Thread(target=execute)
    t.start()
    started.wait()
    grads = [minijax.jit(minijax.grad(lambda x, k=k: jnp.sum(jnp.sin(x) * k)))(
        np.float32(0.5)) for k in range(1, 6)]
    t.join(120)
    np.testing.assert_allclose([float(g) for g in grads],
                               [k * np.cos(0.5) for k in range(1, 6)], rtol=1e-6)
    assert len(done) == 20
    np.testing.assert_allclose(done[-1], done[0])


def test_a_new_thread_starts_at_the_eval_trace():
    seen = []

    def f(x):
        t = threading.Thread(target=lambda: seen.append(float(jnp.sum(jnp.ones(3)))))
        t.start()
        t.join()
        return x * 2

    assert float(minijax.jit(f)(np.float32(3))) == 6.0
    assert seen == [3.0]
