"""Which line of the *user's* code is running: for jaxpr equations, errors and MLIR locations.

We walk the Python stack from the innermost frame outwards and stop at the first frame whose
file is not part of minijax itself (nor a standard helper like functools/contextlib).
"""

from __future__ import annotations

import contextlib
import functools
import linecache
import os
import sys
import threading

_PKG_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_STDLIB_SKIP = ("functools.py", "contextlib.py")


class _NameStack(threading.local):
    names = ()  # the enclosing ``named_scope`` names, outermost first (per thread)


_name_stack = _NameStack()


@contextlib.contextmanager
def extend_name_stack(name):
    """``named_scope(name)``: equations traced inside carry ``name`` in their source info, and
    the lowering puts it into each op's location (``jit_f/name/mul``)."""
    if not isinstance(name, str):
        raise TypeError("named_scope name argument must be a string.")
    outer = _name_stack.names
    _name_stack.names = (*outer, name)
    try:
        yield
    finally:
        _name_stack.names = outer


@contextlib.contextmanager
def reset_name_stack():
    """A jit's trace, rooted afresh (JAX's ``reset_name_stack``): its equations' names start
    at its own program, not at the scopes of the place it was first called from."""
    outer = _name_stack.names
    _name_stack.names = ()
    try:
        yield
    finally:
        _name_stack.names = outer


class SourceInfo:
    __slots__ = ("file", "line", "function", "name_stack")

    def __init__(self, file, line, function):
        self.file, self.line, self.function = file, line, function
        self.name_stack = _name_stack.names

    def __str__(self):
        return f"{self.file}:{self.line} ({self.function})"

    def code_line(self):
        return linecache.getline(self.file, self.line).strip()

    def describe(self):
        """``file:line (function)`` followed by the source text of that line when available."""
        code = self.code_line()
        return f"{self}\n    {code}" if code else str(self)


_excluded = [_PKG_DIR]  # minijax, then the libraries that registered their files


def is_excluded(filename: str) -> bool:
    """Whether ``filename`` is under minijax or a path a library registered (not the user's)."""
    return filename.startswith(tuple(_excluded))


def _is_internal(filename):
    return is_excluded(filename) or filename.endswith(_STDLIB_SKIP)


_cache = {}


def register_exclusion(path: str):
    """Frames of files under ``path`` (a library built on minijax) are not the user's: source
    lines and error messages name the library's caller instead."""
    _excluded.append(path)
    _cache.clear()


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


def user_stacklevel(frame) -> int:
    """``warnings.warn``'s stacklevel, from ``frame`` (level 1), of the first frame outside
    minijax: the caller of the public function, where JAX's warning points."""
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PKG_DIR):
        frame, level = frame.f_back, level + 1
    return level


_NUMPY_DIR = _PKG_DIR + "numpy" + os.sep
_NUMPY_GLUE = ("_eager.py", "array_methods.py")  # wrappers, not the functions users call
# Libraries built on jnp: a jnp function they call is not the one the user called (JAX's
# hyp2f1 of complex input fails in rem, and names neither jnp.remainder nor hyp2f1)
_JNP_CLIENT_DIRS = tuple(_PKG_DIR + d + os.sep for d in ("scipy", "nn", "image", "random"))


def jnp_function() -> str | None:
    """``jnp.<name>`` of the outermost minijax.numpy function the user called, if any (so a
    shape error inside ``jnp.dot`` names ``jnp.dot``, not only ``dot_general``)."""
    frame = sys._getframe(1)
    name = None
    while frame is not None:
        filename = frame.f_code.co_filename
        if not _is_internal(filename):
            break
        code = frame.f_code
        if (
            filename.startswith(_NUMPY_DIR)
            and not filename.endswith(_NUMPY_GLUE)
            and not code.co_name.startswith(("_", "<"))
        ):
            if code.co_name == "fn":  # a ufunc made by a factory (numpy/_ufuncs.py)
                name = frame.f_locals.get("name", code.co_name)
            elif "<locals>" not in code.co_qualname:  # not a closure (vectorize's wrapper)
                name = code.co_name
        elif filename.startswith(_JNP_CLIENT_DIRS):
            name = None
        frame = frame.f_back
    return None if name is None else f"jnp.{name}"


def with_user_line(message: str, info: SourceInfo | None = None) -> str:
    """Appends ``The error happened at <file:line>`` to a message, once; names the jnp
    function the user called when the error comes from inside one."""
    info = info or user_frame()
    if info is None or "\n  at " in message:
        return message
    fn = jnp_function()
    if fn is not None and not message.startswith(fn):
        message = f"{fn}: {message}"
    return f"{message}\n  at {info.describe()}"


def note_user_line(e: BaseException) -> None:
    """Notes (PEP 678) the user's line, and the jnp function called, on a primitive rule's
    error: Python prints the note under the traceback, while ``str(e)`` stays the rule's
    message, which is JAX's."""
    info = user_frame()
    noted = any(n.startswith(("  at ", "  in jnp.")) for n in getattr(e, "__notes__", ()))
    if info is not None and not noted:  # once: the error may leave several nested binds
        fn = jnp_function()
        e.add_note(f"  in {fn} at {info.describe()}" if fn else f"  at {info.describe()}")


def wraps(wrapped):
    """``functools.wraps`` for a transformation's wrapper, as JAX's: any callable may be
    transformed, also one whose ``__name__`` is no string (an equinox Module's field), and then
    the wrapper keeps its own metadata instead of failing."""
    def decorate(fun):
        try:
            functools.update_wrapper(fun, wrapped)
        except (TypeError, AttributeError):
            pass
        return fun
    return decorate
