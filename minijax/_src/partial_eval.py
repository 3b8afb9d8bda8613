"""``jax.interpreters.partial_eval`` for libraries: ``minijax.interpreters.partial_eval``, whose
``trace_to_jaxpr_nounits`` here also takes typed-key avals (``key<fry>[...]``).

flax's scan traces its body once on the avals of its carries and scanned values to find the
broadcast outputs, and rng keys are among them. A minijax key is no core dtype: a key array
is a ``PRNGKeyArray`` over ``uint32[..., *key_shape]`` data. So a key input is staged as its data and
handed to the function as a key array over it, and a key output is taken apart the same way.
"""

from __future__ import annotations

import numpy as np

from minijax.core import ShapedArray
from minijax.interpreters import partial_eval as _pe
from minijax.interpreters.partial_eval import PartialVal
from minijax.random._keys import KeyDtype, PRNGKeyArray


def __getattr__(name):
    return getattr(_pe, name)


def _is_key_aval(aval):
    return isinstance(getattr(aval, "dtype", None), KeyDtype)


def trace_to_jaxpr_nounits(fun, pvals, instantiate=False):
    """``partial_eval.trace_to_jaxpr_nounits``, with unknown key inputs and key outputs."""
    # each input's impl where it is an unknown key, else None
    impls = [pv[0].dtype._impl if not pv.is_known() and _is_key_aval(pv[0]) else None
             for pv in pvals]
    call = getattr(fun, "call_wrapped", fun)
    out_impls = []

    def on_data(*args):
        outs = call(*[a if i is None else PRNGKeyArray(a, i) for a, i in zip(args, impls)])
        out_impls[:] = [o._impl if isinstance(o, PRNGKeyArray) else None for o in outs]
        return [o if i is None else o._data for o, i in zip(outs, out_impls)]

    data_pvals = [pv if i is None else
                  PartialVal.unknown(ShapedArray((*pv[0].shape, *i.key_shape), np.uint32))
                  for pv, i in zip(pvals, impls)]
    jaxpr, out_pvals, res = _pe.trace_to_jaxpr_nounits(on_data, data_pvals, instantiate)
    out_pvals = [pv if i is None else _key_pval(pv, i) for pv, i in zip(out_pvals, out_impls)]
    return jaxpr, out_pvals, res


def _key_pval(pv, impl):
    if pv.is_known():
        return PartialVal.known(PRNGKeyArray(pv[1], impl))
    return PartialVal.unknown(ShapedArray(pv[0].shape[:-1], impl.dtype))
