"""Cases of tests/test_fidelity_r31_lead.py, evaluated by JAX 0.10.2 (the recorder) and by
minijax: `lax.convert_element_type` of a Python or NumPy scalar to a strong dtype converts with
NumPy before it binds, under any trace (so under `jit` a complex scalar to bool is NumPy's
nonzero test and a Python complex to a real dtype NumPy's TypeError), and only then folds.
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
]
