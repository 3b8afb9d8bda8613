"""``BoundedCache``: the dict every cache of compiled or traced programs is kept in.

A long-running process (a notebook, a test suite, a server) meets ever new shapes and
functions; a cache that only grows keeps every executable it ever compiled, and each XLA:CPU
executable holds memory mappings of JIT code (~4, measured on jaxlib 0.10.2): past the kernel's
map limit (65,530 by default) the next compile dies inside LLVM. JAX bounds its caches too.
"""

from __future__ import annotations


# The bound of each cache holding executables (the eager primitives', the jitted functions',
# the C++ fast path's): three such caches full of distinct executables hold ~25,000 mappings,
# under half the kernel's limit (at 4,096 each, JAX's sizes, a test worker neared it).
EXECUTABLES = 2048


class BoundedCache:
    """A dict that forgets its oldest entries beyond ``size`` (first in, first out: a lookup
    costs one dict read; an entry evicted while still in use is compiled again once).

    A ``None`` key means "do not cache": ``get`` misses and ``put`` returns the value."""

    __slots__ = ("size", "data")

    def __init__(self, size=512):
        self.size, self.data = size, {}

    def get(self, key):
        return None if key is None else self.data.get(key)

    def put(self, key, value):
        if key is None:
            return value
        data = self.data
        if key not in data:
            while data and len(data) >= self.size:
                del data[next(iter(data))]
        data[key] = value
        return value

    def clear(self):
        self.data.clear()

    def __len__(self):
        return len(self.data)

    def __bool__(self):
        return bool(self.data)
