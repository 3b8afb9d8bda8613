"""NumPy's functional programming routines: ``vectorize``, ``apply_along_axis``,
``apply_over_axes`` (through ``vmap``) and ``piecewise``.
"""

from __future__ import annotations

import functools
import re

import numpy as np

import minijax.numpy as jnp
from minijax import lax
from minijax.numpy._eager import eager_jit
from minijax.numpy._util import canonicalize_axis, check_arraylike
from minijax.numpy.creation import to_array
from minijax.vmapping import vmap

__all__ = [
    "piecewise", "apply_along_axis", "apply_over_axes", "vectorize",
]


def piecewise(x, condlist, funclist, *args, **kw):
    """``funclist[i]`` (a function or a constant) where ``condlist[i]`` first holds, the extra
    function (or 0) where none does, JAX's way: the jit ``_piecewise`` picks per element with a
    vectorized ``lax.switch`` (each function is applied to scalars)."""
    check_arraylike("piecewise", x)
    x = to_array(x)
    nc, nf = len(condlist), len(funclist)
    if nf == nc + 1:
        funclist = funclist[-1:] + funclist[:-1]
    elif nf == nc:
        funclist = [0] + list(funclist)
    else:
        raise ValueError(f"with {nc} condition(s), either {nc} or {nc+1} functions are expected; "
                         f"got {nf}")
    consts = {i: c for i, c in enumerate(funclist) if not callable(c)}
    funcs = {i: f for i, f in enumerate(funclist) if callable(f)}
    return _piecewise(x, jnp.asarray(condlist, dtype=bool), consts,
                      frozenset(funcs.items()), *args, **kw)  # a dict does not hash


