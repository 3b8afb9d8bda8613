"""The user-facing differentiation API: ``jvp``, ``linearize``, ``vjp``, ``grad``,
``value_and_grad``, ``jacfwd``, ``jacrev``, ``hessian``, ``linear_transpose``.

This module matches pytrees, argnums and JAX's error messages; the machinery (the JVP trace,
linearize by partial evaluation, the backward pass) lives in ``minijax.interpreters.ad``.
Everything here runs under whatever trace is current, so ``jit(grad(f))`` stages one jaxpr
and ``grad(grad(f))`` / ``jvp(grad(f))`` nest.
"""

from __future__ import annotations


import numpy as np

from minijax import core, dtypes, lax
from minijax.core import Literal, Tracer, WeakScalar, abstract_token, get_aval
from minijax.custom_derivatives import run_forward
from minijax.interpreters import ad
from minijax.interpreters.ad import Zero
from minijax.interpreters.partial_eval import (
    DynamicJaxprTrace,
    DynamicJaxprTracer,
    staged_literal,
)
from minijax.lax.convert import _convert_element_type
from minijax.lax.parallel import pvary_p
from minijax.lowering.array import Array, device_put_value
from minijax.source_info import with_user_line, wraps
from minijax.tree_util import Partial, _registry
from minijax.vmapping import vmap

__all__ = [
    "grad", "hessian", "jacfwd", "jacobian", "jacrev", "jvp", "linear_transpose", "linearize",
    "value_and_grad", "vjp",
]


# ------------------------------------------------------------------------------------------------
# Helpers: flattening, argnums, dtype checks


def _check_callable(fun, name):
    if not callable(fun):
        raise TypeError(f"{name} expects a callable as its first argument, got {fun!r}")


def _aval_of(x, what):
    try:
        return get_aval(x)
    except TypeError:
        raise TypeError(with_user_line(
            f"{what}: {x!r} of type {type(x).__name__} is not a valid minijax type; expected "
            "arrays, scalars, or pytrees of them."
        )) from None


def _flat_fun(fun, in_tree, out_trees, has_aux=False):
    """``fun`` on flat leaves; its output (and aux) tree is appended to ``out_trees``."""

    def flat(*leaves):
        out = fun(*in_tree.unflatten(leaves))
        if has_aux:
            if not (isinstance(out, (tuple, list)) and len(out) == 2):
                raise TypeError(with_user_line(
                    "has_aux=True requires the function to return a pair (output, auxiliary "
                    f"data), got {type(out).__name__}."
                ))
            out, aux = out
            out_leaves, out_tree = _registry.flatten(out)
            aux_leaves, aux_tree = _registry.flatten(aux)
            out_trees.append((out_tree, aux_tree))
            return out_leaves, aux_leaves
        out_leaves, out_tree = _registry.flatten(out)
        out_trees.append(out_tree)
        return out_leaves

    return flat


def _normalize_argnums(argnums):
    if isinstance(argnums, (int, np.integer)) and not isinstance(argnums, bool):
        return int(argnums)
    if isinstance(argnums, (tuple, list)) and all(
            isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in argnums):
        return tuple(int(i) for i in argnums)
    raise TypeError(f"argnums must be an int or a tuple of ints, got {argnums!r}")


def _dyn_args(argnums, args):
    """The differentiated arguments (a tuple for tuple argnums) and a function of them."""
    nums = (argnums,) if isinstance(argnums, int) else argnums
    n = len(args)
    if any(not -n <= i < n for i in nums):
        raise TypeError(with_user_line(
            f"differentiating with respect to argnums={argnums} requires at least "
            f"{max(i if i >= 0 else -i - 1 for i in nums) + 1} positional arguments to be "
            f"passed by the caller, but got only {n} positional arguments."
        ))
    nums = tuple(i % n for i in nums)
    if len(set(nums)) != len(nums):
        raise ValueError(f"argnums must not repeat an argument, got {argnums}")
    dyn = args[nums[0]] if isinstance(argnums, int) else tuple(args[i] for i in nums)
    return nums, dyn


def _partial(fun, nums, args, kwargs, single):
    def f(dyn):
        full = list(args)
        for i, x in zip(nums, (dyn,) if single else dyn):
            full[i] = x
        return fun(*full, **kwargs)

    return f


