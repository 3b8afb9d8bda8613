"""checkpoint_io: every dtype bit-exact, nested pytrees, sharded arrays, atomic saves."""

import collections
import os
import signal
import subprocess
import sys
import zipfile

import ml_dtypes
import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import checkpoint_io, dtypes
from minijax.api import ShapeDtypeStruct
from minijax.core import ShapedArray
from minijax.lowering import jaxlib_ext
from minijax.tree_util import register_pytree_node

Point = collections.namedtuple("Point", ["x", "y"])

NUMPY_DTYPES = [
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64, np.complex64, np.complex128,
    ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2,
    ml_dtypes.float8_e4m3b11fnuz, ml_dtypes.float8_e4m3fnuz, ml_dtypes.float8_e5m2fnuz,
    ml_dtypes.int4, ml_dtypes.uint4,
]


def _sample(dtype, shape=(3, 4)):
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(0)
    if dtype == np.bool_:
        return rng.random(shape) > 0.5
    if dtype.name in ("int4", "uint4"):
        return rng.integers(0 if dtype.name == "uint4" else -8, 8, shape).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    values = rng.normal(size=shape) * 4
    if np.issubdtype(dtype, np.complexfloating):
        values = values + 1j * rng.normal(size=shape)
    out = values.astype(dtype)
    if dtype.name != "float8_e4m3b11fnuz" and "fnuz" not in dtype.name:
        out.flat[0] = np.nan  # NaN payloads must survive too
    return out


def _bits(x):
    x = np.asarray(x)
    return x.view(np.dtype(f"u{x.dtype.itemsize}")) if x.dtype.itemsize in (1, 2, 4, 8) and \
        x.dtype.kind not in "c" else x.view(np.uint8)


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(_bits(a), _bits(b))


def test_every_numpy_dtype_round_trips_bit_exactly(tmp_path):
    tree = {np.dtype(d).name: _sample(d) for d in NUMPY_DTYPES}
    tree["scalar_bf16"] = ml_dtypes.bfloat16(1.5)  # a NumPy scalar of an ml_dtype
    path = tmp_path / "all.npz"
    checkpoint_io.save(path, tree)
    back = checkpoint_io.load(path)
    assert back.keys() == tree.keys()
    for k in tree:
        _same(back[k], tree[k])
    assert isinstance(back["scalar_bf16"], np.generic)
    # A format NumPy reads: native dtypes as themselves, ml_dtypes as raw unsigned ints.
    manifest = checkpoint_io.read_manifest(path)
    with np.load(path) as npz:
        for rec in manifest["leaves"]:
            stored = npz[rec["file"][: -len(".npy")]]
            if "storage" in rec:
                stored = stored.view(getattr(ml_dtypes, rec["dtype"]))
            _same(stored, np.asarray(tree[rec["path"][2:-2]]))


@pytest.mark.parametrize("dtype", [d for d in dtypes.all_dtypes if d.itemsize < 8 or
                                   d == dtypes.complex64], ids=lambda d: d.name)
def test_device_arrays_of_every_dtype(tmp_path, dtype):
    x = minijax.device_put(_sample(dtype, (2, 5)))
    path = tmp_path / "a.npz"
    checkpoint_io.save(path, {"x": x, "weak": jnp.asarray(2.0) * 1})
    back = checkpoint_io.load(path)
    assert isinstance(back["x"], minijax.Array) and back["x"].dtype == dtype
    _same(back["x"], x)
    assert back["weak"].weak_type == (jnp.asarray(2.0) * 1).weak_type


def test_nested_structures_round_trip(tmp_path):
    tree = {
        "params": [{"w": np.ones((2, 2), np.float32), "b": None}, (np.int32(3), 4.5, True)],
        "point": Point(x=jnp.arange(3.0), y=(1, None)),
        "ordered": collections.OrderedDict([("z", 1), ("a", 2j)]),
        "name": "run-17",
        "int_keys": {7: "int key", 2: np.float32(1)},
        "tuple_keys": {("t", 1): [], ("s", 0): ()},
        "empty": {},
    }
    path = tmp_path / "tree.npz"
    checkpoint_io.save(path, tree)
    back = checkpoint_io.load(path)
    assert set(back) == set(tree)
    assert back["params"][0]["b"] is None and back["point"].y == (1, None)
    assert type(back["point"]) is Point and type(back["params"][1]) is tuple
    assert type(back["ordered"]) is collections.OrderedDict and list(back["ordered"]) == ["z", "a"]
    assert back["ordered"]["a"] == 2j and type(back["params"][1][2]) is bool
    assert back["name"] == "run-17" and back["int_keys"][7] == "int key"
    assert back["tuple_keys"] == {("t", 1): [], ("s", 0): ()}
    np.testing.assert_array_equal(back["point"].x, np.arange(3.0))
    assert isinstance(back["point"].x, minijax.Array)
    assert isinstance(back["params"][0]["w"], np.ndarray)
    assert minijax.tree_util.tree_structure(back) == minijax.tree_util.tree_structure(tree)


