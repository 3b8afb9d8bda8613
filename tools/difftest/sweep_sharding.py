"""Sweep of JAX's sharding in types (Explicit mesh axes): one line per case.

Run under JAX 0.10.2 (the oracle) and under minijax, then diff:

    cd /tmp && XLA_FLAGS=--xla_force_host_platform_device_count=8 \
        /work/venv_jax/bin/python /work/main/tools/difftest/sweep_sharding.py > jax.txt
    cd /tmp && XLA_FLAGS=--xla_force_host_platform_device_count=8 PYTHONPATH=/work/main \
        python3 -m minijax.run_as_jax /work/main/tools/difftest/sweep_sharding.py > mj.txt
    diff jax.txt mj.txt

Each case line is ``name: <str(jax.typeof(out)) for each output leaf>`` or
``name: ERR <ExceptionType>: <first line of the message>``; every case runs under
``jax.set_mesh(mesh)`` and ``jax.jit`` on a (4, 2) mesh of Explicit axes ('x', 'y').
Then come printed jaxprs (``== jaxpr name`` then the text) and, for eagerly called jits,
the outputs' ``.sharding.spec`` (``spec name: ...``).  JAX 0.10.2's record is
sweep_sharding_jax0102.txt beside this file.
"""

import contextlib

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)


def put(a, spec):
    return jax.device_put(a, NamedSharding(mesh, spec))


def arr(shape, spec, dtype=np.float32):
    n = int(np.prod(shape))
    return put(np.arange(1, n + 1).reshape(shape).astype(dtype), spec)


# Inputs: name -> array.  Shapes divide the mesh axes they are sharded over.
xy = arr((8, 4), P("x", "y"))
xN = arr((8, 4), P("x", None))
Ny = arr((8, 4), P(None, "y"))
NN = arr((8, 4), P())
yx = arr((8, 4), P("y", "x"))
v_xy = arr((8,), P(("x", "y"),))
v_x = arr((8,), P("x"))
v_N = arr((8,), P())
v4_y = arr((4,), P("y"))
t3 = arr((8, 4, 6), P("x", None, "y"))
t3b = arr((8, 6, 4), P("x", None, "y"))
one_y = arr((1, 4), P(None, "y"))
row_N = arr((1, 4), P())
xy_T = arr((4, 8), P("x", "y"))
m48_yN = arr((4, 8), P("y", None))
m48_NN = arr((4, 8), P())
i_xy = arr((8, 4), P("x", "y"), np.int32)
b_xy = put(np.arange(32).reshape(8, 4) % 3 == 0, P("x", "y"))
bat = put(np.broadcast_to(np.eye(3, dtype=np.float32) * 4 + 1, (4, 3, 3)).copy(),
          P("x", None, None))
bat2 = put(np.arange(4 * 8 * 4, dtype=np.float32).reshape(4, 8, 4), P("x", None, None))
bat_l = put(np.arange(4 * 8 * 4, dtype=np.float32).reshape(4, 8, 4), P("x", "y", None))
bat_r = put(np.arange(4 * 4 * 6, dtype=np.float32).reshape(4, 4, 6), P("x", None, None))
img = put(np.ones((4, 3, 8, 8), np.float32), P("x", None, None, None))
ker = put(np.ones((2, 3, 3, 3), np.float32), P())
key = jax.random.key(0)
idx = put(np.array([0, 3, 5, 7], np.int32), P())
idx_x = put(np.array([0, 3, 5, 7], np.int32), P("x"))


def first_line(e):
    """The message's first line (and the next non-blank one, where the first ends in ':'),
    cut to 300 characters."""
    msg = [ln.strip() for ln in str(e).strip().splitlines() if ln.strip()]
    if len(msg) > 1 and msg[0].endswith(":"):
        msg[0] += " " + msg[1]
    return msg[0][:300] if msg else ""


def types(out):
    return " ".join(str(jax.typeof(o)) for o in jax.tree.leaves(out))


def case(name, f, *args, jit=True, in_mesh=True):
    try:
        with jax.set_mesh(mesh) if in_mesh else contextlib.nullcontext():
            out = (jax.jit(f) if jit else f)(*args)
            line = types(out)
    except Exception as e:  # noqa: BLE001 -- the error is the recorded outcome
        line = f"ERR {type(e).__name__}: {first_line(e)}"
    print(f"{name}: {line}", flush=True)


def jaxpr(name, f, *args):
    print(f"== jaxpr {name}")
    try:
        with jax.set_mesh(mesh):
            print(jax.make_jaxpr(f)(*args))
    except Exception as e:  # noqa: BLE001
        print(f"ERR {type(e).__name__}: {first_line(e)}")


def spec(name, f, *args):
    try:
        with jax.set_mesh(mesh):
            out = jax.jit(f)(*args)
        line = " ".join(str(o.sharding.spec) for o in jax.tree.leaves(out))
    except Exception as e:  # noqa: BLE001
        line = f"ERR {type(e).__name__}: {first_line(e)}"
    print(f"spec {name}: {line}", flush=True)


reshard = jax.sharding.reshard

# ---- inputs as placed
for nm, a in [("xy", xy), ("xN", xN), ("Ny", Ny), ("NN", NN), ("yx", yx), ("v_xy", v_xy),
              ("t3", t3), ("one_y", one_y), ("i_xy", i_xy), ("b_xy", b_xy), ("bat", bat)]:
    case(f"input_{nm}", lambda a: a, a)
case("input_eager_typeof", lambda: xy, jit=False)

