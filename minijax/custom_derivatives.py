"""``custom_jvp`` and ``custom_vjp``: functions that bring their own derivative rules.

Each call binds one call-like primitive whose params hold the function's jaxpr (for staging,
lowering and batching) and the user's rules as flat Python callables:

- ``custom_jvp_call[call_jaxpr, jvp]``: its JVP rule calls the user's ``jvp`` (on the parent
  trace, so the rule is ordinary traced code that nests in higher-order differentiation).
- ``custom_vjp_call[call_jaxpr, fwd, bwd]``: its JVP rule runs ``fwd`` for the outputs and the
  residuals, and emits the tangents as ``custom_lin(residuals, tangents)``, a linear primitive
  whose *transpose* calls ``bwd``. Reverse mode (linearize + transpose) thus reaches ``bwd``;
  forward mode meets ``custom_lin`` with concrete tangents and raises, as in JAX.

Outside any transformation the function is simply called. Values the function closes over are
hoisted into leading operands (``num_consts``); differentiating with respect to one raises, as
the rules only describe the explicit arguments (JAX's rule; pass such values as arguments).
Under ``vmap`` the jaxpr and the rules are batched with every output mapped at axis 0; a
``bwd`` cotangent for an unbatched input is summed over the batch.

With ``symbolic_zeros=True`` the rules see which values take part in differentiation: a
``custom_jvp`` rule gets a ``SymbolicZero`` for each tangent that is symbolically zero and may
return one; a ``custom_vjp`` ``fwd`` gets each argument leaf as ``CustomVJPPrimal(value,
perturbed)`` and ``bwd`` gets a ``SymbolicZero`` for each output cotangent that is zero.
"""

from __future__ import annotations

import functools
import inspect

from minijax import core, dtypes, lax
from minijax.core import Primitive, Tracer, WeakScalar, get_aval
from minijax.interpreters import ad, lax_ops
from minijax.interpreters.ad import Zero
from minijax.interpreters.batching import (
    batch_flat,
    batch_open,
    bdim_to,
    moveaxis,
    needs_axis_data,
    not_mapped,
)
from minijax.interpreters.calls import eval_open, lower_open
from minijax.interpreters.partial_eval import in_linearization, trace_open, trace_to_jaxpr
from minijax.interpreters.walk import map_sub_jaxprs
from minijax.source_info import with_user_line
from minijax.tree_util import _registry, keystr, tree_flatten_with_path_internal, tree_map_internal
from minijax.vmapping import vmap
from minijax.lax import sharding_rules

__all__ = ["CustomVJPPrimal", "SymbolicZero", "closure_convert", "custom_jvp", "custom_vjp",
           "custom_vjp_primal_tree_values", "zero_from_primal"]


# ------------------------------------------------------------------------------------------------
# Shared: argument handling


def _resolve_kwargs(fun, args, kwargs):
    """Keyword arguments bound to their positions and omitted positional arguments filled
    with their defaults, as JAX: ``nondiff_argnums`` count positions of the full signature
    (``f(x, y, dn, precision=None)`` called as ``f(x, y, dn)`` still has argument 3)."""
    if isinstance(fun, functools.partial):
        fun = lambda *args, **kwargs: None  # noqa: E731 (JAX: a partial's signature is opaque)
    try:
        ba = inspect.signature(fun).bind(*args, **kwargs)
    except ValueError as e:  # no signature (a builtin): positions are as passed
        if kwargs:
            raise TypeError(f"custom derivative function called with keywords: {e}") from None
        return tuple(args)
    except TypeError as e:
        raise TypeError(f"custom derivative function called with bad arguments: {e}") from None
    ba.apply_defaults()
    passed = sorted(k for k in ba.kwargs if k in kwargs)
    if passed:
        raise TypeError("keyword-only arguments are not supported by custom_jvp / custom_vjp "
                        f"functions, got {passed}")
    return tuple(ba.args)


def _split_nondiff(nondiff_argnums, args):
    n = len(args)
    nums = sorted({i % n for i in nondiff_argnums}) if nondiff_argnums else []
    static = [args[i] for i in nums]
    dyn = tuple(x for i, x in enumerate(args) if i not in nums)
    return nums, static, dyn


def _merge(nums, static, dyn):
    out, it_s, it_d = [], iter(static), iter(dyn)
    for i in range(len(static) + len(dyn)):
        out.append(next(it_s) if i in nums else next(it_d))
    return out


def _canonical_leaves(dyn):
    """The differentiable arguments' leaves as JAX's ``bind`` canonicalizes them before the
    function (or its rules) sees them: a Python int/float/complex becomes its typed twin
    (``TypedFloat``...), so one the function returns as is comes back carrying its dtype, eagerly
    too. The non-differentiable arguments are static and stay as given."""
    leaves, in_tree = _registry.flatten(dyn)
    return [dtypes.canonical_scalar(x) for x in leaves], in_tree


def _name(f):
    return getattr(f, "__name__", repr(f))


def _closure_error(kind):
    return TypeError(with_user_line(
        f"Detected differentiation of a {kind} function with respect to a closed-over value. "
        f"That isn't supported because the custom rule only specifies how to differentiate the "
        f"{kind} function with respect to its explicit arguments. Pass the closed-over value "
        f"to the {kind} function as an argument instead (and adapt the rule)."
    ))


