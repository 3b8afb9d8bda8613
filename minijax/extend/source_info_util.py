"""``jax.extend.source_info_util``: the user's source line that the running code came from,
and the ``named_scope`` name stack."""

from __future__ import annotations

from minijax.source_info import SourceInfo, extend_name_stack, register_exclusion, user_frame

__all__ = ["SourceInfo", "current", "extend_name_stack", "register_exclusion", "summarize"]


def current():
    """The source info an equation bound now would record (the innermost user frame)."""
    return user_frame()


def summarize(source_info, num_frames=1):
    del num_frames  # minijax records one frame, the user's
    if source_info is None:
        return "unknown"
    return f"{source_info.file}:{source_info.line} ({source_info.function})"
