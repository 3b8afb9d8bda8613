"""The philox2x32 and philox4x32 primitives: Random123's Philox counter-based hashes (10 rounds
of multiply-hi/lo and xor), bit for bit as JAX 0.10.2's ``philox2x32_p``/``philox4x32_p``.

``philox2x32_p.bind(k0, x0, x1)`` hashes the counter words ``(x0, x1)`` under the one-word key
``k0``; ``philox4x32_p.bind(k0, k1, x0, x1, x2, x3)`` four counter words under a two-word key.
Operands are uint32 and broadcast NumPy-style; every result has the broadcast shape. Their
rules (abstract eval, lowering, batching) are threefry's (``_threefry.hash_*``).
"""

from __future__ import annotations

import numpy as np

from minijax import lax
from minijax.core import Primitive
from minijax.interpreters import ad
from minijax.random._threefry import hash_abstract_eval, hash_batching, hash_lowering

__all__ = ["philox2x32_p", "philox4x32_p"]

_M2X32 = np.uint32(0xD256D193)
_M4X32 = (np.uint32(0xD2511F53), np.uint32(0xCD9E8D57))
_WEYL = (np.uint32(0x9E3779B9), np.uint32(0xBB67AE85))  # the key bumps between rounds
_ROUNDS = 10


def _mulhilo(m, x):
    return lax.mul(m, x), lax.mulhi(m, x)


def _philox2x32_rounds(k0, x0, x1):
    for rnd in range(_ROUNDS):
        if rnd:
            k0 = lax.add(k0, _WEYL[0])
        lo, hi = _mulhilo(_M2X32, x0)
        x0, x1 = lax.bitwise_xor(lax.bitwise_xor(hi, x1), k0), lo
    return [x0, x1]


def _philox4x32_rounds(k0, k1, x0, x1, x2, x3):
    for rnd in range(_ROUNDS):
        if rnd:
            k0, k1 = lax.add(k0, _WEYL[0]), lax.add(k1, _WEYL[1])
        lo0, hi0 = _mulhilo(_M4X32[0], x0)
        lo1, hi1 = _mulhilo(_M4X32[1], x2)
        x0, x1, x2, x3 = (lax.bitwise_xor(lax.bitwise_xor(hi1, x1), k0), lo1,
                          lax.bitwise_xor(lax.bitwise_xor(hi0, x3), k1), lo0)
    return [x0, x1, x2, x3]


philox2x32_p = Primitive("philox2x32", multiple_results=True)
philox2x32_p.def_abstract_eval(hash_abstract_eval("philox2x32", 3, 2))
philox2x32_p.def_lowering(hash_lowering(_philox2x32_rounds))
philox2x32_p.def_batching(hash_batching(philox2x32_p))
ad.defjvp_zero(philox2x32_p)  # integer bits: no tangent

philox4x32_p = Primitive("philox4x32", multiple_results=True)
philox4x32_p.def_abstract_eval(hash_abstract_eval("philox4x32", 6, 4))
philox4x32_p.def_lowering(hash_lowering(_philox4x32_rounds))
philox4x32_p.def_batching(hash_batching(philox4x32_p))
ad.defjvp_zero(philox4x32_p)
