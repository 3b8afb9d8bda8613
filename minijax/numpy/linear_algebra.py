"""NumPy's linear-algebra routines at the top of ``jnp``: the matrix and vector products
(``dot``, ``matmul``, ``vdot``, ``inner``, ``outer``, ``tensordot``, ``matvec``, ``vecmat``,
``vecdot``, ``kron``) and ``trace``; ``einsum`` is in einsum.py and ``jnp.linalg`` in linalg.py.
Each product is one ``lax.dot_general`` after promotion (XLA picks the kernel: one dot, never a
Python loop).
"""

from __future__ import annotations


import numpy as np

import minijax.numpy as jnp
from minijax import dtypes, lax
from minijax.numpy._eager import eager_jit
from minijax.numpy._util import (broadcast_shapes, canonicalize_axis, check_arraylike, convert,
                                   promote_dtypes)
from minijax.numpy.creation import to_array
from minijax.numpy.manipulation import moveaxis, ravel
from minijax.numpy.math import conjugate, multiply
from minijax.sharding_types import resolve

__all__ = [
    "dot", "matmul", "vdot", "inner", "outer", "tensordot", "vecdot", "matvec", "vecmat", "trace",
    "kron",
]


def _promoted(name, a, b):
    check_arraylike(name, a, b)
    a, b = promote_dtypes(a, b)
    return to_array(a), to_array(b)


def _contraction_operands(name, a, b):
    """``a`` and ``b`` for one ``dot_general``, and the (dtype, weak type) of their promotion.
    JAX hands its ``dot_general`` the operands unpromoted and converts the result last; only an
    operand of another dtype is converted here (strongly, as the primitive's own upcast), so a
    weak operand of the promoted dtype stays weak: the product with a strong one is then strong
    by the standard weak-type rule, and so is that operand's cotangent (``dot_general``'s
    transpose), where converting it to a strong type first would have made the cotangent weak
    again (the conversion's transpose restores the weak type)."""
    check_arraylike(name, a, b)
    a, b = to_array(a), to_array(b)
    dtype, weak = dtypes.result_type(a, b, return_weak_type_flag=True)
    a, b = (x if x.dtype == dtype else convert(x, dtype) for x in (a, b))
    return a, b, dtype, weak


def _preferred(preferred_element_type, dtype):
    """The ``preferred_element_type`` JAX's contractions give dot_general: the given one, else
    the operands' promoted dtype (so its equations show it)."""
    return dtype if preferred_element_type is None else preferred_element_type


def _contraction_result(out, dtype, weak, preferred_element_type):
    """JAX's last step: the promoted type, strong when a preferred element type is given."""
    if preferred_element_type is None:
        return convert(out, dtype, weak)
    return convert(out, preferred_element_type)