def _avals_str(avals):
    return "[" + ", ".join(a.str_short(True) for a in avals) + "]"


def _check_leaves(what, leaves):
    for x in leaves:
        try:
            get_aval(x)
        except TypeError:
            raise TypeError(with_user_line(
                f"{what} must be arrays, scalars, or pytrees of them, got {x!r} of type "
                f"{type(x).__name__}."
            )) from None


# ------------------------------------------------------------------------------------------------
# Symbolic zeros, as the rules see them


class SymbolicZero:
    """A tangent or cotangent known to be zero, of type ``aval``: what a rule defined with
    ``symbolic_zeros=True`` is given for an input that is not differentiated (and may return).
    Reads ``shape``, ``dtype`` ... through to its aval; it is not an array."""

    def __init__(self, aval):
        self.aval = aval

    def __repr__(self):
        return type(self).__name__

    def __getattr__(self, name):
        if name == "aval":  # not set yet (copy/pickle): no recursion
            raise AttributeError(name)
        try:
            return getattr(self.aval, name)
        except AttributeError:
            raise AttributeError(f"{type(self).__name__} has no attribute {name}") from None

    @staticmethod
    def from_primal_value(val):
        return SymbolicZero(ad.tangent_aval(get_aval(val)))


def zero_from_primal(val, symbolic_zeros=False):
    """Zero tangents for the pytree ``val``: SymbolicZeros, or arrays of zeros (float0 for
    integer leaves)."""
    def zero(x):
        aval = ad.tangent_aval(get_aval(x))
        return SymbolicZero(aval) if symbolic_zeros else ad.zeros_like_aval(aval)

    return tree_map_internal(zero, val)


class CustomVJPPrimal:
    """An argument leaf of a ``custom_vjp`` ``fwd`` rule under ``symbolic_zeros=True``: the
    primal ``value`` and whether it is ``perturbed`` (being differentiated)."""

    __slots__ = ("value", "perturbed")

    def __init__(self, value, perturbed):
        self.value = value
        self.perturbed = perturbed

    def __repr__(self):
        return f"CustomVJPPrimal(value={self.value!r}, perturbed={self.perturbed!r})"

    def __eq__(self, other):
        return (type(other) is CustomVJPPrimal and self.value is other.value
                and self.perturbed == other.perturbed)

    __hash__ = None


def custom_vjp_primal_tree_values(tree):
    """``tree`` with each ``CustomVJPPrimal`` leaf replaced by its value."""
    def value(leaf):
        if type(leaf) is not CustomVJPPrimal:
            raise TypeError(f"unexpected leaf type {type(leaf)}")
        return leaf.value

    return tree_map_internal(value, tree)


def _to_rule_zeros(ts, symbolic_zeros):
    """Internal tangents/cotangents as a rule sees them: Zeros become SymbolicZeros, or
    arrays of zeros without ``symbolic_zeros``."""
    if symbolic_zeros:
        return [SymbolicZero(t.aval) if type(t) is Zero else t for t in ts]
    return [_as_user_value(ad.instantiate_zeros(t)) for t in ts]


def _as_user_value(x):
    """A weak scalar zero as the array JAX's ``instantiate_zeros`` hands a rule (its
    ``broadcast_in_dim`` of a NumPy zero), not the internal literal: the rule may combine it
    with a Python-scalar primal (``dy * x``)."""
    return lax_ops.broadcast_in_dim(x, (), ()) if type(x) is WeakScalar else x


def _per_example_zero(t, axis):
    """A zero tangent of a batched value as one example sees it (``axis``: its batch axis)."""
    if axis is None:
        return t
    shape = t.aval.shape
    return Zero(t.aval.update(shape=shape[:axis] + shape[axis + 1:]))


def _vmap_with_zeros(fn, in_axes, args, axis_data):
    """``vmap(fn, in_axes, out_axes=0)(*args)`` over the axis of ``axis_data`` (its name, so
    collectives in ``fn`` resolve) where ``args`` may hold ``Zero``s: they are not arrays, so
    each example gets its own Zero instead of a slice."""
    zero = [type(a) is Zero for a in args]
    per_example = [_per_example_zero(a, ax) if z else None
                   for a, ax, z in zip(args, in_axes, zero)]

    def one(*nonzero):
        it = iter(nonzero)
        return fn(*[p if z else next(it) for p, z in zip(per_example, zero)])

    axes = tuple(ax for ax, z in zip(in_axes, zero) if not z)
    return vmap(one, in_axes=axes, out_axes=0, axis_name=axis_data.name,
                axis_size=axis_data.size)(*[a for a, z in zip(args, zero) if not z])


# ------------------------------------------------------------------------------------------------
# custom_jvp


