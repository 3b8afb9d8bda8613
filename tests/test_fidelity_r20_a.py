"""Fidelity round r20 (lead), against JAX 0.10.2's outputs: the names of jitted functions and
their modules, a host value put back in device memory inside jit, and the ``jax_use_magma``
flag (hard-coded below, recorded by hand under JAX 0.10.2 on CPU); pinv's derivatives (JAX's
custom JVP rule), recorded by tests/data/record_fidelity_r20_a.py.
The GPU eig kernels this flag picks (cuSOLVER's geev, the hybrid LAPACK/MAGMA kernel) are
compared with JAX's on an H100 by tools/difftest/gpu_linalg_vs_jax.py."""
import functools
import json
import pathlib
import sys

import numpy as np
import pytest

import minijax
from minijax import numpy as jnp

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r20_a_cases import pinv_cases, pinv_derivatives  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r20_a_jax.json").read_text())


def _module_line(f, *args):
    return minijax.jit(f).lower(*args).as_text().splitlines()[0]


def test_module_names_as_jax():
    # JAX 0.10.2: `module @jit__lambda`, `HloModule jit__lambda` (XLA's errors name it
    # executable_name='jit__lambda'), and `module @jit_f` for a partial of f.
    assert _module_line(lambda x: x, 1.0).startswith("module @jit__lambda ")
    assert minijax.jit(lambda x: x).lower(1.0).compile().as_text().startswith(
        "HloModule jit__lambda,")

    def f(x):
        return x

    assert _module_line(functools.partial(f), jnp.ones(2)).startswith("module @jit_f ")

    class Callable:
        def __call__(self, x):
            return x

    # JAX 0.10.2: `module @jit__unnamed_function` (its name "<unnamed function>")
    assert _module_line(Callable(), 1.0).startswith("module @jit__unnamed_function ")
    # JAX 0.10.2 prints the nested jit of a partial as `jit[name=f ...]` (its very text)
    jaxpr = minijax.make_jaxpr(lambda x: minijax.jit(functools.partial(f))(x))(1.0)
    assert str(jaxpr) == ("{ lambda ; a:f32[]. let\n    b:f32[] = jit[name=f jaxpr={ lambda ; "
                          "a:f32[]. let  in (a,) }] a\n  in (b,) }")


def test_use_magma_flag():
    assert minijax.config.jax_use_magma == "auto"
    with pytest.raises(ValueError) as e:
        minijax.config.update("jax_use_magma", "x")
    # JAX 0.10.2's words
    assert str(e.value) == ("new enum value must be in ['off', 'on', 'auto'], got x of type "
                            "<class 'str'>.")
    minijax.config.update("jax_use_magma", "off")
    try:
        assert minijax.config.jax_use_magma == "off"
    finally:
        minijax.config.update("jax_use_magma", "auto")


@pytest.mark.parametrize("name,x,hermitian", pinv_cases(), ids=[c[0] for c in pinv_cases()])
def test_pinv_derivatives_as_jax(name, x, hermitian):
    expected = _JAX["pinv"][name]
    with minijax.enable_x64(True):
        got = pinv_derivatives(minijax, jnp, x, hermitian)
    assert got["dtype"] == expected["dtype"]
    rtol = 1e-5 if x.dtype == np.float32 else 1e-12
    for key in ("grad", "jvp"):
        np.testing.assert_allclose(np.array(got[key]), np.array(expected[key]), rtol=rtol,
                                   atol=rtol)


def test_device_put_back_to_device_memory_inside_jit():
    # JAX 0.10.2 on CPU: the result is in "device" memory, the jaxpr holds the device_put
    # equation (devices=(SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device),)),
    # and the lowered result carries mhlo.memory_kind = "device"
    d = minijax.devices()[0]
    host = minijax.sharding.SingleDeviceSharding(d, memory_kind="pinned_host")
    device = minijax.sharding.SingleDeviceSharding(d)
    x = minijax.device_put(np.arange(3.0, dtype=np.float32), host)
    f = minijax.jit(lambda a: minijax.device_put(a, device) + 1)
    out = f(x)
    assert out.sharding.memory_kind == "device"
    np.testing.assert_array_equal(np.asarray(out), [1.0, 2.0, 3.0])
    assert 'mhlo.memory_kind = "device"' in f.lower(x).as_text()
    jaxpr = str(minijax.make_jaxpr(lambda a: minijax.device_put(a, device) + 1)(x))
    assert "device_put[" in jaxpr and "memory_kind=device" in jaxpr
