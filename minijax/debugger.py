"""``minijax.debug.breakpoint``: an interactive debugger on the host at a point in a program.

At trace time the breakpoint captures the Python stack (the user's frames, by default) and
the local variables of each frame. The locals that are tracers become operands of a debug
callback, so when the compiled program reaches the breakpoint the host gets their concrete
values and the debugger shows each frame with those values in place of the tracers. The
default backend, ``"cli"``, is ``jdb``, a pdb-like text session (``p``, ``pp``, ``u``,
``d``, ``l``, ``w``, ``c``, ``q``); others can be added with ``register_debugger``.
"""

from __future__ import annotations

import cmd
import dataclasses
import inspect
import pprint
import sys
import threading
from typing import Any

from minijax import core, source_info, tree_util
from minijax.callbacks import debug_callback, pure_callback
from minijax.lax import stop_gradient
from minijax.lowering.array import device_put_value

__all__ = ["DebuggerFrame", "breakpoint", "get_debugger", "register_debugger"]


class _CantFlatten:
    def __repr__(self):
        return "<cant_flatten>"


cant_flatten = _CantFlatten()


def _flatten_vars(dct):
    """The leaves of ``dct``'s values (a value that is not a pytree becomes ``cant_flatten``)
    and how to rebuild the dict from them."""
    keys, values = [], []
    for key, value in dct.items():
        try:
            tree_util.tree_leaves(value)
        except Exception:  # any object whose flattening fails is shown as a sentinel
            value = cant_flatten
        keys.append(key)
        values.append(value)
    leaves, tree = tree_util.tree_flatten(values)
    return leaves, (keys, tree)


def _unflatten_vars(aux, leaves):
    keys, tree = aux
    return dict(zip(keys, tree_util.tree_unflatten(tree, leaves)))


@dataclasses.dataclass(frozen=True)
class DebuggerFrame:
    """One Python frame as the debugger shows it: where it is and its variables."""

    filename: str
    locals: dict[str, Any]
    globals: dict[str, Any]
    code_context: Any
    source: list[str]
    lineno: int
    offset: int | None

    @classmethod
    def from_frameinfo(cls, frame_info) -> DebuggerFrame:
        try:
            _, start = inspect.getsourcelines(frame_info.frame)
            source = inspect.getsource(frame_info.frame).split("\n")
            # getsourcelines' start is 1-based, or 0 for a whole module.
            offset = frame_info.lineno - max(start, 1)
            if offset >= len(source):
                source, offset = [], None
        except OSError:
            source, offset = [], None
        return cls(filename=frame_info.filename, locals=dict(frame_info.frame.f_locals),
                   globals={}, code_context=frame_info.code_context, source=source,
                   lineno=frame_info.lineno, offset=offset)


def _split_frames(frames):
    """``(tracers, rebuild)``: the tracers among the frames' variables, and a function taking
    their concrete values back to frames."""
    parts, tracers = [], []
    for frame in frames:
        leaves, aux = _flatten_vars(frame.locals)
        is_tracer = [isinstance(leaf, core.Tracer) for leaf in leaves]
        tracers.extend(leaf for leaf, t in zip(leaves, is_tracer) if t)
        parts.append((frame, leaves, is_tracer, aux))

    def rebuild(values):
        values = iter(values)
        return [
            dataclasses.replace(frame, locals=_unflatten_vars(
                aux, [next(values) if t else leaf for leaf, t in zip(leaves, is_tracer)]))
            for frame, leaves, is_tracer, aux in parts
        ]

    return tracers, rebuild


_debugger_registry: dict[str, tuple[int, Any]] = {}


def get_debugger(backend: str | None = None):
    """The debugger named ``backend``, else the one registered with the highest priority."""
    if backend is not None and backend in _debugger_registry:
        return _debugger_registry[backend][1]
    debuggers = sorted(_debugger_registry.values(), key=lambda x: -x[0])
    if not debuggers:
        raise ValueError("No debuggers registered!")
    return debuggers[0][1]


def register_debugger(name: str, debugger, priority: int) -> None:
    """Makes ``debugger(frames, thread_id, **kwargs)`` available as backend ``name``."""
    if name in _debugger_registry:
        raise ValueError(f"Debugger with name \"{name}\" already registered.")
    _debugger_registry[name] = (priority, debugger)


# Callbacks may run on several threads at once; one debugger session at a time.
debug_lock = threading.Lock()