def _check_input_dtype(name, holomorphic, allow_int, x):
    aval = _aval_of(x, name)
    if aval is abstract_token:  # JAX checks array inputs only
        return
    dtype = aval.dtype
    if holomorphic:
        if not dtypes.is_complex(dtype):
            raise TypeError(with_user_line(
                f"{name} with holomorphic=True requires inputs with complex dtype, but got "
                f"{dtype.name}."
            ))
    elif not dtypes.is_inexact(dtype) and not allow_int:
        raise TypeError(with_user_line(
            f"{name} requires real- or complex-valued inputs (input dtype that is a sub-dtype "
            f"of np.inexact), but got {dtype.name}. If you want to use Boolean- or "
            "integer-valued inputs, use vjp or set allow_int to True."
        ))


def _instantiate(ts):
    return [_tangent_array(ad.instantiate_zeros(t)) for t in ts]


def _tangent_array(x):
    """A tangent or cotangent minijax made (materialized zeros are a WeakScalar or NumPy
    value) as an Array, under an enclosing transformation too: JAX returns Arrays there. A
    Python scalar is one the caller gave, passed through untouched: JAX returns it so. Scalar
    zeros on their way into a jaxpr are a literal there (``0.0:f32[]``), as JAX's."""
    if type(x) in dtypes.python_scalar_types:
        return x
    if isinstance(x, core.WeakScalar) or (
            isinstance(x, np.ndarray) and x.dtype != dtypes.float0):
        if not np.shape(x):
            value, aval = (x.val, x.aval) if isinstance(x, core.WeakScalar) else (x, get_aval(x))
            # the literal holds a TypedNdArray, as JAX's zeros (lax.full) do: a checkpoint
            # returning it eagerly gives that back, not a Python scalar's TypedFloat
            literal = staged_literal(
                dtypes.TypedNdArray(np.asarray(value, aval.dtype), aval), aval)
            if literal is not None:
                return literal
        return device_put_value(x)
    return _as_array(x)


def _as_array(x):
    """Results leave as Arrays, like every other minijax result: a value that passed through
    untouched (an input returned as is, a Python scalar, materialized zeros) is put on the
    device when no transformation is running. float0 values stay NumPy arrays, as in JAX."""
    if not core.is_eval_trace_current() or isinstance(x, (Tracer, Array, core.Token)):
        return x
    if isinstance(x, np.ndarray) and x.dtype == dtypes.float0:
        return x
    return device_put_value(x)


def _as_arrays(xs):
    return [_as_array(x) for x in xs]


def _primals_out(xs):
    """A function's outputs as jvp/linearize/vjp/value_and_grad return them: a Python scalar
    or NumPy value the function returned untouched comes back as it is, as in JAX."""
    return [x if type(x) in dtypes.python_scalar_types or isinstance(x, (np.generic, np.ndarray))
            else _as_array(x) for x in xs]


# ------------------------------------------------------------------------------------------------
# Forward mode


def _tangent_in(p, t):
    """The tangent of primal ``p`` as given, checked; float0 (or a non-inexact primal) is Zero."""
    p_aval = _aval_of(p, "jvp primal")
    t_aval = _aval_of(t, "jvp tangent")
    if p_aval is abstract_token:  # as JAX, no check of a token's tangent (only arrays')
        return t
    if t_aval is abstract_token:  # JAX's error, reading the dtype of the token tangent
        raise TypeError(f"Cannot determine dtype of {t!r}")
    # JAX 0.10.2's words, missing spaces and NumPy's repr of float0 included; dtypes first
    expected = ad.tangent_aval(p_aval).dtype
    if t_aval.dtype != expected:
        raise TypeError(with_user_line(
            "primal and tangent arguments to jax.jvp do not match; dtypes must be equal, or in "
            "case of int/bool primal dtype the tangent dtype must be float0.Got primal dtype "
            f"{p_aval.dtype} and so expected tangent dtype {expected}, but got tangent dtype "
            f"{t_aval.dtype} instead."
        ))
    if p_aval.shape != t_aval.shape:
        raise ValueError(with_user_line(
            "jvp called with different primal and tangent shapes;Got primal shape "
            f"{p_aval.shape} and tangent shape as {t_aval.shape}"
        ))
    return Zero(t_aval) if expected == dtypes.float0 else t


