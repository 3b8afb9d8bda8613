"""Program transforms as a public API: user-written jaxpr passes, simplification, mixed
precision and quantization. See docs/transforms.md.

A pass is a function ``ClosedJaxpr -> ClosedJaxpr``; ``apply(pass_, f)`` runs it on ``f``'s
jaxpr at each trace (composing with jit/grad/vmap), type-checking every result.
"""

from minijax.interpreters.walk import (
    count_eqns,
    find_eqns,
    iter_eqns,
    map_sub_jaxprs,
    matches,
    producers,
    sub_jaxprs,
)
from minijax.transforms.api import Transformed, apply, pass_name, replace, run_pass, run_passes
from minijax.transforms.api import trace as trace_to_jaxpr
from minijax.transforms.rewrite import replace_eqn, replace_pass, rewrite, trace_replacement
from minijax.transforms.typecheck import JaxprTypeError, check_jaxpr

__all__ = [
    "JaxprTypeError", "Transformed", "apply", "check_jaxpr", "count_eqns", "find_eqns",
    "iter_eqns", "map_sub_jaxprs", "matches", "pass_name", "producers", "replace", "replace_eqn",
    "replace_pass", "rewrite", "run_pass", "run_passes", "sub_jaxprs", "trace_replacement",
    "trace_to_jaxpr",
]

from minijax.transforms.autocast import autocast, autocast_pass  # noqa: E402
from minijax.transforms import fp8  # noqa: E402 - FP8 training: fp8.autocast, see its docstring
from minijax.transforms.quantize import Quantized, calibrate, quantize  # noqa: E402
from minijax.transforms.simplify import cse, dce, fold_constants, simplify  # noqa: E402

__all__ += ["Quantized", "autocast", "autocast_pass", "calibrate", "cse", "dce", "fp8",
            "fold_constants", "quantize", "simplify"]