# ---- elementwise unary
case("neg_xy", jnp.negative, xy)
case("sin_xN", jnp.sin, xN)
case("exp_Ny", jnp.exp, Ny)
case("abs_i_xy", jnp.abs, i_xy)
case("not_b_xy", jnp.logical_not, b_xy)
case("sqrt_t3", jnp.sqrt, t3)
case("relu_xy", jax.nn.relu, xy)
case("sigmoid_Ny", jax.nn.sigmoid, Ny)
case("tanh_v_xy", jnp.tanh, v_xy)
case("round_xy", jnp.round, xy)
case("isnan_xy", jnp.isnan, xy)

# ---- elementwise binary
case("add_xy_xy", jnp.add, xy, xy)
case("add_xy_NN", jnp.add, xy, NN)
case("add_xy_xN", jnp.add, xy, xN)
case("add_xN_Ny", jnp.add, xN, Ny)
case("add_xy_yx", jnp.add, xy, yx)
case("mul_xN_xy", jnp.multiply, xN, xy)
case("add_xy_scalar", lambda a: a + 1.0, xy)
case("add_scalar_arr_xy", lambda a: jnp.float32(2) * a, xy)
case("add_xy_0d_arr", lambda a, s: a + s, xy, put(np.float32(3), P()))
case("add_xy_row_N", jnp.add, xy, row_N)
case("add_xy_one_y", jnp.add, xy, one_y)
case("add_xN_one_y", jnp.add, xN, one_y)
case("add_xy_v4_y", jnp.add, xy, v4_y)
case("add_xN_v4_y", jnp.add, xN, v4_y)
case("add_xy_v_x_col", lambda a, v: a + v[:, None], xy, v_x)
case("add_t3_xN_bcast", lambda a, b: a + b[:, :, None], t3, xN)
case("sub_i_xy_int", lambda a: a - 1, i_xy)
case("pow_xy", lambda a: a ** 2, xy)
case("maximum_xy_Ny", jnp.maximum, xy, Ny)
case("atan2_xy_xy", jnp.arctan2, xy, xy)
case("add_v_xy_v_x", jnp.add, v_xy, v_x)
case("add_v_x_v_N", jnp.add, v_x, v_N)
case("add_f32_i32", jnp.add, xy, i_xy)

# ---- comparisons / select / where / clip / astype
case("lt_xy_NN", jnp.less, xy, NN)
case("eq_xy_xy", jnp.equal, xy, xy)
case("gt_xy_scalar", lambda a: a > 3, xy)
case("where_b_xy_xy", jnp.where, b_xy, xy, NN)
case("where_b_scalar", lambda c, a: jnp.where(c, a, 0.0), b_xy, xy)
case("where_xN_Ny", lambda c, a, b: jnp.where(c, a, b), b_xy, xN, Ny)
case("where_1arg", lambda c: jnp.where(c, size=4), b_xy)
case("select_n", lambda c, a, b: lax.select_n(c, a, b), b_xy, xy, xy)
case("clip_xy", lambda a: jnp.clip(a, 2, 5), xy)
case("clip_xy_arrays", lambda a, lo: jnp.clip(a, lo, 5), xy, NN)
case("astype_xy_i32", lambda a: a.astype(jnp.int32), xy)
case("astype_xy_bf16", lambda a: a.astype(jnp.bfloat16), xy)
case("astype_b_f32", lambda a: a.astype(jnp.float32), b_xy)
case("convert_element_type", lambda a: lax.convert_element_type(a, jnp.float16), xN)
case("bitcast_i32", lambda a: lax.bitcast_convert_type(a, jnp.int32), xy)
case("nextafter", jnp.nextafter, xy, xy)

# ---- reductions
case("sum_all_xy", jnp.sum, xy)
case("sum0_xy", lambda a: a.sum(0), xy)
case("sum1_xy", lambda a: a.sum(1), xy)
case("sum0_Ny", lambda a: a.sum(0), Ny)
case("sum1_Ny", lambda a: a.sum(1), Ny)
case("sum0_keepdims_xy", lambda a: a.sum(0, keepdims=True), xy)
case("sum1_keepdims_xy", lambda a: a.sum(1, keepdims=True), xy)
case("max0_xy", lambda a: a.max(0), xy)
case("min1_xN", lambda a: a.min(1), xN)
case("prod_t3_ax1", lambda a: a.prod(1), t3)
case("sum_t3_ax02", lambda a: a.sum((0, 2)), t3)
case("argmax0_xy", lambda a: jnp.argmax(a, 0), xy)
case("argmax1_xy", lambda a: jnp.argmax(a, 1), xy)
case("argmin_all_xy", jnp.argmin, xy)
case("argmax_keepdims", lambda a: jnp.argmax(a, 1, keepdims=True), xy)
case("mean0_xy", lambda a: a.mean(0), xy)
case("mean_all_xy", jnp.mean, xy)
case("var1_xN", lambda a: a.var(1), xN)
case("std0_xy", lambda a: a.std(0), xy)
case("any_b_xy", lambda a: a.any(1), b_xy)
case("all_b_xy", jnp.all, b_xy)
case("logsumexp1_xy", lambda a: jax.nn.logsumexp(a, 1), xy)
case("sum_v_xy", jnp.sum, v_xy)
case("sum_i_xy_0", lambda a: a.sum(0), i_xy)
case("reduce_max_lax", lambda a: lax.reduce_max(a, (1,)), xy)
case("count_nonzero", lambda a: jnp.count_nonzero(a, 0), xy)

