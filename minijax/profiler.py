"""``minijax.profiler``: JAX's profiler API over jaxlib's XLA profiler (``jaxlib._profiler``).

    with minijax.profiler.trace("/tmp/tb"):
        with minijax.profiler.annotate("train_step"):
            step(params, batch).block_until_ready()

writes ``/tmp/tb/plugins/profile/<run>/<host>.xplane.pb`` (and ``<host>.trace.json.gz``), the
layout TensorBoard's profile plugin and XProf open; ``create_perfetto_trace=True`` adds a
``perfetto_trace.json.gz`` for https://ui.perfetto.dev, and ``create_perfetto_link=True`` also
serves it once on 127.0.0.1:9001 and prints the link (blocking until Perfetto fetched it).

The trace holds host events (our annotations, jit dispatch such as ``PjitFunction(f)``, PjRt
execute spans) and the XLA CPU runtime's kernels (fusions by name); on GPU, kernels appear when
the CUDA plugin registered its profiler.
"""

from __future__ import annotations

import functools
import gzip
import json
import os
import threading

from minijax.lowering import backends, jaxlib_ext

_profiler = jaxlib_ext.profiler_module()

__all__ = [
    "ProfileOptions", "StepTraceAnnotation", "TraceAnnotation", "annotate", "annotate_function",
    "device_memory_profile", "save_device_memory_profile", "start_server", "start_trace",
    "stop_server", "stop_trace", "trace",
]

ProfileOptions = _profiler.ProfileOptions


class TraceAnnotation(_profiler.TraceMe):
    """``with TraceAnnotation("name", key=value):`` marks a span of host time in the trace
    (free when no trace is being collected)."""


class StepTraceAnnotation(TraceAnnotation):
    """Marks one training step: ``with StepTraceAnnotation("train", step_num=i):``; profile
    viewers group the trace by these steps."""

    def __init__(self, name, **kwargs):
        super().__init__(name, _r=1, **kwargs)


class annotate:  # noqa: N801 - reads like a function: ``with annotate("x")`` / ``@annotate("x")``
    """A named span usable as a context manager or as a decorator."""

    def __init__(self, name, **metadata):
        self.name = name
        self.metadata = metadata
        self._active = []

    def __enter__(self):
        me = TraceAnnotation(self.name, **self.metadata)
        me.__enter__()
        self._active.append(me)
        return self

    def __exit__(self, *exc):
        self._active.pop().__exit__(*exc)
        return False

    def __call__(self, func):
        return annotate_function(func, name=self.name, **self.metadata)


def annotate_function(func=None, name=None, **metadata):
    """Decorator: every call of ``func`` is a span named ``name`` (default: its qualified name)."""
    if func is None:
        return functools.partial(annotate_function, name=name, **metadata)
    label = name or getattr(func, "__qualname__", None) or getattr(func, "__name__", "function")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with TraceAnnotation(label, **metadata):
            return func(*args, **kwargs)

    return wrapper


# ------------------------------------------------------------------------------------------------
# Collecting a trace


class _State:
    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        self.session = None
        self.log_dir = None
        self.perfetto_trace = False
        self.perfetto_link = False
        self.runs_before = set()


_state = _State()


def _profile_root(log_dir):
    return os.path.join(os.fspath(log_dir), "plugins", "profile")


def _runs(log_dir):
    root = _profile_root(log_dir)
    return set(os.listdir(root)) if os.path.isdir(root) else set()


def start_trace(log_dir, create_perfetto_link=False, create_perfetto_trace=False,
                profiler_options=None):
    """Starts collecting a trace for ``log_dir`` (only one trace at a time)."""
    with _state.lock:
        if _state.session is not None:
            raise RuntimeError("Profile has already been started. Only one profile may be run "
                               "at a time.")
        backends.get_backend()  # start the client first, so its threads are in the trace
        if profiler_options is None:
            session = _profiler.ProfilerSession()
        else:
            session = _profiler.ProfilerSession(profiler_options)
        _state.session = session
        _state.log_dir = os.fspath(log_dir)
        _state.perfetto_link = create_perfetto_link
        _state.perfetto_trace = create_perfetto_trace or create_perfetto_link
        _state.runs_before = _runs(log_dir)


