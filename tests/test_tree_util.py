"""Tests for minijax.tree_util (jax.tree_util semantics on jaxlib's C++ registry)."""

import collections
import dataclasses
import functools
import operator
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minijax.tree_util as tu

Point = collections.namedtuple("Point", ["x", "y"])


class Box:
    """Custom node registered without key function (FlattenedIndexKey paths)."""

    def __init__(self, a, b, tag="t"):
        self.a, self.b, self.tag = a, b, tag

    def __eq__(self, other):
        return (type(other) is Box and (self.a, self.b, self.tag)
                == (other.a, other.b, other.tag))


tu.register_pytree_node(Box, lambda x: ((x.a, x.b), x.tag),
                        lambda tag, ch: Box(*ch, tag=tag))


class KeyedBox:
    """Custom node registered with a key function."""

    def __init__(self, a, b):
        self.a, self.b = a, b


tu.register_pytree_with_keys(
    KeyedBox,
    lambda x: (((tu.GetAttrKey("a"), x.a), (tu.GetAttrKey("b"), x.b)), None),
    lambda _, ch: KeyedBox(*ch))


@tu.register_pytree_node_class
class Pair:
    def __init__(self, left, right, name="p"):
        self.left, self.right, self.name = left, right, name

    def tree_flatten(self):
        return (self.left, self.right), self.name

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children, name=aux)


@tu.register_dataclass
@dataclasses.dataclass
class Params:
    w: object
    b: object
    act: str = dataclasses.field(default="relu", metadata={"static": True})


@dataclasses.dataclass
class Explicit:
    x: object
    y: object
    label: str


tu.register_dataclass(Explicit, data_fields=["y", "x"], meta_fields=["label"])


@tu.register_static
class StaticTag:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return isinstance(other, StaticTag) and self.v == other.v

    def __hash__(self):
        return hash(self.v)


# ------------------------------------------------------------ hypothesis

_leaf = st.integers(-100, 100)
_trees = st.recursive(
    st.one_of(_leaf, st.none()),
    lambda kids: st.one_of(
        st.lists(kids, max_size=3),
        st.lists(kids, max_size=3).map(tuple),
        st.dictionaries(st.text("abcde", min_size=1, max_size=2), kids, max_size=3),
    ),
    max_leaves=12,
)


def _py_leaves(t):
    """Reference flattening in pure Python (None is an empty node)."""
    if t is None:
        return []
    if isinstance(t, (list, tuple)):
        return [x for c in t for x in _py_leaves(c)]
    if isinstance(t, dict):
        return [x for k in sorted(t) for x in _py_leaves(t[k])]
    return [t]


@settings(max_examples=50, deadline=None)
@given(_trees)
def test_roundtrip_random(tree):
    leaves, treedef = tu.tree_flatten(tree)
    assert leaves == _py_leaves(tree)
    assert treedef.num_leaves == len(leaves)
    assert tu.tree_unflatten(treedef, leaves) == tree
    assert tu.tree_structure(tree) == treedef
    assert hash(tu.tree_structure(tree)) == hash(treedef)


@settings(max_examples=50, deadline=None)
@given(_trees)
def test_tree_map_multi_random(tree):
    doubled = tu.tree_map(lambda x: 2 * x, tree)
    assert tu.tree_structure(doubled) == tu.tree_structure(tree)
    summed = tu.tree_map(lambda a, b, c: a + b + c, tree, doubled, tree)
    assert tu.tree_leaves(summed) == [4 * x for x in _py_leaves(tree)]


@settings(max_examples=50, deadline=None)
@given(_trees)
def test_paths_random(tree):
    pairs, treedef = tu.tree_flatten_with_path(tree)
    assert treedef == tu.tree_structure(tree)
    for path, leaf in pairs:
        node = tree
        for k in path:
            if isinstance(k, tu.SequenceKey):
                node = node[k.idx]
            else:
                node = node[k.key]
        assert node == leaf
    assert [x for _, x in pairs] == tu.tree_leaves(tree)


# ------------------------------------------------------- basic structure


def test_flatten_builtins():
    tree = {"b": [1, (2, None)], "a": Point(3, 4), "c": None}
    leaves, treedef = tu.tree_flatten(tree)
    assert leaves == [3, 4, 1, 2]  # dict keys sorted
    assert tu.tree_unflatten(treedef, [10, 20, 30, 40]) == {
        "b": [30, (40, None)], "a": Point(10, 20), "c": None}
    assert type(tu.tree_unflatten(treedef, leaves)["a"]) is Point
    assert isinstance(treedef, tu.PyTreeDef)


