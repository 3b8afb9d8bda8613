"""The cases of tests/test_fidelity_r19_g.py: XLA tokens (``lax.create_token``,
``lax.after_all``), each a Python expression over ``jax``/``lax``/``jnp`` and the token ``t``
(SETUP), evaluated under JAX 0.10.2 by record_fidelity_r19_g.py and under minijax by the test.
``describe`` turns the outcome into JSON both can compare: an error's type and first line,
a token as "Token", a type by its repr, text with whitespace runs collapsed (JAX prints an
equation without operands with a trailing space) and object addresses blanked."""
import re

SETUP = """
import re
t = lax.create_token()

def hlo_ops(lowered):
    # the StableHLO ops and the token types of a lowered module (the two print their
    # module attributes differently)
    text = lowered.as_text()
    return (sorted(set(re.findall(r"stablehlo\\.[a-z_]+", text))),
            text.count("!stablehlo.token"))
"""

CASES = [
    "jax.typeof(lax.create_token())",
    "(repr(jax.typeof(t)), str(jax.typeof(t)), jax.typeof(t).str_short())",
    "jax.typeof(t) is jax.typeof(lax.after_all(t, t))",
    "(jax.extend.core.AbstractToken() == jax.typeof(t), type(jax.typeof(t)).__name__)",
    "(lax.create_token_p.name, lax.after_all_p.name, lax.create_token_p.multiple_results)",
    "str(jax.make_jaxpr(lambda: lax.create_token())())",
    "str(jax.make_jaxpr(lambda x: lax.create_token(x))(1.0))",
    "str(jax.make_jaxpr(lambda a, b: lax.after_all(a, b))(t, t))",
    "str(jax.make_jaxpr(lambda: lax.after_all())())",
    "str(jax.make_jaxpr(lambda x: (lax.create_token(), x + 1))(1.0))",
    "str(jax.make_jaxpr(jax.jit(lambda x, a: (x + 1, a)))(1.0, t))",
    "lax.after_all(t, lax.create_token())",
    "lax.after_all()",
    "lax.after_all(t, 1.0)",
    "lax.after_all(jnp.ones(3))",
    "jax.jit(lambda a, b: lax.after_all(a, b))(t, t)",
    "[jax.jit(lambda a: lax.after_all(a))(t) for _ in range(3)]",
    "jax.jit(lambda x: (x * 2, lax.create_token(x)))(1.5)",
    "jax.jit(lambda: t)()",
    "jax.jit(lambda x, a: x + 1)(2.0, t)",
    "jax.jit(lambda a: lax.after_all(a, 1.0))(t)",
    "hlo_ops(jax.jit(lambda a, b: lax.after_all(a, b)).lower(t, t))",
    "hlo_ops(jax.jit(lambda x: (x + 1, lax.create_token(x))).lower(1.0))",
    "hlo_ops(jax.jit(lambda x, a: x + 1).lower(1.0, t))",
    "hlo_ops(jax.jit(lambda x: (lax.after_all(lax.create_token()), x)[1]).lower(1.0))",
    "hlo_ops(jax.jit(lambda: t).lower())",
    "jax.jit(lambda a, b: lax.after_all(a, b)).lower(t, t).args_info",
    "jax.eval_shape(lambda: lax.create_token())",
    "jax.eval_shape(lambda x: (x, lax.create_token()), 1.0)",
    "jax.device_put(t)",
    "t.block_until_ready()",
    "jax.tree_util.tree_leaves([t, (t,)])",
    "isinstance(t, jax.Array)",
    "t + 1",
    "jnp.asarray(t)",
    "lax.stop_gradient(t)",
    "jax.grad(lambda x: (lax.create_token(x), x * 3.0)[1])(1.0)",
    "jax.grad(lambda x: (x * 2.0, lax.create_token(x)), has_aux=True)(1.0)",
    "jax.grad(lambda x: (lax.after_all(lax.create_token()), x * 2.0)[1])(1.0)",
    "jax.jvp(lambda a: (a, 2.0), (t,), (t,))",
    "jax.jvp(lambda a: 1.0, (t,), (1.0,))",
    "jax.jvp(lambda x: 1.0, (1.0,), (t,))",
    "jax.jvp(lambda a: lax.after_all(a), (t,), (t,))",
    "jax.jvp(lambda x: (x * 2.0, lax.create_token()), (1.0,), (1.0,))",
    "jax.grad(lambda a: 1.0)(t)",
    "jax.vjp(lambda a: 1.0, t)[1](1.0)",
    "jax.vmap(lambda a: a)(t)",
    "jax.vmap(lambda x: (x, lax.create_token()))(jnp.ones(3))",
    "jax.vmap(lambda x, a: (x, lax.after_all(a)), in_axes=(0, None))(jnp.ones(3), t)",
    "jax.make_jaxpr(lambda p, a: lax.cond(p, lambda a: lax.after_all(a), lambda a: a, a))(True, t)",
]


def _text(s):
    s = re.sub(r" at 0x[0-9a-f]+", " at 0x", s)
    s = s.replace("jax._src.core.", "").replace("minijax.core.", "")
    return " ".join(s.split())


def describe(thunk, tree_leaves):
    try:
        out = thunk()
    except Exception as e:  # minijax adds the user's line after the first: compare that one
        return ["error", type(e).__name__, _text(str(e).split("\n")[0])]
    return _describe(out)


def _describe(x):
    import numpy as np
    name = type(x).__name__
    if name == "Token":
        return "Token"
    if name in ("AbstractToken", "ArgInfo"):  # (a token's ArgInfo has no dtype)
        return _text(repr(x))
    if name == "ShapeDtypeStruct":
        return ["ShapeDtypeStruct", list(x.shape), str(np.dtype(x.dtype)), bool(x.weak_type)]
    if isinstance(x, (tuple, list)):
        return [_describe(y) for y in x]
    if isinstance(x, str):
        return _text(x)
    if x is None or isinstance(x, (bool, int, float)):
        return x
    if hasattr(x, "dtype") and hasattr(x, "shape"):
        return ["array", str(np.dtype(x.dtype)), bool(getattr(x, "weak_type", False)),
                np.asarray(x).tolist()]
    return _text(repr(x))
