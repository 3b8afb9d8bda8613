"""Automatic differentiation: the JVP interpreter, linearize, and transposition.

Forward mode is an interpreter: a ``JVPTracer`` carries a primal value and a tangent, and
``JVPTrace.process_primitive`` calls the primitive's JVP rule with the parent trace current,
so rules are ordinary ``lax`` code. Reverse mode is not a second set of rules: ``linearize``
runs the same JVP with the tangents staged into a *linear* jaxpr by partial evaluation (primal
work runs right away on the parent trace; see ``PartialEvalTrace``), and ``backward_pass``
transposes that jaxpr equation by equation with each linear primitive's transpose rule.
``jvp_jaxpr`` and ``transpose_jaxpr`` do the same to a whole jaxpr, for the rules of the
primitives that hold one (control flow, ``checkpoint``, ``shard_map``); they follow the
convention for jaxprs written in ``partial_eval``'s docstring.

Tangents may be *symbolic zeros* (``Zero(aval)``): an input that is not differentiated, a
constant, a ``stop_gradient``, or the output of a non-differentiable primitive. No equation is
ever emitted for a symbolic zero, and a primitive whose tangents are all zero just runs on the
parent trace. Integer and boolean values have symbolic-zero tangents, of dtype ``float0``
(``tangent_aval``), as in JAX, except the integer tangent a rule computes for an integer result
(see ``JVPTrace.wrap``).

Rule API, JAX's (the rules are the primitive's ``jvp`` and ``transpose`` attributes, attached
beside the primitive in ``minijax/lax/*.py`` with these)::

    defjvp(prim, *rules)          # per-operand rules: rules[i](g, *primals, **params) is the
                                  #   output tangent's part due to operand i, given that
                                  #   operand's tangent g (never a Zero: zero tangents are
                                  #   skipped); None where not differentiable. The parts are
                                  #   summed; a rank-0 part broadcasts.
    defjvp2(prim, *rules)         # the same, rules[i](g, ans, *primals, **params) also sees the
                                  #   primal output ans (exp: g * ans).
    primitive_jvps[prim] = rule   # a whole rule: rule(primals, tangents, **params) ->
                                  #   (primal_out, tangent_out); tangents may be Zero; lists for
                                  #   primitives with multiple results; tangent_out may be Zero.
    defjvp_zero(prim)             # outputs have zero tangents (comparisons, integer ops ...);
                                  #   also marks prim.not_differentiable.
    deflinear(prim, transpose)    # prim is linear in its inexact operands jointly (integer and
                                  #   boolean operands, e.g. indices or a predicate, are fixed):
                                  #   the JVP applies prim to the tangents; marks prim.linear.
                                  #   data=True (or a count of leading operands) names the
                                  #   operands that are data, all instantiated as in JAX.
    primitive_transposes[prim] = rule
                                  # rule(ct, *args, **params) -> one cotangent (or None) per
                                  #   operand. The operands the cotangent flows to are
                                  #   UndefinedPrimal(aval); the others are values. ct is never
                                  #   a Zero for single-result primitives; for multiple results
                                  #   it is a list that may hold Zeros.
"""

from __future__ import annotations

import operator

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes
from minijax.core import (
    Literal,
    ShapedArray,
    Trace,
    Tracer,
    Var,
    WeakScalar,
    abstract_token,
    escaped_tracer_error,
    get_aval,
    jaxpr_as_fun,
)
from minijax.interpreters import batching, lax_ops
from minijax.interpreters.partial_eval import PartialEvalTrace, dce_jaxpr, trace_to_jaxpr
from minijax.interpreters.rule_views import RuleView
from minijax.lowering.array import device_put_value
from minijax.source_info import user_frame, with_user_line

# ------------------------------------------------------------------------------------------------
# Symbolic zeros and undefined primals


def is_differentiable_dtype(dtype):
    return dtypes.is_inexact(dtype)


def tangent_aval(aval):
    """The type of a tangent (and cotangent) of a value of type ``aval``."""
    if aval is abstract_token:  # a token's tangent is a token, as in JAX
        return aval
    if is_differentiable_dtype(aval.dtype):
        return aval
    return ShapedArray(aval.shape, dtypes.float0)


class Zero:
    """A symbolic zero tangent or cotangent of type ``aval``: costs no computation."""

    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    @staticmethod
    def from_primal_value(x):
        return Zero(tangent_aval(get_aval(x)))

    def __repr__(self):
        return f"Zero({self.aval.str_short(True)})"


