"""Refs written inside a loop body that were made outside it.

A loop front end traces its body under :func:`watch`; ``refs.Ref`` reports each cell it makes
(:func:`made`) and each write (:func:`wrote`) to the innermost watch. The loop then threads
the written refs' values through its carry and writes the final values back, as JAX
discharges a ref closed over by a loop into the loop's state.
"""

from __future__ import annotations

import contextlib

_watches = []  # the innermost watch last


class Watch:
    """What one traced body did: ``written`` maps ``id(ref)`` to ``(ref, value before)``
    for each outer ref it wrote, ``adopted`` the same for the refs a loop put its carry in,
    ``read`` maps ``id(ref)`` to each outer ref it read (jit threads those too: a closed-over
    value would be baked into its cached program)."""

    __slots__ = ("made_ids", "written", "adopted", "read")

    def __init__(self):
        self.made_ids = set()
        self.written = {}
        self.adopted = {}
        self.read = {}

    @property
    def refs(self):
        return [ref for ref, _ in self.written.values()]


def made(ref):
    if _watches:
        _watches[-1].made_ids.add(id(ref))


def read(ref):
    if _watches:
        w = _watches[-1]
        if id(ref) not in w.made_ids:
            w.read.setdefault(id(ref), ref)


def wrote(ref, old):
    """Called before ``ref`` (holding ``old``) is written."""
    if _watches:
        w = _watches[-1]
        if id(ref) not in w.made_ids and id(ref) not in w.written:
            w.written[id(ref)] = (ref, old)


@contextlib.contextmanager
def watch():
    """Yields the Watch of the body traced inside; on exit the outer refs it wrote or adopted
    hold their values from before again (not the body's tracers, which must not escape)."""
    w = Watch()
    _watches.append(w)
    try:
        yield w
    finally:
        _watches.pop()
        for ref, old in (*w.written.values(), *w.adopted.values()):
            ref._store(old)


def adopt(refs, values):
    """Inside a body being traced: ``refs`` hold ``values`` (carry tracers) and count as the
    body's own, so writing them is no outer effect. Called under a watch, which restores them."""
    w = _watches[-1]
    for ref, v in zip(refs, values):
        w.made_ids.add(id(ref))
        w.adopted.setdefault(id(ref), (ref, ref[...]))
        ref._store(v)


def write_back(refs, values):
    """After the loop: ``refs`` hold their final ``values`` (an enclosing loop's watch sees
    these writes)."""
    for ref, v in zip(refs, values):
        ref[...] = v
