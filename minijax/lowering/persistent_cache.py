"""The persistent compilation cache: XLA executables serialized to a directory, reused across
processes (``minijax.config.update("jax_compilation_cache_dir", path)``, as in JAX).

Key: SHA-256 over the module's MLIR bytecode with debug locations stripped (two programs that
differ only in source lines share an entry, as in JAX), jaxlib's version and ``xc._version``,
the backend platform and platform version, the device kinds and count, the serialized compile
options (device assignment, partitioning, XLA debug options) and ``XLA_FLAGS``.

Entry file ``<dir>/<key>.mjxc``: a magic line, a JSON header (key, versions, payload length and
SHA-256, compile time) and the serialized executable. Entries are written to a temporary file
and ``os.replace``d into place, so readers in other processes see a whole entry or none. A
truncated or corrupt entry, or one whose header names another jaxlib, is ignored (counted as
``corrupt`` / ``stale``), compiled afresh and overwritten.

Only compilations that took at least ``jax_persistent_cache_min_compile_time_secs`` (default
1.0 s, as JAX) are written; with that default the tiny programs of eager execution never are.
Executables with host callbacks are never cached (their Python functions cannot be saved).
There is no size limit or eviction: delete the directory to reclaim space.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import tempfile
import time

from minijax.config import config
from minijax.lowering import jaxlib_ext

logger = logging.getLogger("minijax")

FORMAT_VERSION = 1
_MAGIC = b"minijax-compilation-cache v1\n"
_SUFFIX = ".mjxc"

_STAT_NAMES = ("hits", "misses", "writes", "skipped", "corrupt", "stale", "errors")
_stats = dict.fromkeys(_STAT_NAMES, 0)


def stats() -> dict:
    """Counters since start (or ``reset_stats``): ``hits`` (loaded from disk), ``misses``
    (compiled), ``writes``, ``skipped`` (below the size/time thresholds), ``corrupt`` and
    ``stale`` (entries ignored), ``errors`` (I/O or deserialization failures)."""
    return dict(_stats)


def reset_stats():
    for k in _stats:
        _stats[k] = 0


def cache_dir() -> str | None:
    """The cache directory, or None when the cache is off."""
    path = config.jax_compilation_cache_dir
    if not path or not config.jax_enable_compilation_cache:
        return None
    return os.fspath(path)


def _module_bytes(module) -> bytes:
    from jaxlib.mlir import passmanager

    with module.context:
        clone = module.operation.clone()
        passmanager.PassManager.parse("builtin.module(strip-debuginfo)").run(clone)
        buf = io.BytesIO()
        clone.write_bytecode(buf)
    return buf.getvalue()


def _key_parts(devices, options) -> dict:
    """Everything except the module that goes into the key (also stored in the entry header)."""
    return {
        "format": FORMAT_VERSION,
        "jaxlib": jaxlib_ext.JAXLIB_VERSION,
        "xla_client": jaxlib_ext.XLA_CLIENT_VERSION,
        "ifrt": jaxlib_ext.IFRT_VERSION,
        **jaxlib_ext.backend_identity(devices),
        "xla_flags": jaxlib_ext.xla_flags(),
    }


def cache_key(module, devices, options):
    """``(hex key, key parts)`` for compiling ``module`` on ``devices`` with ``options``."""
    parts = _key_parts(devices, options)
    h = hashlib.sha256()
    h.update(_module_bytes(module))
    h.update(json.dumps(parts, sort_keys=True).encode())
    h.update(jaxlib_ext.options_bytes(options))
    return h.hexdigest(), parts


def _entry_path(directory, key):
    return os.path.join(directory, key + _SUFFIX)


def load(directory, key, parts, devices, options):
    """The executable stored under ``key``, or None (missing, corrupt, stale, not loadable)."""
    path = _entry_path(directory, key)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return None
    except OSError as e:
        _stats["errors"] += 1
        logger.warning("minijax: cannot read compilation cache entry %s: %s", path, e)
        return None
    payload = _check_entry(data, key, parts, path)
    if payload is None:
        return None
    try:
        return jaxlib_ext.deserialize_executable(payload, devices, options)
    except Exception as e:  # noqa: BLE001 - a bad entry must never break compilation
        _stats["errors"] += 1
        logger.warning("minijax: cannot deserialize compilation cache entry %s: %s", path, e)
        return None


def _check_entry(data, key, parts, path):
    try:
        if not data.startswith(_MAGIC):
            raise ValueError("bad magic")
        head_end = data.index(b"\n", len(_MAGIC))
        header = json.loads(data[len(_MAGIC) : head_end])
        payload = data[head_end + 1 :]
        if len(payload) != header["payload_bytes"]:
            raise ValueError(f"payload {len(payload)} bytes, header {header['payload_bytes']}")
        if hashlib.sha256(payload).hexdigest() != header["payload_sha256"]:
            raise ValueError("payload checksum mismatch")
    except (ValueError, KeyError, TypeError) as e:
        _stats["corrupt"] += 1
        logger.debug("minijax: ignoring corrupt compilation cache entry %s (%s)", path, e)
        return None
    if header.get("key") != key or header.get("parts") != parts:
        _stats["stale"] += 1
        logger.debug(
            "minijax: ignoring compilation cache entry %s built for %s (now %s)",
            path, header.get("parts"), parts,
        )
        return None
    return payload


def store(directory, key, parts, xla, compile_seconds, name):
    """Writes an entry atomically (temp file + ``os.replace``) if it passes the thresholds."""
    if compile_seconds < config.jax_persistent_cache_min_compile_time_secs:
        _stats["skipped"] += 1
        return False
    try:
        payload = jaxlib_ext.serialize_executable(xla)
    except Exception as e:  # noqa: BLE001 - e.g. an executable kind that cannot serialize
        _stats["errors"] += 1
        logger.debug("minijax: cannot serialize '%s' for the compilation cache: %s", name, e)
        return False
    if len(payload) < config.jax_persistent_cache_min_entry_size_bytes:
        _stats["skipped"] += 1
        return False
    header = {
        "key": key,
        "parts": parts,
        "name": name,
        "compile_seconds": compile_seconds,
        "created": time.time(),
        "payload_bytes": len(payload),
        "payload_sha256": hashlib.sha256(payload).hexdigest(),
    }
    blob = _MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n" + payload
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{key[:16]}.", suffix=".tmp", dir=directory)
        try:
            os.chmod(tmp, 0o644)  # mkstemp makes 0600; other users' processes may share a cache
            with os.fdopen(fd, "wb") as f:
                f.write(blob)
            os.replace(tmp, _entry_path(directory, key))
        except BaseException:
            _remove_quietly(tmp)
            raise
    except OSError as e:
        _stats["errors"] += 1
        logger.warning("minijax: cannot write compilation cache entry for '%s': %s", name, e)
        return False
    _stats["writes"] += 1
    return True


def _remove_quietly(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def compile_or_load(module, devices, options, name, compile_fn):
    """``(executable, loaded: bool, key)``: the cached executable if there is one, else
    ``compile_fn()`` (stored when worth it). Only called when ``cache_dir()`` is set."""
    directory = cache_dir()
    try:
        key, parts = cache_key(module, devices, options)
    except Exception as e:  # noqa: BLE001 - never fail a compile because of the cache
        _stats["errors"] += 1
        logger.warning("minijax: compilation cache key failed for '%s': %s", name, e)
        return compile_fn(), False, None
    xla = load(directory, key, parts, devices, options)
    if xla is not None:
        _stats["hits"] += 1
        logger.debug("minijax: compilation cache hit for '%s' (%s)", name, key[:16])
        return xla, True, key
    _stats["misses"] += 1
    logger.debug("minijax: compilation cache miss for '%s' (%s)", name, key[:16])
    start = time.perf_counter()
    xla = compile_fn()
    store(directory, key, parts, xla, time.perf_counter() - start, name)
    return xla, False, key