def test_namedtuple_not_importable_comes_back_with_its_fields(tmp_path):
    Local = collections.namedtuple("Local", "p q")
    checkpoint_io.save(tmp_path / "c.npz", Local(1, 2.0))
    back = checkpoint_io.load(tmp_path / "c.npz")
    assert back._fields == ("p", "q") and tuple(back) == (1, 2.0)


def _sharded(value, spec="{devices=[2,2]<=[4]}"):
    sharding = jaxlib_ext.make_sharding(minijax.devices()[:4], spec)
    return jaxlib_ext.put_sharded(value, ShapedArray(value.shape, value.dtype), sharding)


@pytest.mark.parametrize("spec", ["{devices=[2,2]<=[4]}", "{devices=[4,1]<=[4]}",
                                  "{devices=[2,1,2]<=[4] last_tile_dim_replicate}",
                                  "{replicated}"])
@pytest.mark.devices(4)
def test_sharded_array_is_gathered_and_restored_with_like(tmp_path, spec):
    value = np.arange(8 * 6, dtype=np.float32).reshape(8, 6)
    arr = _sharded(value, spec)
    assert len(arr.devices()) == 4
    path = tmp_path / "sharded.npz"
    checkpoint_io.save(path, {"w": arr})
    np.testing.assert_array_equal(np.load(path)["0"], value)  # stored whole
    back = checkpoint_io.load(path)["w"]  # no like: one device
    np.testing.assert_array_equal(np.asarray(back), value)
    like = {"w": _sharded(np.zeros_like(value), spec)}
    restored = checkpoint_io.load(path, like=like)["w"]
    assert restored.sharding is like["w"].sharding and len(restored.devices()) == 4
    np.testing.assert_array_equal(jaxlib_ext.gather_to_host(restored), value)
    # The restored array computes like the original under jit (its shards are right).
    out = minijax.jit(lambda a: a * 2)(back)
    np.testing.assert_array_equal(np.asarray(out), value * 2)


def test_like_sets_dtypes_devices_and_structure(tmp_path):
    path = tmp_path / "c.npz"
    checkpoint_io.save(path, {"a": np.arange(4, dtype=np.float64), "b": [1, 2], "c": 3.0})
    dev = minijax.devices()[-1]
    like = {
        "a": ShapeDtypeStruct((4,), jnp.bfloat16),
        "b": [np.zeros((), np.int16), 0],
        "c": minijax.device_put(np.float32(0), dev),
    }
    back = checkpoint_io.load(path, like=like)
    assert back["a"].dtype == jnp.bfloat16 and isinstance(back["a"], minijax.Array)
    assert back["b"][0].dtype == np.int16 and back["b"][1] == 2 and type(back["b"][1]) is int
    assert back["c"].devices() == {dev} and float(back["c"]) == 3.0
    with pytest.raises(ValueError, match=r"missing from the checkpoint: \[\"\['d'\]\"\]"):
        checkpoint_io.load(path, like={**like, "d": 1})
    with pytest.raises(ValueError, match="shape"):
        checkpoint_io.load(path, like={**like, "a": np.zeros(5)})


def test_custom_nodes_need_like(tmp_path):
    class Box:
        def __init__(self, v, tag):
            self.v, self.tag = v, tag

    register_pytree_node(Box, lambda b: ((b.v,), b.tag), lambda tag, ch: Box(ch[0], tag))
    checkpoint_io.save(tmp_path / "b.npz", {"box": Box(np.ones(2), "t")})
    assert isinstance(checkpoint_io.load(tmp_path / "b.npz")["box"], tuple)
    back = checkpoint_io.load(tmp_path / "b.npz", like={"box": Box(np.zeros(2), "t")})
    assert isinstance(back["box"], Box) and back["box"].v.tolist() == [1.0, 1.0]


