"""Indexing a Ref with integers, as JAX 0.10.2's ``jax.new_ref`` (recorded by hand there): an
index past the end of its axis is a ValueError ("Out of bound indexer"), a negative one is
clamped, so ``np.asarray(ref)`` and ``list(ref)`` stop with that error instead of running on."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp

_X = np.arange(4.0, dtype=np.float32).reshape(2, 2)


@pytest.mark.parametrize("idx, expected", [
    (-1, _X[1]), (-2, _X[0]), (-3, _X[0]), ((1, -1), _X[1, 1]), (np.int32(1), _X[1]), ((), _X),
])
def test_in_bounds_and_negative_indices(idx, expected):
    r = minijax.new_ref(jnp.asarray(_X))
    np.testing.assert_array_equal(np.asarray(r[idx]), expected)


@pytest.mark.parametrize("idx, bad", [
    (2, 2), (np.int32(2), 2), ((0, 2), 2), ((slice(None), 3), 3), ((Ellipsis, 2), 2),
])
def test_index_past_the_end_is_jaxs_value_error(idx, bad):
    r = minijax.new_ref(jnp.asarray(_X))
    with pytest.raises(ValueError, match=rf"Out of bound indexer: idx={bad}, dim=2\."):
        r[idx]
    with pytest.raises(ValueError, match="Out of bound indexer"):
        r[idx] = 0.0  # checked before the value


def test_asarray_and_list_of_a_ref_stop():
    r = minijax.new_ref(jnp.asarray(_X))
    with pytest.raises(ValueError, match="Out of bound indexer: idx=2, dim=2"):
        np.asarray(r)
    with pytest.raises(ValueError, match="Out of bound indexer: idx=2, dim=2"):
        list(r)
