"""Records what JAX 0.10.2 does on each user call that reaches a ``NotImplementedError`` raise in
minijax (tests/test_not_implemented_audit.py reads the table). Run under the JAX venv:

    /work/venv_jax/bin/python tests/data/record_not_implemented.py

Each row's ``call`` is Python run with ``jax``, ``jnp`` (jax.numpy) and ``np`` bound; the test
runs the same text with ``jax`` replaced by ``minijax``. A row whose ``call`` is None names a
raise no cheap CPU call reaches (``why`` says which, and what JAX does there)."""
import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np

X = "jnp.arange(4.0)"
A = "jnp.array([[2.0, 1.0], [1.0, 3.0]])"

ROWS = [
    # minijax/numpy
    ("numpy/array_methods.py", "_to_device", f"{X}.to_device(jax.devices()[0], stream=1)"),
    ("numpy/array_methods.py", "_view", f"{X}.view(np.float32, type=np.ndarray)"),
    ("numpy/array_methods.py", "_flat", f"{X}.flat"),
    ("numpy/creation.py", "_array", "jnp.array([1.0, 2.0], order='C')"),
    ("numpy/creation.py", "asarray", "jnp.asarray([1.0, 2.0], order='F')"),
    ("numpy/einsum.py", "einsum", f"jnp.einsum('i->', {X}, out={X})"),
    ("numpy/einsum.py", "_contract", f"jnp.einsum('i,i,i->', {X}, {X}, {X}, optimize=[(0, 1, 2)])"),
    ("numpy/indexing_routines.py", "fill_diagonal",
     "jnp.fill_diagonal(jnp.zeros((2, 2)), 1.0)"),
    ("numpy/indexing_routines.py", "fill_diagonal",
     "jnp.fill_diagonal(jnp.zeros((2, 2)), 1.0, wrap=True, inplace=False)"),
    ("numpy/indexing_routines.py", "compress", f"jnp.compress(jnp.array([True]), {X}, out={X})"),
    ("numpy/indexing_routines.py", "_take", f"jnp.take({X}, jnp.array([0]), out={X})"),
    ("numpy/indexing_routines.py", "_take", f"jnp.take({X}, jnp.array([0]), mode='raise')"),
    ("numpy/linear_algebra.py", "outer", f"jnp.outer({X}, {X}, out={X})"),
    ("numpy/linear_algebra.py", "trace", f"jnp.trace({A}, out={X})"),
    ("numpy/logic.py", "_isposneginf", f"jnp.isposinf({X}, out={X})"),
    ("numpy/manipulation.py", "reshape", f"jnp.reshape({X}, (2, 2), order='A')"),
    ("numpy/manipulation.py", "ravel", f"jnp.ravel({X}, order='K')"),
    ("numpy/manipulation.py", "pad", f"jnp.pad({X}, 1, mode='foo')"),
    ("numpy/manipulation.py", "stack", f"jnp.stack([{X}, {X}], out={X})"),
    ("numpy/math.py", "round", f"jnp.round({X}, out={X})"),
    ("numpy/math.py", "round", "jnp.round(jnp.arange(4), -1)"),
    ("numpy/math.py", "gradient", f"jnp.gradient({X}, edge_order=1)"),
    ("numpy/math.py", "modf", f"jnp.modf({X}, out={X})"),
    ("numpy/reductions.py", "_no_out", f"jnp.sum({X}, out={X})"),
    ("numpy/reductions.py", "_reduction",
     "jax.vmap(lambda x: jnp.prod(x, axis='i'), axis_name='i')(jnp.ones((2, 3)))"),
    ("random/_keys.py", "_abstract.method", "jax.random.key(0).sum()"),
    ("numpy/sorting.py", "partition", "jnp.partition(jnp.arange(4) + 0j, 1)"),
    ("numpy/sorting.py", "argpartition", "jnp.argpartition(jnp.arange(4) + 0j, 1)"),
    ("numpy/sorting.py", "nanargmin", f"jnp.nanargmin({X}, out={X})"),
    ("numpy/sorting.py", "nanargmax", f"jnp.nanargmax({X}, out={X})"),
    ("numpy/statistics.py", "histogram_bin_edges", f"jnp.histogram_bin_edges({X}, bins='auto')"),
    ("numpy/statistics.py", "_quantile", f"jnp.quantile({X}, 0.5, weights=jnp.ones(4))"),
    ("numpy/conversion.py", "fromfile", "jnp.fromfile('data.bin', dtype=np.float32)"),
    ("numpy/conversion.py", "fromiter", "jnp.fromiter(iter([1.0, 2.0]), dtype=float)"),
    ("numpy/ufunc_api.py", "ufunc.reduce", f"jnp.add.reduce({X}, out=0)"),
    ("numpy/ufunc_api.py", "ufunc._reduce_via_scan",
     "jnp.frompyfunc(lambda a, b: a + b, 2, 1, identity=0.0).reduce(jnp.ones((2, 2)), "
     "axis=(0, 1))"),
    ("numpy/ufunc_api.py", "ufunc.accumulate", f"jnp.add.accumulate({X}, out={X})"),
    ("numpy/ufunc_api.py", "ufunc.at", f"jnp.add.at({X}, 0, 1.0)"),
    ("numpy/ufunc_api.py", "ufunc.reduceat", f"jnp.add.reduceat({X}, jnp.array([0, 2]), out={X})"),
    ("numpy/ufunc_api.py", "_vectorized_call.call",
     f"jnp.frompyfunc(lambda a, b: a + b, 2, 1)({X}, {X}, out={X})"),
    ("numpy/ufunc_api.py", "_vectorized_call.call",
     f"jnp.frompyfunc(lambda a, b: a + b, 2, 1)({X}, {X}, where={X} > 1)"),
    # minijax/nn
    ("nn/scaled_matmul.py", "_lowering",
     "jax.nn.scaled_matmul(jnp.ones((1, 2, 4)), jnp.ones((1, 2, 4)), jnp.ones((1, 2, 2)), "
     "jnp.ones((1, 2, 2)))"),
    # minijax/sharding.py
    ("sharding.py", "explicit_axes.wrapped",
     "jax.shard_map(lambda a: jax.sharding.explicit_axes(lambda b: b, axes='x', "
     "in_sharding=jax.sharding.PartitionSpec())(a), mesh=jax.make_mesh((1,), ('x',), "
     "axis_types=(jax.sharding.AxisType.Auto,)), in_specs=jax.sharding.PartitionSpec('x'), "
     "out_specs=jax.sharding.PartitionSpec('x'))(jnp.arange(2.0))"),
    ("sharding.py", "make_single_device_sharding",
     "jax.device_put(jnp.arange(3.0), jax.sharding.make_single_device_sharding("
     "jax.devices()[0], memory_kind='pinned_host')) * 2"),
    # minijax/scipy
    ("scipy/_bessel_sph_harm.py", "sph_harm_y",
     "jax.scipy.special.sph_harm_y(jnp.array([1]), jnp.array([0]), jnp.array([0.5]), "
     "jnp.array([0.5]), diff_n=1)"),
    ("scipy/_fresnel.py", "fresnel", "jax.scipy.special.fresnel(jnp.ones(2, jnp.complex64))"),
    ("scipy/_schur_based.py", "sqrtm", f"jax.scipy.linalg.sqrtm({A}, blocksize=2)"),
    ("scipy/fft.py", "_check", f"jax.scipy.fft.dct({X}, type=3)"),
    ("scipy/interpolate.py", "RegularGridInterpolator.__init__",
     f"jax.scipy.interpolate.RegularGridInterpolator(({X},), {X}, bounds_error=True)"),
    ("scipy/linalg.py", "_eigh", f"jax.scipy.linalg.eigh({A}, {A})"),
    ("scipy/linalg.py", "_eigh", f"jax.scipy.linalg.eigh({A}, type=2)"),
    ("scipy/linalg.py", "_eigh", f"jax.scipy.linalg.eigh({A}, eigvals=(0, 1))"),
    ("scipy/linalg.py", "eigh_tridiagonal",
     "jax.scipy.linalg.eigh_tridiagonal(jnp.ones(3), jnp.ones(2), select='v', "
     "select_range=(0.0, 1.0))"),
    ("scipy/linalg.py", "_polar_2d",
     "jax.scipy.linalg.polar(jnp.ones((2, 3)), side='right', method='qdwh')"),
    ("scipy/ndimage.py", "_map_coordinates",
     f"jax.scipy.ndimage.map_coordinates({X}, [{X}], order=1, mode='foo')"),
    ("scipy/ndimage.py", "_map_coordinates",
     f"jax.scipy.ndimage.map_coordinates({X}, [{X}], order=3)"),
    ("scipy/signal.py", "_check_2d",
     f"jax.scipy.signal.convolve2d({A}, {A}, boundary='wrap')"),
    ("scipy/signal.py", "detrend", f"jax.scipy.signal.detrend({X}, overwrite_data=True)"),
    ("scipy/spatial/transform.py", "Rotation.random",
     "from jax.scipy.spatial.transform import Rotation\nRotation.random(jax.random.key(0))"),
    ("scipy/special.py", "factorial", "jax.scipy.special.factorial(3, exact=True)"),
    ("scipy/special.py", "zeta", "jax.scipy.special.zeta(2.0)"),
    ("scipy/stats/_core.py", "_check_nan_policy",
     f"jax.scipy.stats.mode({X}, nan_policy='omit')"),
    ("scipy/stats/_core.py", "_check_nan_policy",
     f"jax.scipy.stats.mode({X}, nan_policy='raise')"),
    ("scipy/stats/_kde.py", "gaussian_kde.__init__",
     "jax.scipy.stats.gaussian_kde(jnp.arange(4) + 0j)"),
    ("scipy/stats/_kde.py", "gaussian_kde.integrate_box",
     f"jax.scipy.stats.gaussian_kde({X}).integrate_box(0.0, 1.0)"),
    ("scipy/stats/_kde.py", "gaussian_kde.set_bandwidth",
     f"jax.scipy.stats.gaussian_kde({X}).set_bandwidth('scott')"),
    ("scipy/stats/_kde.py", "gaussian_kde._reshape_points",
     f"jax.scipy.stats.gaussian_kde({X}).evaluate(jnp.arange(4) + 0j)"),
    ("scipy/stats/multivariate_normal.py", "logpdf",
     "jax.scipy.stats.multivariate_normal.logpdf(jnp.zeros(2), jnp.zeros(2), jnp.eye(2), "
     "allow_singular=True)"),
    # minijax/lax and transformations
    ("lax/linalg.py", "_svd_jvp",
     "jax.jvp(lambda a: jnp.linalg.svd(a, full_matrices=True), (jnp.ones((2, 3)),), "
     "(jnp.ones((2, 3)),))"),
    ("lax/linalg.py", "_eig_jvp",
     f"jax.jvp(lambda a: jax.lax.linalg.eig(a)[1], ({A},), ({A},))"),
    ("lax/windowed_reductions.py", "_select_and_gather_add_transpose",
     "jax.grad(lambda x: jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (2,), (1,), 'VALID', "
     "window_dilation=(2,)).sum())(jnp.arange(5.0))"),
    ("lax/linalg.py", "_schur_lowering", f"jax.lax.linalg.schur({A}, sort_eig_vals=True)"),
    ("lax/linalg.py", "_eigh_lowering",
     f"jax.lax.linalg.eigh({A}, implementation=jax.lax.linalg.EighImplementation.QDWH)"),
    ("lax/linalg.py", "_eigh_lowering",
     f"jax.lax.linalg.eigh({A}, implementation=jax.lax.linalg.EighImplementation.JACOBI)"),
    ("lax/linalg.py", "_svd_lowering",
     f"jax.lax.linalg.svd({A}, algorithm=jax.lax.linalg.SvdAlgorithm.JACOBI)"),
    ("lax/linalg.py", "_eigh_lowering", f"jax.lax.linalg.eigh({A}, subset_by_index=(0, 1))"),
    ("lax/linalg.py", "_eigh_jvp",
     f"jax.jvp(lambda a: jax.lax.linalg.eigh(a, subset_by_index=(0, 1)), ({A},), ({A},))"),
    ("lax/linalg.py", "_svd_lowering",
     f"jax.lax.linalg.svd({A}, full_matrices=False, subset_by_index=(0, 1))"),
    ("lax/accuracy.py", "accuracy_attr",
     "jax.jit(lambda x: jax.lax.exp(x, accuracy=3)).lower(1.0)"),
    ("lax/linalg_ffi.py", "check_kernel_dtype",
     "jnp.linalg.cholesky(jnp.eye(2, dtype=jnp.float16))"),
    ("lax/indexing.py", "_scatter_transpose",
     "dn = jax.lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), "
     "scatter_dims_to_operand_dims=(0,))\n"
     "jax.linear_transpose(lambda u: jax.lax.scatter(jnp.zeros(3), jnp.array([[0], [0]]), u, dn), "
     "jnp.ones(2))(jnp.ones(3))"),
    ("lax/scatter_combine.py", "_mul_jvp",
     "jax.jvp(lambda u: jnp.ones(3).at[jnp.array([0, 0])].multiply(u), (jnp.ones(2),), "
     "(jnp.ones(2),))"),
    ("lax/scatter_combine.py", "_mul_transpose",
     "jax.linear_transpose(lambda u: jax.lax.scatter_mul(jnp.ones(3), jnp.array([[0], [0]]), u, "
     "jax.lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), "
     "scatter_dims_to_operand_dims=(0,))), jnp.ones(2))(jnp.ones(3))"),
    ("lax/indexing.py", "_scatter_jvp",
     "jax.jvp(lambda x: jax.lax.scatter_apply(x, jnp.array([[0]]), jnp.sin, "
     "jax.lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), "
     "scatter_dims_to_operand_dims=(0,))), (jnp.ones(3),), (jnp.ones(3),))"),
    ("lax/parallel.py", "_no_eval_rule", "jax.lax.ppermute(jnp.ones(2), 'i', [(0, 1)])"),
    ("lax/parallel.py", "_no_groups",
     "jax.vmap(lambda x: jax.lax.psum(x, 'i', axis_index_groups=[[0, 1]]), axis_name='i')"
     "(jnp.ones(2))"),
    ("lax/parallel.py", "_no_groups",
     "jax.vmap(lambda x: jax.lax.all_gather(x, 'i', axis_index_groups=[[0, 1]]), axis_name='i')"
     "(jnp.ones(2))"),
    ("lax/parallel.py", "_no_groups",
     "jax.vmap(lambda x: jax.lax.all_to_all(x, 'i', 0, 0, axis_index_groups=[[0, 1]]), "
     "axis_name='i')(jnp.ones((2, 2)))"),
    # an outer axis of size 1: JAX's all_gather rule first asserts the gathered size
    ("lax/parallel.py", "_single_own_name",
     "jax.vmap(jax.vmap(lambda x: jax.lax.all_gather(x, ('i', 'j')), axis_name='j'), "
     "axis_name='i')(jnp.ones((1, 2)))"),
    ("lax/parallel.py", "_all_to_all_batching",
     "jax.vmap(jax.vmap(lambda x: jax.lax.all_to_all(x, ('i', 'j'), 0, 0, tiled=True), "
     "axis_name='j'), axis_name='i')(jnp.arange(16.0).reshape(2, 2, 4))"),
    ("lax/parallel.py", "_all_to_all_batching",
     "jax.vmap(jax.vmap(lambda x: jax.lax.all_to_all(x, ('j', 'i'), 1, 0, tiled=True), "
     "axis_name='j'), axis_name='i')(jnp.arange(144.0).reshape(2, 3, 2, 12))"),
    ("lax/parallel.py", "_all_to_all_batching",
     "jax.vmap(jax.vmap(jax.vmap(lambda x: jax.lax.all_to_all(x, ('i', 'j', 'k'), 0, 1), "
     "axis_name='k'), axis_name='j'), axis_name='i')(jnp.arange(192.0).reshape(2, 2, 2, 8, 3))"),
    ("lax/parallel.py", "_ppermute_batching",
     "jax.vmap(jax.vmap(lambda x: jax.lax.ppermute(x, ('i', 'j'), [(0, 1), (1, 0)]), "
     "axis_name='j'), axis_name='i')(jnp.arange(4.0).reshape(2, 2))"),
    ("lax/parallel.py", "_pbroadcast_batching",
     "jax.vmap(jax.vmap(lambda x: jax.lax.pbroadcast(x, ('i', 'j'), 0), axis_name='j'), "
     "axis_name='i')(jnp.ones((2, 2)))"),
    ("lax/parallel.py", "_pbroadcast_lowering",
     "jax.shard_map(lambda x: jax.lax.pbroadcast(x, 'i', 0), mesh=jax.make_mesh((1,), ('i',)), "
     "in_specs=jax.P(), out_specs=jax.P(), check_vma=False)(jnp.ones(2))"),
    ("lax/platform.py", "_platform_index_lowering",
     "jax.jit(lambda x: jax.lax.platform_dependent(x, tpu=jnp.sin))(1.0)"),
    ("lax/ragged_dot.py", "ragged_dot_general",
     "jax.lax.ragged_dot(jnp.ones((4, 2)), jnp.ones((2, 2, 3)), jnp.array([2, 2], jnp.int32), "
     "group_offset=jnp.array([0], jnp.int32))",
     "JAX 0.10.2 fails hashing group_offset as a primitive parameter (TypeError); minijax "
     "raises the NotImplementedError of JAX's own off-TPU implementation"),
    ("custom_derivatives.py", "custom_vjp.defvjp",
     "jax.custom_vjp(lambda x: x).defvjp(lambda x: (x, None), lambda r, g: (g,), "
     "symbolic_zeros=True, optimize_remat=True)"),
    ("custom_derivatives.py", "_custom_lin_jvp",
     "f = jax.custom_vjp(jnp.sin)\n"
     "f.defvjp(lambda x: (jnp.sin(x), x), lambda x, g: (g * jnp.cos(x),))\n"
     "jax.grad(lambda x: jax.jvp(f, (x,), (1.0,))[1])(1.0)"),
    ("lax/control_flow/solves.py", "_linear_solve_transpose",
     "a = jnp.array([[4.0, 1.0], [2.0, 3.0]])\n"
     "jax.linear_transpose(lambda m: jax.lax.custom_linear_solve(lambda x: m @ x, jnp.ones(2), "
     "lambda mv, x: jnp.linalg.solve(m, x), lambda vm, x: jnp.linalg.solve(m.T, x)), a)"
     "(jnp.ones(2))"),
    ("lax/control_flow/solves.py", "_linear_solve_transpose",
     "a = jnp.array([[4.0, 1.0], [2.0, 3.0]])\n"
     "f = lambda b: jax.lax.custom_linear_solve(lambda x: a @ x, b, lambda mv, x: "
     "(jnp.linalg.solve(a, x), x.sum()), lambda vm, x: (jnp.linalg.solve(a.T, x), x.sum()), "
     "has_aux=True)\n"
     "jax.linear_transpose(f, jnp.ones(2))((jnp.ones(2), 1.0))"),
    ("lax/general_reduce.py", "_reduction_jaxpr",
     "jax.jit(lambda y: jax.lax.reduce(jnp.ones(3), 0.0, lambda a, b: a + b * y, (0,)))(2.0)"),
    ("lax/general_reduce.py", "reduce",
     "jax.lax.reduce(jnp.ones(3), 1.0, jax.lax.mul, (0,), out_sharding=jax.P())"),
    ("lax/general_reduce.py", "_reduce_batching",
     "jax.vmap(lambda i: jax.lax.reduce(jnp.ones(3), i, lambda a, b: a + b, (0,)))(jnp.ones(2))"),
    ("lax/general_reduce.py", "_reduce_jvp_rule",
     "jax.grad(lambda i: jax.lax.reduce(jnp.ones(3), i, lambda a, b: a + b, (0,)))(1.0)"),
    ("callbacks.py", "_pure_batching",
     "jax.vmap(lambda x: jax.pure_callback(np.sin, jax.ShapeDtypeStruct((), jnp.float32), x))"
     "(jnp.ones(2))"),
    ("callbacks.py", "_pure_batching",
     "jax.vmap(lambda x: jax.pure_callback(np.sin, jax.ShapeDtypeStruct((), jnp.float32), x, "
     "vmap_method='sequential_unrolled'))(jnp.arange(2.0))"),
    ("callbacks.py", "_pure_batching",
     "jax.vmap(lambda x: jax.pure_callback(lambda a, b: a * b.sum(), "
     "jax.ShapeDtypeStruct((2,), jnp.float32), x, jnp.arange(3.0), "
     "vmap_method='legacy_vectorized'))(jnp.ones((3, 2)))"),
    ("random/_threefry.py", "iota_2x32_shape",
     "jax.eval_shape(lambda k: jax.random.bits(k, (2**16, 2**16)), jax.random.key(0)).shape"),
    ("random/_threefry.py", "iota_2x32_shape",
     "jax.eval_shape(lambda k: jax.random.bits(k, (2**32,)), jax.random.key(0)).shape"),
    ("random/_keys.py", "_check_bits_size",
     "jax.jit(lambda k: jax.random.bits(k, (2**33, 2**32))).lower(jax.random.key(0))"),
    ("random/_keys.py", "_check_bits_size",
     "jax.jit(lambda k: jax.random.bits(k, (2**33, 2**32)))"
     ".lower(jax.random.key(0, impl='philox4x32'))"),
    ("random/_counts.py", "poisson",
     "jax.random.poisson(jax.random.key(0, impl='rbg'), 3.0, (2,))"),
    ("core.py", "Primitive.missing_rule",
     "from jax.extend.core import Primitive\n"
     "p = Primitive('no_rules')\n"
     "jax.jit(p.bind)(1.0)"),
    ("core.py", "Primitive.missing_rule",
     "from jax.extend.core import Primitive\n"
     "p = Primitive('no_rules')\n"
     "p.def_abstract_eval(lambda x: x)\n"
     "jax.vmap(p.bind)(jnp.ones(2))"),
    ("core.py", "Primitive.missing_rule",
     "from jax.extend.core import Primitive\n"
     "p = Primitive('no_rules')\n"
     "p.def_abstract_eval(lambda x: x)\n"
     "jax.jvp(p.bind, (1.0,), (1.0,))"),
    ("interpreters/ad.py", "backward_pass",
     "from jax.interpreters import ad\n"
     "from jax.extend.core import Primitive\n"
     "p = Primitive('no_transpose')\n"
     "p.def_impl(lambda x: x)\n"
     "p.def_abstract_eval(lambda x: x)\n"
     "ad.primitive_jvps[p] = lambda ps, ts: (p.bind(*ps), p.bind(*ts))\n"
     "jax.grad(p.bind)(1.0)"),
    ("lowering/stablehlo.py", "lower_jaxpr_body",
     "from jax.extend.core import Primitive\n"
     "p = Primitive('no_rules')\n"
     "p.def_abstract_eval(lambda x: x)\n"
     "jax.jit(p.bind)(1.0)"),
]