class UndefinedPrimal:
    """Stands for a linear operand in a transpose rule: only its type is known."""

    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    def __repr__(self):
        return f"UndefinedPrimal({self.aval.str_short(True)})"


def is_undefined_primal(x):
    return type(x) is UndefinedPrimal


def zeros_like_aval(aval):
    """Materialized zeros of ``aval`` (for float0 a host array, JAX's TypedNdArray)."""
    if aval is abstract_token:  # JAX 0.10.2 has no zeros of a token: its lookup fails so
        raise KeyError(type(aval))
    if aval.dtype == dtypes.float0:
        return dtypes.float0_zeros(aval.shape)
    # a weak aval's zeros stay weak (JAX's zeros_like_aval): the zero tangent of a value that
    # does not depend on the inputs has the value's type
    zero = WeakScalar(0, aval.dtype) if aval.weak_type else np.zeros((), aval.dtype)
    if aval.vma:  # inside shard_map the zeros have the value's type, as JAX's
        return lax_ops.pvary(lax_ops.broadcast_in_dim(zero, aval.shape, ()),
                             tuple(sorted(aval.vma, key=str)))
    if not aval.shape:
        return zero  # stages as a literal
    return lax_ops.broadcast_in_dim(zero, aval.shape, (), out_sharding=_split_of(aval))


def _split_of(aval):
    """A value's split over Explicit mesh axes, for zeros and ones of its type (None if
    unsplit)."""
    return None if aval.explicit is None else aval.sharding


def with_zeros(nonzero_values, nonzeros, avals):
    """One tangent per aval: the next of ``nonzero_values`` where ``nonzeros`` is true, else a
    symbolic Zero of the aval's tangent type (how a JVP rule of a jaxpr-holding primitive
    spreads the nonzero tangents its derived jaxpr takes or returns)."""
    it = iter(nonzero_values)
    return [next(it) if nz else Zero(tangent_aval(a)) for nz, a in zip(nonzeros, avals)]


def instantiate_zeros(t):
    return zeros_like_aval(t.aval) if type(t) is Zero else t


def add_tangents(a, b):
    if type(a) is Zero:
        return b
    if type(b) is Zero:
        return a
    a_shape, b_shape = get_aval(a).shape, get_aval(b).shape
    # a rule's rank-0 or size-1 part of an elementwise op's tangent: add_any wants one shape
    if a_shape != b_shape:
        shape = np.broadcast_shapes(a_shape, b_shape)
        a, b = broadcast_to_shape(a, shape), broadcast_to_shape(b, shape)
    return add_any_p.bind(a, b)


# JAX's ``add_jaxvals_p``: how tangents and cotangents are summed. Unlike ``lax.add`` its type
# is its first operand's, weak type included (JAX's ``add_abstract``), so a cotangent's weak
# type is the first one written's.
add_any_p = core.Primitive("add_any")
add_jaxvals_p = add_any_p


@add_any_p.def_abstract_eval
def _add_any_abstract_eval(x, y):
    if x.shape != y.shape or x.dtype != y.dtype:
        raise TypeError(f"add_any: operands of one type expected, got {x.str_short(True)} and "
                        f"{y.str_short(True)}")
    return x


add_any_p.def_lowering(lambda ctx, x, y: hlo.add(x, y))
# its type is its first operand's, split over Explicit mesh axes too (JAX's add_abstract)
add_any_p.sharding_rule = lambda x, y: x.parts()
# Run eagerly it is lax.add (JAX's impl, raw_jaxval_adders: weak only when both operands are)
add_any_p.def_impl(lambda x, y: lax_ops.add(x, y))


@add_any_p.def_batching
def _add_any_batching(args, dims):
    # JAX's add_batched: the unbatched operand is broadcast along the other's batch axis
    (x, y), (dx, dy) = args, dims
    if dx is batching.not_mapped:
        x = batching.broadcast_batched(x, get_aval(y).shape[dy], dy)
    elif dy is batching.not_mapped:
        y = batching.broadcast_batched(y, get_aval(x).shape[dx], dx)
    else:
        x = batching.moveaxis(x, dx, dy)
    return add_any_p.bind(x, y), dy if dy is not batching.not_mapped else dx


_add_any_batching.values_keep_weak_types = True  # eager, the impl's lax.add types the result


# Helpers for rules ------------------------------------------------------------------------------


