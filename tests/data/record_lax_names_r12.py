"""Prints the JAX 0.10.2 values tests/test_lax_names_r12.py writes inline (those with no NumPy
twin: conv shape tuples, dot algorithms on CPU, total-order comparisons, approx_top_k's grad
and vmap, mulhi under vmap). Run under the JAX venv and compare with the test's literals:

    /work/venv_jax/bin/python tests/data/record_lax_names_r12.py
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

print("jax", jax.__version__)
nhwc = ("NHWC", "HWIO", "NHWC")
print("conv_shape_tuple", lax.conv_shape_tuple((2, 3, 9, 8), (4, 3, 3, 2), (2, 1), "SAME"),
      lax.conv_shape_tuple((2, 3, 9, 8), (4, 3, 3, 2), (2, 3), [(1, 0), (2, 2)]),
      lax.conv_shape_tuple((4, 3, 9, 8), (4, 3, 3, 2), (1, 1), "VALID", 2))
print("conv_general_shape_tuple",
      lax.conv_general_shape_tuple((2, 9, 8, 3), (3, 2, 3, 4), (2, 1), "SAME", nhwc),
      lax.conv_general_shape_tuple((2, 9, 8, 3), (3, 2, 3, 4), (1, 2), "VALID", nhwc))
print("conv_transpose_shape_tuple",
      lax.conv_transpose_shape_tuple((2, 9, 8, 3), (3, 2, 3, 4), (2, 1), "SAME", nhwc),
      lax.conv_transpose_shape_tuple((2, 9, 8, 3), (3, 2, 3, 4), (2, 3), "VALID", nhwc),
      lax.conv_transpose_shape_tuple((2, 9, 8, 3), (3, 2, 3, 4), (2, 1), [(1, 1), (0, 2)], nhwc))

x = (np.arange(6, dtype=np.float32).reshape(2, 3) / 7 + 1).astype(np.float32)
y = (np.arange(6, dtype=np.float32).reshape(3, 2) / 3 + 0.1).astype(np.float32)
for preset, dtype in [("F16_F16_F16", np.float32), ("F32_F32_F32", np.float16),
                      ("BF16_BF16_F32", np.float16)]:
    out = lax.dot(x.astype(dtype), y.astype(dtype), precision=preset)
    print("dot", preset, np.dtype(dtype).name, out.dtype, np.asarray(out, np.float32).tolist())

a = np.array([-0.0, 0.0, np.nan, -np.nan, 1.0, -np.inf], np.float32)
b = np.array([0.0, -0.0, np.nan, np.nan, 2.0, np.inf], np.float32)
for p in (lax.eq_to_p, lax.le_to_p, lax.lt_to_p):
    print(p.name, np.asarray(p.bind(a, b)).astype(int).tolist())

v = jnp.array([[3.0, 1.0, 4.0, 1.5, 9.0, 2.6], [5.0, 3.5, 8.9, 7.9, 3.2, 3.8]])
print("approx_max_k grad",
      jax.grad(lambda u: (lax.approx_max_k(u, 2)[0] * jnp.array([1.0, 2.0])).sum())(v).tolist())
print("approx_min_k vmap", jax.vmap(lambda u: lax.approx_min_k(u, 2)[1])(v).tolist(),
      jax.vmap(lambda u: lax.approx_min_k(u, 1, 0)[1], 1)(v).tolist())
print("approx_max_k aggregate_to_topk=False",
      lax.approx_max_k(jnp.arange(1000.0), 5, aggregate_to_topk=False)[0].shape)
print("mulhi vmap", jax.vmap(lax.mulhi)(jnp.arange(3, dtype=jnp.uint32) * 1000000000,
                                        np.full(3, 3000000000, np.uint32)).tolist())
