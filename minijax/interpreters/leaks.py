"""``jax_check_tracer_leaks``: find tracers that outlived the trace that made them.

A tracer stored outside the function being transformed (a global list, ``self.x``, a closure)
is a bug that otherwise only shows when the tracer is used again, far from where it escaped.
With the flag on, the code that ends a trace (staging for jit/make_jaxpr/scan/cond bodies,
vmap) drops its own references and calls ``check_leaks``: a full garbage collection, then any
tracer still referring to the trace is a leak. The error names, for each, the line that made
it and the chain of references that keeps it alive, as JAX's does. With the flag off the check
is one attribute read.
"""

from __future__ import annotations

import gc
import types

from minijax.config import config
from minijax.core import Tracer


def check_leaks(trace):
    """Raises ``Exception('Leaked trace ...')`` if a tracer of the finished ``trace`` is still
    referenced. The caller must have dropped its own references to the trace's tracers."""
    if not config.jax_check_tracer_leaks:
        return
    gc.collect()  # tracers kept alive only by unreachable cycles cannot be used again
    leaked = [r for r in gc.get_referrers(trace) if isinstance(r, Tracer) and r._trace is trace]
    if leaked:
        raise Exception(_leak_message(trace, leaked))


def _leak_message(trace, leaked):
    ignore = {id(leaked)}
    parts = [f"{t!r}{_origin(trace, t)}{_why_alive(t, ignore)}" for t in leaked]
    name = type(trace).__name__
    return f"Leaked trace {name}. Leaked tracer(s):\n\n" + "\n\n".join(parts) + "\n"


def _origin(trace, tracer):
    """Where the tracer came from: the line of the operation that made it (staged traces keep
    it per equation) and the line that started the transformation."""
    lines = []
    describe = getattr(trace, "describe_origin", None)
    origin = describe(tracer) if describe is not None else None
    if origin:
        lines.append(origin)
    source = getattr(trace, "source", None)
    if source is not None:
        lines.append(f"The transformation ({type(trace).__name__}) was started at {source}.")
    return "".join("\n" + line for line in lines)


def _referrers(x, ignore):
    # Frames are the checker's own and the caller's; they do not keep a stored tracer alive.
    return [r for r in gc.get_referrers(x)
            if id(r) not in ignore and not isinstance(r, types.FrameType)]


def _why_alive(x, ignore):
    """The chain of references from ``x`` up to a module or an object nothing else holds:
    ``<list 140...> is referred to by __main__.store``."""
    lines, seen, child = [], set(), x
    while id(child) not in seen and not isinstance(child, types.ModuleType):
        seen.add(id(child))
        parents = _referrers(child, ignore)
        if not parents:
            break
        parent, what = _describe(parents[0], child, ignore)
        del parents  # the list refers to the parent: it must not show up as the parent's referrer
        lines.append(f"<{type(child).__name__} {id(child)}> is referred to by {what}")
        child = parent
    return "".join("\n" + line for line in lines)


def _describe(container, child, ignore):
    """``(holder, description)``: the object that holds ``child`` through ``container`` and how.
    An instance's or module's ``__dict__`` and a function's closure cells are looked through,
    so the step reads ``<A 140...>.t`` or ``f closed-over variable y``."""
    if isinstance(container, dict):
        for owner in _referrers(container, ignore):
            if getattr(owner, "__dict__", None) is container:
                return owner, _attribute(owner, child)
        keys = [k for k, v in container.items() if v is child]
        return container, f"<dict {id(container)}>[{keys[0]!r}]" if keys else _name(container)
    if type(container) is types.CellType:
        for tup in _referrers(container, ignore):
            for fn in _referrers(tup, ignore) if type(tup) is tuple else ():
                if type(fn) is types.FunctionType and fn.__closure__ is tup:
                    var = fn.__code__.co_freevars[tup.index(container)]
                    return fn, f"{_name(fn)} ({fn.__name__}) closed-over variable {var}"
        return container, _name(container)
    if isinstance(container, (list, tuple)):
        index = [i for i, v in enumerate(container) if v is child]
        return container, f"{_name(container)}[{index[0]}]" if index else _name(container)
    return container, _attribute(container, child)


def _attribute(owner, child):
    if isinstance(owner, types.ModuleType):
        keys = [k for k, v in vars(owner).items() if v is child]
        return f"{owner.__name__}.{keys[0]}" if keys else owner.__name__
    try:
        keys = [k for k, v in vars(owner).items() if v is child]
    except TypeError:  # no __dict__ (slots, builtins)
        keys = [k for k in getattr(type(owner), "__slots__", ())
                if getattr(owner, k, None) is child]
    return f"{_name(owner)}.{keys[0]}" if keys else _name(owner)


def _name(obj):
    return f"<{type(obj).__name__} {id(obj)}>"
