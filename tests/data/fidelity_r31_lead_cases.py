"""Cases of tests/test_fidelity_r31_lead.py, evaluated by JAX 0.10.2 (the recorder) and by
minijax: `lax.convert_element_type` of a Python or NumPy scalar to a strong dtype converts with
NumPy before it binds, under any trace (so under `jit` a complex scalar to bool is NumPy's
nonzero test and a Python complex to a real dtype NumPy's TypeError), and only then folds; a
custom_vjp function called in a `while_loop` body and its result dropped, under forward mode
(JAX lowers a while body whole, so the dead `custom_lin` raises where the loop's results are
used; scan and cond bodies lose it).
Each is an expression over SETUP's names giving a JSON-able outcome.
"""

SETUP = """
import warnings
lax = jax.lax
def outcome(thunk):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = thunk()
        except Exception as e:
            return ["raises", type(e).__name__, str(e).split("\\n")[0][:60]]
    return [list(out.shape), str(out.dtype), np.asarray(out, np.float64).ravel().tolist()]
def both(make):
    return [outcome(make), outcome(jax.jit(make))]
@jax.custom_vjp
def cv(x, y):
    return x * y
cv.defvjp(lambda x, y: (x * y, (x, y)), lambda r, g: (g * r[1], g * r[0]))
def loop(kind):
    def run(a, b, c):
        if kind == "scan":  # the custom_vjp's tangent dies at trunc's symbolic zero
            return lax.scan(lambda c, _: (jnp.trunc(cv(b, a)) + c * b, None), c, None,
                            length=2)[0]
        def body(ic):
            i, c = ic
            cv(b, a)
            if kind == "where":
                return i + 1, jnp.where(a > 0, b, c)
            if kind == "carried":
                return i + 1, c
            return i + 1, c * b
        return lax.while_loop(lambda ic: ic[0] < 2, body, (0, c))[1]
    return run
args3 = (jnp.ones(3), jnp.full(3, 2.0), jnp.full(3, 3.0))
def fwd(kind, how):
    f = loop(kind)
    if how == "jvp":
        return outcome(lambda: jax.jvp(f, args3, args3)[1])
    if how == "jit_jvp":
        return outcome(lambda: jax.jit(lambda *a: jax.jvp(f, a, a)[1])(*args3))
    return outcome(lambda: jax.linearize(f, *args3)[1](*args3))
"""

CASES = [
    f"both(lambda: lax.convert_element_type({v}, {t}))" for v, t in [
        ("np.complex64(1j)", "bool"), ("np.complex64(-1.5j)", "bool"), ("1j", "bool"),
        ("1j", "jnp.float32"), ("1 + 2j", "jnp.int32"), ("np.complex64(1 + 2j)", "jnp.float32"),
        ("np.float32(300.7)", "jnp.int8"), ("2 ** 40", "jnp.float32"),
        ("float('inf')", "jnp.int32"), ("float('nan')", "bool"), ("np.float64(-0.0)", "bool"),
        ("True", "jnp.float32"), ("np.int8(-3)", "jnp.uint8")]
] + [
    "str(jax.make_jaxpr(lambda x: x + lax.convert_element_type(np.complex64(1j), bool))(True))",
    "str(jax.make_jaxpr(lambda x: x * lax.convert_element_type(2.5, jnp.int32))(3))",
] + [
    f"fwd({kind!r}, {how!r})" for kind in ("where", "carried", "scaled", "scan")
    for how in ("jvp", "jit_jvp", "linearize")
]
