"""``minijax.stages``: the objects of ``jit``'s explicit stages, as ``jax.stages``.

``jit(f)`` is a :class:`Wrapped`; ``.trace(*args)`` gives a :class:`Traced` (the jaxpr),
``.lower(*args)`` a :class:`Lowered` (the StableHLO module: ``as_text()``,
``compiler_ir("stablehlo"|"hlo")``), and ``Lowered.compile()`` a :class:`Compiled` (the XLA
executable: ``as_text()`` is the optimized HLO, ``cost_analysis()``, ``memory_analysis()``).
These are the classes jit itself returns, not copies.
"""

from typing import Protocol, runtime_checkable

import numpy as np

from minijax import core
from minijax.core import ShapedArray, abstract_token
from minijax.dtypes import canonicalize_dtype
from minijax.lowering.compile import ArgInfo, Compiled, Lowered, Stage

__all__ = ["ArgInfo", "Compiled", "CompilerOptions", "Lowered", "Traced", "Wrapped"]


class ShapeDtypeStruct:
    """A shape and dtype standing in for an array (for ``eval_shape``, ``make_jaxpr``,
    ``lower``)."""

    __slots__ = ("shape", "dtype", "weak_type", "sharding")

    def __init__(self, shape, dtype, weak_type=False, sharding=None):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.weak_type = weak_type
        self.sharding = sharding

    @property
    def aval(self):
        """Its type; a NamedSharding over Explicit mesh axes splits it (as in JAX)."""
        explicit = None if self.sharding is None else core.explicit_of(self.sharding, self.shape)
        return ShapedArray(self.shape, canonicalize_dtype(self.dtype), self.weak_type,
                           explicit=explicit)

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape)))

    def __repr__(self):
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name})"

    def __eq__(self, other):
        return (isinstance(other, ShapeDtypeStruct) and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type))


class Traced(Stage):
    """``jit(f).trace(*args)``: the traced function's ClosedJaxpr, ready to lower."""

    def __init__(self, jaxpr, fun_name, args_info, out_info, lower):
        self.jaxpr = jaxpr
        self.fun_name = fun_name
        self.args_info, self.out_info = args_info, out_info
        self._lower = lower

    @property
    def out_avals(self):
        return self.out_tree.unflatten(self.jaxpr.out_avals)

    def lower(self):
        return self._lower()


def stage_info(in_tree, in_avals, donated, out_tree, out_avals, out_shardings=None):
    """``args_info`` (ArgInfo leaves) and ``out_info`` (ShapeDtypeStruct leaves, with each
    output's sharding where ``out_shardings``, one per leaf, gives one) of a stage."""
    donated = set(donated)
    if out_shardings is None:
        out_shardings = [None] * len(out_avals)
    args_info = in_tree.unflatten([ArgInfo(a, i in donated) for i, a in enumerate(in_avals)])
    out_info = out_tree.unflatten(result_structs(out_avals, out_shardings))
    return args_info, out_info


def result_structs(out_avals, out_shardings):
    """A ShapeDtypeStruct per result (with its sharding or None). A token has no shape nor
    dtype: its type stands for it (JAX's out_info raises AttributeError there, its eval_shape
    gives the type). A result split over Explicit mesh axes has its type's sharding."""
    return [a if a is abstract_token else ShapeDtypeStruct(
        a.shape, a.dtype, a.weak_type,
        s if s is not None or a.explicit is None else a.sharding)
        for a, s in zip(out_avals, out_shardings)]

# XLA compiler options by name, as ``jit(f, compiler_options=...)`` and
# ``Lowered.compile(compiler_options)`` take them.
CompilerOptions = dict[str, str | bool]


@runtime_checkable
class Wrapped(Protocol):
    """A function ready to be traced, lowered and compiled: what ``jit`` returns."""

    def __call__(self, *args, **kwargs):
        """Runs the function, compiling it for these argument types if needed."""

    def trace(self, *args, **kwargs) -> Traced:
        """The function traced for these arguments (a jaxpr), not yet lowered."""

    def lower(self, *args, **kwargs) -> Lowered:
        """The function lowered for these arguments (StableHLO), not yet compiled."""