def _linearized_tangent_in(p, t):
    """A tangent given to linearize's ``f_jvp``, checked against its primal as JAX does (a
    ValueError, where jvp's own check raises TypeError for a dtype)."""
    p_aval = _aval_of(p, "linearize primal")
    t_aval = _aval_of(t, "linearized function tangent")
    expected = _ct_aval(p_aval)
    if (t_aval.shape, t_aval.dtype, t_aval.vma) != (expected.shape, expected.dtype,
                                                     expected.vma):
        # Inside shard_map the varying axes must match too; JAX then names the pcast to apply.
        fixes = [f"applying `minijax.lax.pcast(..., {tuple(sorted(axes))}, to='varying')` to "
                 f"the {what}" for axes, what in (
                     (t_aval.vma - p_aval.vma, "primal value passed to `minijax.linearize`"),
                     (p_aval.vma - t_aval.vma, "tangent value passed to the callable `f_jvp` "
                      "returned by `minijax.linearize`")) if axes]
        extra = " \nThis might be fixed by:\n" + "\n".join(f"  * {d};" for d in fixes) \
            if fixes else ""
        raise ValueError(with_user_line(
            "linearized function called on tangent values inconsistent with the original "
            f"primal values:\nGot tangent aval {_long(t_aval, weak=True)} for primal aval "
            f"{_long(p_aval, weak=True)} but expected {_long(expected, weak=True)}.{extra}"
        ))
    return _tangent_in(p, t)


def jvp(fun, primals, tangents, has_aux=False):
    """``(fun(*primals), J(fun)(primals) @ tangents)``; with ``has_aux`` also the aux data."""
    _check_callable(fun, "jvp")
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("primal and tangent arguments to jax.jvp must be tuples or lists; "
                        f"found {type(primals).__name__} and {type(tangents).__name__}.")
    p_leaves, p_tree = _registry.flatten(tuple(primals))
    t_leaves, t_tree = _registry.flatten(tuple(tangents))
    if p_tree != t_tree:
        raise TypeError(with_user_line(
            "primal and tangent arguments to jax.jvp must have the same tree structure; "
            f"primals have tree structure {p_tree} whereas tangents have tree structure "
            f"{t_tree}."
        ))
    ts = [_tangent_in(p, t) for p, t in zip(p_leaves, t_leaves)]
    trees = []
    flat = _flat_fun(lambda *a: fun(*a), p_tree, trees, has_aux)
    n_out = []

    def joined(*leaves):
        out = flat(*leaves)
        if has_aux:
            n_out.append(len(out[0]))
            return out[0] + out[1]
        n_out.append(len(out))
        return out

    ps_out, ts_out = ad.jvp_flat(joined, p_leaves, ts)
    n = n_out[0]
    out_tree = trees[0][0] if has_aux else trees[0]
    primal_out = out_tree.unflatten(_primals_out(ps_out[:n]))
    tangent_out = out_tree.unflatten(_instantiate(ts_out[:n]))
    if has_aux:
        return primal_out, tangent_out, trees[0][1].unflatten(_as_arrays(ps_out[n:]))
    return primal_out, tangent_out


def linearize(fun, *primals, has_aux=False):
    """``(fun(*primals), f_jvp)`` where ``f_jvp(*tangents)`` evaluates the JVP at ``primals``
    from a staged linear jaxpr (the primal computation is not repeated)."""
    _check_callable(fun, "linearize")
    p_leaves, p_tree = _registry.flatten(primals)
    for p in p_leaves:
        _aval_of(p, "linearize primal")
    trees = []
    lin = ad.linearize_flat(_flat_fun(fun, p_tree, trees, has_aux), p_leaves, has_aux)
    lin.jaxpr = run_forward(lin.jaxpr)
    out_tree = trees[0][0] if has_aux else trees[0]

    def f_jvp(*tangents):
        t_leaves, t_tree = _registry.flatten(tangents)
        if t_tree != p_tree:
            raise TypeError(with_user_line(
                f"linearized function called with tangent structure {t_tree}, but the primals "
                f"had structure {p_tree}."
            ))
        ts = [_linearized_tangent_in(p, t) for p, t in zip(p_leaves, t_leaves)]
        return out_tree.unflatten(_instantiate(lin.jvp(ts)))

    out = out_tree.unflatten(_primals_out(lin.primals_out))
    if has_aux:
        return out, f_jvp, trees[0][1].unflatten(lin.aux)
    return out, f_jvp


