"""``custom_linear_solve`` (``linear_solve_p``) and ``custom_root``: solves differentiated
implicitly at the solution, never through the solver.

``linear_solve_p.bind(*consts, *b, const_lengths=..., jaxprs=...)`` carries four closed jaxprs
(``matvec``, its transpose ``vecmat``, ``solve``, ``transpose_solve``; the last two may be
None), each taking its own hoisted constants then the vector. It runs ``solve``. Its JVP is
``dx = solve(db - dA x)``, its transpose in ``b`` the same primitive on the transposed tuple,
so derivatives of any order are solves again, as in JAX.

``custom_root`` is a ``custom_jvp`` function (as JAX's) whose rule solves the tangent system
with the user's ``tangent_solve`` at the root (the implicit function theorem). ``custom_jvp``
lives a layer above lax: its class is handed to ``CUSTOM_JVP`` when ``minijax`` is imported.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import numpy as np

from minijax.caches import BoundedCache
from minijax.core import ClosedJaxpr, Primitive, get_aval, jaxpr_as_fun
from minijax.interpreters import ad, batching
from minijax.interpreters.batching import not_mapped
from minijax.interpreters.partial_eval import dce_jaxpr, hoist_consts, trace_to_jaxpr
from minijax.lax.control_flow import common
from minijax.lax.elementwise import neg
from minijax.lowering.stablehlo import lower_closed_jaxpr
from minijax.tree_util import _registry, tree_leaves
from minijax.lax import sharding_rules

__all__ = ["custom_linear_solve", "custom_root", "linear_solve_p"]

# minijax.custom_derivatives.custom_jvp, filled in at minijax's import (it imports lax)
CUSTOM_JVP: list = []


# ------------------------------------------------------------------------------------------------
# Tracing and checking the user's functions


def _trace(fun, in_tree, in_avals):
    """``fun`` (one pytree argument) as a closed jaxpr taking (consts..., leaves...)."""
    args_tree = _registry.flatten((in_tree.unflatten(in_avals),))[1]
    closed, consts, out_tree = common.trace_user_fun(fun, args_tree, in_avals)
    return closed, list(consts), out_tree


def _check_tree(func_name, expected_name, actual_tree, expected_tree, has_aux=False):
    if has_aux:
        children = actual_tree.children()
        if len(children) != 2:
            raise ValueError(
                f"{func_name}() produced a pytree with structure {actual_tree}, but a pytree "
                "tuple with auxiliary output was expected because has_aux was set to True.")
        actual_tree = children[0]
    if actual_tree != expected_tree:
        raise TypeError(f"{func_name}() output pytree structure must match {expected_name}, "
                        f"got {actual_tree} and {expected_tree}.")


def _check_shapes(func_name, expected_name, actual, expected):
    actual_shapes = [np.shape(x) for x in actual]
    expected_shapes = [np.shape(x) for x in expected]
    if actual_shapes != expected_shapes:
        raise ValueError(f"{func_name}() output shapes must match {expected_name}, "
                         f"got {actual_shapes} and {expected_shapes}")


def _shape_checked(fun, name, b_leaves, has_aux):
    def checked(x):
        out = fun(x)
        _check_shapes(name, "b", tree_leaves(out[0] if has_aux else out), b_leaves)
        return out

    return checked


def _split(args, lengths):
    out, at = [], 0
    for n in lengths:
        out.append(list(args[at:at + n]))
        at += n
    return out, list(args[at:])


def _flatten(groups):
    return [x for g in groups for x in g]


# ------------------------------------------------------------------------------------------------
# custom_linear_solve


class _LinearSolveTuple(tuple):
    """(matvec, vecmat, solve, transpose_solve), JAX's named tuple, built from one iterable as
    a plain tuple is, so the jaxpr walkers rebuild it like any tuple param."""

    __slots__ = ()
    _fields = ("matvec", "vecmat", "solve", "transpose_solve")
    matvec = property(lambda self: self[0])
    vecmat = property(lambda self: self[1])
    solve = property(lambda self: self[2])
    transpose_solve = property(lambda self: self[3])

    def transpose(self):
        return type(self)((self.vecmat, self.matvec, self.transpose_solve, self.solve))

    def __repr__(self):
        return "_LinearSolveTuple(" + ", ".join(
            f"{k}={v!r}" for k, v in zip(self._fields, self)) + ")"


def _split_linear_solve_args(args, const_lengths):
    groups, b = _split(args, const_lengths)
    return _LinearSolveTuple(groups), b


def _as_fun(closed, consts, tree):
    """The pytree function ``y -> closed(*consts, *leaves(y))``."""
    return lambda y: tree.unflatten(jaxpr_as_fun(closed)(*consts, *_registry.flatten(y)[0]))


def _vecmat_jaxpr(matvec, tree, b_avals):
    """The transpose of ``matvec`` (linear in its vector inputs): (consts..., y...) -> x.
    ``matvec`` is traced again as JAX's ``linear_transpose`` traces it, without forwarding (a
    broadcast to its operand's shape transposes to ``reduce_sum[axes=()]``, as in JAX's
    ``jnp.linalg.solve``); its constants are the first trace's, the same values in the same
    order."""
    def flat(*leaves):
        return _registry.flatten(matvec(tree.unflatten(leaves)))[0]
    traced = trace_to_jaxpr(flat, list(b_avals), forwards=False)
    jaxpr, _ = hoist_consts(traced)
    n_consts = len(traced.consts)
    linear = [False] * n_consts + [True] * len(b_avals)
    transposed, _ = ad.transpose_jaxpr(ClosedJaxpr(jaxpr, []), linear, [True] * len(b_avals))
    return transposed, list(traced.consts)


def custom_linear_solve(matvec, b, solve, transpose_solve=None, symmetric=False,
                        has_aux=False):
    """``solve(matvec, b)``, differentiated assuming its result ``x`` satisfies
    ``matvec(x) == b`` (implicitly, never through ``solve``), as JAX's."""
    if transpose_solve is None and symmetric:
        transpose_solve = solve
    b_leaves, tree = _registry.flatten(b)
    b_avals = [get_aval(x) for x in b_leaves]

    matvec_jaxpr, matvec_consts, out_tree = _trace(
        _shape_checked(matvec, "matvec", b_leaves, False), tree, b_avals)
    _check_tree("matvec", "b", out_tree, tree, False)

    solve_jaxpr, solve_consts, out_tree = _trace(
        _shape_checked(functools.partial(solve, matvec), "solve", b_leaves, has_aux), tree,
        b_avals)
    _check_tree("solve", "b", out_tree, tree, has_aux)

    if transpose_solve is None:
        vecmat_jaxpr = tr_solve_jaxpr = None
        vecmat_consts, tr_solve_consts = [], []
    else:
        if symmetric:
            vecmat, vecmat_jaxpr, vecmat_consts = matvec, matvec_jaxpr, matvec_consts
        else:
            vecmat_jaxpr, vecmat_consts = _vecmat_jaxpr(matvec, tree, b_avals)
            vecmat = _as_fun(vecmat_jaxpr, vecmat_consts, tree)
        tr_solve_jaxpr, tr_solve_consts, out_tree = _trace(
            _shape_checked(functools.partial(transpose_solve, vecmat), "transpose_solve",
                           b_leaves, has_aux), tree, b_avals)
        _check_tree("transpose_solve", "b", out_tree, tree, has_aux)

    all_consts = [matvec_consts, vecmat_consts, solve_consts, tr_solve_consts]
    const_lengths = _LinearSolveTuple(map(len, all_consts))
    jaxprs = _LinearSolveTuple((matvec_jaxpr, vecmat_jaxpr, solve_jaxpr, tr_solve_jaxpr))
    outs = linear_solve_p.bind(*_flatten(all_consts), *b_leaves, const_lengths=const_lengths,
                               jaxprs=jaxprs)
    return out_tree.unflatten(outs)