def stop_trace():
    """Stops the trace and writes it; returns the run directory
    (``<log_dir>/plugins/profile/<run>``)."""
    with _state.lock:
        if _state.session is None:
            raise RuntimeError("No profile started")
        session, log_dir = _state.session, _state.log_dir
        perfetto_trace, perfetto_link = _state.perfetto_trace, _state.perfetto_link
        before = _state.runs_before
        _state.reset()
        xspace = session.stop()
        session.export(xspace, log_dir)
    new = sorted(_runs(log_dir) - before)
    root = _profile_root(log_dir)
    run_dir = os.path.join(root, new[-1]) if new else _latest_run(root)
    if perfetto_trace and run_dir is not None:
        path = _write_perfetto_trace(run_dir)
        if perfetto_link and path is not None:
            _serve_once(path)
    return run_dir


def _latest_run(root):
    if not os.path.isdir(root):
        return None
    runs = [os.path.join(root, r) for r in os.listdir(root)]
    return max(runs, key=os.path.getmtime) if runs else None


class trace:  # noqa: N801 - JAX's name; a context manager and a decorator
    """``with minijax.profiler.trace(log_dir):`` collects a trace of the block into ``log_dir``;
    ``run_dir`` is set to the written run directory on exit."""

    def __init__(self, log_dir, create_perfetto_link=False, create_perfetto_trace=False,
                 profiler_options=None):
        self.args = (log_dir, create_perfetto_link, create_perfetto_trace, profiler_options)
        self.run_dir = None

    def __enter__(self):
        start_trace(*self.args)
        return self

    def __exit__(self, *exc):
        self.run_dir = stop_trace()
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with trace(*self.args):
                return func(*args, **kwargs)

        return wrapper


def _write_perfetto_trace(run_dir):
    """Perfetto reads the Chrome trace JSON once its top-level "metadata" key is gone."""
    traces = sorted(f for f in os.listdir(run_dir) if f.endswith(".trace.json.gz"))
    if not traces:
        return None
    with gzip.open(os.path.join(run_dir, traces[0]), "rb") as f:
        data = json.load(f)
    data.pop("metadata", None)
    path = os.path.join(run_dir, "perfetto_trace.json.gz")
    with gzip.open(path, "wb") as f:
        f.write(json.dumps(data).encode("utf-8"))
    return path


PERFETTO_PORT = 9001


def _serve_once(path, port=None):
    """Serves ``path`` to ui.perfetto.dev from 127.0.0.1 until it has been fetched once."""
    import http.server
    import socketserver

    port = PERFETTO_PORT if port is None else port

    directory, filename = os.path.split(path)

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=directory, **kwargs)

        def end_headers(self):
            self.send_header("Access-Control-Allow-Origin", "https://ui.perfetto.dev")
            self.send_header("Cache-Control", "no-cache")
            super().end_headers()

        def do_GET(self):  # noqa: N802 - http.server's name
            self.server.last_request = self.path
            return super().do_GET()

        def log_message(self, *args):
            pass

    socketserver.TCPServer.allow_reuse_address = True
    with socketserver.TCPServer(("127.0.0.1", port), Handler) as httpd:
        url = f"https://ui.perfetto.dev/#!/?url=http://127.0.0.1:{port}/{filename}"
        print(f"Open URL in browser: {url}", flush=True)
        while getattr(httpd, "last_request", None) != "/" + filename:
            httpd.handle_request()


# ------------------------------------------------------------------------------------------------
# Profiler server and device memory

_server = [None]


def start_server(port: int):
    """Starts the profiler server (for TensorBoard's "capture profile" / XProf remote capture)."""
    if _server[0] is not None:
        raise ValueError("Only one profiler server can be active at a time.")
    _server[0] = _profiler.start_server(port)
    return _server[0]


def stop_server():
    if _server[0] is None:
        raise ValueError("No active profiler server.")
    _server[0] = None  # the C++ server stops when its last reference goes


def device_memory_profile(backend=None) -> bytes:
    """A gzipped pprof profile of the live device buffers (``pprof --web file``), as JAX."""
    return gzip.compress(jaxlib_ext.heap_profile(backend))


def save_device_memory_profile(filename, backend=None):
    with open(filename, "wb") as f:
        f.write(device_memory_profile(backend))