def full_like(x, value):
    """An array of ``x``'s shape, dtype and weak type filled with ``value`` (a literal
    broadcast). Keeping the weak type is JAX's ``full_like``: the derivative rules' zeros and
    ones (``_zeros(x)``, ``_ones(x)``) then leave a Python scalar's derivative weak."""
    aval = get_aval(x)
    if aval.weak_type:
        return lax_ops.broadcast_in_dim(WeakScalar(value, aval.dtype), aval.shape, (),
                                        out_sharding=_split_of(aval))
    return lax_ops.full(aval.shape, value, aval.dtype, sharding=_split_of(aval))


def broadcast_to_shape(x, shape):
    """``x`` (rank 0, or of ``shape``'s rank with size-1 axes) broadcast to ``shape``, as
    elementwise ops broadcast their operands."""
    x_shape = get_aval(x).shape
    if x_shape == tuple(shape):
        return x
    return lax_ops.broadcast_in_dim(x, shape, tuple(range(len(x_shape))))


def unbroadcast(aval, ct):
    """The cotangent of an elementwise op's operand of type ``aval`` from the cotangent of its
    result: summed over every axis when the operand was a broadcast rank-0 one, over the
    broadcast axes (kept as size 1) when it had size-1 axes."""
    ct_shape = get_aval(ct).shape
    if ct_shape == aval.shape:
        return ct
    if not aval.shape:
        return lax_ops.reduce_sum(ct, tuple(range(len(ct_shape))))
    axes = tuple(i for i, (a, c) in enumerate(zip(aval.shape, ct_shape)) if a != c)
    return lax_ops.reshape(lax_ops.reduce_sum(ct, axes), aval.shape)


# ------------------------------------------------------------------------------------------------
# The JVP interpreter


class JVPTracer(Tracer):
    __slots__ = ("primal", "tangent")

    def __init__(self, trace, primal, tangent):
        self._trace = trace
        self.primal = primal
        self.tangent = tangent

    @property
    def aval(self):
        return get_aval(self.primal)

    def __repr__(self):
        # JAX 0.10.2's: under linearize (grad, vjp) its LinearizeTracer, named GradTracer,
        # shows the tangent's type only; under jvp both values
        primal = self.primal if isinstance(self.primal, Tracer) else str(self.primal)
        if self._trace.linearizing:
            tangent = get_aval(self.tangent).str_short(True)
            return f"GradTracer(primal={primal}, typeof(tangent)={tangent})"
        tangent = self.tangent if isinstance(self.tangent, Tracer) else str(self.tangent)
        return f"JVPTracer(primal={primal}, tangent={tangent})"

    def __hash__(self):
        name = "LinearizeTracer" if self._trace.linearizing else "JVPTracer"  # JAX's classes
        raise TypeError(f"unhashable type: '{name}'")

    # A concrete primal may be used in Python control flow (``if x > 0:`` under eager grad),
    # as in JAX: the tangent does not change which branch is taken.
    def __bool__(self):
        return bool(self.primal)

    def __int__(self):
        return int(self.primal)

    def __float__(self):
        return float(self.primal)

    def __complex__(self):
        return complex(self.primal)

    def __index__(self):
        # operator.index: a Python float primal (kept as given) raises TypeError, as JAX's
        return operator.index(self.primal)


class IntegerTangentTracer(JVPTracer):
    """In a linearization, an integer result with the integer tangent its rule gave
    (``JVPTrace.wrap``): JAX's linearize returns that tangent for an output of the function, but
    takes an integer operand's tangent as zero, so no rule sees it."""

    __slots__ = ()