# ---- cumulative / sort
case("cumsum0_xy", lambda a: jnp.cumsum(a, 0), xy)
case("cumsum1_xy", lambda a: jnp.cumsum(a, 1), xy)
case("cumsum1_xN", lambda a: jnp.cumsum(a, 1), xN)
case("cumsum_flat_xy", jnp.cumsum, xy)
case("cumprod0_Ny", lambda a: jnp.cumprod(a, 0), Ny)
case("cummax_lax", lambda a: lax.cummax(a, 0), xy)
case("sort0_xy", lambda a: jnp.sort(a, 0), xy)
case("sort1_xy", lambda a: jnp.sort(a, 1), xy)
case("sort1_xN", lambda a: jnp.sort(a, 1), xN)
case("argsort1_xy", lambda a: jnp.argsort(a, 1), xy)
case("argsort0_xN", lambda a: jnp.argsort(a, 0), xN)
case("sort_v_x", jnp.sort, v_x)
case("top_k_xN", lambda a: lax.top_k(a, 2), xN)

# ---- reshape
case("reshape_merge_xN", lambda a: a.reshape(32), xN)
case("reshape_merge_xy", lambda a: a.reshape(32), xy)
case("reshape_merge_Ny", lambda a: a.reshape(32), Ny)
case("reshape_split_v_x", lambda a: a.reshape(4, 2), v_x)
case("reshape_split_v_xy", lambda a: a.reshape(4, 2), v_xy)
case("reshape_split_v_xy_2_4", lambda a: a.reshape(2, 4), v_xy)
case("reshape_split_xN", lambda a: a.reshape(4, 2, 4), xN)
case("reshape_split_xy_last", lambda a: a.reshape(8, 2, 2), xy)
case("reshape_add_1", lambda a: a.reshape(8, 1, 4), xy)
case("reshape_drop_1", lambda a: a.reshape(4), one_y)
case("reshape_t3_merge_last", lambda a: a.reshape(8, 24), t3)
case("reshape_t3_merge_first", lambda a: a.reshape(32, 6), t3)
case("reshape_NN_any", lambda a: a.reshape(2, 16), NN)
case("reshape_xN_2_16", lambda a: a.reshape(2, 16), xN)
case("reshape_out_sharding", lambda a: a.reshape(32, out_sharding=P("x")), xy)
case("reshape_Ny_out_sharding", lambda a: a.reshape(32, out_sharding=P("y")), Ny)
case("reshape_out_sharding_N", lambda a: jnp.reshape(a, (32,), out_sharding=P()), xy)
case("ravel_xN", jnp.ravel, xN)
case("flatten_Ny", lambda a: a.flatten(), Ny)
case("lax_reshape_dims", lambda a: lax.reshape(a, (4, 8), dimensions=(1, 0)), xy)

# ---- transpose / swap / move / expand / squeeze / broadcast
case("T_xy", lambda a: a.T, xy)
case("T_xN", lambda a: a.T, xN)
case("transpose_t3", lambda a: jnp.transpose(a, (2, 0, 1)), t3)
case("swapaxes_t3", lambda a: jnp.swapaxes(a, 0, 2), t3)
case("moveaxis_t3", lambda a: jnp.moveaxis(a, 0, -1), t3)
case("expand_dims0_xy", lambda a: jnp.expand_dims(a, 0), xy)
case("expand_dims_mid_xy", lambda a: a[:, None, :], xy)
case("squeeze_one_y", lambda a: jnp.squeeze(a, 0), one_y)
case("squeeze_all_one_y", jnp.squeeze, one_y)
case("broadcast_to_v4_y", lambda a: jnp.broadcast_to(a, (8, 4)), v4_y)
case("broadcast_to_one_y", lambda a: jnp.broadcast_to(a, (8, 4)), one_y)
case("broadcast_to_out_sharding",
     lambda a: jnp.broadcast_to(a, (8, 4), out_sharding=P("x", "y")), v4_y)
case("broadcast_in_dim", lambda a: lax.broadcast_in_dim(a, (3, 8, 4), (1, 2)), xy)
case("lax_broadcast", lambda a: lax.broadcast(a, (2,)), xy)
case("atleast_3d", jnp.atleast_3d, xy)
case("tile_xy", lambda a: jnp.tile(a, (2, 1)), xy)
case("repeat_xy", lambda a: jnp.repeat(a, 2, axis=1), xy)

# ---- concatenate / stack
case("concat0_xy_xy", lambda a, b: jnp.concatenate([a, b], 0), xy, xy)
case("concat1_xy_xy", lambda a, b: jnp.concatenate([a, b], 1), xy, xy)
case("concat1_xN_xN", lambda a, b: jnp.concatenate([a, b], 1), xN, xN)
case("concat0_xN_xN", lambda a, b: jnp.concatenate([a, b], 0), xN, xN)
case("concat0_xy_NN", lambda a, b: jnp.concatenate([a, b], 0), xy, NN)
case("concat1_xN_Ny", lambda a, b: jnp.concatenate([a, b], 1), xN, Ny)
case("stack0_xy", lambda a, b: jnp.stack([a, b], 0), xy, xy)
case("stack2_xy", lambda a, b: jnp.stack([a, b], 2), xy, xy)
case("stack_xy_NN", lambda a, b: jnp.stack([a, b]), xy, NN)
case("hstack_v_x", lambda a, b: jnp.hstack([a, b]), v_x, v_x)
case("concat_v_xy_v_N", lambda a, b: jnp.concatenate([a, b]), v_xy, v_N)

