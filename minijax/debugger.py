"""``minijax.debug.breakpoint``: an interactive debugger on the host at a point in a program.

At trace time the breakpoint captures the Python stack (the user's frames, by default) and
the local variables of each frame. The locals that are tracers become operands of a debug
callback, so when the compiled program reaches the breakpoint the host gets their concrete
values and the debugger shows each frame with those values in place of the tracers. The
default backend, ``"cli"``, is JAX's pdb-like ``jdb`` (``p``, ``pp``, ``u``, ``d``, ``l``,
``w``, ``c``, ``q``); others can be added with ``register_debugger``.
"""

from __future__ import annotations

import cmd
import dataclasses
import inspect
import pprint
import sys
import threading
import traceback
from typing import Any

from minijax import core
from minijax import tree_util
from minijax._src import traceback_util
from minijax.api import device_put
from minijax.callbacks import debug_callback, pure_callback
from minijax.lax import stop_gradient

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
              if not filter_frames or traceback_util.include_frame(fi.frame)]
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
            debugger(rebuild([device_put(v) for v in values]), thread_id, **kwargs)

    if token is None:
        debug_callback(_breakpoint_callback, *tracers, ordered=ordered)
        return None

    def _breakpoint_callback_wrapper(x, *values):
        _breakpoint_callback(*values)
        return x

    token, tracers = stop_gradient((token, tracers))
    return pure_callback(_breakpoint_callback_wrapper, token, token, *tracers)


class CliDebugger(cmd.Cmd):
    """A text debugger with pdb's commands for inspecting frames."""

    prompt = "(jdb) "

    def __init__(self, frames, thread_id, stdin=None, stdout=None, completekey="tab"):
        super().__init__(stdin=stdin, stdout=stdout, completekey=completekey)
        self.use_rawinput = stdin is None
        self.frames = frames
        self.frame_index = 0
        self.thread_id = thread_id
        self.intro = "Entering jdb:"

    def current_frame(self):
        return self.frames[self.frame_index]

    def evaluate(self, expr):
        frame = self.frames[self.frame_index]
        env = {**frame.globals, **frame.locals}
        return eval(expr, {}, env)

    def default(self, line):
        """Evaluates an expression."""
        self.do_p(line)

    def print_backtrace(self):
        backtrace = ["Traceback:"]
        for frame in self.frames[::-1]:
            backtrace.append(f'  File "{frame.filename}", line {frame.lineno}')
            if frame.offset is None:
                backtrace.append("    <no source>")
            else:
                backtrace.append(f"    {frame.source[frame.offset].strip()}")
        print("\n".join(backtrace), file=self.stdout)

    def print_context(self, num_lines=2):
        frame = self.frames[self.frame_index]
        context = [f"> {frame.filename}({frame.lineno})"]
        if frame.offset is not None:
            for i, line in enumerate(frame.source):
                if frame.offset - 1 - num_lines <= i <= frame.offset + num_lines:
                    context.append(f"->  {line}" if i == frame.offset else f"    {line}")
        print("\n".join(context), file=self.stdout)

    def _error_message(self):
        msg = traceback.format_exception_only(*sys.exc_info()[:2])[-1].strip()
        print("***", msg, file=self.stdout)

    def do_p(self, arg):
        """p expression
        Evaluates and prints the value of an expression
        """
        try:
            print(repr(self.evaluate(arg)), file=self.stdout)
        except Exception:  # the user's expression: report it as pdb does
            self._error_message()

    def do_pp(self, arg):
        """pp expression
        Evaluates and pretty-prints the value of an expression
        """
        try:
            print(pprint.pformat(self.evaluate(arg)), file=self.stdout)
        except Exception:  # the user's expression: report it as pdb does
            self._error_message()

    def do_up(self, arg, /):
        """u(p)
        Move up a stack frame.
        """
        if self.frame_index == len(self.frames) - 1:
            print("At topmost frame.", file=self.stdout)
        else:
            self.frame_index += 1
        self.print_context()

    do_u = do_up

    def do_down(self, arg, /):
        """d(own)
        Move down a stack frame.
        """
        if self.frame_index == 0:
            print("At bottommost frame.", file=self.stdout)
        else:
            self.frame_index -= 1
        self.print_context()

    do_d = do_down

    def do_list(self, _):
        """l(ist)
        List source code for the current file.
        """
        self.print_context(num_lines=5)

    do_l = do_list

    def do_continue(self, _):
        """c(ont(inue))
        Continue the program's execution.
        """
        return True

    do_c = do_cont = do_continue

    def do_quit(self, _):
        """q(uit)\n(exit)
        Quit the debugger. The program is given an exit command.
        """
        sys.exit(0)

    do_q = do_EOF = do_exit = do_quit

    def do_where(self, _):
        """w(here)
        Prints a stack trace with the most recent frame on the bottom.
        'bt' is an alias for this command.
        """
        self.print_backtrace()

    do_w = do_bt = do_where

    def run(self):
        while True:
            try:
                self.cmdloop()
                break
            except KeyboardInterrupt:
                print("--KeyboardInterrupt--", file=sys.stdout)


def run_debugger(frames, thread_id, **kwargs):
    CliDebugger(frames, thread_id, **kwargs).run()


register_debugger("cli", run_debugger, -1)