class JVPTrace(Trace):
    lifts_to_parent = True  # a constant has a zero tangent: it is the parent's value

    def __init__(self, parent, linearizing=False):
        super().__init__(parent)
        self.source = user_frame()
        # under linearize_flat, the parent is the PartialEvalTrace holding the tangents
        self.linearizing = linearizing

    def to_primal_tangent(self, x):
        if type(x) is JVPTracer and x._trace is self:
            return x.primal, x.tangent
        if type(x) is IntegerTangentTracer and x._trace is self:
            return x.primal, Zero.from_primal_value(x.primal)
        if isinstance(x, Tracer) and not x._trace.valid:
            raise escaped_tracer_error(x)
        return x, Zero.from_primal_value(x)

    def process_primitive(self, prim, args, params):
        primals, tangents, scalar_primal = [], [], False
        for x in args:
            p, t = self.to_primal_tangent(x)
            primals.append(p)
            tangents.append(t)
            scalar_primal = scalar_primal or dtypes.is_python_scalar(p)
        prev = core.swap_current_trace(self.parent)  # rules compute with lax ops one level down
        try:
            if all(type(t) is Zero for t in tangents):
                return prim.bind(*primals, **params)
            rule = prim.jvp
            if rule is None:
                raise prim.missing_rule("Differentiation rule")
            if scalar_primal and prim not in raw_primal_primitives:
                primals = [_as_primal(p, t) for p, t in zip(primals, tangents)]
            primal_out, tangent_out = rule(primals, tangents, **params)
        finally:
            core.swap_current_trace(prev)
        if prim.multiple_results:
            return [self.wrap(prim, p, t) for p, t in zip(primal_out, tangent_out)]
        return self.wrap(prim, primal_out, tangent_out)

    def wrap(self, prim, primal, tangent):
        if type(tangent) is Zero:
            return primal
        if self.linearizing and not self.parent.is_unknown(tangent):
            # JAX's linearization (grad, vjp, linearize) stages each rule's tangent on its own:
            # one that does not depend on the rule's input tangents (``x ** 0``'s materialized
            # zeros) comes out known, and becomes a symbolic zero, so a consumer's rule does not
            # run on it (scatter_mul's, which refuses non-unique indices); jvp keeps it
            return primal
        aval = get_aval(primal)
        t_aval = get_aval(tangent)
        if not is_differentiable_dtype(aval.dtype):
            # JAX keeps the tangent a rule gives an integer or boolean result unless it is a
            # float0 one: a dot_general with an integer preferred_element_type has its bilinear
            # JVP at that dtype, which the consumers' rules (mul, convert_element_type) carry on
            # and a jit's callee drops (``drop_integer_tangents``). A linearization only returns
            # it (``IntegerTangentTracer``).
            if t_aval.dtype == dtypes.float0:
                return primal
            if self.linearizing:
                return IntegerTangentTracer(self, primal, tangent)
        elif t_aval.shape != aval.shape or t_aval.dtype != aval.dtype:
            raise AssertionError(
                f"the JVP rule of '{prim.name}' gave a tangent {t_aval.str_short(True)} for a "
                f"primal output {aval.str_short(True)} (a bug in the rule)"
            )
        return JVPTracer(self, primal, tangent)


# A tracer keeps its primal as given, a Python scalar too: one the function returns untouched
# comes back as it went in, as in JAX (jvp and linearize give it back as is, vjp as its typed
# twin). The primitives in this set get the primals so in their JVP rule (custom_jvp's rule and
# custom_vjp's fwd are user code; stop_gradient's passes its primal on); the other rules get
# them as below.
raw_primal_primitives = set()


def _as_primal(p, t):
    # JVP rules apply lax ops to primals: a bare Python scalar primal would leave the rule's own
    # constants (``ge(x, 0)``) nothing to take their dtype from, so a tracer's (the only one
    # with a nonzero tangent) becomes a weak array.
    return device_put_value(p) if type(t) is not Zero and dtypes.is_python_scalar(p) else p


def drop_integer_tangents(primals, tangents):
    """``tangents`` with an integer or boolean primal's tangent a zero: JAX types a callee's
    tangent inputs by their primals (an integer's as float0), so inside a jit an integer
    tangent (``JVPTrace.wrap``) is a zero."""
    return [Zero.from_primal_value(p) if type(t) is not Zero and _has_integer_type(p) else t
            for p, t in zip(primals, tangents)]


def _has_integer_type(x):
    aval = get_aval(x)
    return isinstance(aval, ShapedArray) and not is_differentiable_dtype(aval.dtype)


def jvp_flat(fun, primals, tangents):
    """``fun(*primals)`` and its tangent, for ``fun`` on flat lists of values.

    ``tangents`` may hold ``Zero``s; so may the returned tangents. The trace's parent is the
    current trace, so this works under any other transformation (and inside JVP rules).
    """
    trace = JVPTrace(core.current_trace())
    tracers = [p if type(t) is Zero else JVPTracer(trace, p, t)
               for p, t in zip(primals, tangents)]
    try:
        with core.set_current_trace(trace):
            outs = fun(*tracers)
        pairs = [trace.to_primal_tangent(x) for x in outs]
    finally:
        trace.invalidate()  # a tracer that escaped now raises UnexpectedTracerError
    return [p for p, _ in pairs], [t for _, t in pairs]


def linearizing_rule():
    """Whether the JVP rule running now belongs to a linearization (grad, vjp, linearize):
    rules run on their JVPTrace's parent, there ``linearize_flat``'s PartialEvalTrace. JAX
    linearizes the bodies of jit, cond and scan there (``linearize_jaxpr``) rather than taking
    their JVP; a while loop's or checkpoint's body inside stays a JVP, as in JAX."""
    return type(core.current_trace()) is PartialEvalTrace