# ---- slicing / indexing / gather / scatter / pad / rev
case("slice_rows_xy", lambda a: a[2:6], xy)
case("slice_cols_xy", lambda a: a[:, 1:3], xy)
case("slice_full_xy", lambda a: a[:, :], xy)
case("slice_step_xy", lambda a: a[::2], xy)
case("int_index0_xy", lambda a: a[3], xy)
case("int_index1_xy", lambda a: a[:, 1], xy)
case("int_index_both", lambda a: a[3, 1], xy)
case("neg_step_xy", lambda a: a[::-1], xy)
case("lax_slice_xN", lambda a: lax.slice(a, (0, 0), (4, 4)), xN)
case("dynamic_slice_xy", lambda a: lax.dynamic_slice(a, (2, 0), (4, 2)), xy)
case("dynamic_slice_Ny", lambda a: lax.dynamic_slice(a, (2, 0), (4, 4)), Ny)
case("dynamic_slice_in_dim", lambda a, i: lax.dynamic_slice_in_dim(a, i, 2, 0), xN,
     jnp.int32(1))
case("dynamic_update_slice", lambda a, u: lax.dynamic_update_slice(a, u, (0, 0)), xy,
     put(np.zeros((2, 4), np.float32), P()))
case("dus_same_spec", lambda a: lax.dynamic_update_slice(a, a, (0, 0)), xy)
case("gather_take0_xy", lambda a, i: jnp.take(a, i, axis=0), xy, idx)
case("gather_take1_xy", lambda a, i: jnp.take(a, i, axis=1), xN, put(np.array([0, 2], np.int32), P()))
case("gather_fancy_xN", lambda a, i: a[i], xN, idx)
case("gather_fancy_idx_x", lambda a, i: a[i], NN, idx_x)
case("gather_fancy_Ny", lambda a, i: a[i], Ny, idx)
case("take_along_axis", lambda a, i: jnp.take_along_axis(a, i, axis=1), xy,
     put(np.zeros((8, 4), np.int32), P("x", "y")))
case("scatter_set_xy", lambda a: a.at[2].set(0.0), xy)
case("scatter_add_xy_idx", lambda a, i: a.at[i].add(1.0), xN, idx)
case("scatter_set_slice", lambda a: a.at[:, 1:3].set(7.0), xy)
case("scatter_mul_NN", lambda a, i: a.at[i, 0].multiply(2.0), NN, idx)
case("scatter_get", lambda a: a.at[1].get(), xy)
case("gather_out_sharding", lambda a, i: a.at[i].get(out_sharding=P(None, "y")), xy, idx)
case("scatter_out_sharding", lambda a, i: a.at[i].add(1.0, out_sharding=P("x", "y")), xy, idx)
case("int_index_xN_dim1", lambda a: a[:, 1], xN)
case("pad_xy", lambda a: jnp.pad(a, ((1, 1), (0, 0))), xy)
case("pad_Ny_rows", lambda a: jnp.pad(a, ((1, 1), (0, 0))), Ny)
case("pad_xN_cols", lambda a: jnp.pad(a, ((0, 0), (2, 2))), xN)
case("lax_pad_interior", lambda a: lax.pad(a, 0.0, ((0, 0, 0), (0, 0, 1))), xN)
case("rev0_xy", lambda a: lax.rev(a, (0,)), xy)
case("flip_xN", lambda a: jnp.flip(a, 1), xN)
case("roll_xy", lambda a: jnp.roll(a, 1, 0), xy)
case("triu_xy", jnp.triu, xy)
case("diagonal_NN", jnp.diagonal, NN)
case("diagonal_xy", jnp.diagonal, xy)

# ---- creation
case("iota_lax", lambda: lax.iota(jnp.int32, 8))
case("broadcasted_iota_sh", lambda: lax.broadcasted_iota(jnp.int32, (8, 4), 0,
                                                         out_sharding=P("x", "y")))
case("arange", lambda: jnp.arange(8))
case("arange_out_sharding", lambda: jnp.arange(8, out_sharding=P("x")))
case("zeros", lambda: jnp.zeros((8, 4)))
case("zeros_out_sharding", lambda: jnp.zeros((8, 4), out_sharding=P("x", "y")))
case("ones_out_sharding_ns", lambda: jnp.ones((8, 4), out_sharding=NamedSharding(mesh, P(None, "y"))))
case("full_out_sharding", lambda: jnp.full((8, 4), 2.0, out_sharding=P("x")))
case("full_lax_sharding", lambda: lax.full((8, 4), 2.0, sharding=NamedSharding(mesh, P("x"))))
case("full_lax_sharding_eager", lambda: lax.full((8, 4), 2.0, sharding=NamedSharding(mesh, P("x"))),
     jit=False)
case("full_lax_sharding_abstract",
     lambda: lax.full((8, 4), 2.0, sharding=NamedSharding(mesh.abstract_mesh, P("x"))))
case("zeros_like_xy", jnp.zeros_like, xy)
case("ones_like_Ny", jnp.ones_like, Ny)
case("full_like_xN", lambda a: jnp.full_like(a, 3), xN)
case("eye", lambda: jnp.eye(4))
case("zeros_out_sharding_bad", lambda: jnp.zeros((6, 4), out_sharding=P("x", "y")))
case("linspace", lambda: jnp.linspace(0, 1, 8))

