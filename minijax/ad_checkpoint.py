"""``jax.ad_checkpoint``: naming values for :func:`minijax.checkpoint`'s policies, the
policies themselves, and :func:`print_saved_residuals`.

``checkpoint`` and ``remat`` live at the top level only (JAX 0.10 removed them here).
"""

from minijax.api import make_jaxpr
from minijax.api_util import debug_info
from minijax.autodiff import vjp
from minijax.core import Literal, MemorySpace
from minijax.deprecations import removed_getattr as _removed_getattr
from minijax.lax.convert import reduce_precision_p
from minijax.lax.sharding_constraint import device_put_p
from minijax.rematerialization import (
    Offloadable,
    Recompute,
    Saveable,
    checkpoint_name,
    checkpoint_policies,
    name_p,
)
from minijax.tree_util import tree_flatten, tree_structure, tree_unflatten

__all__ = ["Offloadable", "Recompute", "Saveable", "checkpoint_name", "checkpoint_policies",
           "print_saved_residuals"]

__getattr__ = _removed_getattr(__name__, {
    "checkpoint": "jax.ad_checkpoint.checkpoint was deprecated in JAX v0.8.2 and removed in"
                  " JAX v0.10.0; use jax.checkpoint instead.",
    "remat": "jax.ad_checkpoint.remat was deprecated in JAX v0.8.2 and removed in"
             " JAX v0.10.0; use jax.remat instead.",
})


def saved_residuals(f, *args, **kwargs):
    """``[(aval, description)]``: the values ``vjp(f, *args, **kwargs)`` keeps for the
    backward pass and where each comes from."""
    in_leaves, in_tree = tree_flatten((args, kwargs))

    def flat_f(*leaves):
        a, k = tree_unflatten(in_tree, leaves)
        return f(*a, **k)

    closed, out_shape = make_jaxpr(lambda *xs: vjp(flat_f, *xs), return_shape=True)(*in_leaves)
    jaxpr = closed.jaxpr
    num_res = tree_structure(out_shape[1]).num_leaves
    res = jaxpr.outvars[len(jaxpr.outvars) - num_res:]
    names = debug_info("saved_residuals", f, args, kwargs).safe_arg_names(len(in_leaves))
    res_vars = {v for v in res if not isinstance(v, Literal)}
    # as JAX's: a residual checkpoint rounds (reduce_precision) is named by what it rounds
    subst = {e.outvars[0]: e.invars[0] for e in jaxpr.eqns
             if e.primitive is reduce_precision_p}
    res_vars = {subst.get(v, v) for v in res_vars}
    results = [(v.aval, "from a literal") for v in res if isinstance(v, Literal)]
    results += [(v.aval, "from a constant") for v in jaxpr.constvars if v in res_vars]
    for i, v in enumerate(jaxpr.invars):
        if v in res_vars:
            results.append((v.aval, f"from the argument {names[i]}" if names[i]
                            else f"from the argument at flattened index {i}"))
    for eqn in jaxpr.eqns:
        for v in eqn.outvars:
            if v in res_vars:
                src = eqn.source_info
                if eqn.primitive is device_put_p and isinstance(eqn.params["devices"][0],
                                                                MemorySpace):
                    src = ""  # checkpoint's offloading: JAX makes it with no source line
                if eqn.primitive is name_p:
                    results.append((v.aval, f"named '{eqn.params['name']}' from {src}"))
                elif eqn.primitive.name in ("jit", "pjit"):
                    results.append((v.aval, f"output of jitted function "
                                            f"'{eqn.params.get('name')}' from {src}"))
                else:
                    results.append((v.aval, f"output of {eqn.primitive.name} from {src}"))
    return results


def print_saved_residuals(f, *args, **kwargs):
    """Prints one line per value ``vjp`` of ``f`` saves: its type and where it comes from."""
    for aval, src in saved_residuals(f, *args, **kwargs):
        print(f"{aval.str_short(True)} {src}")
