"""A type checker for jaxprs: what every pass's output must pass before it runs.

It re-runs each equation's abstract evaluation on the avals of its operands and compares the
result with the avals recorded on its outvars (shape and dtype; weak types are advisory),
checks that every variable is defined before it is used and defined only once, that constants
match their constvars, and recurses into the jaxprs held in params (control flow, call-like
primitives). Errors name the equation and where the user wrote it.
"""

from __future__ import annotations

from minijax.core import ClosedJaxpr, Literal, Var, _Namer, abstract_eval, get_aval, pp_eqn
from minijax.interpreters.walk import sub_jaxprs


class JaxprTypeError(TypeError):
    """An ill-typed jaxpr; ``eqn`` is the offending equation (``None`` for the signature)."""

    def __init__(self, msg, eqn=None):
        super().__init__(msg)
        self.eqn = eqn


def _same(a, b):
    return tuple(a.shape) == tuple(b.shape) and a.dtype == b.dtype


def _where(eqn):
    src = eqn.source_info
    return f" (traced at {src})" if src is not None else ""


def _eqn_str(eqn):
    return pp_eqn(eqn, _Namer()).strip()


def check_jaxpr(jaxpr, consts=None, _path=""):
    """Raises ``JaxprTypeError`` if ``jaxpr`` (a Jaxpr or ClosedJaxpr) is ill-typed."""
    if isinstance(jaxpr, ClosedJaxpr):
        jaxpr, consts = jaxpr.jaxpr, jaxpr.consts
    consts = [] if consts is None else list(consts)
    if len(consts) != len(jaxpr.constvars):
        raise JaxprTypeError(f"{_path}{len(jaxpr.constvars)} constvars but {len(consts)} consts")
    defined = set()

    def define(v, what):
        if type(v) is not Var:
            raise JaxprTypeError(f"{_path}{what} binds {v!r}, which is not a Var")
        if v in defined:
            raise JaxprTypeError(f"{_path}{what} defines a variable twice ({v!r})")
        defined.add(v)

    for v, c in zip(jaxpr.constvars, consts):
        define(v, "a constvar")
        if not _same(get_aval(c), v.aval):
            raise JaxprTypeError(f"{_path}constant of type {get_aval(c).str_short(True)} bound "
                                 f"to a constvar of type {v.aval.str_short(True)}")
    for v in jaxpr.invars:
        define(v, "an input")

    def check_atom(a, eqn):
        if type(a) is Literal:
            if not _same(get_aval(a.val), a.aval):
                raise JaxprTypeError(f"{_path}literal {a!r} does not have its stated type "
                                     f"{a.aval.str_short(True)} in `{_eqn_str(eqn)}`", eqn)
        elif a not in defined:
            where = f"equation `{_eqn_str(eqn)}`{_where(eqn)}" if eqn else "the outputs"
            raise JaxprTypeError(f"{_path}{where} uses a variable of type "
                                 f"{a.aval.str_short(True)} before it is defined", eqn)

    for eqn in jaxpr.eqns:
        for a in eqn.invars:
            check_atom(a, eqn)
        for name, sub in sub_jaxprs(eqn.params):
            inner = f"{_path}in param {name!r} of `{eqn.primitive.name}`{_where(eqn)}: "
            try:
                check_jaxpr(sub, None if isinstance(sub, ClosedJaxpr) else [], inner)
            except JaxprTypeError as e:
                raise JaxprTypeError(str(e), e.eqn or eqn) from None
        try:
            out = abstract_eval(eqn.primitive, [a.aval for a in eqn.invars], eqn.params)
        except (TypeError, ValueError) as e:
            raise JaxprTypeError(f"{_path}equation `{_eqn_str(eqn)}`{_where(eqn)} does not "
                                 f"type-check: {e}", eqn) from None
        out = list(out) if eqn.primitive.multiple_results else [out]
        if len(out) != len(eqn.outvars):
            raise JaxprTypeError(f"{_path}equation `{_eqn_str(eqn)}`{_where(eqn)} has "
                                 f"{len(eqn.outvars)} outvars, its primitive gives {len(out)}", eqn)
        for v, a in zip(eqn.outvars, out):
            if not _same(v.aval, a):
                raise JaxprTypeError(
                    f"{_path}equation `{_eqn_str(eqn)}`{_where(eqn)} declares an output of type "
                    f"{v.aval.str_short(True)}, but `{eqn.primitive.name}` of its operands gives "
                    f"{a.str_short(True)}", eqn)
            define(v, f"equation `{_eqn_str(eqn)}`")
    for v in jaxpr.outvars:
        check_atom(v, None)


def check_signature(before: ClosedJaxpr, after: ClosedJaxpr, pass_name):
    """A pass used through ``apply`` must keep the program's argument and result types."""
    for what, a, b in (("inputs", before.in_avals, after.in_avals),
                       ("outputs", before.out_avals, after.out_avals)):
        if len(a) != len(b) or not all(map(_same, a, b)):
            sa = ", ".join(x.str_short(True) for x in a)
            sb = ", ".join(x.str_short(True) for x in b)
            raise JaxprTypeError(f"pass {pass_name!r} changed the program's {what} from ({sa}) "
                                 f"to ({sb}); a pass applied with transforms.apply must keep "
                                 "the signature")


__all__ = ["JaxprTypeError", "check_jaxpr", "check_signature"]