# ---- dot / matmul / einsum
case("matmul_xN_NN", jnp.matmul, xN, m48_NN)
case("matmul_xy_yN", jnp.matmul, xy, m48_yN)
case("matmul_xy_xy", jnp.matmul, xy, xy_T)
case("matmul_NN_NN", jnp.matmul, NN, m48_NN)
case("matmul_Ny_NN", jnp.matmul, Ny, m48_NN)
case("matmul_xy_yN_out_sh", lambda a, b: jnp.matmul(a, b, out_sharding=P("x", None)), xy, m48_yN)
case("matmul_xy_yN_out_sh_y", lambda a, b: jnp.matmul(a, b, out_sharding=P("x", "y")), xy, m48_yN)
case("matmul_xN_xN_T", lambda a, b: a @ b.T, xN, xN)
case("matmul_xN_T_xN", lambda a, b: a.T @ b, xN, xN)
case("dot_v_x_v_x", jnp.dot, v_x, v_x)
case("dot_v_x_v_N", jnp.dot, v_x, v_N)
case("dot_mat_vec", lambda a, v: a @ v, xN, v4_y)
case("dot_mat_vec_Ny", lambda a, v: a @ v, Ny, v4_y)
case("vdot_xy", jnp.vdot, xy, xy)
case("outer_v_x_v4_y", jnp.outer, v_x, v4_y)
case("einsum_ij_jk", lambda a, b: jnp.einsum("ij,jk->ik", a, b), xN, m48_NN)
case("einsum_contract_sharded", lambda a, b: jnp.einsum("ij,jk->ik", a, b), xy, m48_yN)
case("einsum_contract_out_sh",
     lambda a, b: jnp.einsum("ij,jk->ik", a, b, out_sharding=P("x", None)), xy, m48_yN)
case("einsum_batch_bij", lambda a, b: jnp.einsum("bij,bjk->bik", a, b), bat2, bat_r)
case("einsum_batch_l_y", lambda a, b: jnp.einsum("bij,bjk->bik", a, b), bat_l, bat_r)
case("einsum_ij_ij", lambda a, b: jnp.einsum("ij,ij->i", a, b), xy, xy)
case("einsum_trace", lambda a: jnp.einsum("ii->", a), arr((4, 4), P("x", None)))
case("dot_general_batch",
     lambda a, b: lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))), bat2, bat_r)
case("dot_general_out_sh",
     lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ())), out_sharding=P(None, "y")),
     xN, m48_NN)
case("matmul_bat_xy", lambda a, b: a @ b, bat_l, bat_r)
case("tensordot", lambda a, b: jnp.tensordot(a, b, 1), xN, m48_NN)
case("matmul_pref_f32", lambda a, b: lax.dot(a, b, preferred_element_type=jnp.float32),
     xN, m48_NN)

# ---- conv / fft / linalg
case("conv_batch_x", lambda x, k: lax.conv(x, k, (1, 1), "SAME"), img, ker)
case("conv_general_dilated", lambda x, k: lax.conv_general_dilated(x, k, (1, 1), "VALID"),
     img, ker)
case("convolve_1d", lambda a, b: jnp.convolve(a, b), v_N, put(np.ones(3, np.float32), P()))
case("fft_last_unsharded", lambda a: jnp.fft.fft(a), xN)
case("fft_last_sharded", lambda a: jnp.fft.fft(a), xy)
case("rfft_xN", lambda a: jnp.fft.rfft(a), xN)
case("fft2_t3", lambda a: jnp.fft.fft2(a), arr((8, 4, 4), P("x", None, None)))
case("cholesky_bat", jnp.linalg.cholesky, bat)
case("qr_bat", jnp.linalg.qr, bat)
case("svd_bat", jnp.linalg.svd, bat)
case("svd_bat_novec", lambda a: jnp.linalg.svd(a, compute_uv=False), bat)
case("inv_bat", jnp.linalg.inv, bat)
case("det_bat", jnp.linalg.det, bat)
case("eigh_bat", jnp.linalg.eigh, bat)
case("solve_bat", lambda a, b: jnp.linalg.solve(a, b), bat,
     put(np.ones((4, 3), np.float32), P("x", None)))
case("triangular_solve", lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True),
     bat, put(np.ones((4, 3, 2), np.float32), P("x", None, None)))
case("cholesky_NN", jnp.linalg.cholesky, put(np.eye(4, dtype=np.float32) * 2, P()))
case("cholesky_sharded_mat", jnp.linalg.cholesky,
     put(np.eye(4, dtype=np.float32) * 2, P("x", None)))
case("norm_xy", jnp.linalg.norm, xy)

# ---- explicit sharding APIs
case("reshard_xy_to_NN", lambda a: reshard(a, P()), xy)
case("reshard_NN_to_xy", lambda a: reshard(a, P("x", "y")), NN)
case("reshard_ns", lambda a: reshard(a, NamedSharding(mesh, P(None, "x"))), xy)
case("reshard_bad_divide", lambda a: reshard(a, P("x")), arr((6, 4), P()))
case("reshard_dup_axis", lambda a: reshard(a, P("x", "x")), NN)
case("reshard_unknown_axis", lambda a: reshard(a, P("z")), NN)
case("reshard_rank_too_long", lambda a: reshard(a, P("x", None, None)), NN)
case("reshard_rank_too_long_split", lambda a: reshard(a, P(None, None, "x")), NN)
case("reshard_rank_too_long_eager", lambda a: reshard(a, P("x", None, None)), NN, jit=False)
case("reshard_bad_divide_eager", lambda a: reshard(a, P("x")), arr((6, 4), P()), jit=False)
case("reshard_dup_two_axes", lambda a: reshard(a, P("x", "y", "x", "y")), t3)
case("reshard_dup_unknown_axis", lambda a: reshard(a, P("z", "z")), NN)
case("wsc_dup_axis", lambda a: jax.lax.with_sharding_constraint(a, P("x", "x")), NN)
case("jit_in_shardings_dup", lambda: jax.jit(lambda a: a, in_shardings=P("x", "x")), jit=False)
case("jit_out_shardings_dup", lambda: jax.jit(lambda a: a, out_shardings=P(("y", "x"), "y")),
     jit=False)