class custom_jvp:
    """A function with a custom JVP rule: ``f = custom_jvp(f); f.defjvp(f_jvp)`` where
    ``f_jvp(primals, tangents) -> (primal_out, tangent_out)``.

    ``nondiff_argnums`` name arguments that are not differentiated (functions, static
    configuration); the rule then takes them first: ``f_jvp(*nondiff, primals, tangents)``.
    """

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp = None
        self.symbolic_zeros = False

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def defjvp(self, jvp, symbolic_zeros=False):
        """``jvp(primals, tangents) -> (primal_out, tangent_out)``; with ``symbolic_zeros``
        the tangents of inputs not being differentiated are ``SymbolicZero``s (and the rule
        may return SymbolicZeros) instead of arrays of zeros."""
        self.jvp = jvp
        self.symbolic_zeros = symbolic_zeros
        return jvp

    def defjvps(self, *jvps):
        """One rule per argument, ``jvps[i](g_i, primal_out, *primals)`` (None: no dependence);
        the output tangent is the sum of their contributions."""
        if self.nondiff_argnums:
            raise TypeError("Can't use ``defjvps`` with ``nondiff_argnums``.")

        def jvp(primals, tangents):
            primal_out = self(*primals)
            parts = [rule(t, primal_out, *primals) for rule, t in zip(jvps, tangents)
                     if rule is not None]
            if not parts:
                return primal_out, tree_map_internal(lambda p: ad.zeros_like_aval(
                    ad.tangent_aval(get_aval(p))), primal_out)
            return primal_out, tree_map_internal(
                lambda *ts: functools.reduce(lambda a, b: a + b, ts), *parts)

        self.defjvp(jvp)

    def __call__(self, *args, **kwargs):
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {_name(self.fun)} "
                                 "using defjvp.")
        args = _resolve_kwargs(self.fun, args, kwargs)
        nums, static, dyn = _split_nondiff(self.nondiff_argnums, args)
        leaves, in_tree = _canonical_leaves(dyn)
        if core.is_eval_trace_current():  # nothing to differentiate, batch or stage
            return self.fun(*_merge(nums, static, in_tree.unflatten(leaves)))
        _check_leaves(f"arguments of custom_jvp function {_name(self.fun)}", leaves)
        # traced non-differentiated arguments enter through stop_gradient, as JAX's
        static = [tree_map_internal(lambda x: lax.stop_gradient_p.bind(x)
                                    if isinstance(x, Tracer) else x, s) for s in static]
        out_trees = []

        def flat_fun(*xs):
            out = self.fun(*_merge(nums, static, in_tree.unflatten(xs)))
            out_leaves, out_tree = _registry.flatten(out)
            out_trees.append(out_tree)
            return out_leaves

        jaxpr, consts = trace_open(flat_fun, [get_aval(x) for x in leaves])
        jvp = _flat_jvp(self.jvp, _name(self.fun), nums, static, in_tree, out_trees[0],
                        jaxpr.out_avals, self.symbolic_zeros)
        outs = custom_jvp_call_p.bind(*consts, *leaves, call_jaxpr=jaxpr, jvp=jvp,
                                      num_consts=len(consts), symbolic_zeros=self.symbolic_zeros)
        return out_trees[0].unflatten(outs)


def _jvp_out_types_error(bad, n_out):
    """JAX's message for a rule's tangent outputs not of their primals' tangent types."""
    msg = "Custom JVP rule must produce primal and tangent outputs with corresponding shapes and dtypes"
    if n_out == 1:
        (p, expected, t), = bad
        return f"{msg}. Expected {expected} (tangent type of {p}) but got {t}."
    return f"{msg}, but got:\n" + "\n".join(
        f"  primal {p} with tangent {t}, expecting tangent {expected}" for p, expected, t in bad)


def _flat_jvp(rule, name, nums, static, in_tree, out_tree, out_avals, symbolic_zeros):
    """The user's rule on flat lists, its output checked against the function's. Tangents in
    and out may be ``Zero``s; the rule sees them as ``symbolic_zeros`` says."""

    traced = [(i, x) for i, s in zip(nums, static) for x in _registry.flatten(s)[0]
              if isinstance(x, Tracer)]

    def jvp(primals, tangents):
        for i, x in traced:
            if not x._trace.valid:
                raise _dead_nondiff_error(name, i, x)
        tangents = _to_rule_zeros(tangents, symbolic_zeros)
        p_args = in_tree.unflatten(primals)
        t_args = in_tree.unflatten(tangents)
        out = rule(*static, p_args, t_args) if nums else rule(p_args, t_args)
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise TypeError(with_user_line(
                f"Custom JVP rule {_name(rule)} for function {name} must produce a pair (list "
                f"or tuple of length two) representing primal and tangent outputs, but got "
                f"{out!r}."
            ))
        p_leaves, p_tree = _registry.flatten(out[0])
        t_leaves, t_tree = _registry.flatten(out[1])
        if p_tree != out_tree:
            raise TypeError(with_user_line(
                f"Custom JVP rule {_name(rule)} for function {name} must produce primal outputs "
                f"with the same container (pytree) structure as the function's output: "
                f"expected {out_tree}, got {p_tree}."
            ))
        if t_tree != p_tree:
            raise TypeError(with_user_line(
                f"Custom JVP rule {_name(rule)} for function {name} must produce primal and "
                f"tangent outputs with equal container (pytree) structures, but got {p_tree} "
                f"and {t_tree} respectively."
            ))
        tangents_out, bad = [], []
        for i, (p, t, want) in enumerate(zip(p_leaves, t_leaves, out_avals)):
            p_aval = get_aval(p)
            if p_aval.shape != want.shape or p_aval.dtype != want.dtype:
                raise TypeError(with_user_line(
                    f"Custom JVP rule {_name(rule)} for function {name} produced primal output "
                    f"{i} of type {p_aval.str_short(True)}, but the function itself gives "
                    f"{want.str_short(True)}."
                ))
            expected = ad.tangent_aval(p_aval)
            t_aval = t.aval if type(t) is SymbolicZero else get_aval(t)
            if t_aval.shape != expected.shape or t_aval.dtype != expected.dtype:
                # an integer output's too (not float0); named without weak types, as JAX's
                bad.append(tuple(a.strip_weak_type() for a in (p_aval, expected, t_aval)))
            zero = type(t) is SymbolicZero or expected.dtype == dtypes.float0
            tangents_out.append(Zero(expected) if zero else t)
        if bad:
            raise TypeError(with_user_line(_jvp_out_types_error(bad, len(p_leaves))))
        return p_leaves, tangents_out

    _name_rule(jvp, _name(rule), name)
    return jvp


