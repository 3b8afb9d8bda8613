"""``jax._src.traceback_util``: the registry of library files whose frames are not the user's.

JAX cuts its own frames (and those of registered libraries) out of exception tracebacks.
minijax shows tracebacks whole, so ``api_boundary`` leaves a function as it is; the
registered paths (the registry of ``minijax.source_info``, which also decides the source line
of equations and errors) answer ``include_frame``, which libraries (equinox) use to find the
first frame of their user's code.
"""

from __future__ import annotations

from minijax import source_info
from minijax.source_info import register_exclusion

__all__ = ["api_boundary", "include_filename", "include_frame", "register_exclusion"]

# The registered paths themselves: flax's hide/show_flax_in_tracebacks add and remove its
# files here directly.
_exclude_paths = source_info._excluded


def include_filename(filename: str) -> bool:
    return not source_info.is_excluded(filename)


def include_frame(f) -> bool:
    """Whether frame ``f`` belongs to the user (its file is under no registered path)."""
    return include_filename(f.f_code.co_filename)


def api_boundary(fun, *, repro_api_name=None, repro_user_func=False):
    """``fun`` itself: minijax does not filter tracebacks, so there is no boundary to mark."""
    del repro_api_name, repro_user_func
    return fun
