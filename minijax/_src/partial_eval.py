"""``jax.interpreters.partial_eval`` for libraries: ``minijax.interpreters.partial_eval``, whose
``trace_to_jaxpr_nounits`` here also takes typed-key avals (``key<fry>[...]``).

flax's scan traces its body once on the avals of its carries and scanned values to find the
broadcast outputs, and rng keys are among them. A minijax key is no core dtype: a key array
is a ``PRNGKeyArray`` over ``uint32[..., 2]`` data. So a key input is staged as its data and
handed to the function as a key array over it, and a key output is taken apart the same way.
"""

from __future__ import annotations

import numpy as np

from minijax.core import ShapedArray
from minijax.interpreters import partial_eval as _pe
from minijax.interpreters.partial_eval import PartialVal
from minijax.random import key_dtype
from minijax.random._keys import KeyDtype, PRNGKeyArray


def __getattr__(name):
    return getattr(_pe, name)


def _is_key_aval(aval):
    return isinstance(getattr(aval, "dtype", None), KeyDtype)


def trace_to_jaxpr_nounits(fun, pvals, instantiate=False):
    """``partial_eval.trace_to_jaxpr_nounits``, with unknown key inputs and key outputs."""
    keyed = [not pv.is_known() and _is_key_aval(pv[0]) for pv in pvals]
    call = getattr(fun, "call_wrapped", fun)
    out_keyed = []

    def on_data(*args):
        outs = call(*[PRNGKeyArray(a) if k else a for a, k in zip(args, keyed)])
        out_keyed[:] = [isinstance(o, PRNGKeyArray) for o in outs]
        return [o._data if k else o for o, k in zip(outs, out_keyed)]

    data_pvals = [PartialVal.unknown(ShapedArray((*pv[0].shape, 2), np.uint32)) if k else pv
                  for pv, k in zip(pvals, keyed)]
    jaxpr, out_pvals, res = _pe.trace_to_jaxpr_nounits(on_data, data_pvals, instantiate)
    out_pvals = [_key_pval(pv) if k else pv for pv, k in zip(out_pvals, out_keyed)]
    return jaxpr, out_pvals, res


def _key_pval(pv):
    if pv.is_known():
        return PartialVal.known(PRNGKeyArray(pv[1]))
    data = pv[0]
    return PartialVal.unknown(ShapedArray(data.shape[:-1], key_dtype()))