def _dead_nondiff_error(name, argnum, x):
    """A traced non-differentiated argument whose trace has finished, reaching the rule: the
    function was called inside a jit (its own JVP rule, say, as scipy.special's ``expn_jvp``
    calls ``expn(n - 1, x)`` on its traced order) whose body is now differentiated again
    (``grad(grad(exp1))``). The rule closes over the argument, as JAX's does: JAX 0.10.2 then
    stages the dead tracer as a constant and fails lowering it ("TypeError: No constant handler
    for type: <class '...DynamicJaxprTracer'>"); minijax refuses it here, with the same class."""
    return TypeError(with_user_line(
        f"No constant handler for type: {type(x).__name__}: the non-differentiable argument "
        f"{argnum} (nondiff_argnums) of custom_jvp function {name} is a traced value "
        f"({x.aval.str_short(True)}) of a transformation that has already finished, which the "
        f"custom JVP rule closes over: the function was called inside a jit whose body is being "
        f"differentiated again (a JVP rule calling it with a traced non-differentiable argument, "
        f"differentiated twice). Pass that argument as a concrete (static) value."
    ))


def _call_primitive(name):
    """A primitive that runs its ``call_jaxpr`` as is (evaluation, abstract evaluation and
    lowering); the custom rule lives in its JVP rule."""
    p = Primitive(name, multiple_results=True)
    p.def_abstract_eval(lambda *avals, call_jaxpr, **_: call_jaxpr.out_avals)
    p.own_memory_space = True  # its results are its body's
    p.sharding_rule = sharding_rules.typed_by_body
    p.def_impl(lambda *args, call_jaxpr, **_: eval_open(call_jaxpr, args))
    p.def_lowering(lambda ctx, *args, call_jaxpr, **_: lower_open(ctx, call_jaxpr, args))
    ad.raw_primal_primitives.add(p)  # the user's rule sees the primals as given, as in JAX
    p.pp_params = _pp_call_params
    return p


def _pp_call_params(params):
    """As JAX's printing rules: ``name`` (the custom function's) first, then the params in
    order, the rules by their functions' names, ``num_consts`` only when there are some."""
    shown = {k: _rule_name(v) if k in ("jvp", "fwd", "bwd") else v
             for k, v in params.items() if k != "num_consts" or v}
    rule = params["jvp"] if "jvp" in params else params["fwd"]
    return [("name", rule.primal_name), *sorted(shown.items())]


def _rule_name(fn):
    return getattr(fn, "__name__", fn)


def _name_rule(rule, name, primal_name):
    """Names a flat rule as JAX's jaxprs show it: by the user's rule's name, and with the
    name of the function it is the rule of (the equation's ``name``)."""
    rule.__name__, rule.primal_name = name, primal_name
    return rule


custom_jvp_call_p = _call_primitive("custom_jvp_call")


def _custom_jvp_call_jvp(primals, tangents, *, call_jaxpr, jvp, num_consts, symbolic_zeros):
    if any(type(t) is not Zero for t in tangents[:num_consts]):
        raise _closure_error("custom_jvp")
    return jvp(list(primals[num_consts:]), list(tangents[num_consts:]))


ad.primitive_jvps[custom_jvp_call_p] = _custom_jvp_call_jvp


def _custom_jvp_call_transpose(cts, *args, call_jaxpr, jvp, num_consts, symbolic_zeros):
    # Reached only when the function is applied to values being transposed (linear_transpose
    # of it): the function itself is then linear, and its jaxpr transposes.
    return ad.backward_pass(call_jaxpr, [], list(args), cts)


ad.primitive_transposes[custom_jvp_call_p] = _custom_jvp_call_transpose


