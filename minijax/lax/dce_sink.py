"""``dce_sink``: marks values as used, so dead-code elimination keeps what computes them
(JAX's ``dce_sink_p``: no outputs, an effect of its own). With ``prevent_mlir_dce=True`` the
lowering is a side-effecting ``dce_sink`` custom call, so XLA keeps the computation as well.
"""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax.core import Primitive
from minijax.interpreters import ad
from minijax.tree_util import tree_leaves

__all__ = ["dce_sink"]


def _dce_sink_lowering(ctx, x, *, prevent_mlir_dce):
    if prevent_mlir_dce:
        op = hlo.CustomCallOp([], [x], "dce_sink", has_side_effect=ir.BoolAttr.get(True),
                              api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4),
                              backend_config=ir.DictAttr.get({}))
        op.attributes["operand_layouts"] = ir.ArrayAttr.get([ir.DenseElementsAttr.get(
            np.arange(ctx.avals_in[0].ndim - 1, -1, -1),
            type=ir.IndexType.get())])
        op.attributes["result_layouts"] = ir.ArrayAttr.get([])
    return []


dce_sink_p = Primitive("dce_sink", multiple_results=True)
dce_sink_p.effectful = True  # its whole point: dead-code elimination must keep it
dce_sink_p.def_abstract_eval(lambda x, *, prevent_mlir_dce: [])
dce_sink_p.def_lowering(_dce_sink_lowering)
dce_sink_p.def_batching(lambda args, dims, **params: (dce_sink_p.bind(*args, **params), []))
ad.deflinear(dce_sink_p, lambda cts, x, **params: [None])


def dce_sink(val, *, prevent_mlir_dce=False):
    """Keeps every leaf of ``val`` alive through dead-code elimination; returns None."""
    for leaf in tree_leaves(val):
        dce_sink_p.bind(leaf, prevent_mlir_dce=prevent_mlir_dce)
