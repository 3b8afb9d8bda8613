"""XLA tokens: ``create_token`` and ``after_all`` (JAX's experimental ``lax`` names).

A token orders effects; it has no value. Its type is ``core.abstract_token`` (printed ``Tok``),
it lowers to ``!stablehlo.token``, and a concrete ``core.Token`` wraps the empty buffer XLA
takes and returns for it (jitting/function.py, lowering/backends.py).

As in JAX 0.10.2 neither primitive has a derivative or batching rule: ``jvp`` of ``after_all``
raises JAX's "Differentiation rule ... not implemented", vmap of a token refuses it.
"""

from __future__ import annotations

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax.core import Primitive, Token, abstract_token, get_aval
from minijax.lowering.array import device_put_value

__all__ = ["after_all", "after_all_p", "create_token", "create_token_p"]


def _new_token():
    # Eagerly a token is only its empty buffer: there is nothing to compute, so no program runs.
    return Token(device_put_value(np.zeros((0,), np.bool_)))


create_token_p = Primitive("create_token")
create_token_p.def_abstract_eval(lambda *_: abstract_token)
create_token_p.def_lowering(lambda ctx, *_: hlo.create_token())
create_token_p.def_impl(lambda *_: _new_token())


def create_token(_=None):
    """Creates an XLA token value with no preconditions for sequencing effects.

    The argument is ignored (JAX's signature): the token depends on nothing."""
    return create_token_p.bind()


def _after_all_abstract_eval(*operands):
    if any(x is not abstract_token for x in operands):
        raise TypeError("Arguments to after_all must be tokens")
    return abstract_token


def _after_all_impl(*operands):
    _after_all_abstract_eval(*map(get_aval, operands))  # JAX's error, as its compiled op gives
    return _new_token()


after_all_p = Primitive("after_all")
after_all_p.def_abstract_eval(_after_all_abstract_eval)
after_all_p.def_lowering(lambda ctx, *operands: hlo.after_all(list(operands)))
after_all_p.def_impl(_after_all_impl)


def after_all(*operands):
    """Merges one or more XLA token values (XLA's ``AfterAll``)."""
    return after_all_p.bind(*operands)
