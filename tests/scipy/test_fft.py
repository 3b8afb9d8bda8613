"""minijax.scipy.fft (type-II DCT and inverse, 1-D and N-d) against scipy.fft."""

import numpy as np
import pytest
import scipy.fft as sf
from hypothesis import given
from hypothesis import strategies as st

import minijax
import minijax.scipy.fft as F
from minijax.test_util import check_grads
from tests.scipy._helpers import assert_close
from tests.scipy._helpers import rand as _rand


def _close(actual, expected, tol=1e-5):
    assert_close(actual, expected, tol)


seeds = st.integers(0, 2 ** 31 - 1)
norms = st.sampled_from([None, "ortho", "backward"])


dct_j = minijax.jit(F.dct, static_argnames=("n", "axis", "norm"))
idct_j = minijax.jit(F.idct, static_argnames=("n", "axis", "norm"))


@given(seeds, norms, st.sampled_from([None, 3, 8]), st.sampled_from([0, 1, -1]))
def test_dct_idct(seed, norm, n, axis):
    x = _rand(seed, (5, 6))
    for mine, ref in ((dct_j, sf.dct), (idct_j, sf.idct)):
        out = mine(x, n=n, axis=axis, norm=norm)
        assert out.dtype == np.float32
        _close(out, ref(x, n=n, axis=axis, norm=norm), 1e-4)
    _close(idct_j(dct_j(x, axis=axis, norm=norm), axis=axis, norm=norm), x, 1e-5)


@given(seeds, norms, st.sampled_from([(None, None), ((3, 7), None), ((4,), (0,)),
                                       (None, (2, 0)), ((2, 5), (-1, 1))]))
def test_dctn_idctn(seed, norm, s_axes):
    s, axes = s_axes
    x = _rand(seed, (4, 5, 6))
    _close(F.dctn(x, s=s, axes=axes, norm=norm), sf.dctn(x, s=s, axes=axes, norm=norm), 1e-4)
    _close(F.idctn(x, s=s, axes=axes, norm=norm), sf.idctn(x, s=s, axes=axes, norm=norm), 1e-4)


def test_dtypes_complex_and_odd_lengths():
    for n in (1, 2, 7):
        x = _rand(n, (n,))
        _close(F.dct(x), sf.dct(x), 1e-5)
        _close(F.idct(x, norm="ortho"), sf.idct(x, norm="ortho"), 1e-5)
    z = _rand(0, (3, 5), np.complex64)
    out = F.dct(z)
    assert out.dtype == np.complex64
    _close(out, sf.dct(z), 1e-4)
    _close(F.idctn(z), sf.idctn(z), 1e-4)
    assert F.dct(np.arange(4)).dtype == np.float32
    assert F.dct(np.arange(4, dtype=np.float16)).dtype == np.float32
    assert minijax.vmap(F.dct)(_rand(1, (2, 5))).shape == (2, 5)


def test_errors():
    x = _rand(0, (3, 4, 5))
    with pytest.raises(NotImplementedError, match="type 2"):
        F.dct(x, type=3)
    with pytest.raises(NotImplementedError, match="type 2"):
        F.idctn(x, type=1)
    with pytest.raises(ValueError, match="norm='forward' is not implemented"):
        F.idctn(x, norm="forward")
    with pytest.raises(ValueError, match="at most x.ndim"):
        F.dctn(x, s=(2, 6, 3, 3))
    with pytest.raises(ValueError, match="repeated axis"):
        F.dctn(x, axes=(0, 0))


@pytest.mark.usefixtures("x64")
def test_x64_and_grads():
    x = _rand(3, (4, 5), np.float64)
    assert F.dct(x).dtype == np.float64
    _close(F.dctn(x, norm="ortho"), sf.dctn(x, norm="ortho"), 1e-12)
    check_grads(lambda v: F.dct(v, n=6, norm="ortho"), (x,), order=1, modes=("fwd", "rev"))
    check_grads(lambda v: F.idctn(v), (x,), order=1, modes=("rev",))
