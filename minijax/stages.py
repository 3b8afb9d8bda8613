"""``minijax.stages``: the objects of ``jit``'s explicit stages, as ``jax.stages``.

``jit(f)`` is a :class:`Wrapped`; ``.trace(*args)`` gives a :class:`Traced` (the jaxpr),
``.lower(*args)`` a :class:`Lowered` (the StableHLO module: ``as_text()``,
``compiler_ir("stablehlo"|"hlo")``), and ``Lowered.compile()`` a :class:`Compiled` (the XLA
executable: ``as_text()`` is the optimized HLO, ``cost_analysis()``, ``memory_analysis()``).
These are the classes jit itself returns, not copies.
"""

from typing import Protocol, runtime_checkable

from minijax.jitting import Traced
from minijax.lowering.compile import ArgInfo, Compiled, Lowered

__all__ = ["ArgInfo", "Compiled", "CompilerOptions", "Lowered", "Traced", "Wrapped"]

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
