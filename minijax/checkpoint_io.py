"""Save and load pytrees of arrays: ``checkpoint_io.save(path, tree)``, ``load(path, like=None)``.

Format: one ``.npz`` file (a zip NumPy reads with ``np.load``) holding ``manifest.json`` and one
``<i>.npy`` per leaf. The manifest records the tree structure (dicts, lists, tuples,
namedtuples, None; other registered nodes by their key paths), each leaf's key path
(``tree_util.keystr``), kind (minijax Array, NumPy array or scalar, Python scalar) and dtype.
Dtypes NumPy cannot name in a ``.npy`` header (bfloat16, float8_*, int4 ... from ml_dtypes) are
stored as their raw bytes viewed as unsigned integers of the same width, with the real dtype
name in the manifest, so bits round-trip exactly.

Sharded Arrays are gathered to the host (one leaf at a time) and stored whole; ``load`` puts
them back with the sharding of the matching leaf of ``like``.

Saving is atomic: everything is written to a temporary file beside ``path``, flushed to disk
and renamed over ``path`` (``os.replace``). A crash or kill during the save leaves the previous
checkpoint untouched (and a ``.<name>.tmp-*`` file that the next save into the directory removes
when its process is gone).
"""

from __future__ import annotations

import collections
import importlib
import json
import os
import tempfile
import zipfile

import ml_dtypes
import numpy as np

from minijax import dtypes, tree_util
from minijax.lowering import backends, jaxlib_ext
from minijax.lowering.array import Array, device_put_value

FORMAT = "minijax.checkpoint"
VERSION = 1
MANIFEST = "manifest.json"

# Called after each leaf is written, with the leaf's index (tests kill a save in the middle).
_after_leaf_hook = None

__all__ = ["load", "read_manifest", "save"]


# ------------------------------------------------------------------------------------------------
# dtypes


def _dtype_from_name(name):
    if hasattr(ml_dtypes, name):
        return np.dtype(getattr(ml_dtypes, name))
    return np.dtype(name)


def _is_raw(dtype):
    """True for dtypes a .npy header cannot name (ml_dtypes': bfloat16, float8_*, int4 ...)."""
    return dtype.type.__module__.startswith("ml_dtypes") or (
        dtype.kind == "V" and dtype.fields is None
    )


def _storage(x: np.ndarray) -> np.ndarray:
    """``x`` as NumPy can store it in a .npy: non-native dtypes as same-width unsigned ints."""
    return x.view(np.dtype(f"u{x.dtype.itemsize}")) if _is_raw(x.dtype) else x


# ------------------------------------------------------------------------------------------------
# Tree structure <-> JSON


def _encode_key(k):
    if isinstance(k, bool) or k is None or isinstance(k, (str, int, float)):
        return {"v": k, "t": type(k).__name__}
    if isinstance(k, tuple):
        return {"t": "tuple", "v": [_encode_key(x) for x in k]}
    raise TypeError(f"checkpoint_io: dict key {k!r} of type {type(k).__name__} cannot be saved")


def _decode_key(e):
    if e["t"] == "tuple":
        return tuple(_decode_key(x) for x in e["v"])
    return e["v"]


def _is_namedtuple(t):
    return isinstance(t, type) and issubclass(t, tuple) and hasattr(t, "_fields")


def _encode_structure(treedef, counter):
    data = treedef.node_data()
    if data is None:
        i = counter[0]
        counter[0] += 1
        return {"node": "leaf", "index": i}
    node_type, aux = data
    children = [_encode_structure(c, counter) for c in treedef.children()]
    if node_type is type(None):
        return {"node": "none"}
    if node_type in (tuple, list):
        return {"node": node_type.__name__, "children": children}
    if node_type in (dict, collections.OrderedDict):
        return {"node": "dict" if node_type is dict else "ordereddict",
                "keys": [_encode_key(k) for k in aux], "children": children}
    if _is_namedtuple(node_type):
        return {"node": "namedtuple", "type": _type_name(node_type),
                "fields": list(node_type._fields), "children": children}
    return {"node": "custom", "type": _type_name(node_type), "children": children}


def _type_name(t):
    return f"{t.__module__}:{t.__qualname__}"


def _import_type(name):
    module, _, qualname = name.partition(":")
    try:
        obj = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
        return obj
    except (ImportError, AttributeError):
        return None


