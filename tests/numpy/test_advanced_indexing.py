"""Advanced indexing (one gather) and ``x.at[...]`` (one scatter) against NumPy: drawn shapes
and index mixes (int arrays incl. negative, lists, bool masks, adjacent / non-adjacent advanced
indices with slices, None and Ellipsis), eager and under jit, grads, vmap and the errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minijax
import minijax.numpy as jnp
from minijax.test_util import check_grads
from tests.numpy._helpers import check

TOL = dict(atol=1e-2, rtol=1e-2)  # float32 finite differences


@st.composite
def adv_case(draw):
    """(x, index) with at least one advanced index, in bounds (negatives included)."""
    ndim = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=ndim, max_size=ndim)))
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) - 3
    batch = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    parts, has_adv, used = [], False, 0
    mask_used = False
    while used < ndim:
        n = shape[used]
        kind = draw(st.sampled_from(["arr", "list", "int", "slice", "none", "mask"]))
        if kind == "none":
            parts.append(None)
            continue
        if kind == "mask" and not mask_used:
            mask_used = True
            k = draw(st.integers(1, ndim - used))
            m = np.asarray(draw(st.lists(st.booleans(), min_size=int(np.prod(shape[used:used + k])),
                                         max_size=int(np.prod(shape[used:used + k])))))
            parts.append(m.reshape(shape[used:used + k]))
            has_adv = True
            used += k
            continue
        if kind in ("arr", "list", "mask"):
            sub = batch[draw(st.integers(0, len(batch))):]
            vals = draw(st.lists(st.integers(-n, n - 1), min_size=int(np.prod(sub)),
                                 max_size=int(np.prod(sub))))
            a = np.asarray(vals, dtype=np.int32).reshape(sub)
            parts.append(a.tolist() if kind == "list" and a.ndim else a)
            has_adv = True
        elif kind == "int":
            parts.append(draw(st.integers(-n, n - 1)))
        else:
            step = draw(st.sampled_from([None, 1, 2, -1]))
            parts.append(slice(draw(st.one_of(st.none(), st.integers(-n, n))), None, step))
        used += 1
    if mask_used:  # one mask's nonzero arrays must broadcast with the other arrays: keep it alone
        parts = [p if not (isinstance(p, (np.ndarray, list)) and np.asarray(p).dtype != bool)
                 else slice(None) for p in parts]
    if not has_adv:
        parts[next(k for k, p in enumerate(parts) if p is not None)] = np.array([0, -1])
        parts[0] = np.array([0, -1]) if parts[0] is None else parts[0]
    if draw(st.booleans()):  # replace a run of full slices by an Ellipsis
        parts = [p for p in parts]
        if parts and isinstance(parts[-1], slice) and parts[-1] == slice(None):
            parts[-1] = Ellipsis
    return x, tuple(parts)


def _valid(x, idx):
    try:
        return x[idx]
    except (IndexError, ValueError):
        return None


@settings(max_examples=60, deadline=None)
@given(adv_case())
def test_getitem_matches_numpy(case):
    x, idx = case
    want = _valid(x, idx)
    if want is None:
        return
    check(jnp.asarray(x)[idx], want)


@settings(max_examples=25, deadline=None)
@given(adv_case())
def test_at_set_add_match_numpy(case):
    x, idx = case
    want = _valid(x, idx)
    if want is None:
        return
    vals = np.arange(want.size, dtype=np.float32).reshape(want.shape) + 100
    ref = x.copy()
    ref[idx] = vals
    if not any(isinstance(p, (np.ndarray, list)) for p in idx):
        return
    check(jnp.asarray(x).at[idx].set(vals), ref) if _unique(x, idx) else None
    ref = x.copy()
    np.add.at(ref, idx, vals)
    check(jnp.asarray(x).at[idx].add(vals), ref)
    check(jnp.asarray(x).at[idx].get(), want)


def _unique(x, idx):
    flat = np.arange(x.size).reshape(x.shape)[idx].ravel()
    return len(set(flat.tolist())) == flat.size


def test_adjacent_and_separated_advanced_dims():
    x = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)
    i, j = np.array([[0, 1]]), np.array([[2], [-1]])
    for idx in [(slice(None), i, j), (i, slice(None), j), (i, 0, j), (None, i, j, None),
                (Ellipsis, i, j), (i, Ellipsis, j),
                (0, slice(1, None), [1, 0], slice(None, None, -1)),
                ([1, 0], 1), (slice(None), np.arange(12).reshape(3, 4) % 3 == 1)]:
        check(jnp.asarray(x)[idx], x[idx])


def test_jit_traced_index_arrays():
    x = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    f = minijax.jit(lambda a, i, j: a[i, :, j])
    g = minijax.jit(lambda a, i: a[1:, i, ::-1])
    i, j = np.array([[0, -1], [2, 1]], np.int32), np.array([3, -5], np.int32)
    check(f(x, i, j), x[i, :, j])
    check(g(x, i), x[1:, i, ::-1])
    check(minijax.jit(lambda a, i: a.at[i].add(1.0))(x, np.array([0, 0, -1], np.int32)),
          _np_at(np.add.at, x, ([0, 0, -1],), 1.0))


def _np_at(ufunc_at, x, idx, v):
    r = x.copy()
    ufunc_at(r, idx, v)
    return r


def test_at_combining_with_repeated_indices():
    x = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
    X = jnp.asarray(x)
    idx = (np.array([0, 2, 0, 1]), np.array([1, 3, 1, -1]))
    v = np.array([2.0, -3.0, 0.5, 4.0], np.float32)
    check(X.at[idx].add(v), _np_at(np.add.at, x, idx, v))
    check(X.at[idx].multiply(v), _np_at(np.multiply.at, x, idx, v))
    check(X.at[idx].mul(v), _np_at(np.multiply.at, x, idx, v))
    check(X.at[idx].min(v), _np_at(np.minimum.at, x, idx, v))
    check(X.at[idx].max(v), _np_at(np.maximum.at, x, idx, v))
    ref = x.copy()
    ref[1:, ::2] = 7
    check(X.at[1:, ::2].set(7), ref)
    check(X.at[0].divide(2.0), np.concatenate([x[:1] / 2, x[1:]]))
    check(X.at[2, 1].power(2.0), np.where(np.arange(12).reshape(3, 4) == 9, x ** 2, x))
    check(X.at[np.array([0, 1])].apply(jnp.abs), np.concatenate([np.abs(x[:2]), x[2:]]))
    xi = np.arange(6, dtype=np.int32)
    check(jnp.asarray(xi).at[np.array([1, 2])].set(2.7), np.array([0, 2, 2, 3, 4, 5], np.int32))


def test_out_of_bounds_modes():
    x = np.arange(5, dtype=np.float32)
    X = jnp.asarray(x)
    oob = np.array([1, 7], np.int32)
    check(X[oob], x[[1, 4]])  # clamped
    check(X.at[oob].get(mode="fill", fill_value=-1.0), np.array([1, -1], np.float32))
    check(X.at[oob].get(mode="clip"), x[[1, 4]])
    check(X.at[oob].set(9.0), np.array([0, 9, 2, 3, 4], np.float32))  # dropped
    check(X.at[oob].set(9.0, mode="clip"), np.array([0, 9, 2, 3, 9], np.float32))
    check(X.at[oob].add(1.0, mode="drop"), np.array([0, 2, 2, 3, 4], np.float32))
    check(X.at[np.array([0, 3])].set(1.0, mode="promise_in_bounds", unique_indices=True,
                                      indices_are_sorted=True),
          np.array([1, 1, 2, 1, 4], np.float32))


def test_errors():
    X = jnp.arange(6.0).reshape(2, 3)
    # JAX 0.10.2: static integers beside array indices clamp like the arrays do
    check(X[jnp.array([0]), 5], np.array([2.0], np.float32))
    check(X[5, jnp.array([1])], np.array([4.0], np.float32))
    with pytest.raises(IndexError, match="jnp.where"):
        minijax.jit(lambda a: a[a > 2])(X)
    with pytest.raises(IndexError, match="integer or boolean"):
        X[np.array([0.5])]
    with pytest.raises(IndexError, match="boolean index"):
        X[np.array([True, False, True])]
    with pytest.raises(ValueError, match="broadcast"):
        X.at[np.array([0, 1])].set(np.ones(4, np.float32))


def test_grads():
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    i = np.array([0, 2, 0], np.int32)
    check_grads(lambda a: a[i, 1:], (x,), order=2, modes=("fwd", "rev"), atol=1e-2, rtol=1e-2)
    check_grads(lambda a: a[:, [[1], [-1]]] ** 2, (x,), order=1, **TOL)
    v = np.array([0.5, -1.0, 2.0], np.float32)
    check_grads(lambda a, b: jnp.asarray(a).at[i, 1].add(b) ** 2, (x, v), order=1, **TOL)
    check_grads(lambda a, b: jnp.asarray(a).at[[0, 2], :].set(b[:2, None]) ** 2, (x, v),
                order=1, **TOL)
    g = minijax.grad(lambda a: a[i].sum())(x)
    check(g, _np_at(np.add.at, np.zeros_like(x), i, 1.0))


def test_vmap_matches_stacking():
    xs = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    idx = np.array([[0, -1], [2, 1]], np.int32)
    out = minijax.vmap(lambda a, i: a[i, ::2])(xs, idx)
    check(out, np.stack([xs[k][idx[k], ::2] for k in range(2)]))
    out = minijax.vmap(lambda a, i: a.at[:, i].add(1.0))(xs, idx)
    check(out, np.stack([_np_at(np.add.at, xs[k], (slice(None), idx[k]), 1.0)
                         for k in range(2)]))
    out = minijax.vmap(lambda i: jnp.asarray(xs[0])[i])(idx)
    check(out, np.stack([xs[0][idx[k]] for k in range(2)]))


def test_grads_of_combining_updates():
    x = np.array([1.0, 5.0, 3.0, 2.0], np.float32)
    i = np.array([0, 2, 0])
    v = np.array([3.0, 1.0, -2.0], np.float32)
    check_grads(lambda a, b: jnp.asarray(a).at[i].min(b), (x, v), order=1, **TOL)
    check_grads(lambda a, b: jnp.asarray(a).at[i].max(b), (x, v), order=1, **TOL)
    check_grads(lambda a: jnp.asarray(a).at[i].mul(v), (x,), order=1, **TOL)
    check_grads(lambda a, b: jnp.asarray(a).at[np.array([0, 2])].mul(b, unique_indices=True),
                (x, v[:2]), order=1, **TOL)
    with pytest.raises(NotImplementedError, match="unique_indices"):
        minijax.grad(lambda b: jnp.asarray(x).at[i].mul(b).sum())(v)
    xs = np.stack([x, -x])
    out = minijax.vmap(lambda a, b: a.at[i].max(b))(xs, np.stack([v, v]))
    check(out, np.stack([_np_at(np.maximum.at, r, i, v) for r in xs]))
