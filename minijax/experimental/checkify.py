"""``checkify``: errors from inside compiled programs, returned as values (JAX's
``jax.experimental.checkify``).

``check(pred, msg, *fmt_args, **fmt_kwargs)`` states that ``pred`` (a boolean array) holds
everywhere. Eagerly a failing check raises ``JaxRuntimeError`` at once. Staged (under ``jit``,
in a loop body...) there is no Python to raise into, so a check must be *functionalized*:
``checkify(f, errors=...)`` returns ``g`` with ``g(*args) == (err, f(*args))``, where ``err``
is an ``Error`` (a pytree, so it leaves ``jit`` like any output): ``err.get()`` is the first
failure's message (or None), ``err.throw()`` raises it.

How: ``f`` is traced to a jaxpr (a check is an ``effectful`` equation, so nothing drops it),
and the jaxpr is re-evaluated in whatever trace is current with an *error state* threaded
through: ``code`` (int32, 0 = no error, k = the k-th check site failed first) and, per user
check, its format arguments. Each site updates the state with selects, so the program stays
one XLA computation. ``cond``/``scan``/``while`` bodies that hold sites are rebuilt with the
public ``lax.switch``/``lax.scan``/``lax.while_loop`` carrying the state; call-like bodies
(``custom_jvp``/``custom_vjp``/``checkpoint``) holding sites are inlined (their custom
derivative rules do not survive the rewrite; checkify the differentiated function instead:
``checkify(grad(f))``).

``shard_map`` (so ``pmap``) bodies that hold sites are checkified inside a new ``shard_map``
whose extra outputs are each device's error state, stacked along a new leading axis split
over the manual mesh axes: from there on the Error is batched, one slot per device, and names
the failing device (``at mapped index k``) as JAX's does.

Error sets (``errors=``): ``user_checks`` (the ``check`` calls), ``nan_checks`` (a primitive
producing a NaN from non-NaN inputs), ``div_checks`` (a ``div`` by zero, of any dtype, as JAX checks it),
``index_checks`` (an out-of-bounds ``gather`` index in clip/promise modes, or a
``dynamic_slice``/``dynamic_update_slice`` start XLA would clamp: jnp indexing, ``.at``);
``float_checks`` = nan | div, ``automatic_checks`` = float | index, ``all_checks`` = all.
"""

from __future__ import annotations

import math
import threading

import numpy as np

from minijax import dtypes, lax
from minijax import numpy as jnp
from minijax.core import ClosedJaxpr, Literal, Primitive, get_aval, is_eval_trace_current
from minijax.interpreters import ad, batching
from minijax.interpreters.walk import sub_jaxprs
from minijax.jitting import jit
from minijax.lax.control_flow.common import vary_like
from minijax.lax.indexing import GatherScatterMode
from minijax.lowering.array import device_put_value
from minijax.numpy.creation import to_array
from minijax.shard_map import _all_axes_spec, _bind_like, _manual, _trace_body
from minijax.sharding import PartitionSpec as P
from minijax.source_info import with_user_line
from minijax.transforms.api import trace
from minijax.tree_util import _registry, register_pytree_node

__all__ = [
    "Error", "ErrorCategory", "JaxRuntimeError", "all_checks", "automatic_checks", "check",
    "check_error", "checkify", "debug_check", "div_checks", "float_checks", "index_checks",
    "init_error", "nan_checks", "user_checks",
]


class JaxRuntimeError(ValueError):
    """A failed ``check`` (raised eagerly, or by ``Error.throw()``)."""


# What an error set holds (JAX's are exception classes; minijax's are these names).
ErrorCategory = str

# The error categories, as frozensets so they combine with ``|`` as in JAX.
user_checks = frozenset({"user"})
nan_checks = frozenset({"nan"})
div_checks = frozenset({"div"})
index_checks = frozenset({"index"})
float_checks = nan_checks | div_checks
automatic_checks = float_checks | index_checks
all_checks = automatic_checks | user_checks

# While ``checkify`` traces a function, staged checks are expected (they will be rewritten);
# anywhere else a staged check could never report, so tracing one is an error.
_functionalizing = threading.local()


