"""Writes docs/api_coverage.md: JAX's public names outside ``jax.numpy`` and whether minijax
has each one (``jax.numpy`` has its own table, docs/make_numpy_coverage.py).

    python3 docs/make_api_coverage.py          # rewrite the table
    python3 docs/make_api_coverage.py --check  # exit 1 if the committed table is stale

JAX's names are a static list written below (from JAX's API documentation, jax 0.4.3x-0.8),
not read from an installed ``jax``: minijax never imports jax, and the list should not change
with whatever version a machine happens to have. Deprecated and internal names are left out.
tests/test_api_coverage.py checks that the committed table is current.
"""

from __future__ import annotations

import importlib
import pathlib
import sys

OUT = pathlib.Path(__file__).resolve().parent / "api_coverage.md"
ROOT = OUT.parent.parent
if str(ROOT) not in sys.path:  # this checkout's minijax, not another installed one
    sys.path.insert(0, str(ROOT))

# (JAX namespace, minijax module, names). One string per namespace keeps the list easy to edit.
NAMESPACES = [
    ("jax", "minijax", """
        Array ShapeDtypeStruct block_until_ready checkpoint checkpoint_policies clear_caches
        closure_convert config custom_gradient custom_jvp custom_vjp debug default_backend
        default_matmul_precision
        device_count device_get device_put device_put_replicated device_put_sharded devices
        disable_jit dtypes effects_barrier ensure_compile_time_eval errors eval_shape float0
        grad hessian jacfwd jacobian jacrev jit jvp lax linear_transpose linearize live_arrays
        local_device_count local_devices make_array_from_callback
        make_array_from_process_local_data make_array_from_single_device_arrays make_jaxpr
        make_mesh named_call named_scope nn numpy pmap process_count process_index
        process_indices profiler pure_callback random remat shard_map sharding tree tree_util
        typeof value_and_grad vjp vmap"""),
    ("jax.lax", "minijax.lax", """
        abs acos acosh add after_all all_gather all_to_all approx_max_k approx_min_k argmax
        argmin asin asinh associative_scan atan atan2 atanh axis_index axis_size batch_matmul
        bessel_i0e bessel_i1e betainc bitcast_convert_type bitwise_and bitwise_not bitwise_or
        bitwise_xor broadcast broadcast_in_dim broadcast_shapes broadcast_to_rank
        broadcasted_iota cbrt ceil clamp clz collapse complex concatenate cond conj conv
        conv_dimension_numbers conv_general_dilated conv_general_dilated_local
        conv_general_dilated_patches conv_transpose conv_with_general_padding
        convert_element_type cos cosh cumlogsumexp cummax cummin cumprod cumsum digamma div dot
        dot_general dynamic_index_in_dim dynamic_slice dynamic_slice_in_dim
        dynamic_update_index_in_dim dynamic_update_slice dynamic_update_slice_in_dim eq erf
        erf_inv erfc exp exp2 expand_dims expm1 fft floor fori_loop full full_like gather ge gt
        igamma igammac imag index_in_dim index_take integer_pow iota is_finite le lgamma log
        log1p logistic lt map max min mul ne neg nextafter optimization_barrier pad
        platform_dependent pmax pmean pmin polygamma population_count pow ppermute pshuffle psum
        psum_scatter real reduce reduce_and reduce_max reduce_min reduce_or reduce_precision
        reduce_prod reduce_sum reduce_window reduce_xor rem reshape rev rng_bit_generator
        rng_uniform round rsqrt scan scatter scatter_add scatter_apply scatter_max scatter_min
        scatter_mul scatter_sub select select_n shift_left shift_right_arithmetic
        shift_right_logical sign sin sinh slice slice_in_dim sort sort_key_val split sqrt
        square squeeze stop_gradient sub switch tan tanh top_k transpose while_loop
        with_sharding_constraint zeros_like_array zeta
        ConvDimensionNumbers FftType GatherDimensionNumbers GatherScatterMode Precision
        RoundingMethod ScatterDimensionNumbers"""),
    ("jax.lax.linalg", "minijax.lax.linalg", """
        cholesky eig eigh hessenberg householder_product lu lu_pivots_to_permutation qr schur
        svd triangular_solve tridiagonal tridiagonal_solve"""),
    ("jax.nn", "minijax.nn", """
        celu dot_product_attention elu gelu glu hard_sigmoid hard_silu hard_swish hard_tanh
        identity initializers leaky_relu log_sigmoid log_softmax logsumexp mish one_hot relu
        relu6 selu sigmoid silu soft_sign softmax softplus sparse_plus sparse_sigmoid squareplus
        standardize swish tanh"""),
    ("jax.nn.initializers", "minijax.nn.initializers", """
        constant delta_orthogonal glorot_normal glorot_uniform he_normal he_uniform
        kaiming_normal kaiming_uniform lecun_normal lecun_uniform normal ones orthogonal
        truncated_normal uniform variance_scaling xavier_normal xavier_uniform zeros"""),
    ("jax.random", "minijax.random", """
        PRNGKey ball bernoulli beta binomial bits categorical cauchy chisquare choice clone
        dirichlet double_sided_maxwell exponential f fold_in gamma generalized_normal geometric
        gumbel key key_data key_impl laplace loggamma logistic lognormal maxwell multinomial
        multivariate_normal normal orthogonal pareto permutation poisson rademacher randint
        rayleigh split t triangular truncated_normal uniform wald weibull_min wrap_key_data"""),
    ("jax.tree_util", "minijax.tree_util", """
        DictKey FlattenedIndexKey GetAttrKey Partial PyTreeDef SequenceKey all_leaves build_tree
        default_registry keystr register_dataclass register_pytree_node
        register_pytree_node_class register_pytree_with_keys register_pytree_with_keys_class
        register_static tree_all tree_flatten tree_flatten_with_path tree_leaves
        tree_leaves_with_path tree_map tree_map_with_path tree_reduce tree_structure
        tree_transpose tree_unflatten treedef_children treedef_is_leaf treedef_tuple"""),
    ("jax.tree", "minijax.tree", """
        all flatten flatten_with_path leaves leaves_with_path map map_with_path reduce structure
        transpose unflatten"""),
    ("jax.debug", "minijax.debug", """
        breakpoint callback inspect_array_sharding print visualize_array_sharding
        visualize_sharding"""),
    ("jax.sharding", "minijax.sharding", """
        AbstractMesh AxisType Mesh NamedSharding PartitionSpec Sharding SingleDeviceSharding"""),
    ("jax.profiler", "minijax.profiler", """
        StepTraceAnnotation TraceAnnotation annotate_function device_memory_profile
        save_device_memory_profile start_server start_trace stop_server stop_trace trace"""),
]