case("jit_in_shardings_unknown",
     lambda a: jax.jit(lambda b: b, in_shardings=P("z"))(a), NN, jit=False)
case("ns_unconstrained_explicit", lambda: NamedSharding(mesh, P(P.UNCONSTRAINED)), jit=False)
case("auto_axes_x",
     lambda a: jax.sharding.auto_axes(lambda b: b * 2, out_sharding=P("x", "y"))(a), xy)
case("auto_axes_sum",
     lambda a: jax.sharding.auto_axes(lambda b: b.sum(0), axes="x", out_sharding=P("y"))(a), xy)
case("explicit_axes_in_auto",
     lambda a: jax.sharding.auto_axes(
         lambda b: jax.sharding.explicit_axes(lambda c: c + 1, in_sharding=P("x", "y"))(b),
         out_sharding=P("x", "y"))(a), xy)
case("wsc_P", lambda a: lax.with_sharding_constraint(a, P(None, "y")), xy)
case("wsc_same", lambda a: lax.with_sharding_constraint(a, P("x", "y")), xy)
case("wsc_ns", lambda a: lax.with_sharding_constraint(a, NamedSharding(mesh, P())), xy)
case("device_put_in_jit", lambda a: jax.device_put(a, NamedSharding(mesh, P(None, "x"))), xy)
case("device_put_P_in_jit", lambda a: jax.device_put(a, P()), xy)


def show_type(label):
    """The identity, printing the traced value's type (inside jit or vmap)."""
    def f(a):
        print(f"  [{label}] {jax.typeof(a)}")
        return a
    return f


case("typeof_in_trace", show_type("jit trace"), xy)
case("get_abstract_mesh", lambda a: a * len(str(jax.sharding.get_abstract_mesh())), xy)
case("jit_out_shardings", jax.jit(lambda a: a + 1, out_shardings=NamedSharding(mesh, P())), xy)
case("jit_in_shardings_mismatch",
     jax.jit(lambda a: a + 1, in_shardings=NamedSharding(mesh, P())), xy, jit=False)
case("jit_in_shardings_match",
     jax.jit(lambda a: a + 1, in_shardings=NamedSharding(mesh, P("x", "y"))), xy, jit=False)
case("jit_in_shardings_mismatch_one_device",
     jax.jit(lambda a: a + 1, in_shardings=NamedSharding(mesh, P("x"))),
     jax.device_put(np.ones((8, 4), np.float32), jax.devices()[0]), jit=False)
case("jit_in_shardings_uncommitted",
     jax.jit(lambda a: a + 1, in_shardings=NamedSharding(mesh, P("x"))),
     np.ones((8, 4), np.float32), jit=False)
case("jit_in_shardings_trailing_none",
     jax.jit(lambda a: a + 1, in_shardings=NamedSharding(mesh, P("x", None))), xN, jit=False)

# ---- autodiff
loss = lambda w, a: jnp.sum(jnp.tanh(a @ w) ** 2)
case("grad_loss_w_NN", jax.grad(loss), m48_NN, xN)
case("grad_loss_w_yN", jax.grad(loss), m48_yN, xy)
case("grad_argnums_both", jax.grad(loss, argnums=(0, 1)), m48_NN, xN)
case("grad_elementwise", jax.grad(lambda a: jnp.sum(a * a)), xy)
case("grad_reshape", jax.grad(lambda a: jnp.sum(a.reshape(32) ** 2)), xN)
case("grad_broadcast", jax.grad(lambda v, a: jnp.sum(a + v)), v4_y, xy)
case("value_and_grad", jax.value_and_grad(lambda a: jnp.sum(jnp.sin(a))), xy)
case("vjp_matmul", lambda a, b: jax.vjp(jnp.matmul, a, b)[1](jnp.ones((8, 8), jnp.float32)),
     xN, m48_NN)
case("vjp_matmul_ct_sh", lambda a, b, c: jax.vjp(jnp.matmul, a, b)[1](c), xN, m48_NN,
     arr((8, 8), P("x", None)))
case("jvp_sin", lambda a, t: jax.jvp(jnp.sin, (a,), (t,)), xy, xy)
case("jvp_tangent_other_spec", lambda a, t: jax.jvp(jnp.sin, (a,), (t,)), xy, NN)
case("hessian_small", jax.hessian(lambda v: jnp.sum(v ** 3)), v_x)
case("grad_sum0", jax.grad(lambda a: jnp.sum(a.sum(0) ** 2)), xy)
case("grad_gather", jax.grad(lambda a, i: jnp.sum(a[i])), xN, idx)
case("grad_reshard", jax.grad(lambda a: jnp.sum(reshard(a, P()) ** 2)), xy)