@custom_jvp_call_p.def_batching
@needs_axis_data  # batched by the vmap's own axis: a collective over it inside resolves
def _custom_jvp_call_batching(axis_data, args, dims, *, call_jaxpr, jvp, num_consts,
                              symbolic_zeros):
    new_jaxpr, new_consts, args, in_axes, _ = batch_open(call_jaxpr, args, dims,
                                                         axis_data=axis_data)
    arg_axes = in_axes[num_consts:]
    n = len(arg_axes)

    def batched_jvp(primals, tangents):
        def one(*pt):
            ps, ts = jvp(list(pt[:n]), list(pt[n:]))
            return list(ps), [ad.instantiate_zeros(t) for t in ts]

        return _vmap_with_zeros(one, arg_axes + arg_axes, [*primals, *tangents], axis_data)

    _name_rule(batched_jvp, _name(jvp), jvp.primal_name)
    outs = custom_jvp_call_p.bind(*new_consts, *args, call_jaxpr=new_jaxpr, jvp=batched_jvp,
                                  num_consts=len(new_consts) + num_consts,
                                  symbolic_zeros=symbolic_zeros)
    return outs, [0] * len(outs)


# ------------------------------------------------------------------------------------------------
# custom_vjp


class custom_vjp:
    """A function with a custom VJP: ``f.defvjp(fwd, bwd)`` with ``fwd(*args) -> (out, res)``
    (``res`` any pytree of arrays) and ``bwd(res, ct_out) -> tuple of cotangents`` (one entry
    per argument, each shaped like that argument; None for a zero cotangent).

    With ``nondiff_argnums`` the non-differentiated arguments are passed to ``bwd`` first:
    ``bwd(*nondiff, res, ct_out)``, and its result covers only the other arguments.
    """

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd = None
        self.bwd = None
        self.symbolic_zeros = False

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def defvjp(self, fwd, bwd, symbolic_zeros=False, optimize_remat=False):
        """With ``symbolic_zeros``, ``fwd`` gets each argument leaf as
        ``CustomVJPPrimal(value, perturbed)`` and ``bwd`` gets ``SymbolicZero`` for output
        cotangents that are zero (it may return SymbolicZeros, or None, for zero ones)."""
        if symbolic_zeros and optimize_remat:
            # JAX 0.10.2 refuses it too, in these words
            raise NotImplementedError(
                "remat optimization for custom_vjp does not support symbolic zeros")
        self.fwd = fwd
        self.bwd = bwd
        self.symbolic_zeros = symbolic_zeros

    def __call__(self, *args, **kwargs):
        name = _name(self.fun)
        if self.fwd is None:
            raise AttributeError(f"No VJP defined for custom_vjp function {name} using defvjp.")
        args = _resolve_kwargs(self.fun, args, kwargs)
        nums, static, dyn = _split_nondiff(self.nondiff_argnums, args)
        for i in nums:
            if isinstance(args[i], core.Tracer):
                raise TypeError(with_user_line(
                    f"custom_vjp function {name} got a traced value as the non-differentiable "
                    f"argument {i} (nondiff_argnums). Only static values (functions, Python "
                    "scalars, configuration) may be non-differentiable arguments of a "
                    "custom_vjp; pass arrays as regular arguments (their cotangent may be None)."
                ))
        leaves, in_tree = _canonical_leaves(dyn)
        if core.is_eval_trace_current():
            return self.fun(*_merge(nums, static, in_tree.unflatten(leaves)))
        _check_leaves(f"arguments of custom_vjp function {name}", leaves)
        in_avals = [get_aval(x) for x in leaves]
        out_trees = []

        def flat_fun(*xs):
            out_leaves, out_tree = _registry.flatten(
                self.fun(*_merge(nums, static, in_tree.unflatten(xs))))
            out_trees.append(out_tree)
            return out_leaves

        jaxpr, consts = trace_open(flat_fun, in_avals)
        rules = _VJPRules(self.fwd, self.bwd, name, nums, static, in_tree, out_trees[0],
                          jaxpr.out_avals, in_avals, self.symbolic_zeros)
        fwd = _name_rule(lambda *a: rules.fwd(*a), _name(self.fwd), name)
        bwd = _name_rule(lambda *a: rules.bwd(*a), _name(self.bwd), name)
        outs = custom_vjp_call_p.bind(*consts, *leaves, call_jaxpr=jaxpr, fwd=fwd, bwd=bwd,
                                      num_consts=len(consts),
                                      symbolic_zeros=self.symbolic_zeros)
        return out_trees[0].unflatten(outs)


def _drop_empty_subtrees(want, got_leaves, got_tree):
    """A bwd output that gives None where the input held an empty subtree (a None input,
    which JAX accepts back as None): its leaves and structure without those Nones."""
    want_leaves, want_tree = _registry.flatten(want, lambda x: x is None)
    if got_tree != want_tree or any(g is not None for g, w in zip(got_leaves, want_leaves)
                                    if w is None):
        return got_leaves, got_tree
    kept = [g for g, w in zip(got_leaves, want_leaves) if w is not None]
    return kept, _registry.flatten(want)[1]


