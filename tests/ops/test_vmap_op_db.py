"""Every op-table entry under vmap: the batched result, sliced per example, equals the NumPy
reference of that example (a stacked loop over ``op.ref``), eagerly and under jit.

Hypothesis draws the example shapes and dtypes (the entry's own strategy), the batch size, one
``in_axes`` entry per operand (None for some, negative axes too) and ``out_axes``. Examples of a
batch share shapes and dtypes; their values come from further draws of the entry's strategy
(an operand of another draw with the same shape and dtype) or, failing that, a shuffle of the
first example's values, so mapped scalar operands such as slice start indices do vary.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minijax
from tests.ops.op_db import assert_close, load_all

OPS = load_all()
EXTRA_DRAWS = 3  # further draws of an entry's strategy to take per-example values from


def _outputs(x):
    return list(x) if isinstance(x, (tuple, list)) else [x]


def _variant(data, x, pool, b):
    """A value for example ``b`` of the batch: same shape and dtype as ``x``."""
    same = [y for y in pool if y.shape == x.shape and y.dtype == x.dtype]
    if same:
        return same[(b - 1) % len(same)]
    seed = data.draw(st.integers(0, 2**16), label="shuffle seed")
    return np.random.default_rng(seed).permutation(x.reshape(-1)).reshape(x.shape)


def draw_batch(data, op):
    """(per-example argument tuples, in_axes, batched arguments, out_axes)."""
    args = data.draw(op.args, label="args")
    extra = [data.draw(op.args, label="extra") for _ in range(EXTRA_DRAWS)]
    size = data.draw(st.integers(1, 3), label="batch size")
    axes = []
    for x in args:
        nd = x.ndim + 1  # rank of the batched operand
        axes.append(data.draw(st.sampled_from([None, *range(-nd, nd)]), label="in_axis"))
    if all(a is None for a in axes):
        axes[0] = 0
    examples = [list(args)]
    for b in range(1, size):
        examples.append([
            x if ax is None else _variant(data, x, [e[i] for e in extra if len(e) > i], b)
            for i, (x, ax) in enumerate(zip(args, axes))
        ])
    batched = [x if ax is None else np.stack([ex[i] for ex in examples], axis=ax)
               for i, (x, ax) in enumerate(zip(args, axes))]
    out_axis = data.draw(st.sampled_from([0, -1]), label="out_axes")
    return examples, tuple(axes), batched, out_axis


def check_against_loop(op, result, examples, out_axis, how):
    outs = _outputs(result)
    for b, ex in enumerate(examples):
        expected = _outputs(op.ref(*ex))
        assert len(outs) == len(expected)
        for out, ref in zip(outs, expected):
            got = np.take(np.asarray(out), b, axis=out_axis)
            if op.compare is not None:
                op.compare(got, ref, tuple(ex))
            else:
                assert_close(got, ref, op.tol, op.nan_ok, err_msg=f"{op.name} {how} example {b}")


@pytest.mark.parametrize("op", OPS, ids=[op.name for op in OPS])
@given(data=st.data())
def test_vmap_matches_loop_of_reference(op, data):
    examples, in_axes, batched, out_axis = draw_batch(data, op)
    f = minijax.vmap(op.fn, in_axes=in_axes, out_axes=out_axis)
    check_against_loop(op, minijax.jit(f)(*batched), examples, out_axis, "jit(vmap)")
    check_against_loop(op, f(*batched), examples, out_axis, "eager vmap")