def jvp_jaxpr(closed, nonzeros, instantiate, linearizing=False):
    """The JVP of ``closed``: inputs (primals..., nonzero tangents...), outputs (primals...,
    nonzero tangents...). Returns ``(jvp_closed, out_nonzeros)``. ``instantiate[i]`` forces
    output i's tangent to be materialized (zeros) when differentiable. ``linearizing``: the
    body of a jit, cond or scan inside a linearization, which JAX linearizes as such (its
    ``linearize_jaxpr``), so a tangent that does not depend on the tangent inputs is a symbolic
    zero there too (see ``JVPTrace.wrap``)."""
    in_avals = closed.in_avals
    n = len(in_avals)
    t_avals = [tangent_aval(a) for a, nz in zip(in_avals, nonzeros) if nz]
    found = []

    def fn(*args):
        tangents = with_zeros(args[n:], nonzeros, in_avals)
        if linearizing:
            lin = linearize_flat(jaxpr_as_fun(closed), list(args[:n]), nonzeros=nonzeros)
            outs, touts = lin.primals_out, lin.jvp(tangents)
        else:
            outs, touts = jvp_flat(jaxpr_as_fun(closed), list(args[:n]), tangents)
        out_nz = [type(t) is not Zero
                  or (inst and is_differentiable_dtype(get_aval(o).dtype))
                  for o, t, inst in zip(outs, touts, instantiate)]
        found[:] = out_nz
        return outs + [instantiate_zeros(t) for t, nz in zip(touts, out_nz) if nz]

    return trace_to_jaxpr(fn, list(in_avals) + t_avals), list(found)


# ------------------------------------------------------------------------------------------------
# Rule factories


def _sum_parts(ans, parts):
    """The sum of the tangent parts, shaped like the primal output ``ans``."""
    aval = get_aval(ans)
    parts = [p for p in parts if type(p) is not Zero]
    if not parts:
        return Zero(tangent_aval(aval))
    total = parts[0]
    for p in parts[1:]:
        total = add_tangents(total, p)
    return broadcast_to_shape(total, aval.shape)


def _per_operand_jvp(prim, rules, sees_output):
    def jvp(primals, tangents, **params):
        ans = prim.bind(*primals, **params)
        before = (ans,) if sees_output else ()
        parts = [rule(t, *before, *primals, **params) for rule, t in zip(rules, tangents)
                 if rule is not None and type(t) is not Zero]
        return ans, _sum_parts(ans, parts)

    return jvp


def defjvp(prim, *rules):
    """Per-operand tangent rules; see the module docstring."""
    prim.jvp = _per_operand_jvp(prim, rules, sees_output=False)


def defjvp2(prim, *rules):
    """Per-operand tangent rules that also see the primal output: ``rule(g, ans, *primals)``."""
    prim.jvp = _per_operand_jvp(prim, rules, sees_output=True)


def defjvp_zero(prim):
    """The outputs of ``prim`` do not change with its inputs (or only in jumps)."""
    prim.not_differentiable = True

    def jvp(primals, tangents, **params):
        ans = prim.bind(*primals, **params)
        if prim.multiple_results:
            return ans, [Zero.from_primal_value(a) for a in ans]
        return ans, Zero.from_primal_value(ans)

    prim.jvp = jvp


def deflinear(prim, transpose_rule, *, data=None):
    """``prim`` is linear in its inexact operands (jointly); integer and boolean operands
    (indices, predicates) are fixed, unless they carry an integer tangent (``JVPTrace.wrap``):
    then they are data, as in JAX. The JVP is ``prim`` applied to the tangents.

    ``data`` names the operands that are data where the primitive knows them: True for all
    (``concatenate``, ``pad``), or the count of leading ones (``dynamic_update_slice``'s
    operand and update; index operands follow). Then the JVP instantiates every zero tangent
    of data, as JAX's rules do: an integer tangent beside an integer operand without one meets
    its float0 zeros and raises the op's dtype TypeError."""

    def jvp_data(primals, tangents, **params):
        ans = prim.bind(*primals, **params)
        n = len(primals) if data is True else data
        if all(type(t) is Zero for t in tangents[:n]):
            return ans, Zero.from_primal_value(ans)
        return ans, prim.bind(*map(instantiate_zeros, tangents[:n]), *primals[n:], **params)

    def jvp(primals, tangents, **params):
        ans = prim.bind(*primals, **params)
        linear = [type(t) is not Zero or is_differentiable_dtype(get_aval(p).dtype)
                  for p, t in zip(primals, tangents)]
        if all(type(t) is Zero for t, lin in zip(tangents, linear) if lin):
            zero = [Zero.from_primal_value(a) for a in (ans if prim.multiple_results else [ans])]
            return ans, (zero if prim.multiple_results else zero[0])
        args = [instantiate_zeros(t) if lin else p for p, t, lin in zip(primals, tangents, linear)]
        return ans, prim.bind(*args, **params)

    prim.jvp = jvp if data is None else jvp_data
    prim.transpose = transpose_rule
    prim.linear = True