def test_unsupported_leaf_is_a_clear_error_and_leaves_nothing(tmp_path):
    with pytest.raises(TypeError, match=r"\['bad'\].*object"):
        checkpoint_io.save(tmp_path / "x.npz", {"bad": object()})
    assert os.listdir(tmp_path) == []


KILLED_SAVE = r"""
import sys, time
import numpy as np
from minijax import checkpoint_io

def hook(i):
    if i == 1:
        print("half-written", flush=True)
        time.sleep(120)

checkpoint_io._after_leaf_hook = hook
checkpoint_io.save(sys.argv[1], {"a": np.full(1000, 2.0), "b": np.full(1000, 2.0),
                                 "c": np.full(1000, 2.0)})
"""


def test_kill_during_save_keeps_the_old_checkpoint(tmp_path):
    path = tmp_path / "ckpt.npz"
    old = {"a": np.full(1000, 1.0), "b": np.full(1000, 1.0), "c": np.full(1000, 1.0)}
    checkpoint_io.save(path, old)
    before = path.read_bytes()
    env = dict(os.environ, MINIJAX_PLATFORMS="cpu")
    proc = subprocess.Popen([sys.executable, "-c", KILLED_SAVE, str(path)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "half-written", proc.stderr.read()
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    assert path.read_bytes() == before
    back = checkpoint_io.load(path)
    np.testing.assert_array_equal(back["b"], old["b"])
    leftovers = [p for p in os.listdir(tmp_path) if p != "ckpt.npz"]
    assert leftovers and all(p.startswith(".ckpt.npz.tmp-") for p in leftovers)
    assert zipfile.is_zipfile(path)
    # The next save cleans up the dead process's temporary file.
    checkpoint_io.save(path, {"a": np.zeros(2)})
    assert os.listdir(tmp_path) == ["ckpt.npz"]
    np.testing.assert_array_equal(checkpoint_io.load(path)["a"], np.zeros(2))


@pytest.mark.devices(4)
def test_sharded_pytree_through_the_public_sharding_api(tmp_path):
    """A model-like pytree whose leaves are laid out differently over a 2x2 mesh (rows, columns,
    replicated, a scalar on one device) round-trips, each leaf back in its own layout."""
    from minijax.sharding import Mesh, NamedSharding
    from minijax.sharding import PartitionSpec as P

    mesh = Mesh(np.array(minijax.devices()[:4]).reshape(2, 2), ("data", "model"))
    specs = {"w1": P("data", "model"), "w2": P(None, "model"), "b": P(), "emb": P("data")}
    rng = np.random.default_rng(0)
    host = {"w1": rng.normal(size=(8, 6)).astype(np.float32),
            "w2": rng.normal(size=(6, 4)).astype(jnp.bfloat16),
            "b": np.arange(4, dtype=np.int32),
            "emb": rng.normal(size=(10, 3)).astype(np.float32)}
    tree = {"layers": [{k: minijax.device_put(host[k], NamedSharding(mesh, specs[k]))
                        for k in ("w1", "w2", "b")}],
            "emb": minijax.device_put(host["emb"], NamedSharding(mesh, specs["emb"])),
            "step": minijax.device_put(np.int32(7))}
    path = tmp_path / "model.npz"
    checkpoint_io.save(path, tree)
    back = checkpoint_io.load(path, like=tree)
    for key in ("w1", "w2", "b"):
        leaf, orig = back["layers"][0][key], tree["layers"][0][key]
        assert leaf.sharding == orig.sharding and leaf.dtype == orig.dtype
        _same(np.asarray(leaf), host[key])
        # each device holds the same block as in the original
        for mine, theirs in zip(leaf.addressable_shards, orig.addressable_shards):
            assert mine.device == theirs.device and mine.index == theirs.index
            _same(np.asarray(mine.data), np.asarray(theirs.data))
    assert back["emb"].sharding == tree["emb"].sharding
    np.testing.assert_array_equal(np.asarray(back["emb"]), host["emb"])
    assert int(back["step"]) == 7 and len(back["step"].devices()) == 1