@eager_jit(static_argnames=('precision', 'preferred_element_type', 'out_sharding'))
def dot(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """NumPy's ``dot``: a scalar multiplies; otherwise contract ``a``'s last axis with ``b``'s
    second-to-last (its only axis when ``b`` is 1-D). The result is laid out as
    ``out_sharding`` when one is given."""
    a, b, dtype, weak = _contraction_operands("dot", a, b)
    if a.ndim == 0 or b.ndim == 0:
        dims = (((), ()), ((), ()))  # an outer product: a scalar multiplies
    else:
        contract_b = 0 if b.ndim == 1 else b.ndim - 2
        dims = (((a.ndim - 1,), (contract_b,)), ((), ()))
    # dot_general's output is (a's free axes, b's free axes): exactly NumPy's dot layout.
    out = lax.dot_general(a, b, dims, precision, _preferred(preferred_element_type, dtype),
                          out_sharding=out_sharding)
    return _contraction_result(out, dtype, weak, preferred_element_type)


@eager_jit(static_argnames=('precision', 'preferred_element_type', 'out_sharding'))
def matmul(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """``a @ b``: batched over leading axes (broadcast), with NumPy's 1-D rules (a 1-D ``a`` is
    a row vector, a 1-D ``b`` a column vector; the added axis is removed again). The result is
    split as ``out_sharding`` (over Explicit mesh axes) when one is given."""
    a, b, dtype, weak = _contraction_operands("matmul", a, b)
    for name, x in (("a", a), ("b", b)):
        if x.ndim == 0:
            raise ValueError(f"matmul: operand {name} must be at least 1-dimensional, got a "
                             "scalar (use multiply or * instead)")
    a_vec, b_vec = a.ndim == 1, b.ndim == 1
    a_shape = (1, *a.shape) if a_vec else a.shape  # NumPy's 1-D rules, for the check
    b_shape = (*b.shape, 1) if b_vec else b.shape
    if a_shape[-1] != b_shape[-2]:  # JAX's error: its dot_general's
        raise TypeError(f"dot_general requires contracting dimensions to have the same shape, "
                        f"got ({a_shape[-1]},) and ({b_shape[-2]},).")
    if a_vec or b_vec:
        # One dot_general, as JAX emits: a vector contracts with the other's core axis, and
        # dot_general's layout (a's free axes, b's free axes) is NumPy's result.
        dims = (((a.ndim - 1,), (0 if b_vec else b.ndim - 2,)), ((), ()))
        out = lax.dot_general(a, b, dims, precision, _preferred(preferred_element_type, dtype),
                              out_sharding=out_sharding)
    else:
        out = _batched_matmul(a, b, precision, _preferred(preferred_element_type, dtype),
                              out_sharding)
    return _contraction_result(out, dtype, weak, preferred_element_type)


def _batched_matmul(a, b, precision, preferred_element_type, out_sharding=None):
    """``a @ b`` for ``a: (..., M, K)``, ``b: (..., K, N)`` as one ``dot_general`` that never
    materialises a broadcast operand: a batch axis only one side has (or has with size 1 where
    the other's is larger) stays a free axis of that side, as in JAX. ``x (B, S, D) @ w (D, F)``
    is then a plain (B*S, D) x (D, F) matmul (not B copies of ``w`` in a batched one), and its
    transpose gives ``w``'s gradient as one contraction over (B, S), not B partial gradients
    summed afterwards; the result is transposed to NumPy's (batch..., M, N) layout if needed."""
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    nb = len(batch)
    a_pad, b_pad = nb - (a.ndim - 2), nb - (b.ndim - 2)
    shared, a_only, b_only, a_squeeze, b_squeeze = [], [], [], [], []
    for i in range(nb):
        sa = a.shape[i - a_pad] if i >= a_pad else None
        sb = b.shape[i - b_pad] if i >= b_pad else None
        if sa is not None and sa == sb:
            shared.append(i)
        elif sa is not None and (sb is None or sb == 1):
            a_only.append(i)
            if sb is not None:
                b_squeeze.append(i - b_pad)
        else:
            b_only.append(i)
            if sa is not None:
                a_squeeze.append(i - a_pad)
    if a_squeeze:
        a = lax.squeeze(a, tuple(a_squeeze))
    if b_squeeze:
        b = lax.squeeze(b, tuple(b_squeeze))
    # After squeezing, each side's batch axes are its shared and own axes, in batch order.
    a_axes = [i for i in range(nb) if i in shared or i in a_only]
    b_axes = [i for i in range(nb) if i in shared or i in b_only]
    dims = (((a.ndim - 1,), (b.ndim - 2,)),
            (tuple(a_axes.index(i) for i in shared), tuple(b_axes.index(i) for i in shared)))
    # dot_general's layout: (shared..., a_only..., M, b_only..., N).
    ns, na = len(shared), len(a_only)
    where = {i: k for k, i in enumerate(shared)}
    where.update({i: ns + k for k, i in enumerate(a_only)})
    where.update({i: ns + na + 1 + k for k, i in enumerate(b_only)})
    perm = tuple(where[i] for i in range(nb)) + (ns + na, nb + 1)
    if out_sharding is not None and perm != tuple(range(nb + 2)):
        # the dot's result is split so that the transpose gives the asked split
        spec = tuple(resolve(out_sharding, "matmul out_sharding").spec)
        spec += (None,) * (nb + 2 - len(spec))
        parts = [None] * (nb + 2)
        for i, j in enumerate(perm):
            parts[j] = spec[i]
        out_sharding = resolve(out_sharding, "matmul out_sharding").update(spec=tuple(parts))
    out = lax.dot_general(a, b, dims, precision, preferred_element_type,
                          out_sharding=out_sharding)
    return out if perm == tuple(range(out.ndim)) else lax.transpose(out, perm)


@eager_jit(static_argnames=('precision', 'preferred_element_type'))
def vdot(a, b, *, precision=None, preferred_element_type=None):
    """Dot product of the flattened arrays, conjugating ``a`` first."""
    check_arraylike("vdot", a, b)
    a, b = to_array(a), to_array(b)  # unpromoted: dot promotes as JAX's does
    return dot(conjugate(ravel(a)), ravel(b), precision=precision,
               preferred_element_type=preferred_element_type)


@eager_jit(static_argnames=('precision', 'preferred_element_type'))
def inner(a, b, *, precision=None, preferred_element_type=None):
    """Contraction over the last axes of both."""
    check_arraylike("inner", a, b)
    a, b = to_array(a), to_array(b)
    if a.ndim == 0 or b.ndim == 0:  # JAX's: a promoting product, not a dot_general
        if preferred_element_type is not None:
            a, b = a.astype(preferred_element_type), b.astype(preferred_element_type)
        return multiply(a, b)
    return tensordot(a, b, ((a.ndim - 1,), (b.ndim - 1,)), precision=precision,
                     preferred_element_type=preferred_element_type)


@eager_jit
def outer(a, b, out=None):
    """``ravel(a)[:, None] * ravel(b)[None, :]``."""
    if out is not None:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("The 'out' argument to jnp.outer is not supported.")
    a, b = _promoted("outer", a, b)
    return multiply(lax.expand_dims(ravel(a), (1,)), lax.expand_dims(ravel(b), (0,)))


# JAX's tensordot is not jitted, so its axes are no static option there: lists work
@eager_jit(static_argnames=('axes', 'precision', 'preferred_element_type'),
           list_argnames=('axes',), fused_under_transforms=False)
def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None):
    """Contraction of ``a``'s last ``axes`` axes with ``b``'s first ones, or of the listed
    axis pairs ``axes=(a_axes, b_axes)``."""
    a, b, dtype, weak = _contraction_operands("tensordot", a, b)
    # JAX 0.10.2's forms and words: an int (exactly), or a pair of ints or of sequences
    if type(axes) is int:
        if axes > min(a.ndim, b.ndim):
            raise TypeError(f"Number of tensordot axes (axes {axes}) exceeds input ranks "
                            f"({a.shape} and {b.shape})")
        ca, cb = tuple(range(a.ndim - axes, a.ndim)), tuple(range(axes))
    elif isinstance(axes, (tuple, list)) and len(axes) == 2:
        ax_a, ax_b = axes
        if isinstance(ax_a, int) and isinstance(ax_b, int):
            ax_a, ax_b = (ax_a,), (ax_b,)
        elif not (isinstance(ax_a, (tuple, list)) and isinstance(ax_b, (tuple, list))):
            raise TypeError("tensordot requires both axes lists to be either ints, tuples or "
                            f"lists, got {ax_a} and {ax_b}")
        elif len(ax_a) != len(ax_b):
            raise TypeError("tensordot requires axes lists to have equal length, got "
                            f"{ax_a} and {ax_b}.")
        ca = tuple(canonicalize_axis(i, a.ndim) for i in ax_a)
        cb = tuple(canonicalize_axis(i, b.ndim) for i in ax_b)
    else:
        raise TypeError("tensordot axes argument must be an int, a pair of ints, or a pair "
                        "of lists/tuples of ints.")
    out = lax.dot_general(a, b, ((ca, cb), ((), ())), precision,
                          _preferred(preferred_element_type, dtype))
    return _contraction_result(out, dtype, weak, preferred_element_type)


@eager_jit(static_argnames=('axis', 'precision', 'preferred_element_type'),
           fused_under_transforms=False)
def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """Conjugated dot product along ``axis``, broadcast over the other axes."""
    check_arraylike("jnp.vecdot", x1, x2)
    x1, x2 = to_array(x1), to_array(x2)  # unpromoted: matmul promotes as JAX's vdot does
    if x1.shape[axis] != x2.shape[axis]:  # JAX's check (an axis that is no int fails here)
        raise ValueError(f"axes must match; got shapes {x1.shape} and {x2.shape} with {axis=}")
    x1, x2 = moveaxis(x1, axis, -1), moveaxis(x2, axis, -1)
    out = matmul(lax.expand_dims(conjugate(x1), (x1.ndim - 1,)),
                 lax.expand_dims(x2, (x2.ndim,)), precision=precision,
                 preferred_element_type=preferred_element_type)
    return lax.squeeze(out, (out.ndim - 2, out.ndim - 1))


@eager_jit(inline=False)
def matvec(x1, x2, /):
    check_arraylike("matvec", x1, x2)
    x1, x2 = to_array(x1), to_array(x2)  # unpromoted: matmul promotes as JAX's does
    out = matmul(x1, lax.expand_dims(x2, (x2.ndim,)))
    return lax.squeeze(out, (out.ndim - 1,))


@eager_jit(static_argnames=("axis1", "axis2", "dtype"), inline=False)
def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """JAX's: the (axis1, axis2) planes masked to the ``offset`` diagonal and summed; ``offset``
    is traced, as in JAX's jit."""
    check_arraylike("trace", a)
    a = to_array(a)
    if out is not None:  # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("The 'out' argument to jnp.trace is not supported.")
    if canonicalize_axis(axis1, a.ndim) == canonicalize_axis(axis2, a.ndim):
        raise ValueError(f"axis1 and axis2 can not be same. axis1={axis1} and axis2={axis2}")
    n, m = a.shape[axis1], a.shape[axis2]
    a = moveaxis(a, (axis1, axis2), (-2, -1))
    rows = lax.broadcasted_iota(np.int32, (n, m), 0)
    cols = lax.broadcasted_iota(np.int32, (n, m), 1)
    on_diagonal = lax.eq(lax.add(rows, lax.convert_element_type(offset, np.int32)), cols)
    a = jnp.where(on_diagonal, a, jnp.zeros_like(a))
    return jnp.sum(a, axis=(-2, -1), dtype=dtype)


@eager_jit(inline=False)
def vecmat(x1, x2, /):
    x1, x2 = to_array(x1), to_array(x2)
    return matmul(jnp.conj(x1)[..., None, :], x2)[..., 0, :]


@eager_jit(inline=False)
def kron(a, b):
    """Kronecker product: an outer product by broadcasting, then one reshape."""
    check_arraylike("kron", a, b)
    a, b = (to_array(x) for x in promote_dtypes(a, b))
    nd = max(a.ndim, b.ndim)
    a = jnp.reshape(a, (1,) * (nd - a.ndim) + a.shape)
    b = jnp.reshape(b, (1,) * (nd - b.ndim) + b.shape)
    ai = jnp.reshape(a, tuple(d for s in a.shape for d in (s, 1)))
    bi = jnp.reshape(b, tuple(d for s in b.shape for d in (1, s)))
    return jnp.reshape(ai * bi, tuple(x * y for x, y in zip(a.shape, b.shape)))