def jax_names():
    return [(ns, mod, sorted(set(names.split()))) for ns, mod, names in NAMESPACES]


def _has(module, name):
    # getattr, not `name in dir()`: lazily loaded names (minijax.tools ...) count too.
    try:
        return getattr(module, name, None) is not None
    except Exception:  # a lazy import that fails is a missing name, not a crash of the table
        return False


def coverage():
    """[(jax namespace, minijax module name, [(name, implemented)])]."""
    out = []
    for ns, mod_name, names in jax_names():
        try:
            module = importlib.import_module(mod_name)
        except ImportError:
            module = None
        out.append((ns, mod_name, [(n, module is not None and _has(module, n)) for n in names]))
    return out


def render(sections):
    total = sum(len(rows) for _, _, rows in sections)
    done = sum(ok for _, _, rows in sections for _, ok in rows)
    lines = [
        "# minijax coverage of JAX's API (beyond jax.numpy)",
        "",
        "Generated by `python3 docs/make_api_coverage.py` (do not edit by hand; "
        "`tests/test_api_coverage.py` checks it is current). JAX's names are a static list in "
        "that script; `jax.numpy` is in [numpy_coverage.md](numpy_coverage.md).",
        "",
        f"**{done} of {total}** names exist in minijax.",
        "",
        "| JAX namespace | minijax module | present | of |",
        "|---|---|---|---|",
    ]
    for ns, mod, rows in sections:
        lines.append(f"| `{ns}` | `{mod}` | {sum(ok for _, ok in rows)} | {len(rows)} |")
    for ns, mod, rows in sections:
        missing = [n for n, ok in rows if not ok]
        lines += ["", f"## `{ns}` → `{mod}`", ""]
        lines.append("Missing: " + (", ".join(f"`{n}`" for n in missing) if missing else "none")
                     + ".")
        lines += ["", "| name | minijax |", "|---|---|"]
        lines += [f"| `{n}` | {'yes' if ok else '—'} |" for n, ok in rows]
    return "\n".join(lines) + "\n", done


def main(argv):
    text, done = render(coverage())
    if "--check" in argv:
        current = OUT.read_text() if OUT.exists() else ""
        if current != text:
            print(f"{OUT} is stale: run python3 docs/make_api_coverage.py")
            return 1
        print(f"{OUT} is current ({done} present)")
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT}: {done} present")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
