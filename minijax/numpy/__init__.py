"""``minijax.numpy``: NumPy's API on minijax arrays, with JAX's semantics (immutable arrays,
JAX's dtype promotion with weak types, x64 off by default), built on ``minijax.lax``.

Importing it also gives ``minijax.Array`` and tracers their operators and methods
(``array_methods``).
"""

import numpy as _np

from minijax.deprecations import removed_getattr as _removed_getattr
from minijax.lowering.array import BaseArray as ndarray
from minijax.numpy import array_methods as _array_methods
from minijax.numpy import (
    fft,  # jnp.fft, on minijax.lax.fft
    linalg,  # jnp.linalg, on minijax.lax.linalg
)
from minijax.numpy.bitwise import *
from minijax.numpy.conversion import *
from minijax.numpy.creation import *
from minijax.numpy.einsum import *
from minijax.numpy.functional import *
from minijax.numpy.index_tricks import *
from minijax.numpy.indexing_routines import *
from minijax.numpy.io import *
from minijax.numpy.linear_algebra import *
from minijax.numpy.logic import *
from minijax.numpy.manipulation import *
from minijax.numpy.math import *
from minijax.numpy.polynomial import *
from minijax.numpy.printing import *
from minijax.numpy.reductions import *
from minijax.numpy.scalar_types import *
from minijax.numpy.setops import *
from minijax.numpy.sorting import *
from minijax.numpy.statistics import *
from minijax.numpy.ufunc_api import *
from minijax.numpy.ufuncs import *  # after math/logic/bitwise: jnp.add & co. as ufuncs
from minijax.numpy.window_functions import *

# JAX's structural functions take typed PRNG key arrays (an extended dtype); the rest refuse
# them. Each name maps to the positions of its parameters holding array operands (see
# on_extended_arrays).
from minijax.lax.extended import (  # noqa: E402
    arguments as _arguments,
    extended_array_types as _extended_array_types,
    on_planes as _on_planes,
    promotion_error as _promotion_error,
)
from minijax.numpy._util import on_extended_arrays as _on_extended_arrays  # noqa: E402

_FIRST = (
    "take take_along_axis reshape ravel stack concatenate hstack vstack dstack column_stack "
    "block squeeze expand_dims broadcast_to broadcast_arrays flip fliplr flipud roll tile "
    "repeat transpose swapaxes moveaxis rollaxis permute_dims matrix_transpose unstack split "
    "array_split hsplit vsplit dsplit rot90 delete diagonal triu tril zeros_like ones_like "
    "full_like empty_like resize diagflat").split()
for _name, _operands in {
    **{n: (0,) for n in _FIRST}, "where": (1, 2), "append": (0, 1), "insert": (0, 2),
    "compress": (1,), "extract": (1,), "choose": (1,),
    **{n: () for n in ("atleast_1d", "atleast_2d", "atleast_3d", "positive", "real", "imag",
                       "conj", "conjugate", "isnan", "isfinite", "isinf")},
}.items():
    globals()[_name] = _on_extended_arrays(globals()[_name], _operands)


def _set_mix_error(values):
    """JAX's .at[].set words for keys set with other values (or other values with keys)."""
    dtype = next(x.dtype for x in values if type(x) in _extended_array_types)
    return TypeError(f"Cannot determine dtype of {dtype}")


# the index updates: keys set into keys
for _name, _operands in {"fill_diagonal": (0, 1), "place": (0, 2), "put": (0, 2),
                         "put_along_axis": (0, 2)}.items():
    globals()[_name] = _on_extended_arrays(globals()[_name], _operands,
                                           mix_error=_set_mix_error)
# keys are equal where all their words are
equal = _on_extended_arrays(equal, (0, 1), logical_and)
not_equal = _on_extended_arrays(not_equal, (0, 1), logical_or)
array_equiv = _on_extended_arrays(array_equiv, (0, 1), logical_and)


def _pad_keys(fn, args, kwargs, refusal):
    """JAX's jnp.pad of keys: its modes that only move elements pad them; its constant and
    callable modes refuse them in convert_element_type's words (``refusal``), its statistics
    modes by reading the key dtype as a NumPy one."""
    given = _arguments(fn, args, kwargs)
    mode = given.get("mode", "constant")
    if mode == "constant" or callable(mode):
        raise refusal
    keys = given["array"]
    if mode in ("linear_ramp", "maximum", "minimum", "mean", "median"):
        raise TypeError(f"Cannot interpret '{keys.dtype}' as a data type")
    if mode in ("reflect", "symmetric") and given.get("kwargs", {}).get("reflect_type") == "odd":
        raise keys._refusal("multiply", (2, keys))  # its 2 * edge - reflection
    return _on_planes(fn, (0,), args, kwargs)


def _isin_keys(fn, args, kwargs, refusal):
    """JAX's jnp.isin of keys: its 'auto' ('compare_all') method compares every pair with the
    keys' own equality; 'sort' refuses the key dtype (``refusal``), 'binary_search' as
    searchsorted does."""
    given = _arguments(fn, args, kwargs)
    element, test = given["element"], given["test_elements"]
    keys = element if type(element) in _extended_array_types else test
    if type(test) is not type(element) or test.dtype != element.dtype:
        raise _promotion_error((element, test))
    method = given.get("method", "auto")
    if method == "sort":
        raise refusal
    if method == "binary_search":
        raise keys._refusal("searchsorted", (keys,))
    if method not in ("auto", "compare_all"):  # JAX's words
        raise ValueError(f"{method=} is not implemented; options are 'compare_all', "
                         "'binary_search', 'sort', and 'auto'")
    pairs = expand_dims(ravel(element), 1), expand_dims(ravel(test), 0)
    if given.get("invert", False):
        return reshape(all(not_equal(*pairs), axis=-1), element.shape)
    return reshape(any(equal(*pairs), axis=-1), element.shape)


pad = _on_extended_arrays(pad, (0,), on_keys=_pad_keys)
isin = _on_extended_arrays(isin, (0, 1), on_keys=_isin_keys)
del _name, _operands, _FIRST, _on_extended_arrays, _pad_keys, _isin_keys, _set_mix_error

pi = _np.pi
e = _np.e
inf = _np.inf
nan = _np.nan
euler_gamma = _np.euler_gamma
newaxis = None
bool = bool_  # noqa: A001 (JAX's jnp.bool is jnp.bool_)


del _np

# Names JAX 0.10.2 removed behind a deprecation message: getting one raises its AttributeError
# with that message, as JAX's deprecation_getattr does.
__getattr__ = _removed_getattr(__name__, {
    "fix": "jax.numpy.fix was deprecated in JAX v0.9.0, and will be removed in JAX v0.10.0. "
           "Use jax.numpy.trunc instead.",
})
del _removed_getattr