def _depth():
    return getattr(_functionalizing, "depth", 0)


# ------------------------------------------------------------------------------------------------
# The check primitive: check_p.bind(pred, *fmt_leaves, msg, fmt_tree) -> []

check_p = Primitive("check", multiple_results=True)
check_p.effectful = True  # no outputs: dead-code elimination must keep it


def _format(msg, fmt_tree, leaves):
    # Device arrays, as JAX formats them ("Array(nan, dtype=float32)"): chex matches on it.
    args, kwargs = fmt_tree.unflatten([device_put_value(np.asarray(x)) for x in leaves])
    try:
        text = msg.format(*args, **kwargs)
    except (IndexError, KeyError, ValueError):  # a template that does not match its arguments
        text = f"{msg} (format arguments: {args}, {kwargs})"
    return text + " (`check` failed)"  # JAX's wording for a user check


@check_p.def_abstract_eval
def _check_abstract_eval(pred, *fmt, msg, fmt_tree):
    if _depth() == 0:
        raise ValueError(with_user_line(
            f"checkify.check({msg!r}) was staged (inside jit, a loop or another traced "
            "function) without being functionalized: a staged check cannot raise. Wrap the "
            "function in checkify.checkify(...) and inspect the Error it returns, e.g. "
            "err, out = jit(checkify(f))(x); err.throw()."))
    return []


@check_p.def_impl
def _check_impl(pred, *fmt, msg, fmt_tree):
    if not np.all(np.asarray(pred)):
        raise JaxRuntimeError(_format(msg, fmt_tree, fmt))
    return []


def _check_lowering(ctx, *args, msg, fmt_tree):
    raise ValueError(f"checkify.check({msg!r}) reached lowering without being functionalized "
                     "by checkify.checkify.")


check_p.def_lowering(_check_lowering)


def _check_jvp(primals, tangents, *, msg, fmt_tree):
    check_p.bind(*primals, msg=msg, fmt_tree=fmt_tree)
    return [], []


ad.primitive_jvps[check_p] = _check_jvp
ad.primitive_transposes[check_p] = lambda cts, *args, **params: [None] * len(args)


def _check_batching(vals, dims, *, msg, fmt_tree):
    # the predicate must hold for every example: any batch axis position will do for `all`;
    # format arguments carry the batch axis in front so a message can show each example's
    size = batching.axis_size(vals, dims)
    vals = [batching.bdim_at_front(v, d, size) for v, d in zip(vals, dims)]
    check_p.bind(*vals, msg=msg, fmt_tree=fmt_tree)
    return [], []


check_p.def_batching(_check_batching)


def check(pred, msg, *fmt_args, **fmt_kwargs):
    """Asserts that the boolean array ``pred`` is True everywhere; ``msg`` is formatted with
    ``fmt_args``/``fmt_kwargs`` (``str.format``) when it is not. See the module docstring."""
    pred = to_array(pred)
    if pred.dtype != np.bool_:
        raise TypeError(with_user_line(
            f"checkify.check needs a boolean predicate, got dtype {pred.dtype}."))
    if not isinstance(msg, str):
        raise TypeError(with_user_line(
            f"checkify.check needs a str message, got {type(msg).__name__}."))
    leaves, tree = _registry.flatten((fmt_args, fmt_kwargs))
    check_p.bind(pred, *[to_array(x) for x in leaves], msg=msg, fmt_tree=tree)


def debug_check(pred, msg, *fmt_args, **fmt_kwargs):
    """``check`` while ``checkify`` functionalizes the function; anywhere else (eagerly,
    under a plain ``jit``) nothing at all."""
    if _depth() > 0:
        check(pred, msg, *fmt_args, **fmt_kwargs)