# JAX's name for this form (a transpose rule that also sees the operands); JAX's own
# ``deflinear`` takes ``transpose_rule(ct, **params)`` without them.
deflinear2 = deflinear

deflinear(add_any_p, lambda ct, x, y: [ct, ct])

# JAX's registries, as views onto ``prim.jvp`` and ``prim.transpose`` (rule_views.py): the
# rule signatures are the same in both.
primitive_jvps = RuleView("jvp", name="ad.primitive_jvps")
primitive_transposes = RuleView("transpose", name="ad.primitive_transposes")


def get_primitive_transpose(prim):
    return primitive_transposes[prim]


# ------------------------------------------------------------------------------------------------
# Linearize: the JVP with its tangent part staged into a linear jaxpr


class Linearized:
    """What ``linearize`` found: primal outputs, and the linear map from the nonzero input
    tangents to the nonzero output tangents as a jaxpr whose consts are the residuals."""

    __slots__ = ("primals_out", "aux", "in_nonzero", "out_nonzero", "jaxpr", "in_avals",
                 "out_avals")

    def __init__(self, primals_out, aux, in_nonzero, out_nonzero, jaxpr, in_avals, out_avals):
        self.primals_out = primals_out
        self.aux = aux
        self.in_nonzero = in_nonzero  # per primal input: does it get a tangent (inexact)?
        self.out_nonzero = out_nonzero  # per primal output: is its tangent a jaxpr output?
        self.jaxpr = jaxpr  # ClosedJaxpr: nonzero tangents in -> nonzero tangents out
        self.in_avals = in_avals  # tangent avals of every primal input
        self.out_avals = out_avals  # tangent avals of every primal output

    def jvp(self, tangents):
        """The output tangents (Zero where symbolically zero) for all input tangents."""
        args = [t for t, nz in zip(tangents, self.in_nonzero) if nz]
        outs = iter(core.eval_jaxpr(self.jaxpr.jaxpr, self.jaxpr.consts,
                                    *map(instantiate_zeros, args)))
        return [next(outs) if nz else Zero(a) for nz, a in zip(self.out_nonzero, self.out_avals)]

    def vjp(self, cts):
        """The input cotangents (Zero where symbolically zero) for all output cotangents."""
        cts = [ct for ct, nz in zip(cts, self.out_nonzero) if nz]
        lin_avals = [a for a, nz in zip(self.in_avals, self.in_nonzero) if nz]
        in_cts = iter(backward_pass(self.jaxpr.jaxpr, self.jaxpr.consts,
                                    [UndefinedPrimal(a) for a in lin_avals], cts))
        return [next(in_cts) if nz else Zero(a) for nz, a in zip(self.in_nonzero, self.in_avals)]


def linearize_flat(fun, primals, has_aux=False, nonzeros=None):
    """Runs ``fun(*primals)`` (flat lists; ``(outs, aux)`` if ``has_aux``) and returns a
    ``Linearized``. Primal work runs on the current trace now; only tangent work is staged.
    ``nonzeros``: which primals get a tangent (default: every inexact one)."""
    in_avals = [tangent_aval(get_aval(p)) for p in primals]
    # (a token gets none: its cotangent is a zero, which JAX cannot make either)
    in_nonzero = [a is not abstract_token and is_differentiable_dtype(a.dtype)
                  for a in in_avals]
    if nonzeros is not None:
        in_nonzero = [a and b for a, b in zip(in_nonzero, nonzeros)]
    pe_trace = PartialEvalTrace(core.current_trace())
    lin_in = [pe_trace.new_arg(a) for a, nz in zip(in_avals, in_nonzero) if nz]
    jvp_trace = JVPTrace(pe_trace, linearizing=True)
    it = iter(lin_in)
    tracers = [JVPTracer(jvp_trace, p, next(it)) if nz else p
               for p, nz in zip(primals, in_nonzero)]
    try:
        with core.set_current_trace(jvp_trace):
            outs = fun(*tracers)
            outs, aux = outs if has_aux else (outs, [])
        pairs = [(x.primal, x.tangent)
                 if type(x) is IntegerTangentTracer and x._trace is jvp_trace
                 else jvp_trace.to_primal_tangent(x) for x in outs]
        # aux may hold any Python object (a string, a sentinel), returned as it is, as in JAX
        aux = [jvp_trace.to_primal_tangent(x)[0] if isinstance(x, core.Tracer) else x
               for x in aux]
        primals_out = [p for p, _ in pairs]
        out_nonzero = [type(t) is not Zero for _, t in pairs]
        closed = pe_trace.finish(lin_in, [t for _, t in pairs if type(t) is not Zero])
    finally:
        jvp_trace.invalidate()
        pe_trace.invalidate()
    # an integer output's tangent (IntegerTangentTracer) has its own integer type
    out_avals = [get_aval(t) if type(t) is not Zero and _has_integer_type(p)
                 else tangent_aval(get_aval(p)) for p, t in pairs]
    return Linearized(primals_out, aux, in_nonzero, out_nonzero, dce_jaxpr(closed), in_avals,
                      out_avals)


