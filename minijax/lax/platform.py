"""``platform_dependent``: code that differs per platform, chosen when the program is lowered
(JAX's ``platform_index_p`` and a ``switch`` on it). The index is a constant of the lowering,
so XLA keeps only the chosen branch; outside ``jit`` it is computed, hence concrete, and the
branch runs directly.
"""

from __future__ import annotations

import numpy as np

from minijax.core import Primitive, ShapedArray, Tracer
from minijax.interpreters import ad, batching
from minijax.lax.control_flow.conditionals import switch_unclamped
from minijax.lowering.stablehlo import ir_constant

__all__ = ["platform_dependent"]

# minijax's name of a lowering platform -> the names a branch may be given for it
_PLATFORM_NAMES = {"gpu": ("cuda", "rocm", "gpu")}


def _platform_index_lowering(ctx, *, platforms):
    names = _PLATFORM_NAMES.get(ctx.module_ctx.platform, (ctx.module_ctx.platform,))
    for i, ps in enumerate(platforms):
        if ps is None or any(n in ps for n in names):
            return ir_constant(np.int32(i))
    # JAX 0.10.2 refuses it too, in these words
    raise NotImplementedError(f"MLIR translation rule for primitive 'platform_index(platforms="
                              f"{platforms})' not found for platform {ctx.module_ctx.platform}")


platform_index_p = Primitive("platform_index")
platform_index_p.def_abstract_eval(lambda *, platforms: ShapedArray((), np.dtype(np.int32)))
platform_index_p.def_lowering(_platform_index_lowering)
platform_index_p.def_batching(batching.never_batched_rule(platform_index_p))
ad.defjvp_zero(platform_index_p)


def platform_dependent(*args, default=None, **per_platform):
    """``per_platform[p](*args)`` for the platform ``p`` the program is lowered for ('cpu',
    'cuda', 'rocm', 'tpu'), else ``default(*args)``."""
    groups = []  # identical branches share one index: [(platform names, branch)]
    for name, branch in per_platform.items():
        if not callable(branch):
            raise TypeError(f"lax.platform_dependent: the '{name}' branch must be a callable.")
        if name == "gpu":
            raise ValueError("Use 'cuda' or 'rocm' for lax.platform_dependent.")
        for names, b in groups:
            if b == branch:
                names.append(name)
                break
        else:
            groups.append(([name], branch))
    platforms = tuple(tuple(names) for names, _ in groups)
    branches = tuple(b for _, b in groups)
    if default is not None:
        if not callable(default):
            raise TypeError("lax.platform_dependent: the 'default' branch must be a callable.")
        platforms, branches = platforms + (None,), branches + (default,)
    index = platform_index_p.bind(platforms=platforms)
    if not isinstance(index, Tracer):
        return branches[int(index)](*args)
    # the index is in range: no clamp, and the cond records which platforms each branch is for
    return switch_unclamped(index, branches, args, branches_platforms=platforms)