def test_none_is_empty_node():
    assert tu.tree_leaves(None) == []
    assert tu.tree_leaves([None, 1, None]) == [1]
    assert tu.tree_map(lambda x: x + 1, [None, 1]) == [None, 2]
    assert tu.treedef_is_leaf(tu.tree_structure(None))
    assert not tu.all_leaves([None, 1])


def test_ordered_and_default_dict():
    od = collections.OrderedDict([("b", 1), ("a", 2)])
    leaves, treedef = tu.tree_flatten(od)
    assert leaves == [1, 2]  # insertion order, not sorted
    out = tu.tree_unflatten(treedef, [5, 6])
    assert type(out) is collections.OrderedDict and list(out.items()) == [("b", 5), ("a", 6)]
    assert tu.keystr(tu.tree_leaves_with_path(od)[0][0]) == "['b']"

    dd = collections.defaultdict(list, {"b": 1, "a": 2})
    leaves, treedef = tu.tree_flatten(dd)
    assert leaves == [2, 1]
    out = tu.tree_map(lambda x: x * 10, dd)
    assert type(out) is collections.defaultdict and out.default_factory is list
    assert dict(out) == {"a": 20, "b": 10}
    assert [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(dd)] == ["['a']", "['b']"]
    # defaultdicts with different factories have different structures
    assert tu.tree_structure(dd) != tu.tree_structure(collections.defaultdict(int, dd))


def test_is_leaf():
    tree = [(1, 2), [3, (4, 5)]]
    leaves = tu.tree_leaves(tree, is_leaf=lambda x: isinstance(x, tuple))
    assert leaves == [(1, 2), 3, (4, 5)]
    out = tu.tree_map(lambda x: sum(x) if isinstance(x, tuple) else -x, tree,
                      is_leaf=lambda x: isinstance(x, tuple))
    assert out == [3, [-3, 9]]
    assert tu.all_leaves([(1, 2), 3], is_leaf=lambda x: isinstance(x, tuple))
    assert not tu.all_leaves([(1, 2), 3])
    assert tu.all_leaves([1, "a", 2.0])


def test_treedef_helpers():
    td = tu.tree_structure([(1, 2), 3, {"a": 4}])
    kids = tu.treedef_children(td)
    assert kids == [tu.tree_structure((1, 2)), tu.tree_structure(3),
                    tu.tree_structure({"a": 4})]
    assert tu.treedef_is_leaf(kids[1])
    assert not tu.treedef_is_leaf(kids[0])
    assert tu.treedef_tuple(kids[:2]) == tu.tree_structure(((1, 2), 3))


def test_treedef_pickles():
    td = tu.tree_structure({"a": [1, (2, 3)], "b": Point(1, 2)})
    assert pickle.loads(pickle.dumps(td)) == td


# --------------------------------------------------------------- mapping


def test_tree_map_multiple_trees_and_prefix():
    a = {"x": [1, 2], "y": 3}
    b = {"x": [10, 20], "y": 30}
    assert tu.tree_map(operator.add, a, b) == {"x": [11, 22], "y": 33}
    # first tree is a prefix: whole subtrees of the second are passed
    out = tu.tree_map(lambda p, sub: (p, sub), {"x": 0, "y": 1}, a)
    assert out == {"x": (0, [1, 2]), "y": (1, 3)}


@pytest.mark.parametrize("other, msg", [
    ((1, 2, 3), "Tuple arity mismatch"),
    ([1, 2], "Expected tuple"),
])
def test_tree_map_tuple_mismatch(other, msg):
    with pytest.raises(ValueError, match=msg):
        tu.tree_map(operator.add, (1, 2), other)


def test_tree_map_dict_and_custom_mismatch():
    with pytest.raises(ValueError, match="Dict key mismatch"):
        tu.tree_map(operator.add, {"a": 1, "b": 2}, {"a": 1, "c": 2})
    with pytest.raises(ValueError, match="Custom node type mismatch"):
        tu.tree_map(operator.add, [Box(1, 2)], [(1, 2)])
    with pytest.raises(ValueError):
        tu.tree_map(operator.add, Box(1, 2, "t"), Box(1, 2, "u"))  # aux differs
    with pytest.raises(ValueError):
        tu.tree_map_with_path(lambda p, a, b: a, [1, 2], [1, 2, 3])