# ------------------------------------------------------------------------------------------------
# Reverse mode


def _long(aval, weak=False):
    """JAX's spelling of a type in its AD API errors: float32[2,3]{V:d}, float0[3],
    float32<host>[] in host memory, and with ``weak`` a leading ~ for a weak type."""
    name = "float0" if aval.dtype == dtypes.float0 else aval.dtype.name
    vma = "{V:" + ",".join(sorted(map(str, aval.vma))) + "}" if aval.vma else ""
    return (f"{'~' if weak and aval.weak_type else ''}{name}{aval._space_str()}"
            f"[{aval._dims_str()}]{vma}")


def _ct_aval(aval):
    """The type of a tangent or cotangent of a value of type ``aval``, varying axes kept."""
    return ad.tangent_aval(aval).update(vma=aval.vma)


def _ct_in(ct, aval, t_aval=None):
    """An output cotangent, checked against the primal output's cotangent type as JAX does: the
    shape, the dtype (a Python scalar has its own: 1 is int32, 1.0 float32), the varying axes,
    the memory space and the split over Explicit mesh axes must match, weak types aside (so grad's device-memory seed meets a
    result in host memory with JAX's error); an integer output (float0) takes any dtype of its
    shape and ignores the value, unless its linearized tangent ``t_aval`` is an integer one
    (a dot's with an integer preferred_element_type): then a cotangent of that type is
    transposed, as in JAX."""
    expected = _ct_aval(aval)
    ct_aval = _aval_of(ct, "vjp cotangent")
    if expected.dtype == dtypes.float0 and ct_aval.shape == expected.shape:
        if t_aval is not None and t_aval.dtype != dtypes.float0 and (
                ct_aval.dtype in (t_aval.dtype, dtypes.float0)):
            return ct  # a float0 one too: JAX transposes it (a dot's raises AssertionError)
        return Zero(expected)
    if ((ct_aval.shape, ct_aval.dtype, ct_aval.vma, ct_aval.memory_space, ct_aval.explicit)
            != (expected.shape, expected.dtype, expected.vma, expected.memory_space,
                expected.explicit)):
        raise ValueError(with_user_line(
            "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got "
            f"{_long(ct_aval)}, but expected {_long(expected)} because the corresponding output "
            f"of the differentiated function had JAX type {_long(aval)}"
        ))
    if type(ct) in dtypes.python_scalar_types and type(ct) is not bool:
        ct = np.asarray(ct, aval.dtype)
        if core.is_eval_trace_current():  # a Python scalar is weakly typed, as in JAX
            ct = device_put_value(ct, weak_type=True)
    return ct


class _VJPFun:
    """The static part of a vjp function: the linear jaxpr without its residuals, and the
    trees. ``vjp`` returns it as a ``Partial`` over the residuals, as JAX does: a pytree whose
    leaves are arrays, so it can be returned from ``jit`` or be a custom_vjp residual (flax's
    lifted custom_vjp keeps the vjp function of its forward pass so)."""

    __name__ = "f_vjp"

    def __init__(self, lin, in_tree, out_tree):
        self.lin, self.in_tree, self.out_tree = lin, in_tree, out_tree
        self.out_avals = [get_aval(p) for p in lin.primals_out]

    def __call__(self, residuals, *cts):
        if len(cts) != 1:
            raise TypeError(f"the vjp function takes one cotangent (a pytree), got {len(cts)}")
        ct_leaves, ct_tree = _registry.flatten(cts[0])
        if ct_tree != self.out_tree:
            raise ValueError(with_user_line(
                f"Tree structure of cotangent input {ct_tree}, does not match structure of "
                f"primal output {self.out_tree}."
            ))
        lin = self.lin
        lin = ad.Linearized(lin.primals_out, lin.aux, lin.in_nonzero, lin.out_nonzero,
                            core.ClosedJaxpr(lin.jaxpr.jaxpr, residuals), lin.in_avals,
                            lin.out_avals)
        in_cts = lin.vjp([_ct_in(c, a, t)
                          for c, a, t in zip(ct_leaves, self.out_avals, lin.out_avals)])
        return self.in_tree.unflatten(_instantiate(in_cts))