def _decode_structure(node, leaves):
    kind = node["node"]
    if kind == "leaf":
        return leaves[node["index"]]
    if kind == "none":
        return None
    children = [_decode_structure(c, leaves) for c in node.get("children", [])]
    if kind == "tuple":
        return tuple(children)
    if kind == "list":
        return children
    if kind in ("dict", "ordereddict"):
        pairs = zip([_decode_key(k) for k in node["keys"]], children)
        return dict(pairs) if kind == "dict" else collections.OrderedDict(pairs)
    if kind == "namedtuple":
        cls = _import_type(node["type"])
        if not (_is_namedtuple(cls) and list(cls._fields) == node["fields"]):
            name = node["type"].rpartition(":")[2].rpartition(".")[2]
            cls = collections.namedtuple(name, node["fields"])
        return cls(*children)
    # A custom node cannot be rebuilt without its type's unflatten data: give its children as
    # a tuple (load with like= to get the real type back).
    return tuple(children)


# ------------------------------------------------------------------------------------------------
# Leaves


def _leaf_record(leaf, path):
    """(record, host ndarray or None) for one leaf."""
    if isinstance(leaf, Array):
        value = jaxlib_ext.gather_to_host(leaf)
        rec = {"kind": "array", "weak_type": bool(leaf.weak_type)}
        if len(leaf.devices()) > 1:
            rec["sharding"] = str(jaxlib_ext.hlo_sharding(leaf.sharding))
    elif isinstance(leaf, np.ndarray):
        value, rec = leaf, {"kind": "numpy"}
    elif isinstance(leaf, np.generic):
        value, rec = np.asarray(leaf), {"kind": "numpy_scalar"}
    elif isinstance(leaf, (bool, int, float, complex)):
        value, rec = np.asarray(leaf), {"kind": "python", "type": type(leaf).__name__}
    elif isinstance(leaf, str):
        return {"kind": "str", "value": leaf, "path": path}, None
    else:
        raise TypeError(
            f"checkpoint_io.save: leaf at {path or 'the root'} has type {type(leaf).__name__}; "
            "leaves must be arrays, NumPy values, Python scalars or strings"
        )
    rec.update(path=path, dtype=value.dtype.name, shape=list(value.shape))
    if _is_raw(value.dtype):
        rec["storage"] = f"raw bytes as uint{8 * value.dtype.itemsize}"
    return rec, value


def _to_host(value, rec):
    if "storage" in rec:
        value = value.view(_dtype_from_name(rec["dtype"]))
    return value.reshape(rec["shape"])


def _restore_default(value, rec):
    kind = rec["kind"]
    if kind == "array":
        return device_put_value(value, weak_type=rec.get("weak_type", False))
    if kind == "numpy":
        return value
    if kind == "numpy_scalar":
        return value[()]
    if kind == "python":
        return {"bool": bool, "int": int, "float": float, "complex": complex}[rec["type"]](value)
    raise ValueError(f"checkpoint_io: unknown leaf kind {kind!r}")


def _restore_like(value, rec, target, path):
    if rec["kind"] == "str":
        return rec["value"]
    shape = tuple(getattr(target, "shape", np.shape(target)))
    if shape != tuple(value.shape):
        raise ValueError(
            f"checkpoint_io.load: leaf {path} has shape {tuple(value.shape)} in the checkpoint but "
            f"{shape} in like"
        )
    if isinstance(target, Array) or _is_shape_dtype_struct(target):
        dtype = dtypes.canonicalize_dtype(np.dtype(target.dtype))
        value = value.astype(dtype, copy=False)
        sharding = getattr(target, "sharding", None)
        if sharding is not None and len(_devices_of(sharding)) > 1:
            aval = target.aval if isinstance(target, Array) else _aval(target)
            return jaxlib_ext.put_sharded(value, aval.update(dtype=value.dtype), sharding)
        device = _devices_of(sharding)[0] if sharding is not None else None
        weak = bool(getattr(target, "weak_type", False))
        return device_put_value(value, device, weak_type=weak)
    if isinstance(target, np.ndarray):
        return value.astype(target.dtype, copy=False)
    if isinstance(target, np.generic):
        return value.astype(target.dtype)[()]
    if isinstance(target, (bool, int, float, complex)):
        return type(target)(value)
    return _restore_default(value, rec)


def _is_shape_dtype_struct(x):
    return type(x).__name__ == "ShapeDtypeStruct" and hasattr(x, "dtype") and hasattr(x, "shape")


def _aval(sds):
    return sds.aval