class _VJPRules:
    """The user's fwd/bwd on flat lists, their outputs checked (structure, shapes, dtypes)."""

    def __init__(self, fwd, bwd, name, nums, static, in_tree, out_tree, out_avals, in_avals,
                 symbolic_zeros):
        self.user_fwd, self.user_bwd, self.name = fwd, bwd, name
        self.symbolic_zeros = symbolic_zeros
        self.nums, self.static = nums, static
        self.in_tree, self.out_tree = in_tree, out_tree
        self.out_avals, self.in_avals = out_avals, in_avals
        self.res_tree, self.res_scalars = None, {}

    def fwd(self, primals, perturbed):
        """Flat primals (and whether each is being differentiated) -> (flat outputs, flat
        residuals)."""
        if self.symbolic_zeros:
            primals = [CustomVJPPrimal(p, z) for p, z in zip(primals, perturbed)]
        out = self.user_fwd(*_merge(self.nums, self.static, self.in_tree.unflatten(primals)))
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise TypeError(with_user_line(
                f"Custom VJP fwd rule {_name(self.user_fwd)} for function {self.name} must "
                f"produce a pair (list or tuple of length two) where the first element "
                f"represents the primal output and the second the residuals, but got {out!r}."
            ))
        out_leaves, out_tree = _registry.flatten(out[0])
        if out_tree != self.out_tree:
            raise TypeError(with_user_line(
                f"Custom VJP fwd rule {_name(self.user_fwd)} for function {self.name} must "
                f"produce a primal output with the same container (pytree) structure as the "
                f"function's output: expected {self.out_tree}, got {out_tree}."
            ))
        got = [get_aval(x) for x in out_leaves]
        if [(a.shape, a.dtype) for a in got] != [(a.shape, a.dtype) for a in self.out_avals]:
            raise TypeError(with_user_line(
                f"Custom VJP fwd rule {_name(self.user_fwd)} for function {self.name} must "
                f"produce primal outputs of the function's types: expected "
                f"{_avals_str(self.out_avals)}, got {_avals_str(got)}."
            ))
        res_leaves, self.res_tree = _registry.flatten(out[1])
        _check_leaves(f"Residuals of custom_vjp fwd rule {_name(self.user_fwd)}", res_leaves)
        # Python scalars among the residuals reach bwd as they are, as in JAX (equinox's
        # checkpointed while_loop partitions by a residual tree of bools).
        self.res_scalars = {i: x for i, x in enumerate(res_leaves) if dtypes.is_python_scalar(x)}
        return out_leaves, [x for i, x in enumerate(res_leaves) if i not in self.res_scalars]

    def bwd(self, res, cts):
        """Flat residuals and output cotangents (Zero where zero) -> one cotangent (or None)
        per flat input."""
        cts = _to_rule_zeros(cts, self.symbolic_zeros)
        it = iter(res)
        res = [self.res_scalars[i] if i in self.res_scalars else next(it)
               for i in range(self.res_tree.num_leaves)]
        args = [self.res_tree.unflatten(res), self.out_tree.unflatten(cts)]
        out = self.user_bwd(*self.static, *args)
        n_args = len(self.in_tree.unflatten(self.in_avals))
        expected_tree = self.in_tree
        if not isinstance(out, tuple):
            raise TypeError(with_user_line(
                f"Custom VJP bwd rule {_name(self.user_bwd)} for function {self.name} must "
                f"produce a tuple with one cotangent per (differentiable) argument; expected "
                f"structure {expected_tree}, got {type(out).__name__}: "
                f"{_registry.flatten(out)[1]}."
            ))
        if len(out) != n_args:
            raise TypeError(with_user_line(
                f"Custom VJP bwd rule {_name(self.user_bwd)} for function {self.name} must "
                f"produce a tuple of length equal to the number of (differentiable) arguments "
                f"({n_args}); expected structure {expected_tree}, got structure "
                f"{_registry.flatten(out)[1]} of length {len(out)}."
            ))
        return self._match_cts(out)

    def _match_cts(self, out):
        # None (anywhere a subtree is expected) means zero cotangents for that subtree.
        expected = self.in_tree.unflatten(list(range(len(self.in_avals))))
        flat = [None] * len(self.in_avals)
        for arg_i, (want, got) in enumerate(zip(expected, out)):
            if got is None:
                continue
            want_idx, want_tree = _registry.flatten(want)
            got_leaves, got_tree = _registry.flatten(got, lambda x: x is None)
            if got_tree != want_tree:
                got_leaves, got_tree = _drop_empty_subtrees(want, got_leaves, got_tree)
            if got_tree != want_tree:
                raise TypeError(with_user_line(
                    f"Custom VJP bwd rule {_name(self.user_bwd)} for function {self.name} must "
                    f"produce an output with the same container (pytree) structure as the "
                    f"args tuple of the primal function; for argument {arg_i} expected "
                    f"structure {want_tree}, got structure {got_tree}."
                ))
            paths = [keystr(p) for p, _ in tree_flatten_with_path_internal(want)[0]]
            for i, ct, path in zip(want_idx, got_leaves, paths):
                flat[i] = self._check_ct(arg_i, path, ct, self.in_avals[i])
        return flat

    def _check_ct(self, arg_i, path, ct, aval):
        if ct is None:
            return None
        expected = ad.tangent_aval(aval)
        if expected.dtype == dtypes.float0:
            return None  # integer inputs take no cotangent, whatever was returned
        if type(ct) is SymbolicZero:
            if ct.aval.shape != expected.shape or ct.aval.dtype != expected.dtype:
                raise ValueError(with_user_line(
                    f"Custom VJP bwd rule produced a SymbolicZero with a shape/dtype that does "
                    f"not match the corresponding input tangent shape/dtype: at "
                    f"output[{arg_i}]{path} the SymbolicZero had shape/dtype "
                    f"{ct.aval.str_short(True)} while the corresponding input had shape/dtype "
                    f"{aval.str_short(True)}. Consider just returning a None here instead of a "
                    "SymbolicZero object."))
            return None
        ct_aval = get_aval(ct)
        # JAX 0.10's "temporary" exception: an inexact input takes a cotangent of any dtype of
        # its shape, passed on as it is (a float32 cotangent of a bfloat16 input stays float32)
        dtype_ok = ct_aval.dtype == expected.dtype or dtypes.is_inexact(expected.dtype)
        if ct_aval.shape != expected.shape or not dtype_ok:
            raise ValueError(with_user_line(
                f"Custom VJP bwd rule {_name(self.user_bwd)} for function {self.name} must "
                f"produce an output with the same shape/dtypes as the args tuple of the primal "
                f"function, but at args[{arg_i}]{path} it produced an output of type "
                f"{ct_aval.str_short(True)} where the expected type is {expected.str_short(True)}."
            ))
        if ct_aval.vma != getattr(aval, "vma", ct_aval.vma):  # (a ref's has none)
            # inside shard_map JAX 0.10.2 wants the input's exact varying manual axes: no dtype
            # exception here, and a cotangent that varies where its input does not (a
            # replicated x's ``ct * y`` with a varying y) is refused, not psum'd (s22050-285)
            what = ["the dtypes do not match"] if ct_aval.dtype != aval.dtype else []
            what.append("the manual axis types do not match")
            raise ValueError(with_user_line(
                "Custom VJP bwd rule must produce an output with the same type as the args "
                f"tuple of the primal function, but at output[{arg_i}]{path} the bwd rule "
                f"produced an output of type {ct_aval.str_short()} corresponding to an input "
                f"of type {aval.str_short()}, so {', and '.join(what)}"))
        return ct