def breakpoint(*, backend: str | None = None, filter_frames: bool = True,  # noqa: A001
               num_frames: int | None = None, ordered: bool = False, token=None, **kwargs):
    """Enters the debugger (``backend``, default the CLI ``jdb``) when the program reaches this
    point, with the enclosing frames' values concrete. ``filter_frames`` hides minijax's own
    frames (and those of libraries that registered theirs); ``num_frames`` keeps only the
    innermost frames. With ``token`` (a pytree of arrays) the breakpoint runs once ``token``
    is computed and returns it, to be used later; otherwise it returns None."""
    if token is not None and ordered:
        raise ValueError("`ordered` and `token` are mutually exclusive arguments.")
    frame_infos = inspect.stack()[1:]
    frames = [DebuggerFrame.from_frameinfo(fi) for fi in frame_infos
              if not filter_frames or not source_info.is_excluded(fi.frame.f_code.co_filename)]
    del frame_infos  # frames hold references to every caller's locals
    if num_frames is not None:
        frames = frames[:num_frames]
    tracers, rebuild = _split_frames(frames)

    def _breakpoint_callback(*values):
        thread_id = None
        if threading.current_thread() is not threading.main_thread():
            thread_id = threading.get_ident()
        debugger = get_debugger(backend=backend)
        # The host sees Arrays, as the traced code did.
        with debug_lock:
            debugger(rebuild([device_put_value(v) for v in values]), thread_id, **kwargs)

    if token is None:
        debug_callback(_breakpoint_callback, *tracers, ordered=ordered)
        return None

    def _breakpoint_callback_wrapper(x, *values):
        _breakpoint_callback(*values)
        return x

    token, tracers = stop_gradient((token, tracers))
    return pure_callback(_breakpoint_callback_wrapper, token, token, *tracers)


def _frame_line(frame) -> str:
    """The stripped source line a frame is stopped at, or a marker when it has none."""
    if frame.offset is None:
        return "<source unavailable>"
    return frame.source[frame.offset].strip()


class JdbSession(cmd.Cmd):
    """One interactive stop at a ``minijax.debug.breakpoint``: reads commands until the user
    resumes the program. Frame 0 is the innermost frame (the breakpoint's caller); a
    higher ``depth`` is further out in the stack."""

    prompt = "(jdb) "
    intro = "Entering jdb:"

    def __init__(self, frames, thread_id, stdin=None, stdout=None, completekey="tab"):
        super().__init__(completekey=completekey, stdin=stdin, stdout=stdout)
        # cmd reads through input() only when talking to the real terminal.
        self.use_rawinput = stdin is None
        self.frames = list(frames)
        self.thread_id = thread_id
        self.depth = 0

    def _say(self, *lines: str) -> None:
        self.stdout.write("".join(line + "\n" for line in lines))

    def _eval_in_frame(self, source: str):
        frame = self.frames[self.depth]
        # One namespace, so comprehensions and lambdas in the expression see the locals too.
        return eval(source, {**frame.globals, **frame.locals})

    def _show(self, source: str, formatter) -> None:
        try:
            value = self._eval_in_frame(source)
        except Exception as err:  # a mistake in the typed expression must not end the session
            self._say(f"*** {type(err).__name__}: {err}")
            return
        self._say(formatter(value))

    def _show_source(self, radius: int) -> None:
        frame = self.frames[self.depth]
        self._say(f"> {frame.filename}({frame.lineno})")
        if frame.offset is None:
            return
        first = max(frame.offset - radius - 1, 0)
        for index in range(first, min(frame.offset + radius + 1, len(frame.source))):
            marker = "->  " if index == frame.offset else "    "
            self._say(marker + frame.source[index])

    def _move(self, step: int) -> None:
        target = self.depth + step
        if 0 <= target < len(self.frames):
            self.depth = target
        else:
            self._say("*** No outer frame." if step > 0 else "*** No inner frame.")
        self._show_source(radius=2)

    def default(self, line):
        """A line that is no command is an expression to print."""
        self._show(line, repr)

    def do_p(self, arg):
        """p EXPR: print repr(EXPR), evaluated in the selected frame."""
        self._show(arg, repr)

    def do_pp(self, arg):
        """pp EXPR: like p, but pretty-printed with pprint."""
        self._show(arg, pprint.pformat)

    def do_up(self, arg):
        """u | up: select the caller of the current frame and show its source."""
        self._move(+1)

    def do_down(self, arg):
        """d | down: select the frame the current one called and show its source."""
        self._move(-1)

    def do_list(self, arg):
        """l | list: show the source around the selected frame's current line."""
        self._show_source(radius=5)

    def do_where(self, arg):
        """w | where | bt: show the captured stack, outermost frame first."""
        lines = ["Traceback:"]
        for frame in reversed(self.frames):
            lines.append(f'  File "{frame.filename}", line {frame.lineno}')
            lines.append("    " + _frame_line(frame))
        self._say(*lines)

    def do_continue(self, arg):
        """c | cont | continue: leave the debugger and let the program run on."""
        return True

    def do_quit(self, arg):
        """q | quit | exit (or end of input): stop the whole program."""
        sys.exit(0)

    def run(self) -> None:
        # Ctrl-C abandons the line being typed, not the session.
        while True:
            try:
                self.cmdloop()
                return
            except KeyboardInterrupt:
                self._say("--KeyboardInterrupt--")
                self.intro = None


# Short and alternative spellings of the commands above.
for _alias, _command in {"u": "up", "d": "down", "l": "list", "w": "where", "bt": "where",
                         "c": "continue", "cont": "continue", "q": "quit", "exit": "quit",
                         "EOF": "quit"}.items():
    setattr(JdbSession, "do_" + _alias, getattr(JdbSession, "do_" + _command))
del _alias, _command


def _run_jdb(frames, thread_id, **kwargs):
    JdbSession(frames, thread_id, **kwargs).run()


register_debugger("cli", _run_jdb, -1)
