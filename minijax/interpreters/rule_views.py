"""JAX's rule registries as views onto the rules that live on each ``Primitive``.

JAX keeps one dict per transformation keyed by primitive (``ad.primitive_jvps``,
``batching.primitive_batchers``, ``mlir.register_lowering`` ...); libraries built on JAX
(equinox, flax) fill them at import time. minijax keeps every rule as an attribute of its
primitive, so these registries are *views*: ``ad.primitive_jvps[p] = rule`` sets ``p.jvp``,
``ad.primitive_jvps[p]`` reads it back. There is no second rule system to fall out of step.

Where JAX's rule signature differs from minijax's, the rule is adapted here, once, when it is
stored, and the view hands back the rule as it was given:

- JVP (``rule(primals, tangents, **params)`` with ``ad.Zero`` tangents), transpose
  (``rule(ct, *args, **params)`` with ``ad.UndefinedPrimal`` operands) and batching
  (``rule(args, dims, **params) -> (out, out_dims)``, ``None`` for unmapped) are the same in
  both: stored as given.
- ``axis_primitive_batchers`` rules take ``(axis_size, axis_name, trace_type, args, dims,
  **params)`` and ``fancy_primitive_batchers`` rules ``(axis_data, args, dims, **params)``:
  both become minijax's axis-data rules (``needs_axis_data``, see ``batching.py``).
- JAX lowering rules return a *sequence* of ``ir.Value`` (one per result, also for a
  single-result primitive) and read ``ctx.module_context``; minijax's return the value itself
  and read ``ctx.module_ctx``. ``JaxLowering`` holds JAX-style rules per platform
  (``register_lowering(p, rule, platform="cuda")``) and falls back to minijax's own rule.
"""

from __future__ import annotations

import gc
from collections.abc import MutableMapping

from jaxlib.mlir import ir

from minijax.core import Primitive

# ------------------------------------------------------------------------------------------------
# The view


class RuleView(MutableMapping):
    """A dict from primitives to one of their rule attributes (``attr``).

    ``adapt(rule)`` turns a JAX-style rule into minijax's form when it is stored (and records
    the original as ``jax_rule`` so reading gives back what was set). Iterating walks every
    live primitive, so it is meant for inspection, not for hot paths.
    """

    def __init__(self, attr, adapt=None, name=None):
        self._attr = attr
        self._adapt = adapt
        self._name = name or attr

    def _check(self, prim):
        if not isinstance(prim, Primitive):
            raise TypeError(f"{self._name}: keys are Primitives, got {type(prim).__name__}")

    def __getitem__(self, prim):
        self._check(prim)
        rule = getattr(prim, self._attr, None)
        if rule is None:
            raise KeyError(prim)
        return getattr(rule, "jax_rule", rule)

    def __setitem__(self, prim, rule):
        self._check(prim)
        if rule is not None and self._adapt is not None:
            rule = self._adapt(rule)
        setattr(prim, self._attr, rule)

    def __delitem__(self, prim):
        self[prim]  # KeyError when unset, as for a dict  # noqa: B018
        setattr(prim, self._attr, None)

    def __contains__(self, prim):
        return isinstance(prim, Primitive) and getattr(prim, self._attr, None) is not None

    def __iter__(self):
        return iter([p for p in gc.get_objects()
                     if isinstance(p, Primitive) and getattr(p, self._attr, None) is not None])

    def __len__(self):
        return sum(1 for _ in self)

    def __repr__(self):
        return f"<view of Primitive.{self._attr}: {self._name}>"


# ------------------------------------------------------------------------------------------------
# Batching


def _axis_data_rule(rule, call):
    """A minijax rule called with the vmap's axis data (``batching.needs_axis_data``)."""

    def batching_rule(axis_data, args, dims, **params):
        # JAX hands a library's rule tuples (equinox passes its dims on as vmap's out_axes)
        return call(axis_data, tuple(args), tuple(dims), **params)

    batching_rule.needs_axis_data = True  # the protocol of batching.BatchTrace
    batching_rule.jax_rule = rule
    return batching_rule


