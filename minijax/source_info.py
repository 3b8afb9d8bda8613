"""Which line of the *user's* code is running: for jaxpr equations, errors and MLIR locations.

We walk the Python stack from the innermost frame outwards and stop at the first frame whose
file is not part of minijax itself (nor a standard helper like functools/contextlib).
"""

from __future__ import annotations

import linecache
import os
import sys

_PKG_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_STDLIB_SKIP = ("functools.py", "contextlib.py")


class SourceInfo:
    __slots__ = ("file", "line", "function")

    def __init__(self, file, line, function):
        self.file, self.line, self.function = file, line, function

    def __str__(self):
        return f"{self.file}:{self.line} ({self.function})"

    def code_line(self):
        return linecache.getline(self.file, self.line).strip()

    def describe(self):
        """``file:line (function)`` followed by the source text of that line when available."""
        code = self.code_line()
        return f"{self}\n    {code}" if code else str(self)


def _is_internal(filename):
    return filename.startswith(_PKG_DIR) or filename.endswith(_STDLIB_SKIP)


_cache = {}


def user_frame() -> SourceInfo | None:
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        filename = code.co_filename
        internal = _cache.get(filename)
        if internal is None:
            internal = _cache[filename] = _is_internal(filename)
        if not internal:
            return SourceInfo(filename, frame.f_lineno, code.co_name)
        frame = frame.f_back
    return None


def with_user_line(message: str, info: SourceInfo | None = None) -> str:
    """Appends ``The error happened at <file:line>`` to a message, once."""
    info = info or user_frame()
    if info is None or "\n  at " in message:
        return message
    return f"{message}\n  at {info.describe()}"