def check_error(error):
    """Raises ``error``'s failure (as ``Error.throw``), in a way ``checkify`` can
    functionalize again: under ``checkify(f)`` the failure becomes part of f's Error."""
    if not isinstance(error, Error):
        raise TypeError(f"check_error takes an Error, got {type(error).__name__}.")
    if is_eval_trace_current():
        error.throw()
        return

    error = _reduce_slots(error, jnp)
    # one check per site the error can name: "the code is not this site's"
    for k, (site, payload) in enumerate(zip(error._sites, error._payloads), start=1):
        if site.fmt_tree is None:  # an automatic check: its message is not a template
            msg = site.msg.replace("{", "{{").replace("}", "}}")
            check(jnp.not_equal(error._code, k), msg)
        else:
            check_p.bind(jnp.not_equal(error._code, k), *payload, msg=site.msg,
                         fmt_tree=site.fmt_tree)


# ------------------------------------------------------------------------------------------------
# Error: the value checkify returns


class _Site:
    """One place that can fail: a user check (with its format arguments' tree) or an
    automatic check (a fixed message); ``kind`` is its error category."""

    __slots__ = ("msg", "kind", "fmt_tree", "payload_avals")

    def __init__(self, msg, kind, fmt_tree=None, payload_avals=()):
        self.msg, self.kind = msg, kind
        self.fmt_tree, self.payload_avals = fmt_tree, tuple(payload_avals)

    def effect(self):
        """JAX keeps one error state per error type and payload type (its error effects);
        a batched error is reduced per effect (``_reduce_slots``)."""
        return self.kind, tuple((a.shape, a.dtype) for a in self.payload_avals)

    def message(self, payload):
        if self.fmt_tree is None:
            return self.msg
        return _format(self.msg, self.fmt_tree, payload)


class Error:
    """The outcome of a checkified call: ``get()`` -> the first failure's message or None;
    ``throw()`` raises it as ``JaxRuntimeError``. Under ``vmap``, and after a ``shard_map`` or
    ``pmap`` (one slot per device), the error is batched: ``get()`` names the first failing
    slot (``at mapped index``); ``throw()`` raises one slot's failure as JAX does (per kind of
    error the last failing slot, of those the earliest check)."""

    def __init__(self, code, payloads, sites):
        self._code = code
        self._payloads = payloads  # one list of arrays per site
        self._sites = sites

    def get(self):
        code = np.asarray(self._code)
        if not code.any():
            return None
        if code.ndim == 0:
            site = int(code)
            return self._sites[site - 1].message(self._payloads[site - 1])
        where = tuple(int(i) for i in np.argwhere(code != 0)[0])
        site = int(code[where])
        payload = [np.asarray(p)[where] for p in self._payloads[site - 1]]
        index = ", ".join(map(str, where))
        return f"at mapped index {index}: {self._sites[site - 1].message(payload)}"

    def get_exception(self):
        msg = self.get()
        return None if msg is None else JaxRuntimeError(msg)

    def throw(self):
        # as JAX's: a batched error raises one slot's failure (see _reduce_slots), unprefixed
        exc = _reduce_slots(self, np).get_exception()
        if exc is not None:
            raise exc

    def __repr__(self):
        msg = self.get()
        return "Error(no error)" if msg is None else f"Error({msg})"

    __str__ = __repr__


def _flatten_error(err):
    sizes = tuple(len(p) for p in err._payloads)
    leaves = [err._code] + [x for p in err._payloads for x in p]
    return leaves, (sizes, err._sites)


def _unflatten_error(aux, leaves):
    sizes, sites = aux
    leaves = list(leaves)
    payloads, at = [], 1
    for n in sizes:
        payloads.append(leaves[at:at + n])
        at += n
    return Error(leaves[0], payloads, sites)


register_pytree_node(Error, _flatten_error, _unflatten_error)