# ---- vmap
case("vmap_over_x", jax.vmap(lambda r: r * 2), xy)
case("vmap_sum_row", jax.vmap(jnp.sum), xy)
case("vmap_in_axes1", jax.vmap(lambda c: c.sum(), in_axes=1), xy)
case("vmap_out_axes1", jax.vmap(lambda r: r + 1, out_axes=1), xy)
case("vmap_spmd_x", jax.vmap(lambda r: r * 2, spmd_axis_name="x"), xy)
case("vmap_matvec", jax.vmap(lambda m, v: m @ v, in_axes=(None, 0)), m48_NN,
     arr((8, 8), P("x", None)))
case("vmap_spmd_y_on_x", jax.vmap(lambda r: r * 2, spmd_axis_name="y"), xy)
case("vmap_spmd_x_unsharded", jax.vmap(lambda r: r * 2, spmd_axis_name="x"), NN)
case("vmap_mixed_specs", jax.vmap(jnp.add), xy, NN)
case("vmap_mixed_specs_same_axis", jax.vmap(jnp.add), xy, xN)
case("vmap_reshard_inside", jax.vmap(lambda r: reshard(r, P())), xy)
case("vmap_typeof_inside", jax.vmap(show_type("vmap trace")), xy)

# ---- control flow
case("fori_loop_carry", lambda a: lax.fori_loop(0, 3, lambda i, c: c * 2, a), xy)
case("fori_loop_carry_changes", lambda a: lax.fori_loop(0, 3, lambda i, c: reshard(c * 2, P()), a), xy)
case("while_loop", lambda a: lax.while_loop(lambda c: c.sum() < 1e6, lambda c: c * 2, a), xN)
case("scan_carry", lambda a, xs: lax.scan(lambda c, r: (c + r, c.sum()), a, xs), v4_y,
     arr((3, 4), P(None, "y")))
case("scan_xs_sharded_inner", lambda xs: lax.scan(lambda c, r: (c + r.sum(), r * 2), 0.0, xs),
     arr((3, 8, 4), P(None, "x", "y")))
case("scan_carry_2d", lambda a, xs: lax.scan(lambda c, x: (c + x, c), a, xs), xy,
     arr((3, 8, 4), P(None, "x", "y")))
case("scan_carry_changes", lambda a, xs: lax.scan(lambda c, x: (reshard(c + x, P()), c), a, xs),
     xy, arr((3, 8, 4), P(None, "x", "y")))
case("scan_xs_sharded_leading", lambda a: lax.scan(lambda c, r: (c + r.sum(), r * 2), 0.0, a), xN)
case("cond_same", lambda p, a: lax.cond(p, lambda b: b + 1, lambda b: b * 2, a), True, xy)
case("cond_branches_differ", lambda p, a: lax.cond(p, lambda b: b, lambda b: reshard(b, P()), a),
     True, xy)
case("switch", lambda i, a: lax.switch(i, [jnp.sin, jnp.cos], a), 1, Ny)
case("map", lambda a: lax.map(lambda r: r.sum(), a), xy)
case("checkpoint", jax.checkpoint(lambda a: jnp.sin(a) * 2), xy)
case("custom_jvp_relu", jax.grad(lambda a: jnp.sum(jax.nn.relu(a))), xy)

# ---- random / nn
case("random_normal", lambda k: jax.random.normal(k, (8, 4)), key)
case("random_normal_out_sh", lambda k: jax.random.normal(k, (8, 4), out_sharding=P("x", "y")), key)
case("random_uniform_out_sh", lambda k: jax.random.uniform(k, (8,), out_sharding=P("x")), key)
case("random_randint_out_sh",
     lambda k: jax.random.randint(k, (8, 4), 0, 9, out_sharding=P(None, "y")), key)
case("random_bits_out_sh", lambda k: jax.random.bits(k, (8, 4), out_sharding=P("x")), key)
case("random_split", lambda k: jax.random.split(k, 4), key)
case("random_normal_bad_div", lambda k: jax.random.normal(k, (6,), out_sharding=P("x")), key)
case("softmax_last_xN", jax.nn.softmax, xN)
case("softmax_last_xy", jax.nn.softmax, xy)
case("softmax_ax0_Ny", lambda a: jax.nn.softmax(a, 0), Ny)
case("log_softmax_xy", jax.nn.log_softmax, xy)
case("gelu_xy", jax.nn.gelu, xy)
case("one_hot_v_x", lambda v: jax.nn.one_hot(v, 4), put(np.arange(8, dtype=np.int32) % 4, P("x")))
case("standardize_xN", lambda a: jax.nn.standardize(a, axis=1), xN)

# ---- more structural ops, windows, no mesh context
case("split0_xy_even", lambda a: jnp.split(a, 2, 0), xy)
case("split0_xy_uneven", lambda a: jnp.split(a, [2], 0), xy)
case("split1_xN", lambda a: jnp.split(a, 2, 1), xN)
case("unstack0_xN", lambda a: jnp.unstack(a, axis=0), arr((4, 4), P("x", None)))
case("unstack1_xN", lambda a: jnp.unstack(a, axis=1), xN)
case("unstack1_Ny", lambda a: jnp.unstack(a, axis=1), Ny)
case("unstack0_xN_eager", lambda a: jnp.unstack(a, axis=0), arr((4, 4), P("x", None)), jit=False)
case("reduce_window_max", lambda a: lax.reduce_window(a, -jnp.inf, lax.max, (1, 2), (1, 2), "VALID"), xN)
case("reduce_window_sharded", lambda a: lax.reduce_window(a, -jnp.inf, lax.max, (2, 1), (2, 1), "VALID"), xy)
case("cumsum_reverse_Ny", lambda a: lax.cumsum(a, 0, reverse=True), Ny)
case("mean_where", lambda a, m: jnp.mean(a, 0, where=m), xy, b_xy)
case("broadcast_in_dim_out_sh",
     lambda a: lax.broadcast_in_dim(a, (8, 4), (1,), out_sharding=P("x", "y")), v4_y)
