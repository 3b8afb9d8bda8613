"""Op-table entries for the control-flow primitives (``cond``, ``while``, ``scan``), each
against a plain Python/NumPy loop or branch. The primitives take functions, so each entry
fixes a small body; tests/lax/test_control_flow.py covers them in depth.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import minijax.numpy as jnp
from minijax import lax
from tests.ops.op_db import GradSpec, array, register, shapes

_F32 = st.sampled_from([np.float32])


def _vec_and_pred():
    return st.tuples(shapes(max_dims=2).flatmap(lambda s: array(s, np.float32, -2, 2)),
                     array((), np.bool_))


def _cond(x, p):
    return lax.cond(p, lambda v: v * v + 1.0, lambda v: v * 3.0, x)


register("cond", _cond, lambda x, p: (x * x + 1 if p else x * 3).astype(x.dtype),
         _vec_and_pred(), exact_jit=False)


def _while(x):
    # a fixed trip count keeps the op-table's numeric checks meaningful; forward-mode only
    return lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 0.5 + 1.0),
                          (0, x))[1]


def _while_ref(x):
    for _ in range(3):
        x = x * 0.5 + 1.0
    return x.astype(np.float32)


register("while", _while, _while_ref,
         shapes(max_dims=2).flatmap(lambda s: st.tuples(array(s, np.float32, -2, 2))),
         exact_jit=False, grad=GradSpec(modes=("fwd",)))


def _scan(xs):
    return lax.scan(lambda c, x: (c * 0.5 + x, c * x), np.zeros(xs.shape[1:], xs.dtype), xs)


def _scan_ref(xs):
    c, ys = np.zeros(xs.shape[1:], np.float64), []
    for x in xs:
        ys.append(c * x)
        c = c * 0.5 + x
    return c.astype(xs.dtype), np.stack(ys).astype(xs.dtype)


register("scan", _scan, _scan_ref,
         shapes(min_dims=1, max_dims=3).flatmap(lambda s: st.tuples(array(s, np.float32, -2, 2))),
         exact_jit=False)


def _solve_args():
    return st.integers(1, 4).flatmap(lambda n: st.tuples(array((n, n), np.float32, -1, 1),
                                                         array((n,), np.float32, -2, 2)))


def _dominant(m):
    return m + 4.0 * m.shape[0] * np.eye(m.shape[0], dtype=np.float32)  # well conditioned


def _custom_linear_solve(m, b):
    a = _dominant(m)
    return lax.custom_linear_solve(lambda x: a @ x, b,
                                   lambda mv, x: jnp.linalg.solve(a, x),
                                   lambda vm, x: jnp.linalg.solve(a.T, x))


register("custom_linear_solve", _custom_linear_solve,
         lambda m, b: np.linalg.solve(_dominant(m).astype(np.float64), b).astype(np.float32),
         _solve_args(), tol={"float32": (1e-5, 1e-5)}, exact_jit=False)