def _reduce_slots(error, xp):
    """A batched ``error`` reduced to one slot with JAX's rule (its ``_reduce_any_error``):
    for each error effect the last slot whose failure is of that effect, and of those the one
    with the lowest site number. ``xp``: ``np`` for concrete values, ``jnp`` under a trace."""
    batch = tuple(np.shape(error._code))
    if not batch:
        return error
    n = math.prod(batch)
    code = xp.reshape(error._code, (n,))
    effects = {}
    for k, site in enumerate(error._sites, start=1):
        effects.setdefault(site.effect(), []).append(k)
    best, at = xp.zeros((), np.int32), xp.zeros((), np.int32)
    for site_nos in effects.values():
        hit = xp.any(code[:, None] == xp.asarray(site_nos, np.int32)[None, :], axis=1)
        last = (n - 1 - xp.argmax(hit[::-1])).astype(np.int32)
        c = xp.where(xp.any(hit), code[last], 0).astype(np.int32)
        take = (c != 0) & ((best == 0) | (c < best))
        best, at = xp.where(take, c, best), xp.where(take, last, at)
    payloads = [[xp.reshape(p, (n,) + tuple(np.shape(p)[len(batch):]))[at] for p in ps]
                for ps in error._payloads]
    return Error(best, payloads, error._sites)

init_error = Error(np.int32(0), [], ())  # no site, no failure: the empty error


# ------------------------------------------------------------------------------------------------
# Finding the sites


def _nested(params):
    return [j for _, j in sub_jaxprs(params)]


def _eqns_of(j):
    return (j.jaxpr if isinstance(j, ClosedJaxpr) else j).eqns


def _where(eqn):
    return f" at {eqn.source_info}" if eqn.source_info is not None else ""


_NAN_SKIP = {"check", "cond", "scan", "while", "custom_jvp_call", "custom_vjp_call",
             "remat2", "shard_map", "debug_callback", "pure_callback", "jit"}


def _site_of(eqn, errors):
    name = eqn.primitive.name
    if name == "check":
        if "user" in errors:
            return _Site(eqn.params["msg"], "user", eqn.params["fmt_tree"],
                         [v.aval for v in eqn.invars[1:]])
        return None
    if "div" in errors and name == "div":
        return _Site(f"division by zero{_where(eqn)}", "div")
    if "index" in errors and name in ("dynamic_slice", "dynamic_update_slice"):
        return _Site(f"out-of-bounds indexing{_where(eqn)}: a {name} of an array of shape "
                     f"{tuple(eqn.invars[0].aval.shape)} started outside it", "index")
    if "index" in errors and name == "gather":
        if eqn.params["mode"] != GatherScatterMode.FILL_OR_DROP:
            return _Site(f"out-of-bounds indexing{_where(eqn)}: a gather from an array of "
                         f"shape {tuple(eqn.invars[0].aval.shape)} read outside it", "index")
        return None
    if ("nan" in errors and name not in _NAN_SKIP
            and any(dtypes.is_inexact(v.aval.dtype) for v in eqn.outvars)):
        return _Site(f"nan generated by primitive: {name}{_where(eqn)}", "nan")
    return None


def _collect_sites(jaxpr, errors, sites, index):
    """Numbers (from 1, program order) every site in ``jaxpr`` and the jaxprs nested in it."""
    for eqn in _eqns_of(jaxpr):
        site = _site_of(eqn, errors)
        if site is not None:
            sites.append(site)
            index[id(eqn)] = len(sites)
        for sub in _nested(eqn.params):
            _collect_sites(sub, errors, sites, index)


def _holds_site(jaxpr, index):
    return any(id(e) in index or any(_holds_site(s, index) for s in _nested(e.params))
               for e in _eqns_of(jaxpr))


# ------------------------------------------------------------------------------------------------
# Re-evaluating with the error state threaded through


