"""The ``accuracy=`` of JAX's unary transcendental ops: ``Tolerance``, ``AccuracyMode``.

A unary op (``exp``, ``sin`` ...) takes ``accuracy`` as a primitive parameter, ``None`` by
default, which its lowering turns into StableHLO's ``result_accuracy`` attribute, asking XLA
for an implementation of that accuracy (an error where none has it). As in JAX:

- a jaxpr prints the parameter only when it is set (``exp a``, ``exp[accuracy=...] a``);
- the lowering emits the op without the attribute, then (accuracy set) again with it, the
  first one left for XLA to drop, as JAX's ``_nary_lower_hlo`` does;
- an accuracy that is neither a ``Tolerance`` nor an ``AccuracyMode`` is refused by the
  lowering with JAX's ``NotImplementedError``.
"""

from __future__ import annotations

import enum

from jaxlib.mlir.dialects import stablehlo as hlo

__all__ = ["Tolerance", "AccuracyMode"]


class Tolerance:
    """Specify the tolerances used for computing unary functions.

    Maximum two tolerances can be specified: (atol and rtol) or (atol and ulps).
    """

    def __init__(self, atol: float = 0.0, rtol: float = 0.0, ulps: int = 0):
        if atol < 0.0 or rtol < 0.0 or ulps < 0.0:
            raise ValueError("Tolerances must be non-negative.")
        if atol == 0.0 and rtol == 0.0 and ulps == 0:
            raise ValueError("At least one of atol, rtol, or ulps must be set.")
        self.atol = atol
        self.rtol = rtol
        self.ulps = ulps


class AccuracyMode(enum.Enum):
    HIGHEST = 1
    DEFAULT = 2


def accuracy_attr(accuracy):
    """StableHLO's ``result_accuracy`` attribute for ``accuracy`` (``None`` for ``None``)."""
    if accuracy is None:
        return None
    if isinstance(accuracy, AccuracyMode):
        return hlo.ResultAccuracyAttr.get(0.0, 0.0, 0, accuracy.name)
    if isinstance(accuracy, Tolerance):
        return hlo.ResultAccuracyAttr.get(
            atol=accuracy.atol, rtol=accuracy.rtol, ulps=accuracy.ulps, mode="TOLERANCE")
    # JAX 0.10.2's _nary_lower_hlo raises the same for any other accuracy value
    raise NotImplementedError(f"Accuracy {accuracy} not supported")


def lower_with_accuracy(build):
    """The lowering ``build(*values)`` of a unary op with an ``accuracy`` parameter."""

    def lower(ctx, *xs, accuracy=None):
        out = build(*xs)
        if accuracy:
            out = build(*xs, result_accuracy=accuracy_attr(accuracy))
        return out

    return lower


def pp_params_without_none_accuracy(params):
    """A jaxpr shows ``accuracy`` only when it is set, as JAX's
    ``_unary_with_accuracy_pp_rule``."""
    if "accuracy" in params and params["accuracy"] is None:
        params = {k: v for k, v in params.items() if k != "accuracy"}
    return params