def _pullback(lin, in_tree, out_tree):
    return Partial(_VJPFun(lin, in_tree, out_tree), list(lin.jaxpr.consts))


def vjp(fun, *primals, has_aux=False):
    """``(fun(*primals), f_vjp)``: ``f_vjp(ct)`` is the tuple of cotangents of ``primals``."""
    _check_callable(fun, "vjp")
    p_leaves, p_tree = _registry.flatten(primals)
    for p in p_leaves:
        _aval_of(p, "vjp primal")
    # JAX's vjp canonicalizes its primals: a Python scalar returned untouched comes back typed
    p_leaves = [dtypes.canonical_scalar(p) for p in p_leaves]
    trees = []
    lin = ad.linearize_flat(_flat_fun(fun, p_tree, trees, has_aux), p_leaves, has_aux)
    out_tree = trees[0][0] if has_aux else trees[0]
    out = out_tree.unflatten(_primals_out(lin.primals_out))
    f_vjp = _pullback(lin, p_tree, out_tree)
    if has_aux:
        return out, f_vjp, trees[0][1].unflatten(lin.aux)
    return out, f_vjp


def value_and_grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False,
                   reduce_axes=()):
    """``(fun(*args), gradient of fun at args w.r.t. argnums)``; ``fun`` returns a scalar."""
    return _value_and_grad(fun, argnums, has_aux, holomorphic, allow_int, "value_and_grad")


def _value_and_grad(fun, argnums, has_aux, holomorphic, allow_int, name):
    _check_callable(fun, name)
    argnums = _normalize_argnums(argnums)

    @wraps(fun)
    def value_and_grad_f(*args, **kwargs):
        nums, dyn = _dyn_args(argnums, args)
        leaves, tree = _registry.flatten(dyn)
        for x in leaves:
            _check_input_dtype(name, holomorphic, allow_int, x)
        leaves = [dtypes.canonical_scalar(x) for x in leaves]  # as vjp's, which JAX's runs
        f = _partial(fun, nums, args, kwargs, isinstance(argnums, int))
        trees = []
        lin = ad.linearize_flat(_flat_fun(f, _registry.flatten((dyn,))[1], trees, has_aux),
                                leaves, has_aux)
        out_tree = trees[0][0] if has_aux else trees[0]
        ans = out_tree.unflatten(_primals_out(lin.primals_out))
        _check_scalar_output(out_tree, ans, holomorphic)
        out = lin.primals_out[0]
        aval = get_aval(out)
        one = _weak_one(out, aval.dtype) if aval.weak_type else np.ones((), aval.dtype)
        if aval.vma:  # inside shard_map the seed has the output's type, as JAX's
            one = lax.pcast(one, tuple(sorted(aval.vma, key=str)), to="varying")
        # the seed is checked as vjp's cotangents are: an output in host memory refuses it
        grads = tree.unflatten(_instantiate(lin.vjp([_ct_in(one, aval)])))
        if has_aux:
            return (ans, trees[0][1].unflatten(lin.aux)), grads
        return ans, grads

    return value_and_grad_f


def _weak_one(out, dtype):
    """grad's seed for a weakly typed output ``out``, as JAX's `full_like(ans, 1)`: for a
    traced ``out``, a weak constant of the nearest staging trace (its jaxpr writes it as a
    literal; the traces between, jvp, vmap, partial evaluation, see it as a constant, as JAX's
    bind of a constant falls through them), else a weak Array. The gradient at a Python float
    is then weakly typed."""
    trace = core.current_trace() if isinstance(out, Tracer) else core.eval_trace
    while type(trace) is not DynamicJaxprTrace and trace.parent is not None:
        trace = trace.parent
    one = WeakScalar(1, dtype)
    if type(trace) is DynamicJaxprTrace:
        return DynamicJaxprTracer(trace, one.aval, Literal(one.val, one.aval))
    return device_put_value(one.val, weak_type=True)