class _Checkifier:
    """Evaluates jaxprs under the current trace, updating the error state
    ``[code, *payload leaves of every site]`` at each site."""

    def __init__(self, sites, index):
        self.sites, self.index = sites, index
        self.offsets, at = [], 1
        for s in sites:
            self.offsets.append(at)
            at += len(s.payload_avals)
        self.size = at

    def initial_state(self):
        state = [lax.full((), 0, np.int32)]
        for s in self.sites:
            state += [lax.full(a.shape, 0, a.dtype) for a in s.payload_avals]
        return state

    def record(self, state, site_no, failed, payload=()):
        """The state after site ``site_no`` evaluated ``failed``: the first failure wins."""
        # After a shard_map the state is per device (a leading axis per mapping, see
        # run_shard_map): a failure here is recorded in every slot still free of one.
        code = state[0]
        batch = tuple(code.shape)
        first = lax.bitwise_and(lax.eq(code, lax.full_like(code, 0)), _lead(failed, batch))
        state = list(state)
        state[0] = lax.select(first, lax.full_like(code, site_no), code)
        at = self.offsets[site_no - 1]
        for i, new in enumerate(payload):
            old = state[at + i]
            state[at + i] = lax.select(_trail(first, old.shape), _lead(new, old.shape), old)
        return state

    def run(self, jaxpr, consts, args, state):
        env = {}

        def read(v):
            return v.val if type(v) is Literal else env[v]

        closed = jaxpr if isinstance(jaxpr, ClosedJaxpr) else ClosedJaxpr(jaxpr, consts)
        for v, x in zip(closed.jaxpr.constvars, closed.consts):
            env[v] = x
        for v, x in zip(closed.jaxpr.invars, args):
            env[v] = x
        for eqn in closed.jaxpr.eqns:
            ins = [read(v) for v in eqn.invars]
            site_no = self.index.get(id(eqn))
            if eqn.primitive is check_p:
                if site_no is not None:
                    state = self.record(state, site_no, _not_all(ins[0]), ins[1:])
                continue
            if any(_holds_site(s, self.index) for s in _nested(eqn.params)):
                outs, state = self.run_nested(eqn, ins, state)
            else:
                outs = eqn.primitive.bind(*ins, **eqn.params)
                if not eqn.primitive.multiple_results:
                    outs = [outs]
            if site_no is not None:
                state = self.record(state, site_no, _failed(eqn, ins, outs))
            for v, x in zip(eqn.outvars, outs):
                env[v] = x
        return [read(v) for v in closed.jaxpr.outvars], state

    def run_nested(self, eqn, ins, state):
        name, p = eqn.primitive.name, eqn.params
        if name in ("cond", "scan", "while"):
            # a shard_map inside gives the state a slot axis: the branches' states, and a
            # loop's state in and out, must agree, so they are widened to the shape they reach
            batch = self.batch_after_eqn(eqn, tuple(state[0].shape))
            if name != "cond":
                state = _widen(state, batch)
            # inside shard_map a check may record values that vary over manual axes: the state
            # enters typed as varying as the operands, so the branches' and the loop's agree
            state = vary_like(state, ins)
        if name == "cond":
            def branch(b):
                def run(ops, st):
                    outs, st = self.run(b, (), ops, st)
                    return outs, _widen(st, batch)

                return run

            return lax.switch(ins[0], [branch(b) for b in p["branches"]], list(ins[1:]), state)
        if name == "scan":
            nc, nk = p["num_consts"], p["num_carry"]
            consts, init, xs = ins[:nc], ins[nc:nc + nk], ins[nc + nk:]

            def body(carry, x):
                c, st = carry
                outs, st = self.run(p["jaxpr"], (), [*consts, *c, *x], st)
                return (outs[:nk], st), outs[nk:]

            (carry, state), ys = lax.scan(body, (list(init), state), list(xs),
                                          length=p["length"], reverse=p["reverse"])
            return [*carry, *ys], state
        if name == "while":
            ncc, nbc = p["cond_nconsts"], p["body_nconsts"]
            cconsts, bconsts, init = ins[:ncc], ins[ncc:ncc + nbc], ins[ncc + nbc:]
            cond_j, body_j = p["cond_jaxpr"], p["body_jaxpr"]

            def cond_fun(carry):
                c, st = carry
                return self.run(cond_j, (), [*cconsts, *c], st)[0][0]

            def body_fun(carry):
                c, st = carry
                _, st = self.run(cond_j, (), [*cconsts, *c], st)  # the predicate's own checks
                outs, st = self.run(body_j, (), [*bconsts, *c], st)
                return list(outs), st

            carry, state = lax.while_loop(cond_fun, body_fun, (list(init), state))
            _, state = self.run(cond_j, (), [*cconsts, *carry], state)  # the final, False test
            return list(carry), state
        if name == "shard_map":
            return self.run_shard_map(p, ins, state)
        subs = _nested(p)
        if name in ("custom_jvp_call", "custom_vjp_call", "remat2", "jit") and subs:
            body = subs[0]
            body_j = body.jaxpr if isinstance(body, ClosedJaxpr) else body
            if len(body_j.invars) == len(ins):
                return self.run(body, (), ins, state)
        # internal guard (no JAX 0.10.2 twin): every public nested-jaxpr primitive is handled
        raise NotImplementedError(with_user_line(
            f"checkify cannot functionalize checks inside a '{name}' equation; move the check "
            f"out of it, or checkify the function it calls."))

    def run_shard_map(self, params, ins, state):
        """The body checkified inside a new shard_map whose extra outputs are each device's
        error state, stacked along a new leading axis split over the manual mesh axes: the
        state leaves it batched, one slot per device, as in JAX. The state enters replicated, so a failure before the shard_map
        is every device's; a state already holding a slot per device enters split (one
        slot each), so consecutive shard_maps over the same devices keep one slot each."""
        manual = _manual(params)
        slots_spec = _all_axes_spec(manual)
        split = tuple(state[0].shape[:1]) == (_devices(params),)
        jaxpr, ns = params["jaxpr"], len(state)

        def body(*xs):
            st = [lax.squeeze(x, (0,)) if split else x for x in xs[:ns]]
            outs, st = self.run(jaxpr, (), xs[ns:], st)
            return [lax.expand_dims(x, (0,)) for x in st] + list(outs)

        state_avals = [get_aval(x) for x in state]
        if split:
            state_avals = [a.update(shape=(1,) + a.shape[1:]) for a in state_avals]
        body_jaxpr, consts = _trace_body(manual, body, state_avals
                                         + [v.aval for v in jaxpr.invars])
        outs = _bind_like(params, body_jaxpr, consts, [*state, *ins],
                          [slots_spec if split else P()] * ns + list(params["in_specs"]),
                          [slots_spec] * ns + list(params["out_specs"]))
        return outs[ns:], outs[:ns]

    def batch_after(self, jaxpr, batch):
        """The error state's batch shape (``code.shape``) after ``jaxpr`` runs from ``batch``
        (what ``run_shard_map`` makes of it, through any control flow)."""
        for eqn in _eqns_of(jaxpr):
            if any(_holds_site(s, self.index) for s in _nested(eqn.params)):
                batch = self.batch_after_eqn(eqn, batch)
        return batch

    def batch_after_eqn(self, eqn, batch):
        name, subs = eqn.primitive.name, _nested(eqn.params)
        if name == "shard_map":
            n = _devices(eqn.params)
            return batch if batch[:1] == (n,) else (n,) + batch
        if name == "cond":
            return _widest([self.batch_after(b, batch) for b in subs], eqn)
        if name in ("scan", "while"):
            for _ in range(4):  # the shape one iteration maps the carry's state to, until fixed
                new = batch
                for sub in subs:
                    new = self.batch_after(sub, new)
                if new == batch:
                    return batch
                batch = _widest([batch, new], eqn)
            raise ValueError(with_user_line(
                "checkify: the error state of this loop gains a slot axis on every iteration "
                "(shard_maps over meshes of different sizes in its body); checkify the "
                "loop's body instead.", eqn.source_info))
        return self.batch_after(subs[0], batch)  # a call-like body, inlined by run_nested


