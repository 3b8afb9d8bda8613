"""``minijax.monitoring``: named events and the listeners they call (``jax.monitoring``).

Code marks a point with ``record_event("/name", **metadata)`` (or a duration, time span or
scalar); every listener registered for that kind is called with it. minijax itself records
JAX's compile-phase durations: ``/jax/core/compile/jaxpr_trace_duration``,
``/jax/core/compile/jaxpr_to_mlir_module_duration`` and
``/jax/core/compile/backend_compile_duration`` (seconds, one event per jit compilation).
"""

from __future__ import annotations

__all__ = [
    "clear_event_listeners", "record_event", "record_event_duration_secs",
    "record_event_time_span", "record_scalar", "register_event_duration_secs_listener",
    "register_event_listener", "register_event_time_span_listener", "register_scalar_listener",
    "unregister_event_duration_listener", "unregister_event_listener",
    "unregister_event_time_span_listener", "unregister_scalar_listener",
]

_event_listeners = []
_event_duration_secs_listeners = []
_event_time_span_listeners = []
_scalar_listeners = []


def record_event(event, **kwargs):
    """Calls every event listener with ``(event, **kwargs)``."""
    for callback in list(_event_listeners):
        callback(event, **kwargs)


def record_event_duration_secs(event, duration, **kwargs):
    """Calls every duration listener with ``(event, duration, **kwargs)`` (seconds)."""
    for callback in list(_event_duration_secs_listeners):
        callback(event, duration, **kwargs)


def record_event_time_span(event, start_time, end_time, **kwargs):
    """Calls every time-span listener with ``(event, start_time, end_time, **kwargs)``."""
    for callback in list(_event_time_span_listeners):
        callback(event, start_time, end_time, **kwargs)


def record_scalar(event, value, **kwargs):
    """Calls every scalar listener with ``(event, value, **kwargs)``."""
    for callback in list(_scalar_listeners):
        callback(event, value, **kwargs)


def register_event_listener(callback):
    _event_listeners.append(callback)


def register_event_duration_secs_listener(callback):
    _event_duration_secs_listeners.append(callback)


def register_event_time_span_listener(callback):
    _event_time_span_listeners.append(callback)


def register_scalar_listener(callback):
    _scalar_listeners.append(callback)


def _unregister(listeners, callback):
    assert callback in listeners
    listeners.remove(callback)


def unregister_event_listener(callback):
    _unregister(_event_listeners, callback)


def unregister_event_duration_listener(callback):
    _unregister(_event_duration_secs_listeners, callback)


def unregister_event_time_span_listener(callback):
    _unregister(_event_time_span_listeners, callback)


def unregister_scalar_listener(callback):
    _unregister(_scalar_listeners, callback)


def clear_event_listeners():
    """Removes every listener of every kind."""
    for listeners in (_event_listeners, _event_duration_secs_listeners,
                      _event_time_span_listeners, _scalar_listeners):
        listeners.clear()