def test_tree_reduce_all():
    tree = {"a": [1, 2], "b": (3, None)}
    assert tu.tree_reduce(operator.add, tree) == 6
    assert tu.tree_reduce(operator.add, tree, 10) == 16
    assert tu.tree_reduce(operator.mul, tree, initializer=2) == 12
    assert tu.tree_reduce(lambda acc, x: acc + [x], tree, [],
                          is_leaf=lambda x: isinstance(x, list)) == [[1, 2], 3]
    assert tu.tree_reduce(operator.add, [], 7) == 7
    with pytest.raises(TypeError):
        tu.tree_reduce(operator.add, [])
    assert tu.tree_all([True, (1, "x")])
    assert not tu.tree_all([True, (0, "x")])
    assert tu.tree_all([])


def test_tree_transpose():
    outer = tu.tree_structure([0, 0])
    inner = tu.tree_structure({"a": 0, "b": 0})
    tree = [{"a": 1, "b": 2}, {"a": 3, "b": 4}]
    expected = {"a": [1, 3], "b": [2, 4]}
    assert tu.tree_transpose(outer, inner, tree) == expected
    assert tu.tree_transpose(outer, None, tree) == expected
    with pytest.raises(TypeError, match="Mismatch"):
        tu.tree_transpose(outer, inner, [{"a": 1, "b": 2}, {"a": 3}])


# -------------------------------------------------------------- keypaths


def test_keypaths_builtins():
    tree = {"a": [1, {"c": 2}], "b": Point(3, (4,))}
    strs = [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(tree)]
    assert strs == ["['a'][0]", "['a'][1]['c']", "['b'].x", "['b'].y[0]"]
    assert tu.keystr(tu.tree_leaves_with_path(tree)[1][0], simple=True,
                     separator="/") == "a/1/c"
    pairs, treedef = tu.tree_flatten_with_path(tree)
    assert treedef == tu.tree_structure(tree)
    assert pairs[0][0] == (tu.DictKey("a"), tu.SequenceKey(0))
    assert tu.keystr(()) == ""


def test_keypaths_custom_nodes():
    # no key function: FlattenedIndexKey synthesized
    paths = [tu.keystr(p) for p, _ in tu.tree_leaves_with_path({"k": Box(1, 2)})]
    assert paths == ["['k'][<flat index 0>]", "['k'][<flat index 1>]"]
    paths = [p for p, _ in tu.tree_leaves_with_path(Box(1, 2))]
    assert paths == [(tu.FlattenedIndexKey(0),), (tu.FlattenedIndexKey(1),)]
    # explicit keys
    paths = [tu.keystr(p) for p, _ in tu.tree_leaves_with_path([KeyedBox(1, [2])])]
    assert paths == ["[0].a", "[0].b[0]"]
    assert tu.tree_leaves(KeyedBox(1, (2, 3))) == [1, 2, 3]
    # dataclass fields keyed by attribute
    paths = [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(Params(1, 2))]
    assert paths == [".w", ".b"]


def test_keypaths_is_leaf():
    tree = {"a": (1, 2), "b": [3]}
    pairs = tu.tree_leaves_with_path(tree, is_leaf=lambda x: isinstance(x, tuple))
    assert [(tu.keystr(p), x) for p, x in pairs] == [("['a']", (1, 2)), ("['b'][0]", 3)]
    pairs = tu.tree_leaves_with_path(
        tree, is_leaf=lambda p, x: len(p) == 1, is_leaf_takes_path=True)
    assert [x for _, x in pairs] == [(1, 2), [3]]


def test_tree_map_with_path():
    tree = {"a": [1, 2], "b": 3}
    out = tu.tree_map_with_path(lambda p, x, y: f"{tu.keystr(p)}={x + y}", tree, tree)
    assert out == {"a": ["['a'][0]=2", "['a'][1]=4"], "b": "['b']=6"}


# ---------------------------------------------------------- custom nodes


def test_custom_node_roundtrip():
    tree = [Box(1, (2, 3), tag="q")]
    leaves, treedef = tu.tree_flatten(tree)
    assert leaves == [1, 2, 3]
    assert tu.tree_unflatten(treedef, leaves) == tree
    assert tu.tree_structure(Box(1, 2, "q")) != tu.tree_structure(Box(1, 2, "r"))