def _devices(params):
    """How many devices a shard_map's body runs on (the product of its manual axes)."""
    return math.prod(_manual(params).shape.values())


def _widest(batches, eqn):
    """The longest of ``batches`` (error state shapes that paths through ``eqn`` reach),
    each of which must end like it (slot axes are leading)."""
    wide = max(batches, key=len)
    if any(wide[len(wide) - len(b):] != b for b in batches):
        raise ValueError(with_user_line(
            f"checkify: the paths through this '{eqn.primitive.name}' leave the error state "
            f"with per-device slots of different meshes ({', '.join(map(str, batches))}); checkify "
            "the branches instead.", eqn.source_info))
    return wide


def _widen(state, batch):
    """The error state with new leading slot axes up to ``batch`` (each slot a copy)."""
    have = state[0].ndim
    return [_lead(x, tuple(batch) + tuple(x.shape[have:])) for x in state]


def _lead(x, shape):
    """``x`` broadcast to ``shape`` by new leading axes (a value per error slot)."""
    if tuple(x.shape) == tuple(shape):
        return x
    return lax.broadcast_in_dim(x, tuple(shape), tuple(range(len(shape) - x.ndim, len(shape))))


def _trail(x, shape):
    """``x`` broadcast to ``shape`` by new trailing axes (a slot's flag over its payload)."""
    if tuple(x.shape) == tuple(shape):
        return x
    return lax.broadcast_in_dim(x, tuple(shape), tuple(range(x.ndim)))