def _check_scalar_output(out_tree, ans, holomorphic):
    if out_tree.num_leaves != 1 or out_tree.num_nodes != 1:
        raise TypeError(with_user_line(
            f"Gradient only defined for scalar-output functions. Output was {ans}. For "
            "non-scalar or pytree outputs use minijax.vjp (one cotangent per output) or "
            "minijax.jacrev (the full Jacobian)."
        ))
    aval = get_aval(ans)
    if aval.shape:
        raise TypeError(with_user_line(
            f"Gradient only defined for scalar-output functions. Output had shape: "
            f"{aval.shape}. Use minijax.vjp with a cotangent of that shape, or minijax.jacrev "
            "for the full Jacobian."
        ))
    _check_output_dtype("grad", holomorphic, ans)


def _check_output_dtype(name, holomorphic, y):
    """JAX's check on the outputs of grad and jacrev: real floating (complex if holomorphic)."""
    dtype = get_aval(y).dtype
    if holomorphic:
        if not dtypes.is_complex(dtype):
            raise TypeError(with_user_line(
                f"{name} with holomorphic=True requires outputs with complex dtype, but got "
                f"{dtype.name}."
            ))
    elif dtypes.is_complex(dtype):
        raise TypeError(with_user_line(
            f"{name} requires real-valued outputs (output dtype that is a sub-dtype of "
            f"np.floating), but got {dtype.name}. For holomorphic differentiation, pass "
            "holomorphic=True. For differentiation of non-holomorphic functions involving "
            "complex outputs, use minijax.vjp directly."
        ))
    elif not dtypes.is_float(dtype):
        raise TypeError(with_user_line(
            f"{name} requires real-valued outputs (output dtype that is a sub-dtype of "
            f"np.floating), but got {dtype.name}. For differentiation of functions with "
            "integer outputs, use minijax.vjp directly."
        ))


def grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False, reduce_axes=()):
    """The gradient of scalar-valued ``fun`` w.r.t. the argument(s) ``argnums``.

    Integer arguments need ``allow_int=True`` and get float0 gradients, as in JAX.
    """
    vg = _value_and_grad(fun, argnums, has_aux, holomorphic, allow_int, "grad")

    @wraps(fun)
    def grad_f(*args, **kwargs):
        value, g = vg(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return grad_f


# ------------------------------------------------------------------------------------------------
# Jacobians: one vmapped JVP (forward) or VJP (reverse) over a standard basis


def _std_basis(leaves):
    """Rows of the identity over all leaves: leaf i gets an array (N, *leaf.shape)."""
    avals = [get_aval(x) for x in leaves]
    sizes = [a.size for a in avals]
    n = sum(sizes)
    # built from iotas, as JAX's jnp.eye: under jit XLA sees an identity (and folds e.g. the
    # 0 * inf of an off-diagonal entry to 0, as it does for JAX), not an opaque constant.
    # Converted to the leaves' common dtype before the reshape, as JAX's: XLA folds a multiply
    # by convert(reshape(eq)) but not by reshape(convert(eq)), so NaN/0 entries follow JAX's
    eye = lax.convert_element_type(lax.eq(lax.broadcasted_iota(np.int32, (n, n), 0),
                                          lax.broadcasted_iota(np.int32, (n, n), 1)),
                                   dtypes.result_type(*leaves))
    out = []
    # split as JAX's _unravel_array_into_pytree (its transpose concatenates: a weak cotangent
    # stays weak, where a slice's pads with a strong zero)
    for a, piece in zip(avals, lax.split(eye, sizes, axis=1)):
        # of its leaf's dtype and weak type, as JAX's _possible_downcast
        piece = _convert_element_type(lax.reshape(piece, (n, *a.shape)), a.dtype, a.weak_type)
        if a.vma:  # inside shard_map the basis varies as its leaf does (JAX's _insert_pvary)
            piece = pvary_p.bind(piece, axes=tuple(sorted(a.vma, key=str)))
        out.append(piece)
    return out


def _split_last(x, in_avals, out_shape):
    """A Jacobian block ``x`` of shape (*out_shape, N) split per input leaf."""
    if get_aval(x).dtype == dtypes.float0:  # nothing to slice: float0 blocks, as JAX's
        return [np.zeros((*out_shape, *a.shape), dtypes.float0) for a in in_avals]
    pieces = lax.split(x, [a.size for a in in_avals], axis=len(out_shape))  # as JAX's
    return [lax.reshape(p, (*out_shape, *a.shape)) for p, a in zip(pieces, in_avals)]


def _check_jacfwd_input_dtype(holomorphic, x):
    """JAX's check on jacfwd's inputs: real floating (complex if holomorphic); no allow_int."""
    dtype = _aval_of(x, "jacfwd").dtype
    if holomorphic:
        _check_input_dtype("jacfwd", True, False, x)
    elif not dtypes.is_float(dtype):
        raise TypeError(with_user_line(
            "jacfwd requires real-valued inputs (input dtype that is a sub-dtype of "
            f"np.floating), but got {dtype.name}. For holomorphic differentiation, pass "
            "holomorphic=True. For differentiation of non-holomorphic functions involving "
            "complex inputs or integer inputs, use minijax.jvp directly."
        ))


def _jac_checks(name, fun, argnums):
    _check_callable(fun, name)
    return _normalize_argnums(argnums)


def jacfwd(fun, argnums=0, has_aux=False, holomorphic=False):
    """The Jacobian of ``fun`` by forward mode: one vmapped JVP over the input basis."""
    argnums = _jac_checks("jacfwd", fun, argnums)

    @wraps(fun)
    def jacfun(*args, **kwargs):
        nums, dyn = _dyn_args(argnums, args)
        leaves, in_tree = _registry.flatten(dyn)
        for x in leaves:
            _check_jacfwd_input_dtype(holomorphic, x)
        f = _partial(fun, nums, args, kwargs, isinstance(argnums, int))

        def push(*basis):
            return jvp(f, (dyn,), (in_tree.unflatten(basis),), has_aux=has_aux)

        out_axes = (None, -1, None) if has_aux else (None, -1)
        res = vmap(push, out_axes=out_axes)(*_std_basis(leaves))
        y, jac = res[0], res[1]
        in_avals = [get_aval(x) for x in leaves]
        y_leaves, y_tree = _registry.flatten(y)
        if holomorphic:
            for yl in y_leaves:
                _check_output_dtype("jacfwd", True, yl)
        jac_leaves = _registry.flatten(jac)[0]
        blocks = [in_tree.unflatten([_as_output(b, get_aval(yl)) for b in
                                     _split_last(j, in_avals, get_aval(yl).shape)])
                  for yl, j in zip(y_leaves, jac_leaves)]
        out = y_tree.unflatten(blocks)
        return (out, res[2]) if has_aux else out

    return jacfun


def _as_output(block, y_aval):
    """A Jacobian block of the output ``y_aval``, cast to its dtype and weak type (JAX's
    _possible_downcast). An integer or bool output's block is its float0 tangent cast: zeros,
    except that the cast of float0 to bool fails where it is lowered or run (JAX's TypeError
    from NumPy's ``np.array(0, float0)``), so under jit a dead bool block computes, as in JAX."""
    if get_aval(block).dtype == dtypes.float0 != y_aval.dtype:
        return _convert_element_type(block, y_aval.dtype, y_aval.weak_type)
    return _with_weak_type(block, y_aval.weak_type)


def jacrev(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False):
    """The Jacobian of ``fun`` by reverse mode: one VJP, vmapped over the output basis."""
    argnums = _jac_checks("jacrev", fun, argnums)

    @wraps(fun)
    def jacfun(*args, **kwargs):
        nums, dyn = _dyn_args(argnums, args)
        leaves, in_tree = _registry.flatten(dyn)
        for x in leaves:
            _check_input_dtype("jacrev", holomorphic, allow_int, x)
        f = _partial(fun, nums, args, kwargs, isinstance(argnums, int))
        if has_aux:
            y, pullback, aux = vjp(f, dyn, has_aux=True)
        else:
            y, pullback = vjp(f, dyn)
        y_leaves, y_tree = _registry.flatten(y)
        for yl in y_leaves:
            _check_output_dtype("jacrev", holomorphic, yl)
        y_avals = [get_aval(x) for x in y_leaves]

        def row(*basis):
            return _registry.flatten(pullback(y_tree.unflatten(basis))[0])[0]

        rows = vmap(row)(*_std_basis(y_leaves))
        sizes = [ya.size for ya in y_avals]
        parts = [_split_rows(r, sizes) for r in rows]  # as JAX's _unravel_array_into_pytree
        blocks = []
        for i, ya in enumerate(y_avals):
            per_input = [_input_block(p[i], (*ya.shape, *get_aval(x).shape), get_aval(x))
                         for p, x in zip(parts, leaves)]
            blocks.append(in_tree.unflatten(per_input))
        out = y_tree.unflatten(blocks)
        return (out, aux) if has_aux else out

    return jacfun


jacobian = jacrev


def _split_rows(rows, sizes):
    """JAX's _split: the rows of an integer input (float0 zeros, a host array) split on the
    host, others with lax.split."""
    if isinstance(rows, np.ndarray):
        return np.split(rows, np.cumsum(sizes[:-1]).tolist(), axis=0)
    return lax.split(rows, sizes, axis=0)


def _input_block(part, shape, x_aval):
    """A jacrev block in its input's dtype and weak type (JAX's _possible_downcast): an integer
    input's float0 block becomes its integer zeros."""
    if isinstance(part, np.ndarray):
        return _convert_element_type(np.reshape(part, shape), x_aval.dtype, x_aval.weak_type)
    return _with_weak_type(lax.reshape(part, shape), x_aval.weak_type)


def _with_weak_type(x, weak_type):
    aval = get_aval(x)
    if aval.weak_type == weak_type:
        return x
    return _convert_element_type(x, aval.dtype, weak_type)


def hessian(fun, argnums=0, has_aux=False, holomorphic=False):
    """The Hessian of scalar-valued ``fun``: ``jacfwd(jacrev(fun))``."""
    return jacfwd(jacrev(fun, argnums, has_aux=has_aux, holomorphic=holomorphic), argnums,
                  has_aux=has_aux, holomorphic=holomorphic)


# ------------------------------------------------------------------------------------------------
# linear_transpose


def linear_transpose(fun, *primals, reduce_axes=()):
    """The transpose of the linear function ``fun`` (whose inputs look like ``primals``:
    arrays, ShapeDtypeStructs or ShapedArrays). ``transpose_fun(out_ct)`` returns a tuple of cotangents."""
    _check_callable(fun, "linear_transpose")
    p_leaves, p_tree = _registry.flatten(primals)
    # An abstract value stands for itself, as in JAX (equinox transposes against ShapedArrays).
    in_avals = [p if isinstance(p, core.AbstractValue) else _aval_of(p, "linear_transpose primal")
                for p in p_leaves]
    for a in in_avals:
        if not dtypes.is_inexact(a.dtype):
            raise TypeError(f"linear_transpose only supports float and complex inputs, got "
                            f"{a.str_short(True)}")
    trees = []
    closed = ad.linearize_jaxpr_of(_flat_fun(fun, p_tree, trees), in_avals)
    out_tree = trees[0]
    out_avals = closed.out_avals

    def transpose_fun(out_ct):
        ct_leaves, ct_tree = _registry.flatten(out_ct)
        if ct_tree != out_tree:
            raise TypeError(with_user_line(
                f"cotangent tree does not match function output, expected {out_tree} but got "
                f"{ct_tree}"
            ))
        ct_avals = [_aval_of(c, "linear_transpose cotangent") for c in ct_leaves]
        if any((c.shape, c.dtype, c.vma) != (a.shape, a.dtype, a.vma)
               for c, a in zip(ct_avals, out_avals)):
            raise TypeError(with_user_line(
                "cotangent type does not match function output, expected "
                f"({''.join(f'ShapedArray({_long(a)}), ' for a in out_avals)[:-2]},) but got "
                f"{list(ct_leaves)}"
            ))
        cts = [np.asarray(c, a.dtype) if type(c) in (int, float, complex) else c
               for c, a in zip(ct_leaves, out_avals)]
        in_cts = ad.backward_pass(closed.jaxpr, closed.consts,
                                  [ad.UndefinedPrimal(a) for a in in_avals], cts)
        return p_tree.unflatten(_instantiate(in_cts))

    return transpose_fun