def test_duplicate_registration_raises():
    with pytest.raises(ValueError):
        tu.register_pytree_node(Box, lambda x: ((), None), lambda a, c: Box(1, 2))


def test_register_pytree_node_class():
    p = Pair(1, [2, 3], name="n")
    assert tu.tree_leaves(p) == [1, 2, 3]
    q = tu.tree_map(lambda x: -x, p)
    assert isinstance(q, Pair) and (q.left, q.right, q.name) == (-1, [-2, -3], "n")
    assert tu.tree_structure(Pair(1, 2, "m")) != tu.tree_structure(Pair(1, 2, "n"))


def test_register_dataclass_inferred():
    p = Params(w=[1, 2], b=3, act="tanh")
    leaves, treedef = tu.tree_flatten(p)
    assert leaves == [1, 2, 3]
    q = tu.tree_unflatten(treedef, [4, 5, 6])
    assert q == Params(w=[4, 5], b=6, act="tanh")
    assert treedef != tu.tree_structure(Params(w=[1, 2], b=3, act="relu"))


def test_register_dataclass_explicit():
    e = Explicit(x=1, y=2, label="L")
    assert tu.tree_leaves(e) == [2, 1]  # data_fields order
    assert tu.tree_map(lambda v: v * 10, e) == Explicit(x=10, y=20, label="L")


def test_register_dataclass_errors():
    @dataclasses.dataclass
    class D:
        a: int
        b: int

    with pytest.raises(TypeError):
        tu.register_dataclass(D, data_fields=["a", "b"])
    with pytest.raises(ValueError, match="Missing fields"):
        tu.register_dataclass(D, data_fields=["a"], meta_fields=[])
    with pytest.raises(ValueError, match="overlap"):
        tu.register_dataclass(D, data_fields=["a", "b"], meta_fields=["a"])

    class NotDC:
        pass

    with pytest.raises(TypeError):
        tu.register_dataclass(NotDC)

    @functools.partial(tu.register_dataclass, data_fields=["a"], meta_fields=[],
                       drop_fields=["b"])
    @dataclasses.dataclass
    class E:
        a: int
        b: int = 0

    assert tu.tree_leaves(E(1, 2)) == [1]
    assert tu.tree_map(lambda x: x + 1, E(1, 2)) == E(2, 0)


def test_register_static():
    tree = [1, StaticTag("s"), 2]
    leaves, treedef = tu.tree_flatten(tree)
    assert leaves == [1, 2]
    assert tu.tree_unflatten(treedef, [3, 4]) == [3, StaticTag("s"), 4]
    assert treedef != tu.tree_structure([1, StaticTag("t"), 2])


def test_register_pytree_with_keys_class():
    @tu.register_pytree_with_keys_class
    class Special:
        def __init__(self, x, y):
            self.x, self.y = x, y

        def tree_flatten_with_keys(self):
            return ((tu.GetAttrKey("x"), self.x), (tu.GetAttrKey("y"), self.y)), None

        @classmethod
        def tree_unflatten(cls, aux, children):
            return cls(*children)

    pairs = tu.tree_leaves_with_path(Special(1, 2))
    assert [(tu.keystr(p), x) for p, x in pairs] == [(".x", 1), (".y", 2)]
    assert tu.tree_leaves(Special(1, [2, 3])) == [1, 2, 3]


# --------------------------------------------------------------- Partial


def _add3(a, b, c=0):
    return a + b + c


def test_partial_is_pytree():
    p = tu.Partial(_add3, 1, c=10)
    assert p(2) == 13
    leaves, treedef = tu.tree_flatten(p)
    assert leaves == [1, 10]
    q = tu.tree_unflatten(treedef, [5, 100])
    assert isinstance(q, tu.Partial) and q.func is _add3
    assert q(2) == 107
    r = tu.tree_map(lambda x: x * 2, p)
    assert r(0) == 2 + 0 + 20
    # func is static: different functions give different treedefs
    assert tu.tree_structure(tu.Partial(_add3, 1)) != tu.tree_structure(
        tu.Partial(operator.add, 1))
    assert tu.tree_leaves(tu.Partial(_add3)) == []


def test_partial_of_partial_keeps_inner_args_static():
    inner = functools.partial(_add3, 1)
    p = tu.Partial(inner, 2)
    assert tu.tree_leaves(p) == [2]  # inner's 1 is not a child
    assert p() == 3
    assert tu.tree_map(lambda x: x * 10, p)() == 21
