"""``jax._src.traceback_util``: the registry of library files whose frames are not the user's.

JAX cuts its own frames (and those of registered libraries) out of exception tracebacks.
minijax shows tracebacks whole, so ``api_boundary`` leaves a function as it is; the
registered paths still answer ``include_frame``, which libraries (equinox) use to find the
first frame of their user's code.
"""

from __future__ import annotations

import os

# minijax itself, as JAX registers its own files.
_exclude_paths: list[str] = [os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep]


def register_exclusion(path: str):
    """Frames of files under ``path`` are internal to a library, not the user's."""
    _exclude_paths.append(path)


def _path_starts_with(path, prefix):
    path, prefix = os.path.abspath(path), os.path.abspath(prefix)
    try:
        return os.path.commonpath([path, prefix]) == prefix
    except ValueError:  # different drives
        return False


def include_filename(filename: str) -> bool:
    return not any(_path_starts_with(filename, p) for p in _exclude_paths)


def include_frame(f) -> bool:
    """Whether frame ``f`` belongs to the user (its file is under no registered path)."""
    return include_filename(f.f_code.co_filename)


def api_boundary(fun, *, repro_api_name=None, repro_user_func=False):
    """``fun`` itself: minijax does not filter tracebacks, so there is no boundary to mark."""
    del repro_api_name, repro_user_func
    return fun
