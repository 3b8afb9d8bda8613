"""Cases of tests/test_fidelity_r22_lead.py (a by-hand sweep of jnp.linalg, jax.scipy.linalg
and lax.linalg), evaluated by JAX 0.10.2 (the recorder) and by minijax. Each is an expression
over SETUP's names giving a JSON-able outcome: an error's type and message, or a value's dtype
and its numbers.
"""

SETUP = """
L = jax.lax.linalg
I = jnp.array([[2, 1], [1, 3]], jnp.int32)
R = jnp.ones((2, 3, 4), jnp.float32)
V = jnp.ones((3,), jnp.float32)
A = jnp.array([[4., 1., 2.], [1., 3., 0.5], [2., 0.5, 5.]], jnp.float32)
C = jnp.array([[4, 1+1j], [2, 3]], jnp.complex64)
def outcome(thunk):
    try:
        out = thunk()
    except Exception as e:
        return [type(e).__name__, str(e).split(chr(10))[0]]
    return [[str(l.dtype), np.asarray(l).astype(np.complex128 if l.dtype.kind == 'c' else np.float64).view(np.float64).tolist()]
            for l in jax.tree_util.tree_leaves(out)]
"""

CASES = [
    # Pade approximants summed from the highest power down, as JAX: float32 bits agree
    "outcome(lambda: jax.scipy.linalg.expm(A))",
    "outcome(lambda: jax.scipy.linalg.expm(A / 8))",
    "outcome(lambda: jax.scipy.linalg.expm(A / 40))",
    "outcome(lambda: jax.jit(jax.scipy.linalg.expm)(A * 3))",
    "outcome(lambda: jax.grad(lambda a: jax.scipy.linalg.expm(a).sum())(A / 8))",
    # lu's permutation matrix is real for complex input
    "outcome(lambda: jax.scipy.linalg.lu(C))",
    "outcome(lambda: jax.scipy.linalg.lu(C, permute_l=True))",
    # polar does not promote integers
    "outcome(lambda: jax.scipy.linalg.polar(I))",
    "outcome(lambda: jax.scipy.linalg.polar(I, method='svd'))",
    # linalg.outer wants vectors
    "outcome(lambda: jnp.linalg.outer(jnp.arange(3), jnp.arange(2.)))",
    "outcome(lambda: jnp.linalg.outer(jnp.ones((2, 2)), jnp.ones(2)))",
    # JAX's words and types for shapes and dtypes linalg refuses
    "outcome(lambda: jnp.linalg.matrix_power(V, 2))",
    "outcome(lambda: jnp.linalg.matrix_power(R, 2))",
    "outcome(lambda: jnp.linalg.det(V))",
    "outcome(lambda: jnp.linalg.det(R))",
    "outcome(lambda: jnp.linalg.slogdet(R))",
    "outcome(lambda: jnp.linalg.inv(R))",
    "outcome(lambda: jax.scipy.linalg.inv(R))",
    "outcome(lambda: jnp.linalg.eigvals(R))",
    "outcome(lambda: jnp.linalg.eig(R))",
    "outcome(lambda: jax.scipy.linalg.sqrtm(R))",
    "outcome(lambda: jax.scipy.linalg.schur(R))",
    "outcome(lambda: jax.scipy.linalg.schur(I))",
    "outcome(lambda: jax.scipy.linalg.hessenberg(R))",
    "outcome(lambda: jax.scipy.linalg.hessenberg(I))",
    "outcome(lambda: L.lu(I))",
    "outcome(lambda: L.lu(V))",
    "outcome(lambda: L.svd(I))",
    "outcome(lambda: L.svd(V))",
    "outcome(lambda: L.eig(R))",
    "outcome(lambda: L.eig(V))",
    "outcome(lambda: L.schur(V))",
    "outcome(lambda: L.hessenberg(V))",
    "outcome(lambda: L.householder_product(R, jnp.ones((2, 1))))",
    "outcome(lambda: L.householder_product(I, jnp.ones((1,), jnp.int32)))",
    "outcome(lambda: L.triangular_solve(I, I))",
    "outcome(lambda: L.triangular_solve(jnp.eye(2), jnp.ones((2, 2), jnp.int32)))",
    "outcome(lambda: L.triangular_solve(R, R))",
    "outcome(lambda: L.triangular_solve(V, V))",
    # lax's elementwise dtype errors: JAX's type names, and the operand's position (n-ary)
    "outcome(lambda: jax.lax.add(jnp.array(True), jnp.array(True)))",
    "outcome(lambda: jax.lax.rem(jnp.array(True), jnp.array(True)))",
    "outcome(lambda: jax.lax.lt(jnp.array(1j), jnp.array(1j)))",
    "outcome(lambda: jax.lax.pow(jnp.array(1), 2.0))",
    "outcome(lambda: jax.lax.pow(2.0, jnp.array(True)))",
    "outcome(lambda: jax.lax.neg(jnp.array(True)))",
    "outcome(lambda: jax.lax.abs(jnp.array(True)))",
    "outcome(lambda: jax.lax.conj(jnp.array(1)))",
    "outcome(lambda: jax.lax.imag(jnp.array(1.0)))",
    "outcome(lambda: jax.lax.bitwise_not(jnp.array(1.0)))",
    "outcome(lambda: jax.lax.cumsum(jnp.array([True])))",
    "outcome(lambda: jax.lax.reduce_window(jnp.ones(3, bool), False, jax.lax.add, (1,), (1,), 'VALID'))",
    "outcome(lambda: jax.nn.sigmoid(jnp.arange(3)))",
    # hard_silu of integers: a weak float, as x * hard_sigmoid(x) promotes
    "[outcome(lambda: jax.nn.hard_silu(jnp.arange(3))), jax.nn.hard_silu(jnp.arange(3)).weak_type]",
]
