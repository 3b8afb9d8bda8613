"""``optimization_barrier``: values XLA may not move computation across, fuse through, or
merge with equal values elsewhere (JAX's ``lax.optimization_barrier``)."""

from __future__ import annotations

from jaxlib.mlir.dialects import stablehlo as hlo

from minijax.core import Primitive
from minijax.interpreters import ad
from minijax.tree_util import _registry
from minijax.lax import sharding_rules

__all__ = ["optimization_barrier", "optimization_barrier_p"]

optimization_barrier_p = Primitive("optimization_barrier", multiple_results=True)
optimization_barrier_p.def_abstract_eval(lambda *avals: list(avals))
optimization_barrier_p.own_memory_space = True  # each value stays where it is
optimization_barrier_p.def_lowering(
    lambda ctx, *args: list(hlo.OptimizationBarrierOp(list(args)).results))
optimization_barrier_p.def_batching(
    lambda args, dims: (optimization_barrier_p.bind(*args), list(dims)))


def _through_barrier(values, live):
    """``values`` with the entries at ``live`` passed through one barrier together."""
    out = list(values)
    for i, v in zip(live, optimization_barrier_p.bind(*[values[i] for i in live]) if live else ()):
        out[i] = v
    return out


def _barrier_jvp(primals, tangents):
    # The tangents get a barrier of their own (as in JAX), so the primal computation does not
    # wait for them.
    live = [i for i, t in enumerate(tangents) if type(t) is not ad.Zero]
    return optimization_barrier_p.bind(*primals), _through_barrier(tangents, live)


def _barrier_transpose(cts, *operands):
    live = [i for i, (ct, x) in enumerate(zip(cts, operands))
            if ad.is_undefined_primal(x) and type(ct) is not ad.Zero]
    return _through_barrier([ct if ad.is_undefined_primal(x) else None
                             for ct, x in zip(cts, operands)], live)


ad.primitive_jvps[optimization_barrier_p] = _barrier_jvp
ad.primitive_transposes[optimization_barrier_p] = _barrier_transpose


def optimization_barrier(operand, /):
    """``operand`` (a pytree) unchanged, with a barrier XLA's optimizations do not cross:
    everything the outputs depend on is computed before anything that reads them, nothing
    fuses across it, and it is not merged with an equal computation elsewhere. No effect
    outside a compiled function."""
    leaves, tree = _registry.flatten(operand)
    return tree.unflatten(optimization_barrier_p.bind(*leaves))

optimization_barrier_p.sharding_rule = sharding_rules.each_operand  # (Explicit mesh axes)
