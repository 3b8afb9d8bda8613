"""Op-table entries: ``gather`` and ``scatter`` (each mode), against a NumPy reference that
follows the StableHLO definitions element by element.

Start indices are drawn in and out of bounds (negative too), so clamping (``clip``), filling
(``fill``) and dropping are exercised. Scatter indices are distinct, so the result does not
depend on the order XLA applies overlapping writes in.
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import strategies as st

from minijax import lax
from minijax.lax import GatherDimensionNumbers as GDN
from minijax.lax import ScatterDimensionNumbers as SDN
from tests.ops.kinks import spread_together
from tests.ops.op_db import GradSpec, array, register

DTYPES = [np.float32, np.int32, np.uint8, np.bool_]
NUM_DTYPES = [np.float32, np.int32, np.uint8]


def _fill_of(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return np.nan
    if dtype == np.bool_:
        return True
    return np.iinfo(dtype).min if dtype.kind == "i" else np.iinfo(dtype).max


def np_gather(operand, indices, dn, slice_sizes, mode):
    """StableHLO gather: each output element reads operand[start + offset]."""
    window = [d for d in range(operand.ndim)
              if d not in dn.collapsed_slice_dims and d not in dn.operand_batching_dims]
    batch_shape = indices.shape[:-1]
    rank = len(window) + len(batch_shape)
    batch_out = [i for i in range(rank) if i not in dn.offset_dims]
    sizes = iter(slice_sizes[d] for d in window)
    bsizes = iter(batch_shape)
    shape = tuple(next(sizes) if i in dn.offset_dims else next(bsizes) for i in range(rank))
    out = np.empty(shape, operand.dtype)
    for out_idx in itertools.product(*map(range, shape)):
        batch_idx = tuple(out_idx[i] for i in batch_out)
        vec = indices[batch_idx]
        start = [0] * operand.ndim
        in_bounds = True
        for k, d in enumerate(dn.start_index_map):
            hi = operand.shape[d] - slice_sizes[d]
            in_bounds &= 0 <= int(vec[k]) <= hi
            start[d] = min(max(int(vec[k]), 0), hi)
        for od, idd in zip(dn.operand_batching_dims, dn.start_indices_batching_dims):
            start[od] = batch_idx[idd]
        for j, d in enumerate(window):
            start[d] += out_idx[dn.offset_dims[j]]
        if mode == "fill" and not in_bounds:
            out[out_idx] = _fill_of(operand.dtype)
        else:
            out[out_idx] = operand[tuple(start)]
    return out


def np_scatter(operand, indices, updates, dn, mode, add=False, combine=None):
    """StableHLO scatter (replace, or ``add``, or ``combine(old, new)``); ``clip`` clamps
    starts, otherwise out-of-bounds windows are dropped whole."""
    if add:
        combine = np.add
    out = operand.copy()
    window = [d for d in range(operand.ndim)
              if d not in dn.inserted_window_dims and d not in dn.operand_batching_dims]
    scatter_axes = [i for i in range(updates.ndim) if i not in dn.update_window_dims]
    win_size = {d: updates.shape[u] for d, u in zip(window, dn.update_window_dims)}
    for batch_idx in itertools.product(*(range(updates.shape[i]) for i in scatter_axes)):
        vec = indices[batch_idx]
        start = [0] * operand.ndim
        in_bounds = True
        for k, d in enumerate(dn.scatter_dims_to_operand_dims):
            hi = operand.shape[d] - win_size.get(d, 1)
            in_bounds &= 0 <= int(vec[k]) <= hi
            start[d] = min(max(int(vec[k]), 0), hi) if mode == "clip" else int(vec[k])
        for od, idd in zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims):
            start[od] = batch_idx[idd]
        if mode != "clip" and not in_bounds:
            continue
        for win_idx in itertools.product(*(range(updates.shape[u])
                                           for u in dn.update_window_dims)):
            full = list(start)
            for d, w in zip(window, win_idx):
                full[d] += w
            upd = [0] * updates.ndim
            for i, b in zip(scatter_axes, batch_idx):
                upd[i] = b
            for u, w in zip(dn.update_window_dims, win_idx):
                upd[u] = w
            value = updates[tuple(upd)]
            old = out[tuple(full)]
            out[tuple(full)] = value if combine is None else combine(old, value).astype(out.dtype)
    return out


# ------------------------------------------------------------------------------------------------
# Strategies


def _index_array(draw, shape, hi):
    return np.asarray(draw(array(shape, np.int32, -2, hi + 2)), np.int32)


def _gather_rows_args():
    """(operand f[n, m], indices i32[k, 1]): whole rows picked by (possibly bad) indices."""

    @st.composite
    def strat(draw):
        n, m, k = (draw(st.integers(1, 4)) for _ in range(3))
        x = draw(array((n, m), draw(st.sampled_from(DTYPES))))
        return x, _index_array(draw, (k, 1), n)

    return strat()


def _gather_windows_args():
    """(operand [n, m] with n, m >= 2, indices i32[k, 2]): 2x2 windows."""

    @st.composite
    def strat(draw):
        n, m, k = draw(st.integers(2, 4)), draw(st.integers(2, 4)), draw(st.integers(1, 3))
        x = draw(array((n, m), draw(st.sampled_from(DTYPES))))
        return x, _index_array(draw, (k, 2), max(n, m))

    return strat()


def _gather_batched_args():
    """(operand [b, n, m], indices i32[b, k, 1]): a row of each operand[i] per index[i]."""

    @st.composite
    def strat(draw):
        b, n, m, k = (draw(st.integers(1, 3)) for _ in range(4))
        x = draw(array((b, n, m), draw(st.sampled_from(DTYPES))))
        return x, _index_array(draw, (b, k, 1), n)

    return strat()


def _scatter_rows_args(dtypes=DTYPES):
    """(operand [n, m], distinct row indices i32[k, 1] in [-2, n + 2), updates [k, m])."""

    @st.composite
    def strat(draw):
        n, m = draw(st.integers(1, 4)), draw(st.integers(1, 3))
        dtype = draw(st.sampled_from(dtypes))
        rows = draw(st.permutations(range(-2, n + 2)))
        k = draw(st.integers(1, len(rows)))
        idx = np.asarray(rows[:k], np.int32).reshape(k, 1)
        return draw(array((n, m), dtype)), idx, draw(array((k, m), dtype))

    return strat()


def _scatter_add_rows_args():
    """(operand [n, m], row indices i32[k, 1] in [-2, n + 2), repeats likely, updates [k, m])."""

    @st.composite
    def strat(draw):
        n, m, k = draw(st.integers(1, 4)), draw(st.integers(1, 3)), draw(st.integers(1, 5))
        dtype = draw(st.sampled_from(NUM_DTYPES))
        idx = np.asarray(draw(array((k, 1), np.int32, -2, n + 1)), np.int32)
        return draw(array((n, m), dtype)), idx, draw(array((k, m), dtype))

    return strat()


def _scatter_window_args(dtypes=DTYPES):
    """(operand [n, m] with n, m >= 2, one start i32[2], a 2x2 update window)."""

    @st.composite
    def strat(draw):
        n, m = draw(st.integers(2, 4)), draw(st.integers(2, 4))
        dtype = draw(st.sampled_from(dtypes))
        return (draw(array((n, m), dtype)), _index_array(draw, (2,), max(n, m)),
                draw(array((2, 2), dtype)))

    return strat()


def _scatter_batched_args(dtypes=DTYPES):
    """(operand [b, n, m], one row index per batch i32[b, 1], updates [b, m])."""

    @st.composite
    def strat(draw):
        b, n, m = (draw(st.integers(1, 3)) for _ in range(3))
        dtype = draw(st.sampled_from(dtypes))
        return (draw(array((b, n, m), dtype)), _index_array(draw, (b, 1), n),
                draw(array((b, m), dtype)))

    return strat()


# ------------------------------------------------------------------------------------------------
# Entries

_ROWS = GDN(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
_WINDOWS = GDN(offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(0, 1))
_BATCHED = GDN(offset_dims=(2,), collapsed_slice_dims=(1,), start_index_map=(1,),
               operand_batching_dims=(0,), start_indices_batching_dims=(0,))


def _in_bounds(window):
    """Gradient checks: indices moved in bounds (``window`` = the slice size along each indexed
    axis). Out of bounds, "fill" returns NaN (whose finite difference says nothing) and
    "promise_in_bounds" is undefined."""

    def post(args):
        x, idx = args
        hi = np.asarray([x.shape[a] - w for a, w in enumerate(window)], idx.dtype)
        return x, np.clip(idx, 0, hi[: idx.shape[-1]])

    return post


for _mode in ("clip", "fill", "promise_in_bounds"):
    _ref_mode = "clip" if _mode == "promise_in_bounds" else _mode  # XLA clamps: test it stays so
    register(
        f"gather_rows_{_mode}",
        lambda x, i, mode=_mode: lax.gather(x, i, _ROWS, (1, x.shape[1]), mode=mode),
        lambda x, i, mode=_ref_mode: np_gather(x, i, _ROWS, (1, x.shape[1]), mode),
        _gather_rows_args(),
        grad=GradSpec() if _mode == "clip" else GradSpec(post=_in_bounds((1,))),
    )
register(
    "gather_windows_fill",
    lambda x, i: lax.gather(x, i, _WINDOWS, (2, 2), mode="fill"),
    lambda x, i: np_gather(x, i, _WINDOWS, (2, 2), "fill"),
    _gather_windows_args(),
    grad=GradSpec(post=_in_bounds((2, 2))),
)
register(
    "gather_batching_dims_clip",
    lambda x, i: lax.gather(x, i, _BATCHED, (1, 1, x.shape[2]), mode="clip"),
    lambda x, i: np_gather(x, i, _BATCHED, (1, 1, x.shape[2]), "clip"),
    _gather_batched_args(),
)

_S_ROWS = SDN(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
_S_WINDOW = SDN(update_window_dims=(0, 1), inserted_window_dims=(),
                scatter_dims_to_operand_dims=(0, 1))
_S_BATCHED = SDN(update_window_dims=(1,), inserted_window_dims=(1,),
                 scatter_dims_to_operand_dims=(1,), operand_batching_dims=(0,),
                 scatter_indices_batching_dims=(0,))

register(
    "scatter_rows_drop",
    lambda x, i, u: lax.scatter(x, i, u, _S_ROWS, unique_indices=True),
    lambda x, i, u: np_scatter(x, i, u, _S_ROWS, "drop"),
    _scatter_rows_args(),
)
register(
    "scatter_window_clip",
    lambda x, i, u: lax.scatter(x, i, u, _S_WINDOW, mode="clip"),
    lambda x, i, u: np_scatter(x, i, u, _S_WINDOW, "clip"),
    _scatter_window_args(),
)
register(
    "scatter_batching_dims_clip",
    lambda x, i, u: lax.scatter(x, i, u, _S_BATCHED, mode="clip", unique_indices=True),
    lambda x, i, u: np_scatter(x, i, u, _S_BATCHED, "clip"),
    _scatter_batched_args(),
)
register(
    "scatter_add_rows_drop",  # repeated rows add up
    lambda x, i, u: lax.scatter_add(x, i, u, _S_ROWS),
    lambda x, i, u: np_scatter(x, i, u, _S_ROWS, "drop", add=True),
    _scatter_add_rows_args(),
)
register(
    "scatter_add_batching_dims_clip",
    lambda x, i, u: lax.scatter_add(x, i, u, _S_BATCHED, mode="clip"),
    lambda x, i, u: np_scatter(x, i, u, _S_BATCHED, "clip", add=True),
    _scatter_batched_args(NUM_DTYPES),
)

register(
    "scatter_sub_rows_drop",  # repeated rows subtract each
    lambda x, i, u: lax.scatter_sub(x, i, u, _S_ROWS),
    lambda x, i, u: np_scatter(x, i, u, _S_ROWS, "drop", combine=np.subtract),
    _scatter_add_rows_args(),
)

# The combining scatters: repeated rows combine; mul's derivative in the updates needs unique
# indices (as in JAX), so its rows entry draws distinct rows and says so.
register(
    "scatter_mul_rows_drop",
    lambda x, i, u: lax.scatter_mul(x, i, u, _S_ROWS, unique_indices=True),
    lambda x, i, u: np_scatter(x, i, u, _S_ROWS, "drop", combine=np.multiply),
    _scatter_rows_args(NUM_DTYPES),
)
register(
    "scatter_mul_batching_dims_clip",
    lambda x, i, u: lax.scatter_mul(x, i, u, _S_BATCHED, mode="clip", unique_indices=True),
    lambda x, i, u: np_scatter(x, i, u, _S_BATCHED, "clip", combine=np.multiply),
    _scatter_batched_args(NUM_DTYPES),
)
# no update ties the operand or another update, where min/max are not differentiable
_NO_TIES = GradSpec(post=spread_together((0, 2)))


def _window_inside(args):
    # JAX's min/max JVP counts updates with out-of-bounds-dropping scatters, so where "clip"
    # moves a window its tangent is NaN (tests/lax/test_difftest_fidelity.py): check the
    # derivative where the window fits
    x, i, u = spread_together((0, 2))(args)
    return x, np.clip(i, 0, np.array(x.shape) - np.array(u.shape)).astype(i.dtype), u


for _name, _np_fn in (("min", np.minimum), ("max", np.maximum)):
    register(
        f"scatter_{_name}_rows_drop",  # repeated rows: the extreme of all that land
        lambda x, i, u, name=_name: getattr(lax, f"scatter_{name}")(x, i, u, _S_ROWS),
        lambda x, i, u, fn=_np_fn: np_scatter(x, i, u, _S_ROWS, "drop", combine=fn),
        _scatter_add_rows_args(),
        grad=_NO_TIES,
    )
    register(
        f"scatter_{_name}_window_clip",
        lambda x, i, u, name=_name: getattr(lax, f"scatter_{name}")(x, i, u, _S_WINDOW,
                                                                     mode="clip"),
        lambda x, i, u, fn=_np_fn: np_scatter(x, i, u, _S_WINDOW, "clip", combine=fn),
        _scatter_window_args(NUM_DTYPES),
        grad=GradSpec(post=_window_inside),
    )