linear_solve_p = Primitive("custom_linear_solve", multiple_results=True)
linear_solve_p.own_memory_space = True  # its results are its solve's


@linear_solve_p.def_abstract_eval
def _linear_solve_abstract_eval(*args, const_lengths, jaxprs):
    outs = list(args[sum(const_lengths):])
    num_aux = len(jaxprs.solve.out_avals) - len(jaxprs.matvec.out_avals)
    if num_aux > 0:
        outs += list(jaxprs.solve.out_avals[-num_aux:])
    return outs


@linear_solve_p.def_lowering
def _linear_solve_lowering(ctx, *args, const_lengths, jaxprs):
    params, b = _split_linear_solve_args(args, const_lengths)
    return lower_closed_jaxpr(ctx.module_ctx, dce_jaxpr(jaxprs.solve), params.solve + b)


def _tangent_linear_map(closed, params, params_dot, x):
    """``dA x`` for ``closed(*params, *x) = A x``: the JVP in the params alone."""
    zeros = [ad.Zero.from_primal_value(v) for v in x]
    _, out = ad.jvp_flat(jaxpr_as_fun(closed), list(params) + list(x),
                         list(params_dot) + zeros)
    return out


def _linear_solve_jvp(primals, tangents, *, const_lengths, jaxprs):
    # A x = b  =>  dA x + A dx = db  =>  dx = A^-1 (db - dA x)
    kwargs = dict(const_lengths=const_lengths, jaxprs=jaxprs)
    x = linear_solve_p.bind(*primals, **kwargs)
    params, _ = _split_linear_solve_args(primals, const_lengths)
    params_dot, b_dot = _split_linear_solve_args(tangents, const_lengths)
    n = len(b_dot)
    x_leaves = x[:n]
    if all(type(p) is ad.Zero for p in params_dot.matvec):
        rhs = b_dot
    else:
        mt = _tangent_linear_map(jaxprs.matvec, params.matvec, params_dot.matvec, x_leaves)
        rhs = [ad.add_tangents(db, t if type(t) is ad.Zero else neg(t))
               for db, t in zip(b_dot, mt)]
    if all(type(r) is ad.Zero for r in rhs):
        return x, [ad.Zero.from_primal_value(v) for v in x]
    rhs = [ad.instantiate_zeros(r) for r in rhs]
    x_dot = linear_solve_p.bind(*_flatten(params), *rhs, **kwargs)
    return x, x_dot[:n] + [ad.Zero.from_primal_value(v) for v in x[n:]]