custom_vjp_call_p = _call_primitive("custom_vjp_call")


def _custom_vjp_call_jvp(primals, tangents, *, call_jaxpr, fwd, bwd, num_consts,
                         symbolic_zeros):
    if any(type(t) is not Zero for t in tangents[:num_consts]):
        raise _closure_error("custom_vjp")
    primals, tangents = primals[num_consts:], tangents[num_consts:]
    outs, res = fwd(list(primals), [type(t) is not Zero for t in tangents])
    in_diff = [ad.is_differentiable_dtype(get_aval(p).dtype) for p in primals]
    out_diff = [ad.is_differentiable_dtype(a.dtype) for a in call_jaxpr.out_avals]
    lin_in = [ad.instantiate_zeros(t) for t, d in zip(tangents, in_diff) if d]
    lin_out = custom_lin_p.bind(
        *res, *lin_in, num_res=len(res), bwd=bwd, in_diff=tuple(in_diff),
        # a plain jvp's passes a linearization below when known, and raises where it runs
        linearized=in_linearization(core.current_trace()),
        out_avals=tuple(ad.tangent_aval(a) for a, d in zip(call_jaxpr.out_avals, out_diff) if d),
        all_out_avals=tuple(ad.tangent_aval(a) for a in call_jaxpr.out_avals),
    )
    it = iter(lin_out)
    t_out = [next(it) if d else Zero(ad.tangent_aval(a))
             for a, d in zip(call_jaxpr.out_avals, out_diff)]
    return outs, t_out


ad.primitive_jvps[custom_vjp_call_p] = _custom_vjp_call_jvp


@custom_vjp_call_p.def_batching
@needs_axis_data  # batched by the vmap's own axis: a collective over it inside resolves
def _custom_vjp_call_batching(axis_data, args, dims, *, call_jaxpr, fwd, bwd, num_consts,
                              symbolic_zeros):
    new_jaxpr, new_consts, args, in_axes, _ = batch_open(call_jaxpr, args, dims,
                                                         axis_data=axis_data)
    arg_axes = in_axes[num_consts:]

    # Residuals that do not depend on the batch stay unbatched, as in JAX: the bwd rule sees
    # them as they were (equinox's checkpointed while_loop branches on a Python bool residual).
    res_axes = []

    def batched_fwd(primals, perturbed):
        n_out = []

        def flat(*ps):
            outs, res = fwd(list(ps), perturbed)
            n_out[:] = [len(outs)]
            return [*outs, *res]

        vals, dims = batch_flat(flat, primals, arg_axes, axis_data)
        k = n_out[0]
        outs = [bdim_to(v, d, 0, axis_data.size) for v, d in zip(vals[:k], dims[:k])]
        res = [v if d is not_mapped else moveaxis(v, d, 0) for v, d in zip(vals[k:], dims[k:])]
        res_axes[:] = [None if d is not_mapped else 0 for d in dims[k:]]
        return outs, res

    def batched_bwd(res, cts):
        in_cts = _vmap_with_zeros(lambda *rc: bwd(list(rc[:len(res)]), list(rc[len(res):])),
                                  (*res_axes, *(0,) * len(cts)), [*res, *cts], axis_data)
        # an unbatched input's cotangent sums its per-example contributions
        return [ct if ct is None or a == 0 else lax.reduce_sum(ct, (0,))
                for ct, a in zip(in_cts, arg_axes)]

    _name_rule(batched_fwd, _name(fwd), fwd.primal_name)
    _name_rule(batched_bwd, _name(bwd), bwd.primal_name)
    outs = custom_vjp_call_p.bind(*new_consts, *args, call_jaxpr=new_jaxpr, fwd=batched_fwd,
                                  bwd=batched_bwd, num_consts=len(new_consts) + num_consts,
                                  symbolic_zeros=symbolic_zeros)
    return outs, [0] * len(outs)