case("einsum_out_sh_ns", lambda a, b: jnp.einsum("ij,jk->ik", a, b,
                                                 out_sharding=NamedSharding(mesh, P(None, "y"))),
     xN, m48_NN)
case("dot_out_sh_dup", lambda a, b: jnp.dot(a, b, out_sharding=P("x", "x")), xN, m48_NN)
case("reshape_out_sharding_bad", lambda a: a.reshape(32, out_sharding=P("z")), xy)
case("matmul_1d_2d", lambda v, b: v @ b, v4_y, m48_yN)
case("astype_weak", lambda a: (a + 1).astype(jnp.float32), i_xy)
case("python_scalar_out", lambda a: a.sum() + 1, xy)
case("jnp_asarray_const", lambda a: a + jnp.asarray(np.ones((8, 4), np.float32)), xy)
case("nomesh_add_xy_NN", jnp.add, xy, NN, in_mesh=False)
case("nomesh_sum0_xy", lambda a: a.sum(0), xy, in_mesh=False)
case("nomesh_matmul_xy_yN", jnp.matmul, xy, m48_yN, in_mesh=False)
case("nomesh_zeros_out_sharding", lambda: jnp.zeros((8, 4), out_sharding=P("x")), in_mesh=False)
case("nomesh_reshard", lambda a: reshard(a, P()), xy, in_mesh=False)
case("eval_shape_sds", lambda: jax.eval_shape(
    jnp.sin, jax.ShapeDtypeStruct((8, 4), jnp.float32, sharding=NamedSharding(mesh, P("x")))),
     jit=False)
case("shape_dtype_struct_typeof", lambda: jax.ShapeDtypeStruct(
    (8, 4), jnp.float32, sharding=NamedSharding(mesh, P("x", "y"))), jit=False)

# ---- eager (no jit) ops on sharded arrays
case("eager_add_xy_xy", jnp.add, xy, xy, jit=False)
case("eager_add_xN_Ny", jnp.add, xN, Ny, jit=False)
case("eager_sum0_xy", lambda a: a.sum(0), xy, jit=False)
case("eager_matmul_xy_yN", jnp.matmul, xy, m48_yN, jit=False)
case("eager_index", lambda a: a[3], xy, jit=False)
case("eager_index_NN", lambda a: a[3], NN, jit=False)
case("eager_index_last_Ny", lambda a: a[..., 1], Ny, jit=False)
case("eager_slice_full_reversed", lambda a: a[::-1], xN, jit=False)
case("eager_slice_new_axis", lambda a: a[None, :], xy, jit=False)

# ---- printed jaxprs
jaxpr("add_xy_NN", jnp.add, xy, NN)
jaxpr("sum0_xy", lambda a: a.sum(0), xy)
jaxpr("reshape_merge_xN", lambda a: a.reshape(32), xN)
jaxpr("matmul_xy_yN_out_sh", lambda a, b: jnp.matmul(a, b, out_sharding=P("x", None)), xy, m48_yN)
jaxpr("zeros_out_sharding", lambda: jnp.zeros((8, 4), out_sharding=P("x", "y")))
jaxpr("reshard", lambda a: reshard(a, P(None, "y")), xy)
jaxpr("grad_loss", jax.grad(loss), m48_NN, xN)
jaxpr("scan_carry", lambda a, xs: lax.scan(lambda c, x: (c + x, c), a, xs), xy,
      arr((3, 8, 4), P(None, "x", "y")))
jaxpr("auto_axes", lambda a: jax.sharding.auto_axes(lambda b: b * 2, out_sharding=P("x", "y"))(a), xy)
jaxpr("broadcast_to_out_sh", lambda a: jnp.broadcast_to(a, (8, 4), out_sharding=P("x", "y")), v4_y)
jaxpr("wsc", lambda a: lax.with_sharding_constraint(a, P(None, "y")), xy)
jaxpr("random_normal_out_sh", lambda k: jax.random.normal(k, (8, 4), out_sharding=P("x", "y")), key)

# ---- .sharding.spec of eagerly called jits
spec("add_xy_NN", jnp.add, xy, NN)
spec("sum0_xy", lambda a: a.sum(0), xy)
spec("reshape_merge_xN", lambda a: a.reshape(32), xN)
spec("matmul_xN_NN", jnp.matmul, xN, m48_NN)
spec("T_xy", lambda a: a.T, xy)
spec("zeros_out_sharding", lambda: jnp.zeros((8, 4), out_sharding=P("x", "y")))
spec("reshard_to_Ny", lambda a: reshard(a, P(None, "y")), xy)
spec("grad_loss", jax.grad(loss), m48_NN, xN)
spec("scalar_sum", jnp.sum, xy)
spec("one_y_squeeze", jnp.squeeze, one_y)
spec("t3_transpose", lambda a: jnp.transpose(a, (2, 0, 1)), t3)
spec("random_normal_out_sh", lambda k: jax.random.normal(k, (8, 4), out_sharding=P("x", "y")), key)
