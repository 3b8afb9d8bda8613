"""Dot-product algorithms (JAX's ``DotAlgorithm`` and ``DotAlgorithmPreset``), passed as the
``precision`` of ``dot_general``: the operands are converted to the algorithm's input types,
the product accumulates in its accumulation type, and XLA gets the ``algorithm`` attribute.
As in JAX, CPU runs only a few presets; the others raise JAX's ValueError when lowered.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import dtypes
from minijax.lowering.stablehlo import element_type

__all__ = ["DotAlgorithm", "DotAlgorithmPreset", "DotDimensionNumbers"]


class DotAlgorithm(NamedTuple):
    """An explicit algorithm: the types the operands are rounded to, the accumulation type,
    the number of components and primitive operations (XLA's ``DotAlgorithm``)."""

    lhs_precision_type: object
    rhs_precision_type: object
    accumulation_type: object
    lhs_component_count: int = 1
    rhs_component_count: int = 1
    num_primitive_operations: int = 1
    allow_imprecise_accumulation: bool = False

    def _convert_to_hlo_attr(self, lhs_dtype, rhs_dtype):
        del lhs_dtype, rhs_dtype
        return hlo.DotAlgorithm.get(
            element_type(np.dtype(self.lhs_precision_type)),
            element_type(np.dtype(self.rhs_precision_type)),
            element_type(np.dtype(self.accumulation_type)),
            self.lhs_component_count, self.rhs_component_count,
            self.num_primitive_operations, self.allow_imprecise_accumulation)


_F8 = tuple(np.dtype(d) for d in dtypes.float8_types)


class DotAlgorithmPreset(enum.Enum):
    """The named algorithms, ``LHS_RHS_ACCUM`` (``_X3``: emulated in 3 operations ...)."""

    DEFAULT = enum.auto()
    ANY_F8_ANY_F8_F32 = enum.auto()
    ANY_F8_ANY_F8_F32_FAST_ACCUM = enum.auto()
    ANY_F8_ANY_F8_ANY = enum.auto()
    ANY_F8_ANY_F8_ANY_FAST_ACCUM = enum.auto()
    F16_F16_F16 = enum.auto()
    F16_F16_F32 = enum.auto()
    BF16_BF16_BF16 = enum.auto()
    BF16_BF16_F32 = enum.auto()
    BF16_BF16_F32_X3 = enum.auto()
    BF16_BF16_F32_X6 = enum.auto()
    BF16_BF16_F32_X9 = enum.auto()
    TF32_TF32_F32 = enum.auto()
    TF32_TF32_F32_X3 = enum.auto()
    F32_F32_F32 = enum.auto()
    F64_F64_F64 = enum.auto()

    def __repr__(self):
        return f"{type(self).__name__}.{self.name}"

    def __str__(self):
        return self.name

    @property
    def _any_f8(self):
        return self.name.startswith("ANY_F8")

    @property
    def supported_lhs_types(self):
        if self is DotAlgorithmPreset.DEFAULT or self._any_f8:
            return None
        if self.name.startswith("F16_"):
            return (np.float16,)
        if self in (DotAlgorithmPreset.BF16_BF16_BF16, DotAlgorithmPreset.BF16_BF16_F32):
            # f32 or bf16 storage is used as given; other inputs become bf16
            return (dtypes.bfloat16, np.float32)
        if self is DotAlgorithmPreset.F64_F64_F64:
            return (np.float64,)
        return (np.float32,)

    @property
    def supported_rhs_types(self):
        return self.supported_lhs_types

    @property
    def accumulation_type(self):
        if self in (DotAlgorithmPreset.DEFAULT, DotAlgorithmPreset.ANY_F8_ANY_F8_ANY,
                    DotAlgorithmPreset.ANY_F8_ANY_F8_ANY_FAST_ACCUM):
            return None
        return {DotAlgorithmPreset.F16_F16_F16: np.float16,
                DotAlgorithmPreset.BF16_BF16_BF16: dtypes.bfloat16,
                DotAlgorithmPreset.F64_F64_F64: np.float64}.get(self, np.float32)

    def supported_output_types(self, lhs_dtype, rhs_dtype):
        if self in (DotAlgorithmPreset.ANY_F8_ANY_F8_F32,
                    DotAlgorithmPreset.ANY_F8_ANY_F8_F32_FAST_ACCUM):
            return (np.float32, np.float16, dtypes.bfloat16, *dtypes.float8_types)
        joined = dtypes.promote_types(lhs_dtype, rhs_dtype)
        if self is DotAlgorithmPreset.F16_F16_F32:
            return (np.float32, np.float16) if joined == np.float16 else (np.float32,)
        if self is DotAlgorithmPreset.BF16_BF16_F32:
            return (np.float32, dtypes.bfloat16) if joined == dtypes.bfloat16 else (np.float32,)
        acc = self.accumulation_type
        return None if acc is None else (acc,)

    def _convert_to_hlo_attr(self, lhs_dtype, rhs_dtype):
        if self._any_f8:
            if np.dtype(lhs_dtype) not in _F8 or np.dtype(rhs_dtype) not in _F8:
                raise ValueError(f"The dot algorithm '{self}' requires both inputs to have "
                                 f"float8 dtypes. Got {lhs_dtype} and {rhs_dtype} instead.")
            return hlo.DotAlgorithm.get(
                element_type(np.dtype(lhs_dtype)), element_type(np.dtype(rhs_dtype)),
                ir.F32Type.get(), 1, 1, 1,
                self is DotAlgorithmPreset.ANY_F8_ANY_F8_F32_FAST_ACCUM)
        if self is DotAlgorithmPreset.DEFAULT:
            return None
        lhs, _, acc, *ops = self.name.split("_")
        types = {"F16": ir.F16Type.get, "BF16": ir.BF16Type.get, "F32": ir.F32Type.get,
                 "F64": ir.F64Type.get, "TF32": ir.FloatTF32Type.get}
        n_ops = int(ops[0][1:]) if ops else 1
        return hlo.DotAlgorithm.get(types[lhs](), types[lhs](), types[acc](), 1, 1, n_ops,
                                    False)


# The presets XLA on CPU runs (the CPU backend ignores an algorithm silently, so JAX checks).
CPU_PRESETS = frozenset({
    DotAlgorithmPreset.DEFAULT, DotAlgorithmPreset.F16_F16_F16, DotAlgorithmPreset.F32_F32_F32,
    DotAlgorithmPreset.F64_F64_F64, DotAlgorithmPreset.BF16_BF16_F32,
    DotAlgorithmPreset.BF16_BF16_F32_X3, DotAlgorithmPreset.BF16_BF16_F32_X6,
})


def algorithm_compute_types(algorithm, lhs_dtype, rhs_dtype, out_dtype):
    """The (lhs, rhs, accumulation) dtypes a dot with ``algorithm`` computes in."""
    if isinstance(algorithm, DotAlgorithm):
        return (algorithm.lhs_precision_type, algorithm.rhs_precision_type,
                algorithm.accumulation_type)

    def pick(dtype, supported):
        if supported is None or np.dtype(dtype) in [np.dtype(d) for d in supported]:
            return dtype
        return supported[0]

    lhs = pick(lhs_dtype, algorithm.supported_lhs_types)
    rhs = pick(rhs_dtype, algorithm.supported_rhs_types)
    return lhs, rhs, pick(out_dtype, algorithm.supported_output_types(lhs, rhs))


DotDimensionNumbers = tuple[tuple[Sequence[int], Sequence[int]],
                            tuple[Sequence[int], Sequence[int]]]