# Raises no cheap CPU call reaches: (file, function, why).
INTERNAL = [
    ("core.py", "Trace.process_primitive",
     "abstract method, every trace overrides it; JAX's core.Trace.process_primitive raises too"),
    ("core.py", "Tracer.aval",
     "abstract property, every tracer overrides it; JAX's core.Tracer.aval raises too"),
    ("interpreters/rule_views.py", "JaxLowering.__call__",
     "a JAX-style lowering registered for another platform only (a GPU compile); JAX 0.10.2's "
     "NotImplementedError(\"MLIR translation rule for primitive 'p' not found for platform "
     "...\"), the same words"),
    ("lax/linalg.py", "_cpu_only",
     "hessenberg/schur compiled for GPU; JAX 0.10.2 registers them for cpu only and says "
     "NotImplementedError(\"MLIR translation rule for primitive 'schur' not found for platform "
     "cuda\")"),
    ("lax/linalg.py", "_eig_gpu_magma_mode",
     "eig(implementation=CUSOLVER, compute_left_eigenvectors=True) compiled for GPU: JAX 0.10.2 "
     "raises NotImplementedError(\"Left eigenvectors are not supported by cusolver\"), the "
     "same words"),
    ("lax/linalg.py", "_svd_lowering",
     "svd(algorithm=DIVIDE_AND_CONQUER) compiled for CUDA: JAX 0.10.2 raises the same "
     "NotImplementedError (ROCm only)"),
    ("lax/linalg.py", "_svd_lowering",
     "svd with an algorithm outside SvdAlgorithm compiled for GPU: JAX 0.10.2 raises the same "
     "NotImplementedError(\"Unsupported SVD algorithm on GPU: ...\")"),
    ("interpreters/batching.py", "BatchTrace.process_primitive",
     "internal guard: every public primitive holding a jaxpr (cond, loops, jit, custom_jvp/vjp, "
     "checkpoint) has an axis-data batching rule; no user call found"),
    ("interpreters/batching.py", "check_outer_axes",
     "internal guard: vmap(grad/jacrev/jacfwd) of custom_jvp/custom_vjp with psum over the axis "
     "computes as JAX does (probed); no user call found reaching it"),
    ("interpreters/walk.py", "map_sub_jaxprs.one",
     "internal invariant of minijax's jaxpr rewrites; no user call"),
    ("experimental/checkify.py", "_Checkifier.run_nested",
     "internal guard: a check inside a nested-jaxpr primitive other than cond/scan/while/jit/"
     "custom_jvp/custom_vjp/checkpoint/shard_map; minijax has no other public one"),
    ("lowering/jaxlib_ext.py", "shard_indices",
     "host data placed with a non-tiled, non-replicated HloSharding (manual/unreduced): "
     "jax.device_put takes no such sharding from a user"),
]


def run(code):
    """(exception type, message, None) when the call raises, else (None, None, its value)."""
    *body, last = code.split("\n")
    env = {"jax": jax, "jnp": jnp, "np": np}
    try:
        exec("\n".join(body), env)
        value = eval(last, env)
    except Exception as e:  # noqa: BLE001 - the exception is the record
        return type(e).__name__, str(e), None
    return None, None, np.asarray(value).tolist()


def main():
    out = []
    for file, function, call, *divergence in ROWS:
        etype, msg, value = run(call)
        row = dict(file=file, function=function, call=call, jax_exception=etype,
                   jax_message=msg)
        if value is not None:
            row["jax_value"] = value
        if divergence:
            row["divergence"] = divergence[0]
        out.append(row)
        print(f"{file}:{function}: {etype}: {msg if msg is None else msg[:200]!r} {value}")
    for file, function, why in INTERNAL:
        out.append(dict(file=file, function=function, call=None, why=why))
    path = pathlib.Path(__file__).with_name("not_implemented_jax_0102.json")
    path.write_text(json.dumps(dict(jax_version=jax.__version__, rows=out), indent=1) + "\n")


if __name__ == "__main__":
    main()