# ------------------------------------------------------------------------------------------------
# custom_lin: the tangent of a custom_vjp function, linear in its tangent operands


def _forward_mode_error(*_, **__):
    raise TypeError(with_user_line(
        "can't apply forward-mode autodiff (jvp) to a custom_vjp function."))


custom_lin_p = Primitive("custom_lin", multiple_results=True)
custom_lin_p.def_abstract_eval(lambda *avals, out_avals, **_: list(out_avals))
custom_lin_p.own_memory_space = True
custom_lin_p.sharding_rule = sharding_rules.typed_by_body
custom_lin_p.def_impl(_forward_mode_error)
custom_lin_p.def_lowering(_forward_mode_error)


def _custom_lin_jvp(*_, **__):
    # JAX 0.10.2 refuses it too, in these words (grad of jvp of a custom_vjp function)
    raise NotImplementedError("Differentiation rule for 'custom_lin' not implemented")


ad.primitive_jvps[custom_lin_p] = _custom_lin_jvp
custom_lin_p.def_batching(_forward_mode_error)
# a linearization's own custom_lin on known (e.g. zeros) tangents still cannot run forward
custom_lin_p.staged_when_known = lambda params: params["linearized"]
custom_lin_p.transpose_zero_cotangents = True  # bwd runs, as in JAX, on zero cotangents too


def _custom_lin_transpose(cts, *args, num_res, bwd, in_diff, out_avals, all_out_avals,
                          linearized):
    res = list(args[:num_res])
    cts = iter(cts)
    full = [next(cts) if ad.is_differentiable_dtype(a.dtype) else Zero(a) for a in all_out_avals]
    in_cts = bwd(res, full)
    lin_cts = [ct for ct, d in zip(in_cts, in_diff) if d]
    return [None] * num_res + lin_cts


ad.primitive_transposes[custom_lin_p] = _custom_lin_transpose


custom_lin_p.pp_params = lambda p: {k: _rule_name(v) if k == "bwd" else v for k, v in p.items()
                                    if k not in ("all_out_avals", "linearized")}


def run_forward(closed):
    """A finished linearization's map ``closed`` as linearize's f_jvp runs it: its custom_lin
    equations are no longer that linearization's own, so run forward they raise as JAX's do,
    an enclosing grad included (which would otherwise stage them as its own, known operands
    and all, and transpose them)."""
    def eqn(e):
        params = map_sub_jaxprs(e.params, run_forward)
        if e.primitive is custom_lin_p and params["linearized"]:
            params = {**params, "linearized": False}
        if params is e.params:
            return e
        return core.JaxprEqn(e.primitive, e.invars, e.outvars, params, e.source_info)

    j = closed.jaxpr
    return core.ClosedJaxpr(core.Jaxpr(j.constvars, j.invars, j.outvars, map(eqn, j.eqns)),
                            closed.consts)


# ------------------------------------------------------------------------------------------------
# closure_convert: closed-over values made explicit arguments, for custom rules


def _maybe_perturbed(x):
    """Whether ``x`` may carry a tangent of an enclosing differentiation: a tracer of an inexact
    dtype (integer and boolean values only have float0 tangents)."""
    return isinstance(x, Tracer) and dtypes.is_inexact(core.get_aval(x).dtype)


def closure_convert(fun, *example_args):
    """``(converted, consts)``: ``converted(*args, *consts)`` computes ``fun(*args)``, with the
    traced values ``fun`` closes over (those that may be differentiated) made explicit
    arguments, so a ``custom_vjp``/``custom_jvp`` rule can receive them. ``example_args`` give
    the argument types."""
    leaves, in_tree = _registry.flatten(example_args)
    out_tree_box = []

    def flat_fun(*xs):
        out_leaves, out_tree = _registry.flatten(fun(*in_tree.unflatten(xs)))
        out_tree_box.append(out_tree)
        return out_leaves

    closed = trace_to_jaxpr(flat_fun, [core.get_aval(x) for x in leaves])
    out_tree = out_tree_box[0]
    consts = list(closed.consts)
    hoisted_at = [i for i, c in enumerate(consts) if _maybe_perturbed(c)]
    hoisted = [consts[i] for i in hoisted_at]

    def converted(*args_and_consts):
        n = len(args_and_consts) - len(hoisted)
        args, new_consts = args_and_consts[:n], args_and_consts[n:]
        all_consts = list(consts)
        for i, c in zip(hoisted_at, new_consts):
            all_consts[i] = c
        arg_leaves, tree = _registry.flatten(tuple(args))
        if tree != in_tree:
            raise TypeError("The inputs to the closure produced by closure_convert must have "
                            "the same Pytree structure as the example arguments passed when "
                            f"closure_convert was called. Expected {in_tree}, but got {tree}")
        return out_tree.unflatten(core.eval_jaxpr(closed.jaxpr, all_consts, *arg_leaves))

    return converted, hoisted