def _not_all(pred):
    return lax.bitwise_not(lax.reduce_and(pred, tuple(range(pred.ndim))))


def _failed(eqn, ins, outs):
    """Whether the automatic check at ``eqn`` fails (a scalar bool)."""
    name = eqn.primitive.name
    if name == "div":
        return jnp.any(ins[1] == 0)
    if name in ("dynamic_slice", "dynamic_update_slice"):
        # starts arrive wrapped (negative counts from the end); XLA would clamp the rest
        operand = ins[0]
        if name == "dynamic_slice":
            sizes, starts = eqn.params["slice_sizes"], ins[1:]
        else:
            sizes, starts = tuple(ins[1].shape), ins[2:]
        bad = jnp.zeros((), bool)
        for start, n, size in zip(starts, operand.shape, sizes):
            bad = bad | (start < 0) | (start > n - size)
        return bad
    if name == "gather":
        operand, indices = ins[0], ins[1]
        dn, sizes = eqn.params["dimension_numbers"], eqn.params["slice_sizes"]
        bad = jnp.zeros((), bool)
        for k, axis in enumerate(dn.start_index_map):
            col = indices[..., k]
            hi = operand.shape[axis] - sizes[axis]
            bad = bad | jnp.any((col < 0) | (col > hi))
        return bad
    out_nan = jnp.zeros((), bool)
    for v, x in zip(eqn.outvars, outs):
        if dtypes.is_inexact(v.aval.dtype):
            out_nan = out_nan | jnp.any(jnp.isnan(x))
    in_nan = jnp.zeros((), bool)
    for v, x in zip(eqn.invars, ins):
        if dtypes.is_inexact(v.aval.dtype):
            in_nan = in_nan | jnp.any(jnp.isnan(x))
    return out_nan & ~in_nan


# ------------------------------------------------------------------------------------------------
# checkify


def checkify(f, errors=user_checks):
    """``f`` returning ``(Error, f's output)``; see the module docstring."""
    errors = frozenset(errors)
    unknown = errors - all_checks
    if unknown:
        raise ValueError(f"checkify: unknown error categories {sorted(unknown)}; use "
                         "user_checks, nan_checks, div_checks, index_checks or their unions.")

    def staged(*args, **kwargs):
        _functionalizing.depth = _depth() + 1
        try:
            closed, leaves, out_tree = trace(f, args, kwargs)
        finally:
            _functionalizing.depth -= 1
        sites, index = [], {}
        _collect_sites(closed, errors, sites, index)
        runner = _Checkifier(sites, index)
        outs, state = runner.run(closed, (), list(leaves), runner.initial_state())
        payloads = [state[at:at + len(s.payload_avals)]
                    for at, s in zip(runner.offsets, sites)]
        return Error(state[0], payloads, tuple(sites)), out_tree.unflatten(outs)

    def checked(*args, **kwargs):
        if is_eval_trace_current():
            # eagerly: one compiled program per signature instead of op-by-op dispatch

            return jit(staged)(*args, **kwargs)
        return staged(*args, **kwargs)

    checked.__name__ = f"checkify({getattr(f, '__name__', 'f')})"
    checked.__doc__ = getattr(f, "__doc__", None)
    return checked