def _devices_of(sharding):
    return backends.sharding_devices(sharding)


# ------------------------------------------------------------------------------------------------
# save / load


def save(path, pytree):
    """Writes ``pytree`` to ``path`` (a ``.npz`` file NumPy can read), atomically."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    _remove_stale_temps(directory, os.path.basename(path))
    with_path, treedef = tree_util.tree_flatten_with_path_internal(pytree)
    fd, tmp = tempfile.mkstemp(
        prefix=f".{os.path.basename(path)}.tmp-{os.getpid()}-", dir=directory
    )
    try:
        with os.fdopen(fd, "wb") as f:
            with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
                records = []
                for i, (keys, leaf) in enumerate(with_path):
                    rec, value = _leaf_record(leaf, tree_util.keystr(keys))
                    if value is not None:
                        rec["file"] = f"{i}.npy"
                        with zf.open(rec["file"], "w", force_zip64=True) as member:
                            stored = _storage(value)  # (np.ascontiguousarray makes 0-d 1-d)
                            if not stored.flags.c_contiguous:
                                stored = stored.copy(order="C")
                            np.lib.format.write_array(member, stored, allow_pickle=False)
                    records.append(rec)
                    del value
                    if _after_leaf_hook is not None:
                        _after_leaf_hook(i)
                manifest = {
                    "format": FORMAT,
                    "version": VERSION,
                    "structure": _encode_structure(treedef, [0]),
                    "treedef": str(treedef),
                    "leaves": records,
                }
                zf.writestr(MANIFEST, json.dumps(manifest, indent=1))
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(directory)
    return path


def _fsync_dir(directory):
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _remove_stale_temps(directory, base):
    """Removes temporaries of saves into ``base`` whose process no longer exists."""
    prefix = f".{base}.tmp-"
    for name in os.listdir(directory):
        if not name.startswith(prefix):
            continue
        pid = name[len(prefix):].split("-", 1)[0]
        if pid.isdigit() and not _pid_alive(int(pid)):
            try:
                os.unlink(os.path.join(directory, name))
            except OSError:
                pass


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def read_manifest(path) -> dict:
    """The manifest of a checkpoint: structure, and per leaf its path, kind, dtype, shape."""
    with zipfile.ZipFile(os.fspath(path)) as zf:
        manifest = json.loads(zf.read(MANIFEST))
    if manifest.get("format") != FORMAT:
        raise ValueError(f"{path} is not a minijax checkpoint")
    if manifest.get("version", 0) > VERSION:
        raise ValueError(f"{path} has checkpoint format version {manifest['version']}; this "
                         f"minijax reads up to {VERSION}")
    return manifest


def load(path, like=None):
    """Reads a checkpoint written by ``save``.

    Without ``like`` the saved structure comes back, with minijax Arrays on the default device
    (sharded ones gathered), NumPy values as NumPy, Python scalars as Python scalars. With
    ``like`` (a pytree of Arrays, NumPy arrays or ``ShapeDtypeStruct``s) the result has its
    structure, and each leaf its dtype and its sharding (or device); leaves are matched by key
    path, and a missing/extra leaf or a shape mismatch raises ``ValueError``.
    """
    path = os.fspath(path)
    manifest = read_manifest(path)
    records = manifest["leaves"]
    with zipfile.ZipFile(path) as zf:

        def read(rec):
            if "file" not in rec:
                return None
            with zf.open(rec["file"]) as member:
                return _to_host(np.lib.format.read_array(member, allow_pickle=False), rec)

        if like is None:
            leaves = [
                rec["value"] if rec["kind"] == "str" else _restore_default(read(rec), rec)
                for rec in records
            ]
            return _decode_structure(manifest["structure"], leaves)
        targets, treedef = tree_util.tree_flatten_with_path_internal(like)
        by_path = {rec["path"]: rec for rec in records}
        want = [tree_util.keystr(keys) for keys, _ in targets]
        missing = [p for p in want if p not in by_path]
        extra = sorted(set(by_path) - set(want))
        if missing or extra:
            raise ValueError(
                f"checkpoint_io.load: the structure of like does not match {path}: "
                f"missing from the checkpoint: {missing or 'none'}; in the checkpoint but not "
                f"in like: {extra or 'none'}"
            )
        out = []
        for p, (_, target) in zip(want, targets):
            rec = by_path[p]
            out.append(_restore_like(read(rec), rec, target, p or "<root>"))
        return treedef.unflatten(out)