@eager_jit(static_argnames=("funcs",), inline=False)
def _piecewise(x, condlist, consts, funcs, *args, **kw):
    funcdict = dict(funcs)
    funclist = [consts.get(i, funcdict.get(i)) for i in range(len(condlist) + 1)]
    # 0 where no condition holds, else 1 + the first that does
    indices = jnp.argmax(jnp.cumsum(jnp.concatenate(
        [jnp.zeros_like(condlist[:1]), condlist], 0), 0), 0)
    dtype = x.dtype

    def call(f):
        return lambda x: f(x, *args, **kw).astype(dtype)

    def constant(v):
        return lambda x: jnp.array(v, dtype=dtype)

    funclist = [call(f) if callable(f) else constant(f) for f in funclist]
    return vectorize(lax.switch, excluded=(1,))(indices, funclist, x)


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``func1d`` on every 1-D slice along ``axis``: nested ``vmap`` over the other axes."""
    arr = to_array(arr)
    axis = canonicalize_axis(axis, arr.ndim)

    def f(x):
        return func1d(x, *args, **kwargs)

    for _ in range(arr.ndim - 1 - axis):
        f = vmap(f, in_axes=-1, out_axes=-1)
    for _ in range(axis):
        f = vmap(f)
    return f(arr)


def apply_over_axes(func, a, axes):
    a = to_array(a)
    for axis in axes:
        b = func(a, axis)
        if b.ndim == a.ndim:
            a = b
        elif b.ndim == a.ndim - 1:
            a = jnp.expand_dims(b, axis)
        else:
            raise ValueError("function is not returning an array of the correct shape")
    return a


_SIG_DIMS = r"\(\s*(?:\w+(?:\s*,\s*\w+)*)?\s*\)"


_SIG_LIST = rf"{_SIG_DIMS}(?:\s*,\s*{_SIG_DIMS})*"


def _parse_gufunc_signature(signature):
    """``'(m,n),(n)->(m)'`` → ``([('m', 'n'), ('n',)], [('m',)])`` (NumPy's grammar)."""
    if not re.fullmatch(rf"\s*{_SIG_LIST}\s*->\s*{_SIG_LIST}\s*", signature):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    ins, outs = signature.split("->")
    parse = lambda part: [tuple(d.strip() for d in dims.split(",") if d.strip())  # noqa: E731
                          for dims in re.findall(r"\(([^)]*)\)", part)]
    return parse(ins), parse(outs)


def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
    """NumPy's ``vectorize`` through ``vmap``: ``pyfunc`` sees one element (or, with a gufunc
    ``signature`` such as ``'(m,n),(n)->(m)'``, one set of core dimensions) of the broadcast
    loop dimensions; one ``vmap`` per loop dimension, and none over a dimension every argument
    has as size 1 (the result gets it back with ``expand_dims``), as JAX does. ``excluded``
    positions/keywords are passed through unchanged."""
    excluded = frozenset(excluded)
    if any(not isinstance(e, (int, str)) for e in excluded):
        raise TypeError(f"excluded must contain only ints and strs, got {set(excluded)}")
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ValueError("excluded may not contain negative integers")
    in_core, out_core = (_parse_gufunc_signature(signature) if signature is not None
                         else (None, None))

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        # excluded and None arguments are closed over; the rest become vmapped positionals
        fixed_kw = {k: v for k, v in kwargs.items() if k in excluded}
        dyn_kw = [k for k in kwargs if k not in excluded]
        all_args = list(args) + [kwargs[k] for k in dyn_kw]
        dyn = [i for i, a in enumerate(all_args)
               if not (i < len(args) and i in excluded) and a is not None]
        # JAX's error context, in its words
        context = f"on vectorized function with excluded={excluded!r} and signature={signature!r}"
        if in_core is not None and len(in_core) != len(dyn):
            raise TypeError(f"wrong number of positional arguments: expected {len(in_core)}, "
                            f"got {len(dyn)} {context}")
        core = in_core if in_core is not None else [()] * len(dyn)
        arrs = [to_array(all_args[i]) for i in dyn]

        dim_sizes = {}
        loop_shapes = []
        for x, dims in zip(arrs, core):
            if x.ndim < len(dims):
                raise ValueError(f"input with shape {x.shape} does not have enough dimensions "
                                 f"for all core dimensions {dims} {context}")
            for d, n in zip(dims, x.shape[x.ndim - len(dims):]):
                if dim_sizes.setdefault(d, n) != n:
                    raise ValueError(f"inconsistent size for core dimension {d!r}: "
                                     f"{n} vs {dim_sizes[d]} {context}")
            loop_shapes.append(tuple(x.shape[:x.ndim - len(dims)]))
        loop_shape = jnp.broadcast_shapes(*loop_shapes) if loop_shapes else ()

        def call(*xs):
            full = list(all_args)
            for i, x in zip(dyn, xs):
                full[i] = x
            pos, kw = full[:len(args)], dict(zip(dyn_kw, full[len(args):]))
            out = pyfunc(*pos, **kw, **fixed_kw)
            if out_core is not None:
                _check_core_outputs(out, out_core, dim_sizes, context)
            return out

        # size-1 loop axes are squeezed away; each remaining loop axis gets one vmap
        squeezed, filled = [], []
        for x, shape in zip(arrs, loop_shapes):
            ones = tuple(i for i, n in enumerate(shape) if n == 1)
            squeezed.append(lax.squeeze(x, ones) if ones else x)
            filled.append((1,) * (len(loop_shape) - len(shape)) + shape)
        f, expand = call, []
        for axis in reversed(range(len(loop_shape))):
            in_axes = tuple(None if shape[axis] == 1 else 0 for shape in filled)
            if all(a is None for a in in_axes):
                expand.append(axis)
            else:
                f = vmap(f, in_axes=in_axes)
        out = f(*squeezed)
        if not expand:
            return out
        expand = tuple(sorted(expand))
        if isinstance(out, tuple):
            return tuple(jnp.expand_dims(o, expand) for o in out)
        return jnp.expand_dims(out, expand)

    return wrapped


def _check_core_outputs(out, out_core, dim_sizes, context):
    """JAX's ``_check_output_dims``, in its words and order: the outputs' core shapes against
    the signature (and the input sizes, which it does not update)."""
    shapes = [tuple(np.shape(o)) for o in (out if isinstance(out, tuple) else [out])]
    if len(out_core) > 1 and not isinstance(out, tuple):
        raise TypeError(f"output must be a tuple when multiple outputs are expected, got: "
                        f"{out!r}\n{context}")
    if len(shapes) != len(out_core):
        raise TypeError(f"wrong number of output arguments: expected {len(out_core)}, got "
                        f"{len(shapes)} {context}")
    sizes = dict(dim_sizes)
    for shape, dims in zip(shapes, out_core):
        if len(shape) != len(dims):
            raise ValueError(f"output shape {shape!r} does not match core dimensions {dims!r} "
                             f"{context}")
        for d, n in zip(dims, shape):
            if sizes.setdefault(d, n) != n:
                raise ValueError(f"inconsistent size for core dimension {d!r}: {n!r} vs "
                                 f"{sizes[d]!r} {context}")
