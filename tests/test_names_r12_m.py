"""Round-12 names of JAX 0.10.2 (jax.image, jax.ad_checkpoint, jax.tree_util's one-level
flattening, jax.errors' classes, jax.nn.log1mexp, jax.sharding/config context managers).
Expected values from NumPy, finite differences or JAX 0.10.2's recorded outputs
(tests/data/r12_m_jax_outputs.npz, made by tests/data/record_r12_m.py)."""

import collections

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import errors, tree_util

# ------------------------------------------------------------------------ jax.tree_util


def test_flatten_one_level():
    children, meta = tree_util.flatten_one_level({"a": [1, 2], "b": {"c": 3}})
    assert list(children) == [[1, 2], {"c": 3}] and meta == ("a", "b")
    children, meta = tree_util.flatten_one_level((1, (2, 3)))
    assert list(children) == [1, (2, 3)] and meta is None
    with pytest.raises(ValueError, match="can't tree-flatten type"):
        tree_util.flatten_one_level(1.0)


def test_flatten_one_level_with_keys():
    pairs, meta = tree_util.flatten_one_level_with_keys({"a": 1, "b": [2]})
    assert [(k, v) for k, v in pairs] == [(tree_util.DictKey("a"), 1),
                                         (tree_util.DictKey("b"), [2])]
    assert meta == ("a", "b")
    with pytest.raises(ValueError, match="can't tree-flatten type"):
        tree_util.flatten_one_level_with_keys(np.float32(1))


def test_is_tree_node_and_default_registry():
    Point = collections.namedtuple("Point", "x y")
    assert tree_util.is_tree_node(tuple) and tree_util.is_tree_node(dict)
    assert tree_util.is_tree_node(Point) and tree_util.is_tree_node(type(None))
    assert not tree_util.is_tree_node(int) and not tree_util.is_tree_node(np.ndarray)

    class Box:
        pass

    assert not tree_util.is_tree_node(Box)
    tree_util.register_pytree_node(Box, lambda b: ((), None), lambda _, __: Box())
    assert tree_util.is_tree_node(Box) and tree_util.default_registry.is_node(Box)
    assert tree_util.default_registry.flatten({"a": 1})[0] == [1]


# --------------------------------------------------------------------------- jax.errors


def test_error_class_hierarchy():
    assert issubclass(errors.TracerBoolConversionError, errors.ConcretizationTypeError)
    assert issubclass(errors.KeyReuseError, errors.JAXTypeError)
    assert issubclass(errors.JaxprTypeError, TypeError)
    assert not issubclass(errors.JaxprTypeError, errors.JAXTypeError)
    assert issubclass(errors.InconclusiveDimensionOperation, Exception)
    assert not issubclass(errors.InconclusiveDimensionOperation, TypeError)


def test_bool_of_tracer_raises_tracer_bool_conversion_error():
    with pytest.raises(errors.TracerBoolConversionError):
        minijax.jit(lambda x: bool(x))(1.0)
    with pytest.raises(errors.TracerBoolConversionError):
        minijax.jit(lambda x: 1.0 if x > 0 else 0.0)(1.0)
    # JAX's ValueError for arrays of more than one (or no) element, as NumPy's.
    with pytest.raises(ValueError, match="more than one element"):
        minijax.jit(lambda x: 1 if x else 0)(jnp.ones(2))
    with pytest.raises(ValueError, match="empty array"):
        minijax.jit(lambda x: 1 if x else 0)(jnp.ones(0))
    # Concrete values under grad still convert.
    assert minijax.grad(lambda x: x * 2.0 if x > 0 else -x)(1.0) == 2.0