def adapt_axis_batcher(rule):
    """``rule(axis_size, axis_name, trace_type, args, dims, **params)`` (JAX's
    ``axis_primitive_batchers``)."""
    return _axis_data_rule(
        rule, lambda ad, args, dims, **params: rule(ad.size, ad.name, None, args, dims, **params))


def adapt_fancy_batcher(rule):
    """``rule(axis_data, args, dims, **params)`` (JAX's ``fancy_primitive_batchers``)."""
    return _axis_data_rule(rule, rule)


# ------------------------------------------------------------------------------------------------
# Lowering


class LoweringRuleContext:
    """What a JAX-style lowering rule reads: ``avals_in``, ``avals_out`` and the
    ``module_context`` (minijax's module context: ``platform``, the module, its meshes)."""

    __slots__ = ("avals_in", "avals_out", "module_context", "tokens_in", "tokens_out")

    def __init__(self, avals_in, avals_out, module_context):
        self.avals_in = avals_in
        self.avals_out = avals_out
        self.module_context = module_context
        self.tokens_in = None  # minijax orders effects itself; rules see no tokens
        self.tokens_out = None

    @property
    def platforms(self):
        return (self.module_context.platform,)

    def set_tokens_out(self, tokens_out):
        self.tokens_out = tokens_out

    def replace(self, **changes):
        new = LoweringRuleContext(self.avals_in, self.avals_out, self.module_context)
        for k, v in changes.items():
            setattr(new, k, v)
        return new


# JAX's platform names -> the platform minijax compiles for (jaxlib's device.platform)
_PLATFORMS = {"cpu": "cpu", "cuda": "gpu", "rocm": "gpu", "gpu": "gpu", "tpu": "tpu"}


def canonical_platform(platform):
    try:
        return _PLATFORMS[platform.lower()]
    except KeyError:
        raise ValueError(f"Unknown platform {platform!r} for a lowering rule; expected one of "
                         f"{sorted(_PLATFORMS)}") from None


class JaxLowering:
    """A minijax lowering rule running JAX-style rules: the one registered for the platform
    being compiled for, else the platform-independent one, else minijax's own rule."""

    def __init__(self, prim, native=None):
        self.prim = prim
        self.native = native  # minijax-style rule this one was registered over, or None
        self.rules = {}  # canonical platform (None: any) -> JAX-style rule

    @property
    def jax_rule(self):
        return self.rules.get(None, self.native)

    def __call__(self, ctx, *values, **params):
        platform = ctx.module_ctx.platform
        rule = self.rules.get(platform) or self.rules.get(None)
        if rule is None:
            if self.native is None:
                # JAX 0.10.2 refuses it too, in these words (a platform without the rule)
                raise NotImplementedError(
                    f"MLIR translation rule for primitive '{self.prim.name}' not found for "
                    f"platform {platform}")
            return self.native(ctx, *values, **params)
        outs = rule(LoweringRuleContext(ctx.avals_in, ctx.avals_out, ctx.module_ctx),
                    *values, **params)
        if isinstance(outs, ir.Value):
            outs = [outs]
        outs = [_single_value(o) for o in outs]
        if len(outs) != len(ctx.avals_out):
            raise ValueError(
                f"the lowering rule {getattr(rule, '__name__', rule)!r} returned {len(outs)} "
                f"values for {len(ctx.avals_out)} results")
        return outs if self.prim.multiple_results else outs[0]


def _single_value(out):
    """JAX lets a rule give each result as a one-element list of ir.Values."""
    if isinstance(out, (list, tuple)):
        if len(out) != 1:
            raise ValueError(f"a lowering rule gave {len(out)} ir.Values for one result")
        return out[0]
    return out


def register_lowering(prim, rule, platform=None):
    """Sets a JAX-style lowering rule on ``prim`` (for one platform, or for all)."""
    if not isinstance(prim, Primitive):
        raise TypeError(f"register_lowering: expected a Primitive, got {type(prim).__name__}")
    current = prim.lowering
    if type(current) is not JaxLowering:
        current = JaxLowering(prim, native=current if platform is not None else None)
    current.rules[None if platform is None else canonical_platform(platform)] = rule
    prim.lowering = current
    return rule