def linearize_jaxpr_of(fun, in_avals):
    """The jaxpr of a function already known to be linear: every input is unknown (for
    ``linear_transpose``)."""
    pe_trace = PartialEvalTrace(core.current_trace())
    ins = [pe_trace.new_arg(a) for a in in_avals]
    try:
        with core.set_current_trace(pe_trace):
            outs = fun(*ins)
        return dce_jaxpr(pe_trace.finish(ins, outs))
    finally:
        pe_trace.invalidate()


# ------------------------------------------------------------------------------------------------
# Transposition


def linear_input_type(x, aval):
    """``aval`` with the weak type of the linear input ``x`` where the two differ, else None.
    JAX types a transposed binder by the caller's accumulator: a weak binder standing for a
    strong cotangent (a loop's carry, a call's operand) transposes a convert to strong."""
    if (type(x) is UndefinedPrimal and isinstance(x.aval, ShapedArray)
            and isinstance(aval, ShapedArray) and x.aval.weak_type != aval.weak_type):
        return aval.update(weak_type=x.aval.weak_type)
    return None


def backward_pass(jaxpr, consts, args, cts_out, seeds=()):
    """Transposes the linear function ``jaxpr``: cotangents of the outputs to cotangents of
    the inputs given as ``UndefinedPrimal`` in ``args`` (other inputs are values; the result
    has None for them). Equations that do not depend on a linear input are evaluated first;
    then each linear equation, last to first, sends its output cotangents through its
    primitive's transpose rule. An equation no cotangent reaches is skipped, so symbolic zeros
    cost nothing (unless its primitive sets ``transpose_zero_cotangents``: custom_vjp's).
    ``seeds``: per input (None, or the inputs past its end, for none), a cotangent its sum
    starts from, before the outputs' (JAX's accumulator made with a value: a scan's running
    sum for a linear const), so the contributions are added to it in JAX's order.
    """
    env = {}
    linear = set()
    retyped = {}  # a linear input's binder typed as the caller's value (linear_input_type)

    def read(v):
        return core.literal_value(v) if type(v) is Literal else env[v]

    def undefined(v):
        return UndefinedPrimal(retyped.get(v, v.aval))

    for v, c in zip(jaxpr.constvars, consts):
        env[v] = c
    for v, a in zip(jaxpr.invars, args):
        if type(a) is UndefinedPrimal:
            linear.add(v)
            aval = linear_input_type(a, v.aval)
            if aval is not None:
                retyped[v] = aval
        else:
            env[v] = a
    linear_eqns = []
    for eqn in jaxpr.eqns:
        # custom_lin is a tangent op even on known (zero) tangents: transposed, never run
        if eqn.primitive.staged_when_known or any(
                type(v) is Var and v in linear for v in eqn.invars):
            linear_eqns.append(eqn)
            linear.update(eqn.outvars)
        else:
            outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
            for v, x in zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]):
                env[v] = x

    cts = {}

    def write(v, ct):
        if ct is None or type(ct) is Zero or type(v) is not Var or v not in linear:
            return
        ct_vma = getattr(get_aval(ct), "vma", None)
        if ct_vma and not ct_vma <= getattr(v.aval, "vma", ct_vma):
            # inside shard_map a cotangent may not vary where its value does not (a vmapped
            # cond's batched predicate varies: its transpose's select_n takes those axes);
            # JAX 0.10.2's backward pass checks each cotangent's type, in these words
            raise ValueError(f"Expected cotangent type {v.aval.str_short()} but got "
                             f"{get_aval(ct).str_short()}")
        prev = cts.get(v)
        cts[v] = ct if prev is None else add_tangents(prev, ct)

    for v, ct in zip(jaxpr.invars, seeds):
        write(v, ct)
    for v, ct in zip(jaxpr.outvars, cts_out):
        write(v, ct)
    for eqn in reversed(linear_eqns):
        ct_out = [cts.pop(v, None) for v in eqn.outvars]
        prim = eqn.primitive
        if all(ct is None for ct in ct_out) and not prim.transpose_zero_cotangents:
            continue
        if prim.transpose is None:
            # JAX 0.10.2 refuses it too, in these words
            raise NotImplementedError(with_user_line(
                f"Transpose rule (for reverse-mode differentiation) for '{prim.name}' not "
                "implemented", eqn.source_info))
        operands = [undefined(v) if type(v) is Var and v in linear else read(v)
                    for v in eqn.invars]
        if prim.multiple_results:
            ct = [Zero(v.aval) if c is None else c for v, c in zip(eqn.outvars, ct_out)]
        else:
            ct = ct_out[0]
        for v, ct_in in zip(eqn.invars, prim.transpose(ct, *operands, **eqn.params)):
            write(v, ct_in)
    return [cts.get(v, Zero(undefined(v).aval)) if type(a) is UndefinedPrimal else None
            for v, a in zip(jaxpr.invars, args)]


