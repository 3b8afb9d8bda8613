"""``jax.experimental.hijax``: the interface for "high-level" types and primitives.

A library defines a Python value type with its own abstract type (``register_hitype`` maps
the value's class to a function giving that type, a ``HiType``/``MutableHiType``) and
primitives over it (subclasses of ``HiPrimitive`` whose methods ``impl``, ``abstract_eval``,
``jvp`` and ``transpose`` are their rules). flax.nnx builds its ``Variable`` on this when
``flax_hijax_variable`` is on.

On minijax a ``HiPrimitive`` runs eagerly (``impl``) and its ``jvp``/``transpose`` are its
autodiff rules, and ``typeof`` of a registered value is its hi type; high-level values cannot
be traced into a staged program (``jit``, ``grad``), which JAX does by lowering them to their
low-level arrays (``to_lojax``): minijax has no such lowering.
"""

from __future__ import annotations

import dataclasses
from collections import namedtuple

from minijax import core
from minijax.core import AbstractValue, ShapedArray
from minijax.interpreters.ad import Zero, instantiate_zeros, is_undefined_primal

__all__ = [
    "AbstractValue", "AvalMutableQDD", "AvalQDD", "EffectTypeSet", "HiPrimitive", "HiType",
    "MutableHiType", "ShapedArray", "Zero", "aval_method", "aval_property",
    "control_flow_allowed_effects", "cur_qdd", "instantiate_zeros", "is_undefined_primal",
    "register_hitype",
]

# Markers on a hi type's class: a method (or property) that a traced value of that type
# answers by calling it on the value.
aval_method = namedtuple("aval_method", ["fun"])
aval_property = namedtuple("aval_property", ["fget"])


class EffectTypeSet:
    """A set of effect classes (an effect belongs if it is an instance of one)."""

    def __init__(self):
        self._effect_types = set()

    def __repr__(self):
        return f"EffectTypeSet({self._effect_types})"

    def add_type(self, effect_type):
        self._effect_types.add(effect_type)

    def contains(self, eff) -> bool:
        return any(isinstance(eff, t) for t in self._effect_types)

    def filter_in(self, effects):
        return [e for e in effects if self.contains(e)]

    def filter_not_in(self, effects):
        return [e for e in effects if not self.contains(e)]


# The effects a primitive may have inside the bodies of cond/while/scan.
control_flow_allowed_effects = EffectTypeSet()


@dataclasses.dataclass(frozen=True)
class AvalQDD:
    """A mutable hi type together with its current quasi-dynamic data (its contents' types)."""

    aval: AbstractValue
    qdd: object
    is_high = True
    has_qdd = True

    def to_tangent_aval(self):
        return AvalQDD(self.aval.to_tangent_aval(), self.qdd and self.qdd.to_tangent_qdd())


@dataclasses.dataclass(frozen=True)
class AvalMutableQDD:
    """What a mutating primitive's ``abstract_eval`` receives: the hi type and its
    quasi-dynamic data, which the rule may ``update``."""

    aval: AbstractValue
    mutable_qdd: object


class HiType(AbstractValue):
    """Base of immutable high-level types. Subclasses define ``__eq__``/``__hash__``,
    ``lo_ty``, ``lower_val``/``raise_val`` and ``to_tangent_aval``."""

    __slots__ = ()
    is_high = True
    has_qdd = False

    def to_ct_aval(self):
        return self.to_tangent_aval()


def cur_qdd(x):
    """The current quasi-dynamic data of the mutable hi value ``x``."""
    return x.cur_qdd()


class MutableHiType(AbstractValue):
    """Base of mutable high-level types, whose contents' types (quasi-dynamic data) may
    change. Subclasses define ``__eq__``/``__hash__``, ``lo_ty_qdd``, ``new_from_loval``,
    ``read_loval``, ``update_from_loval`` and ``to_tangent_aval``."""

    __slots__ = ()
    is_high = True
    has_qdd = True
    is_writer = False
    type_state = aval_method(cur_qdd)

    def to_ct_aval(self):
        return self.to_tangent_aval()


def register_hitype(val_cls, typeof_fn) -> None:
    """``typeof(v)`` of a ``val_cls`` value is ``typeof_fn(v)``."""
    core.pytype_aval_mappings[val_cls] = typeof_fn


class HiPrimitive(core.Primitive):
    """A primitive whose rules are its subclass's methods: ``impl(*args, **params)``,
    ``abstract_eval(*avals, **params) -> (out_aval(s), effects)``,
    ``jvp(primals, tangents, **params)`` and ``transpose(ct, *args, **params)``."""

    def __init__(self, name):
        super().__init__(name, multiple_results=type(self).multiple_results)
        # Primitive.__init__ blanks the rules per instance; the subclass's methods are them.
        for rule in ("impl", "jvp", "transpose"):
            if getattr(type(self), rule, None) is not None:
                delattr(self, rule)
        rule = getattr(type(self), "abstract_eval", None)
        if rule is not None:  # JAX's rule also returns the effects, which minijax does not track
            self.abstract_eval = lambda *avals, **params: rule(self, *avals, **params)[0]

    def is_high(self, *avals, **params) -> bool:
        return True

    def is_effectful(self, params) -> bool:
        return False
