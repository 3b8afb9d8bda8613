"""Composition fuzzing: random small programs under random stacks of transformations.

A program maps x: f32[3] to a scalar through a few random ops. Every transformation in the
stack also maps f32[3] -> scalar, so stacks compose freely:

- value-preserving wrappers: jit, checkpoint, lax.cond (both branches the program), lax.scan
  (one step), lax.while_loop (one trip, forward-only stacks);
- derivatives: grad (contracted with a fixed vector), jvp (tangent output), vjp;
- vmap over two rows (weighted sum of the rows' outputs).

The reference evaluates the same derivative stack eagerly *without* the wrappers and with vmap
replaced by a Python loop over the rows. The innermost program is also checked against finite
differences (``check_grads``). CI runs the hypothesis profile's examples; set
``MINIJAX_FUZZ_EXAMPLES=500`` for a long run.
"""

import os

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import minijax
import minijax.numpy as jnp
from minijax import lax
from minijax.test_util import check_grads

_N = int(os.environ.get("MINIJAX_FUZZ_EXAMPLES", "0")) or None
_settings = settings(max_examples=_N) if _N else settings()

UNARY = {
    "sin": jnp.sin,
    "cos": jnp.cos,
    "tanh": jnp.tanh,
    "square": lambda a: a * a,
    "exp_tanh": lambda a: jnp.exp(jnp.tanh(a)),
    "neg": lambda a: -a,
    "rev": lambda a: a[::-1],
    "cumsum": lambda a: jnp.cumsum(a),
    "sum_bcast": lambda a: jnp.sum(a) + a * 0.5,
    "logistic": lambda a: minijax.nn.sigmoid(a),
    "slice_pad": lambda a: jnp.concatenate([a[1:], a[:1] * 2.0]),
    "sqrt1p": lambda a: jnp.sqrt(1.0 + a * a),
    "max0": lambda a: jnp.maximum(a, 0.3 * a),  # kink at 0 only
}
BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "where": lambda a, b: jnp.where(b > a, b, a * 0.5 + b * 0.5),
    "dot_bcast": lambda a, b: jnp.dot(a, b) * a,
}

_W = np.array([0.3, -1.1, 0.7], np.float32)
_V = np.array([1.0, 0.5, -0.25], np.float32)


def build(ops):
    def program(x):
        regs = [x]
        for name, i, j in ops:
            a, b = regs[i % len(regs)], regs[j % len(regs)]
            regs.append(UNARY[name](a) if name in UNARY else BINARY[name](a, b))
        return jnp.sum(regs[-1] * _W)

    return program


def wrap(name, f, plain):
    """The transformation ``name`` of ``f`` (f32[3] -> scalar); ``plain`` drops wrappers and
    replaces vmap by a loop: the reference."""
    if name in ("jit", "checkpoint", "cond", "scan", "while") and plain:
        return f
    if name == "jit":
        return minijax.jit(f)
    if name == "checkpoint":
        return minijax.checkpoint(f)
    if name == "cond":
        return lambda x: lax.cond(jnp.sum(x) > -100.0, f, lambda v: f(v) * 2.0, x)
    if name == "scan":
        return lambda x: lax.scan(lambda c, _: (c, f(c)), x, None, length=1)[1][0]
    if name == "while":
        def w(x):
            _, out = lax.while_loop(lambda s: s[0] < 1, lambda s: (s[0] + 1, f(x)),
                                    (0, jnp.float32(0)))
            return out
        return w
    if name == "grad":
        return lambda x: jnp.sum(minijax.grad(f)(x) * _V)
    if name == "jvp":
        return lambda x: minijax.jvp(f, (x,), (_V,))[1]
    if name == "vjp":
        return lambda x: jnp.sum(minijax.vjp(f, x)[1](jnp.float32(1.0))[0] * _W)
    if name == "vmap":
        def rows(x):
            return jnp.stack([x, x * 0.5 + 0.1])

        if plain:
            return lambda x: f(rows(x)[0]) * 1.0 + f(rows(x)[1]) * 2.0
        return lambda x: jnp.sum(minijax.vmap(f)(rows(x)) * jnp.array([1.0, 2.0]))
    raise ValueError(name)


op_st = st.tuples(st.sampled_from(sorted(UNARY) + sorted(BINARY)),
                  st.integers(0, 8), st.integers(0, 8))
x_st = st.lists(st.floats(-1.0, 1.0, width=32), min_size=3, max_size=3).map(
    lambda v: np.array(v, np.float32))
stack_st = st.lists(
    st.sampled_from(["jit", "checkpoint", "cond", "scan", "while", "grad", "jvp", "vjp",
                     "vmap"]),
    min_size=1, max_size=4,
).filter(lambda s: sum(t in ("grad", "jvp", "vjp") for t in s) <= 2)


def _reverse_after_while(stack):
    seen_while = False
    for t in stack:  # inside out
        seen_while |= t == "while"
        if seen_while and t in ("grad", "vjp"):
            return True
    return False


def _compose(stack, f, plain):
    for t in stack:  # stack[0] is innermost
        f = wrap(t, f, plain)
    return f


@_settings
@given(ops=st.lists(op_st, min_size=1, max_size=5), stack=stack_st, x=x_st)
def test_random_program_under_random_transform_stack(ops, stack, x):
    if _reverse_after_while(stack):
        stack = [t for t in stack if t != "while"]  # reverse mode of while is not defined
    program = build(ops)
    got = _compose(stack, program, plain=False)(x)
    want = _compose(stack, program, plain=True)(x)
    got, want = float(np.asarray(got)), float(np.asarray(want))
    assert np.isfinite(want)
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3 * max(1.0, abs(want)),
                               err_msg=f"program {ops} under stack {stack} at x={x}")


@_settings
@given(ops=st.lists(op_st, min_size=1, max_size=4), x=x_st)
def test_random_program_gradients_match_finite_differences(ops, x):
    program = build(ops)
    x = x.astype(np.float32)
    # avoid the kinks of where/maximum: the finite difference may straddle them
    names = {n for n, _, _ in ops}
    if names & {"where", "max0"}:
        return
    check_grads(program, (x,), order=2, modes=("fwd", "rev"), atol=5e-2, rtol=5e-2)
