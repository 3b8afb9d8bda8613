"""Per-compilation dumps: what minijax handed XLA and what XLA made of it.

With ``MINIJAX_DUMP_DIR=dir`` (or ``config.update("minijax_dump_dir", dir)``) every jit
compilation writes, into ``dir``:

- ``<function>.<hash>.jaxpr.txt``: the closed jaxpr that was lowered;
- ``<function>.<hash>.stablehlo.mlir``: the StableHLO module handed to XLA (without locations;
  ``jit(f).lower(x).as_text(debug_info=True)`` shows them);
- ``<function>.<hash>.hlo.txt``: XLA's optimized HLO of the executable;
- a line in ``index.jsonl``: time, function, hash, argument/result avals, files, compile seconds,
  whether the executable came from the persistent cache, its cache key, pid.

``<hash>`` is the first 12 hex digits of the SHA-256 of the StableHLO text, so a program
recompiled (another process, a cleared cache) lands on the same files. Each file is written to
a temporary name and renamed; each index line is one ``O_APPEND`` write, so several processes
can share one directory.

Eager (op-by-op) execution compiles one tiny program per (primitive, avals, params); those are
skipped unless ``minijax_dump_eager`` is set, to keep the directory readable. (Eager ``jnp``
calls run as small jitted programs and are dumped as ``jit_<name>``.)

XLA's own dumps (every HLO pass, LLVM IR, buffer assignment) come from XLA's flags:
``XLA_FLAGS=--xla_dump_to=/tmp/xla`` in the environment before the first compile, or
``minijax_dump_xla=True``, which sets ``xla_dump_to=<dump dir>/xla`` in each compile's options.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import logging
import os
import re
import tempfile

from minijax.lowering import jaxlib_ext, stablehlo

logger = logging.getLogger("minijax")

INDEX_NAME = "index.jsonl"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def file_stem(name: str) -> str:
    return _UNSAFE.sub("_", name).strip("._") or "module"


def _write_atomic(directory, filename, text):
    fd, tmp = tempfile.mkstemp(prefix=f".{filename}.", suffix=".tmp", dir=directory)
    try:
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; dumps are for reading
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, os.path.join(directory, filename))
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _append_line(path, record):
    line = (json.dumps(record, sort_keys=True) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)  # one write of a whole line: lines from several processes never mix
    finally:
        os.close(fd)


def dump_compilation(
    directory, name, module, jaxpr, xla, in_avals, out_avals, seconds, kind, loaded, cache_key
):
    """Writes the dump files and index line of one compilation; never raises (logs instead)."""
    try:
        _dump(directory, name, module, jaxpr, xla, in_avals, out_avals, seconds, kind, loaded,
              cache_key)
    except Exception as e:  # noqa: BLE001 - a failing dump must not fail the user's program
        logger.warning("minijax: could not dump compilation of '%s' to %s: %s", name, directory, e)


def _dump(directory, name, module, jaxpr, xla, in_avals, out_avals, seconds, kind, loaded,
          cache_key):
    directory = os.fspath(directory)
    os.makedirs(directory, exist_ok=True)
    text = stablehlo.module_to_text(module)
    short = hashlib.sha256(text.encode()).hexdigest()[:12]
    stem = f"{file_stem(name)}.{short}"
    files = {}
    if jaxpr is not None:
        files["jaxpr"] = f"{stem}.jaxpr.txt"
        _write_atomic(directory, files["jaxpr"], str(jaxpr) + "\n")
    files["stablehlo"] = f"{stem}.stablehlo.mlir"
    _write_atomic(directory, files["stablehlo"], text)
    files["hlo"] = f"{stem}.hlo.txt"
    _write_atomic(directory, files["hlo"], jaxlib_ext.optimized_hlo_text(xla))
    now = datetime.datetime.now(datetime.timezone.utc)
    record = {
        "time": now.isoformat(timespec="milliseconds"),
        "function": name,
        "hash": short,
        "kind": kind,
        "in_avals": [_aval_str(a) for a in in_avals],
        "out_avals": [_aval_str(a) for a in out_avals],
        "files": files,
        "compile_seconds": round(seconds, 6),
        "from_persistent_cache": loaded,
        "cache_key": cache_key,
        "pid": os.getpid(),
    }
    _append_line(os.path.join(directory, INDEX_NAME), record)


def _aval_str(aval):
    short = getattr(aval, "str_short", None)
    return short(True) if short is not None else str(aval)


def read_index(directory) -> list[dict]:
    """The records of ``index.jsonl`` (oldest first); a torn last line is skipped."""
    path = os.path.join(os.fspath(directory), INDEX_NAME)
    records = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError:
                    continue
    except FileNotFoundError:
        pass
    return records