def transpose_jaxpr(closed, linear, ct_present, ct_types=None, res_types=None,
                    lin_types=None, seeded=()):
    """The transpose of ``closed`` (linear in the inputs marked ``linear``): inputs are
    (non-linear inputs..., cotangents of the outputs marked ``ct_present``...), outputs the
    cotangents of the linear inputs (zeros materialized). Returns ``(transposed, nonzero)``:
    ``nonzero[i]`` is False where linear input i's cotangent is a symbolic zero (a loop's
    fixed point on which carries have a cotangent reads it). ``ct_types``: the present
    cotangents' types where they are not the outputs' tangent types (a custom_vjp bwd may give
    another dtype, which JAX's transpose of a call passes on as it is). ``res_types``: the
    non-linear inputs' types where they are not the invars' (a strong value for a weak invar
    stays strong, as JAX traces a call's transpose at its operands' own types). ``lin_types``:
    per input, the type of its undefined primal where it is not the invar's (None: the
    invar's), as JAX types a linear binder as its caller's accumulator (a loop's carry binder
    as the carry cotangent, a call's operand as the caller's): see ``backward_pass``.
    ``seeded``: per input, whether its cotangent's sum starts from a value given as one more
    input after the cotangents (``backward_pass``'s seeds); ``nonzero`` then tells whether
    anything was added to it."""
    in_avals = closed.in_avals
    lin_avals = in_avals if lin_types is None else [
        a if t is None else t for a, t in zip(in_avals, lin_types)]
    res_avals = ([a for a, lin in zip(in_avals, linear) if not lin] if res_types is None
                 else list(res_types))
    ct_avals = [a for a, p in zip(closed.out_avals, ct_present) if p]
    if ct_types is None:
        ct_types = [tangent_aval(a) for a in ct_avals]
    n_res, n_ct = len(res_avals), len(ct_types)
    seeded = list(seeded) + [False] * (len(in_avals) - len(seeded))
    seed_types = [tangent_aval(a) for a, s in zip(lin_avals, seeded) if s]
    nonzero = []

    def fn(*args):
        it = iter(args[:n_res])
        operands = [UndefinedPrimal(a) if lin else next(it) for a, lin in zip(lin_avals, linear)]
        ict = iter(args[n_res:n_res + n_ct])
        cts = [next(ict) if p else Zero(tangent_aval(a))
               for a, p in zip(closed.out_avals, ct_present)]
        iseed = iter(args[n_res + n_ct:])
        seeds = [next(iseed) if s else None for s in seeded]
        in_cts = backward_pass(closed.jaxpr, closed.consts, operands, cts, seeds)
        in_cts = [(ct, seed) for ct, seed, lin in zip(in_cts, seeds, linear) if lin]
        nonzero[:] = [ct is not None and type(ct) is not Zero and ct is not seed
                      for ct, seed in in_cts]
        return [instantiate_zeros(ct) if nz else seed if seed is not None
                else zeros_like_aval(tangent_aval(a))
                for (ct, seed), nz, a in zip(in_cts, nonzero,
                                             [a for a, lin in zip(lin_avals, linear) if lin])]

    return trace_to_jaxpr(fn, res_avals + list(ct_types) + seed_types), list(nonzero)