ad.primitive_jvps[linear_solve_p] = _linear_solve_jvp


def _linear_solve_transpose(cts, *primals, const_lengths, jaxprs):
    if jaxprs.transpose_solve is None:
        raise TypeError("transpose_solve required for backwards mode automatic "
                        "differentiation of custom_linear_solve")
    params, b = _split_linear_solve_args(primals, const_lengths)
    if any(ad.is_undefined_primal(x) for xs in params for x in xs):
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("open an issue at https://github.com/google/jax !!")
    x_ct, other_cts = cts[:len(b)], cts[len(b):]
    if any(type(ct) is not ad.Zero for ct in other_cts):
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("open an issue at https://github.com/google/jax !!")
    b_ct = linear_solve_p.bind(*_flatten(params.transpose()),
                               *[ad.instantiate_zeros(ct) for ct in x_ct],
                               const_lengths=const_lengths.transpose(),
                               jaxprs=jaxprs.transpose())
    return [None] * sum(const_lengths) + b_ct[:len(b)]


ad.primitive_transposes[linear_solve_p] = _linear_solve_transpose


_batch_cache = BoundedCache()


def _batch(closed, axis_data, in_b, force):
    """``closed`` batched, once per jaxpr and batching, as JAX's cached ``batch_jaxpr``: the
    forward and transposed solves of a vmapped grad then share their batched jaxprs (printed
    once, as ``let jaxpr = ... in``)."""
    if closed is None:
        return None, None
    key = (closed, axis_data, tuple(in_b), tuple(force))
    try:
        hash(key)
    except TypeError:
        return batching.batch_jaxpr(closed, axis_data, in_b, force)
    cached = _batch_cache.get(key)
    if cached is None:
        cached = _batch_cache.put(key, batching.batch_jaxpr(closed, axis_data, in_b, force))
    return cached


@batching.needs_axis_data
def _linear_solve_batching(axis_data, args, dims, *, const_lengths, jaxprs):
    """JAX's fixed point: which parts of x and b are batched must agree across all four
    jaxprs (solve and vecmat map b to x, matvec and transpose_solve x to b)."""
    orig_bat = [d is not not_mapped for d in dims]
    params, b = _split_linear_solve_args(args, const_lengths)
    params_dims, b_dims = _split_linear_solve_args(dims, const_lengths)
    params_bat, orig_b_bat = _split_linear_solve_args(orig_bat, const_lengths)
    matvec, vecmat, solve, solve_t = jaxprs
    n_op = len(matvec.out_avals)
    num_aux = len(solve.out_avals) - n_op
    b_bat = orig_b_bat
    x_bat = [False] * len(solve.out_avals)
    for _ in range(1 + len(orig_b_bat) + len(solve.out_avals)):
        solve_b, solve_x_bat = _batch(solve, axis_data, params_bat.solve + b_bat, x_bat)
        if vecmat is None:
            vecmat_b, x_bat_out = None, solve_x_bat
        else:
            vecmat_b, vecmat_x_bat = _batch(vecmat, axis_data, params_bat.vecmat + b_bat,
                                            b_bat)
            x_bat_out = [a or c for a, c in zip(vecmat_x_bat + [True] * num_aux, solve_x_bat)]
        x_bat_noaux = x_bat_out[:n_op]
        matvec_b, matvec_b_bat = _batch(matvec, axis_data, params_bat.matvec + x_bat_noaux,
                                        b_bat)
        if solve_t is None:
            solve_t_b = None
            b_bat_out = [m or o for m, o in zip(matvec_b_bat, orig_b_bat)]
        else:
            solve_t_b, solve_t_bat = _batch(solve_t, axis_data,
                                            params_bat.transpose_solve + x_bat_noaux, x_bat_out)
            b_bat_out = [m or s or o for m, s, o in
                         zip(matvec_b_bat, solve_t_bat[:len(orig_b_bat)], orig_b_bat)]
        if x_bat_out == x_bat and b_bat_out == b_bat:
            break
        x_bat, b_bat = x_bat_out, b_bat_out
    else:
        raise AssertionError("custom_linear_solve batching: no fixed point")
    batched = _LinearSolveTuple((matvec_b, vecmat_b, solve_b, solve_t_b))
    size = axis_data.size
    new_params = [common.to_batched(x, d, d is not not_mapped, size)
                  for x, d in zip(_flatten(params), _flatten(params_dims))]
    new_b = [batching.bdim_at_front(x, d, size) if now else x
             for x, d, now in zip(b, b_dims, b_bat)]
    outs = linear_solve_p.bind(*new_params, *new_b, const_lengths=const_lengths,
                               jaxprs=batched)
    return outs, [0 if bat else not_mapped for bat in solve_x_bat]


