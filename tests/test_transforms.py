"""minijax.transforms: the pass API, its type check, and the simplification passes.

References are the untransformed programs (bit for bit where a pass must not change values).
"""

import os
import re

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax, nn, transforms
from minijax.core import ClosedJaxpr, Jaxpr, JaxprEqn, Var
from minijax.transforms import JaxprTypeError

DOCS = os.path.join(os.path.dirname(__file__), os.pardir, "docs", "transforms.md")


def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(a.view(np.uint8), b.view(np.uint8)), (a, b)


def test_documented_passes_run():
    """Every python block of docs/transforms.md, in order, in one namespace (they assert)."""
    blocks = re.findall(r"```python\n(.*?)```", open(DOCS).read(), re.S)
    assert len(blocks) >= 5
    ns = {}
    for block in blocks:
        exec(compile(block, DOCS, "exec"), ns)
    assert ns["counter"].counts["dot_general"] == 10 * 2 * 16 * 16


def f_tanh(w, x):
    return jnp.sum(jnp.tanh(x @ w) * 3.0, axis=-1)


def test_replace_composes_with_jit_grad_vmap():
    w, x = _x(4, 3), _x(5, 4, seed=1)
    same = transforms.replace(f_tanh, {"tanh": lambda t: lax.tanh(t)})  # same values
    _same_bits(same(w, x), minijax.jit(f_tanh)(w, x))
    _same_bits(minijax.jit(same)(w, x), minijax.jit(f_tanh)(w, x))
    loss = lambda g: lambda w, x: jnp.sum(g(w, x))  # noqa: E731
    _same_bits(minijax.jit(minijax.grad(loss(same)))(w, x),
               minijax.jit(minijax.grad(loss(f_tanh)))(w, x))
    _same_bits(minijax.jit(minijax.vmap(same, (None, 0)))(w, x[:, None]),
               minijax.jit(minijax.vmap(f_tanh, (None, 0)))(w, x[:, None]))

    other = transforms.replace(f_tanh, {"tanh": lambda t: 2.0 * nn.sigmoid(2.0 * t) - 1.0})
    jaxpr = str(minijax.make_jaxpr(other)(w, x))
    assert "logistic" in jaxpr and "tanh" not in jaxpr
    np.testing.assert_allclose(other(w, x), f_tanh(w, x), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(minijax.grad(loss(other))(w, x), minijax.grad(loss(f_tanh))(w, x),
                               rtol=1e-4, atol=1e-5)
    hess = minijax.hessian(lambda x: jnp.sum(other(w, x)))(x[0])
    ref = minijax.hessian(lambda x: jnp.sum(f_tanh(w, x)))(x[0])
    np.testing.assert_allclose(hess, ref, rtol=1e-3, atol=1e-4)


def test_pass_shows_in_dumps(tmp_path):
    cfg = minijax.config
    old = cfg.minijax_dump_dir
    cfg.update("minijax_dump_dir", str(tmp_path))
    try:
        g = transforms.replace(lambda x: jnp.tanh(x) + 1.0, {"tanh": jnp.sin})
        minijax.jit(g)(np.ones(3, np.float32))
    finally:
        cfg.update("minijax_dump_dir", old)
    texts = [open(p).read() for p in tmp_path.glob("*.jaxpr.txt")]
    assert texts and any("sin" in t and "tanh" not in t for t in texts)


def test_rewrite_recurses_into_control_flow():
    def body(h, x):
        return jnp.tanh(h * 0.5 + x), jnp.tanh(x)

    def f(xs, p):
        h, ys = lax.scan(body, jnp.zeros(3), xs)
        z = lax.cond(p > 0, lambda v: jnp.tanh(v), lambda v: -v, h)
        return z + jnp.sum(ys, 0)

    def g_direct(xs, p):
        t = lambda v: jnp.sin(v)  # noqa: E731
        h, ys = lax.scan(lambda h, x: (t(h * 0.5 + x), t(x)), jnp.zeros(3), xs)
        return lax.cond(p > 0, t, lambda v: -v, h) + jnp.sum(ys, 0)

    xs = _x(6, 3)
    g = transforms.replace(f, {"tanh": jnp.sin})
    assert not transforms.find_eqns(minijax.make_jaxpr(g)(xs, 1.0), "tanh")
    assert len(transforms.find_eqns(minijax.make_jaxpr(f)(xs, 1.0), "tanh")) == 3
    for p in (1.0, -1.0):
        _same_bits(minijax.jit(g)(xs, p), minijax.jit(g_direct)(xs, p))
    dg = minijax.grad(lambda xs: jnp.sum(g(xs, 1.0)))(xs)
    dref = minijax.grad(lambda xs: jnp.sum(g_direct(xs, 1.0)))(xs)
    np.testing.assert_allclose(dg, dref, rtol=1e-6, atol=1e-6)


def _bad_output_type(closed):
    """Declares the first equation's output as f16 (its primitive gives f32)."""
    j = closed.jaxpr
    e = j.eqns[0]
    bad = Var(e.outvars[0].aval.update(dtype=np.dtype(np.float16)))
    env = {e.outvars[0]: bad}
    eqns = [JaxprEqn(e.primitive, e.invars, [bad], e.params, e.source_info)]
    for q in j.eqns[1:]:
        eqns.append(JaxprEqn(q.primitive, [env.get(a, a) for a in q.invars], q.outvars,
                             q.params, q.source_info))
    return ClosedJaxpr(Jaxpr(j.constvars, j.invars, j.outvars, eqns), closed.consts)


def _swap_first_two(closed):
    j = closed.jaxpr
    eqns = [j.eqns[1], j.eqns[0], *j.eqns[2:]]
    return ClosedJaxpr(Jaxpr(j.constvars, j.invars, j.outvars, eqns), closed.consts)


def test_ill_typed_pass_rejected_naming_pass_and_equation():
    def f(x):
        return jnp.cos(jnp.sin(x))

    x = np.ones(3, np.float32)
    with pytest.raises(JaxprTypeError) as info:
        transforms.apply(_bad_output_type, f)(x)
    msg = str(info.value)
    assert "_bad_output_type" in msg and "sin" in msg and "f16[3]" in msg and "f32[3]" in msg
    assert "test_transforms.py" in msg  # the equation's source line
    assert info.value.eqn.primitive.name == "sin"

    with pytest.raises(JaxprTypeError, match="_swap_first_two.*cos.*before it is defined"):
        minijax.jit(transforms.apply(_swap_first_two, f))(x)

    with pytest.raises(JaxprTypeError, match="changed the program's outputs"):
        transforms.apply(lambda c: ClosedJaxpr(Jaxpr(c.jaxpr.constvars, c.jaxpr.invars,
                                                     c.jaxpr.outvars * 2, c.jaxpr.eqns),
                                               c.consts), f)(x)

    with pytest.raises(TypeError, match="replacement .* for `sin`.*f32\\[3\\]"):
        transforms.replace(f, {"sin": lambda t: t.astype(jnp.float16)})(x)

    # a nested jaxpr is checked too
    def g(xs):
        return lax.scan(lambda c, x: (c + jnp.sin(x), None), 0.0, xs)[0]

    def break_body(closed):
        j = closed.jaxpr
        eqns = [JaxprEqn(e.primitive, e.invars, e.outvars,
                         transforms.map_sub_jaxprs(e.params, _bad_output_type), e.source_info)
                for e in j.eqns]
        return ClosedJaxpr(Jaxpr(j.constvars, j.invars, j.outvars, eqns), closed.consts)

    with pytest.raises(JaxprTypeError, match="break_body.*param 'jaxpr' of `scan`.*sin"):
        transforms.apply(break_body, g)(np.ones(4, np.float32))


# ------------------------------------------------------------------------------------------------
# Simplification passes: bit-identical, and smaller


def prog_dup(x, y):
    a = jnp.sin(x) * y
    b = jnp.sin(x) * y  # CSE
    c = jnp.exp(y)  # dead
    del c
    k = jnp.full((4,), 3.0) * jnp.array(2.0)  # folded (broadcast + mul of constants)
    s = jnp.cos(jnp.array([0.5, 1.5]))  # folded with the eager executor
    return (a + b + k).reshape(4).astype(jnp.float32) + s.sum(), jnp.transpose(a, (0,))


def prog_scan(xs):
    def body(c, x):
        dead = jnp.exp(x) * 2.0
        del dead
        return c + jnp.sin(x) + jnp.sin(x), c * 1.0

    return lax.scan(body, jnp.zeros(4), xs)


@pytest.mark.parametrize("name", ["dce", "cse", "fold_constants", "simplify"])
def test_simplification_bit_identical(name):
    pass_ = getattr(transforms, name)
    x, y, xs = _x(4), _x(4, seed=1), _x(5, 4, seed=2)
    for f, args in ((prog_dup, (x, y)), (prog_scan, (xs,))):
        g = transforms.apply(pass_, f)
        for a, b in zip(minijax.tree_util.tree_leaves(g(*args)),
                        minijax.tree_util.tree_leaves(f(*args))):
            _same_bits(a, b)  # eager: the same executors
        ref = minijax.jit(f)(*args)
        for a, b in zip(minijax.tree_util.tree_leaves(minijax.jit(g)(*args)),
                        minijax.tree_util.tree_leaves(ref)):
            np.testing.assert_allclose(a, b, rtol=1e-6)  # XLA's own folding may differ by 1ulp
        gg = minijax.grad(lambda *a, g=g: jnp.sum(g(*a)[0]))(*args)
        gr = minijax.grad(lambda *a, f=f: jnp.sum(f(*a)[0]))(*args)
        _same_bits(gg, gr)


def _n(f, *args, recursive=True):
    return transforms.count_eqns(minijax.make_jaxpr(f)(*args), recursive)


def test_simplification_shrinks():
    x, y, xs = _x(4), _x(4, seed=1), _x(5, 4, seed=2)
    n0 = _n(prog_dup, x, y)
    n_dce = _n(transforms.apply(transforms.dce, prog_dup), x, y)
    n_cse = _n(transforms.apply([transforms.cse, transforms.dce], prog_dup), x, y)
    n_fold = _n(transforms.apply(transforms.fold_constants, prog_dup), x, y)
    n_all = _n(transforms.apply(transforms.simplify, prog_dup), x, y)
    assert n_dce == n0 - 1  # exp
    assert n_cse == n_dce - 2  # sin, mul
    assert n_fold <= n0 - 6  # full/mul/cos/sum/reshape/convert/transpose...
    assert n_all < min(n_cse, n_fold)
    simplified = minijax.make_jaxpr(transforms.apply(transforms.simplify, prog_dup))(x, y)
    assert [e.primitive.name for e in simplified.eqns] == ["sin", "mul", "add", "add", "add"]
    # nested: the dead exp and the repeated sin inside the scan body go
    m0 = _n(prog_scan, xs)
    m1 = _n(transforms.apply(transforms.simplify, prog_scan), xs)
    assert m1 == m0 - 4  # the zeros broadcast (folded), exp, its mul, the second sin
    body = transforms.find_eqns(
        minijax.make_jaxpr(transforms.apply(transforms.simplify, prog_scan))(xs), "scan")[0]
    names = [e.primitive.name for e in body.params["jaxpr"].eqns]
    assert names.count("sin") == 1 and "exp" not in names


def test_custom_jvp_and_checkpoint_survive_passes():
    """Replacements reach into custom_jvp/checkpoint jaxprs; the custom derivative rule stays."""
    @minijax.custom_jvp
    def f(x):
        return jnp.tanh(x) * 2.0

    f.defjvp(lambda p, t: (f(p[0]), t[0] * 3.0))
    g = minijax.checkpoint(lambda x: jnp.tanh(jnp.sin(x)))
    x = _x(5)
    ref_grad = minijax.grad(lambda x: jnp.sum(f(x) + g(x)))(x)
    for pass_ in ([], transforms.simplify):
        h = transforms.apply(pass_, lambda x: f(x) + g(x))
        _same_bits(minijax.grad(lambda x: jnp.sum(h(x)))(x), ref_grad)  # noqa: B023
    h = transforms.replace(lambda x: f(x) + g(x), {"tanh": jnp.sin})
    np.testing.assert_allclose(h(x), 2.0 * np.sin(x) + np.sin(np.sin(x)), rtol=1e-5)
    # f's custom rule (tangent * 3) is kept; the checkpointed part differentiates sin(sin(x))
    np.testing.assert_allclose(minijax.grad(lambda x: jnp.sum(h(x)))(x),
                               3.0 + np.cos(np.sin(x)) * np.cos(x), rtol=1e-5)
