"""Mixed precision as a pass: matmuls and convolutions in a narrow dtype, accumulating in f32.

``autocast(f, compute_dtype=bfloat16)`` rewrites every ``dot_general`` and
``conv_general_dilated`` whose result is a wider float (f32) so that its operands are
converted to ``compute_dtype`` and the product accumulates in the original result dtype
(``preferred_element_type=float32``): the result keeps its type, so nothing else in the program
changes. Everything else (reductions, softmax, normalizations, losses, the optimizer) runs in
the dtype the program wrote, f32; parameters keep their own dtype (the casts are inside the
program, so gradients come back in the parameters' dtype).

The pass sees the jaxpr of whatever it is applied to: ``grad(autocast(f))`` differentiates the
rewritten program (the backward matmuls inherit bf16 operands from the JVP and transpose
rules); ``autocast(grad(f))`` rewrites the backward matmuls directly. Both are tested.
"""

from __future__ import annotations

import numpy as np

from minijax import dtypes
from minijax.lax.convert import convert_element_type
from minijax.transforms.api import apply
from minijax.transforms.rewrite import rewrite

MATMUL_PRIMITIVES = ("dot_general", "conv_general_dilated")


def _float(aval):
    return dtypes.is_float(aval.dtype)


def autocast_pass(compute_dtype=dtypes.bfloat16, primitives=MATMUL_PRIMITIVES):
    compute_dtype = np.dtype(compute_dtype)

    def rule(eqn):
        if eqn.primitive.name not in primitives:
            return None
        out = eqn.outvars[0].aval
        if not (_float(out) and all(_float(a.aval) for a in eqn.invars)):
            return None
        if out.dtype.itemsize <= compute_dtype.itemsize:
            return None

        params = dict(eqn.params, preferred_element_type=out.dtype)

        def narrow(*ops):
            ops = [x if x.dtype == compute_dtype else convert_element_type(x, compute_dtype)
                   for x in ops]
            return eqn.primitive.bind(*ops, **params)

        narrow.__name__ = f"{eqn.primitive.name}_in_{compute_dtype.name}"
        return narrow

    def pass_(closed):
        return rewrite(closed, rule)

    pass_.__name__ = f"autocast({compute_dtype.name})"
    return pass_


def autocast(f, compute_dtype=dtypes.bfloat16):
    """``f`` with its matmuls/convolutions in ``compute_dtype``, accumulated in f32."""
    return apply(autocast_pass(compute_dtype), f)