linear_solve_p.def_batching(_linear_solve_batching)


# ------------------------------------------------------------------------------------------------
# custom_root


class _RootTuple(NamedTuple):
    f: Any
    solve: Any
    l_and_s: Any


def custom_root(f, initial_guess, solve, tangent_solve, has_aux=False):
    """``solve(f, initial_guess)``, differentiated with respect to what ``f`` closes over by
    the implicit function theorem (assuming ``f(solution) == 0``), as JAX's."""
    guess_leaves, tree = _registry.flatten(initial_guess)
    guess_avals = [get_aval(x) for x in guess_leaves]

    f_jaxpr, f_consts, out_tree = _trace(f, tree, guess_avals)
    _check_tree("f", "initial_guess", out_tree, tree, False)

    solve_jaxpr, solve_consts, solution_tree = _trace(functools.partial(solve, f), tree,
                                                      guess_avals)
    _check_tree("solve", "initial_guess", solution_tree, tree, has_aux)

    def linearize_and_solve(xb):
        x, b = xb
        x_leaves = _registry.flatten(x)[0]
        lin = ad.linearize_flat(lambda *xs: _registry.flatten(f(tree.unflatten(xs)))[0],
                                x_leaves)
        f_jvp = lambda t: tree.unflatten(  # noqa: E731
            [ad.instantiate_zeros(o) for o in lin.jvp(_registry.flatten(t)[0])])
        return tangent_solve(f_jvp, b)

    pair_tree = _registry.flatten((initial_guess, initial_guess))[1]
    l_and_s_jaxpr, l_and_s_consts, out_tree = _trace(linearize_and_solve, pair_tree,
                                                     guess_avals + guess_avals)
    _check_tree("tangent_solve", "x", out_tree, tree, False)

    all_consts = [f_consts, solve_consts, l_and_s_consts]
    const_lengths = _RootTuple(*map(len, all_consts))
    jaxprs = _RootTuple(f_jaxpr, solve_jaxpr, l_and_s_jaxpr)
    solution = _root_fn()(const_lengths, jaxprs, *_flatten(all_consts), *guess_leaves)
    return solution_tree.unflatten(solution)


def _custom_root(const_lengths, jaxprs, *args):
    (_, solve_params, _), guess = _split(args, const_lengths)
    return jaxpr_as_fun(jaxprs.solve)(*solve_params, *guess)


def _root_jvp(const_lengths, jaxprs, primals, tangents):
    (f_params, _, l_and_s_params), _ = _split(primals, const_lengths)
    (f_dots, _, _), _ = _split(tangents, const_lengths)
    sol = _root_fn()(const_lengths, jaxprs, *primals)
    n = len(jaxprs.f.out_avals)
    solution, aux = list(sol[:n]), list(sol[n:])
    # F(m, u*(m)) = 0  =>  du* = -(d_u F)^-1 d_m F [dm]
    f = jaxpr_as_fun(jaxprs.f)
    f_dots = [t if ad.is_differentiable_dtype(get_aval(p).dtype) else ad.Zero.from_primal_value(p)
              for p, t in zip(f_params, f_dots)]
    _, rhs = ad.jvp_flat(lambda *ps: f(*ps, *solution), f_params, f_dots)
    rhs = [ad.instantiate_zeros(r) for r in rhs]
    solution_dot = [neg(t) for t in jaxpr_as_fun(jaxprs.l_and_s)(*l_and_s_params, *solution,
                                                                   *rhs)]
    aux_dot = [ad.zeros_like_aval(ad.tangent_aval(get_aval(a))) for a in aux]
    return solution + aux, solution_dot + aux_dot


@functools.cache
def _root_fn():
    fn = CUSTOM_JVP[0](_custom_root, nondiff_argnums=(0, 1))
    fn.defjvp(_root_jvp)
    return fn

linear_solve_p.sharding_rule = sharding_rules.typed_by_body  # its results are its body's
