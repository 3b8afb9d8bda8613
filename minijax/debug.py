"""Debugging helpers: ``visualize_array_sharding`` (which device holds which tile),
``inspect_array_sharding``, host callbacks and ``breakpoint``."""

from __future__ import annotations

import builtins

from minijax.callbacks import debug_callback
from minijax.debugger import breakpoint  # noqa: A004 - JAX's name
from minijax.inspect_sharding import inspect_sharding_p
from minijax.tree_util import tree_leaves

__all__ = ["breakpoint", "callback", "inspect_array_sharding", "print",
           "visualize_array_sharding", "visualize_sharding", "sharding_grid"]


def _label(devices):
    if not devices:
        return ""
    kind = devices[0].platform.upper()
    return f"{kind} " + ",".join(str(d.id) for d in sorted(devices, key=lambda d: d.id))


def sharding_grid(x):
    """``(row bounds, column bounds, {(row, col): [devices]})`` for a 1-D or 2-D Array."""
    return _grid(tuple(x.shape), x.sharding, "visualize_array_sharding")


def _grid(shape, sharding, what):
    if len(shape) not in (1, 2):
        raise ValueError(f"{what}: only 1-D and 2-D arrays can be shown, got shape {shape}")
    indices = sharding.devices_indices_map(shape)
    shape2 = shape if len(shape) == 2 else (1,) + shape

    def bounds(s, n):
        start, stop, _ = s.indices(n)
        return (start, stop)

    cells = {}
    for dev, index in indices.items():
        index2 = index if len(shape) == 2 else (slice(None),) + tuple(index)
        key = (bounds(index2[0], shape2[0]), bounds(index2[1], shape2[1]))
        cells.setdefault(key, []).append(dev)
    rows = sorted({k[0] for k in cells})
    cols = sorted({k[1] for k in cells})
    return rows, cols, cells


def _render(rows, cols, cells, min_width, max_width):
    labels = {k: _label(v) for k, v in cells.items()}
    width = max([min_width] + [len(s) + 2 for s in labels.values()])
    width = min(width, max_width)
    sep = "+" + "+".join("-" * width for _ in cols) + "+"
    lines = [sep]
    for r in rows:
        pad = " " * width
        lines.append("|" + "|".join(pad for _ in cols) + "|")
        lines.append("|" + "|".join(labels.get((r, c), "").center(width) for c in cols) + "|")
        lines.append("|" + "|".join(pad for _ in cols) + "|")
        lines.append(sep)
    text = "\n".join(lines)
    builtins.print(text)
    return text


def inspect_array_sharding(value, *, callback):
    """Calls ``callback`` with the sharding of each array leaf of ``value``, as soon as it is
    known: eagerly at once; inside ``jit`` when the program compiles (so on its first call, or
    on ``jit(f).lower(...).compile()``), with the sharding XLA's partitioner chose."""
    for leaf in tree_leaves(value):
        inspect_sharding_p.bind(leaf, callback=callback)


def visualize_array_sharding(x, *, use_color=False, scale=1.0, min_width=9, max_width=80):
    """Prints a text grid of ``x``'s tiles, each cell naming the device(s) holding it."""
    return _render(*sharding_grid(x), min_width, max_width)


def visualize_sharding(shape, sharding, *, use_color=True, scale=1.0, min_width=9,
                       max_width=80, color_map=None):
    """Prints the text grid of the tiles ``sharding`` makes of an array of ``shape`` (1-D or
    2-D), each cell naming the device(s) holding it. minijax draws plain text (JAX draws with
    ``rich``), so ``use_color``, ``scale`` and ``color_map`` change nothing."""
    return _render(*_grid(tuple(shape), sharding, "visualize_sharding"), min_width, max_width)


# ------------------------------------------------------------------------------------------------
# Host callbacks: debug.callback / debug.print (minijax/callbacks.py has the primitive).


def callback(fn, *args, ordered=False, **kwargs):
    """Calls ``fn(*args, **kwargs)`` with concrete NumPy values, eagerly or from inside
    ``jit``/``vmap``/``grad``. Returns None. ``ordered=True`` keeps the calls in program order."""
    return debug_callback(fn, *args, ordered=ordered, **kwargs)


def print(fmt, *args, ordered=False, **kwargs):  # noqa: A001 - JAX's name
    """``minijax.debug.print("x = {x}", x=x)``: formats with ``str.format`` on the host, with the
    values the program computed (traced values included). Under ``vmap`` it prints once per
    batch element; under ``grad`` the primal values."""

    def _format(*a, **k):
        builtins.print(fmt.format(*a, **k))

    return callback(_format, *args, ordered=ordered, **kwargs)
