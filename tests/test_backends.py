"""Backends, devices and the jaxlib wrapper: CPU devices, device_put/device_get, placement."""

import os
import subprocess
import sys

import numpy as np
import pytest

import minijax
from minijax import lax
from minijax.lowering import backends

_REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


ON_GPU = os.environ.get("MINIJAX_TEST_GPU") == "1"
needs_gpu = pytest.mark.skipif(
    not ON_GPU, reason="needs the CUDA plugin and a GPU (run with MINIJAX_TEST_GPU=1)"
)


def test_cpu_client_has_the_configured_virtual_devices():
    # tests/conftest.py sets MINIJAX_NUM_CPU_DEVICES (8) before minijax is imported
    n = int(os.environ["MINIJAX_NUM_CPU_DEVICES"])
    assert minijax.default_backend() == ("gpu" if ON_GPU else "cpu")
    assert minijax.device_count("cpu") == n == len(minijax.devices("cpu"))
    assert minijax.local_device_count("cpu") == n


def test_num_cpu_devices_from_environment_in_a_fresh_process():
    code = "import minijax; print(minijax.device_count(), minijax.default_backend())"
    env = dict(os.environ, MINIJAX_NUM_CPU_DEVICES="3", MINIJAX_PLATFORMS="cpu")
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["3", "cpu"]


def test_device_put_places_on_the_requested_device_and_ops_follow():
    d2 = minijax.devices("cpu")[2]
    x = minijax.device_put(np.arange(4, dtype=np.float32), d2)
    assert x.device == d2 and x.devices() == {d2}
    y = lax.neg(x)  # eager ops run where their operands live
    assert y.device == d2
    z = minijax.jit(lambda a: lax.mul(a, 2.0))(x)  # jit moves a foreign-device argument
    np.testing.assert_array_equal(np.asarray(z), np.arange(4) * 2)


def test_device_put_pytrees_and_device_get():
    tree = {"a": np.ones(2, np.float32), "b": [np.int32(3), 2.5]}
    on_device = minijax.device_put(tree)
    assert isinstance(on_device["a"], minijax.Array) and isinstance(
        on_device["b"][0], minijax.Array
    )
    assert on_device["b"][1].weak_type  # a Python float stays weakly typed, as in JAX
    back = minijax.device_get(on_device)
    assert isinstance(back["a"], np.ndarray)
    np.testing.assert_array_equal(back["a"], tree["a"])


def test_array_host_interop_and_repr():
    x = minijax.device_put(np.array([1.0, 2.0], np.float32))
    assert repr(x) == "Array([1., 2.], dtype=float32)"
    assert repr(minijax.device_put(2.0)) == "Array(2., dtype=float32, weak_type=True)"
    assert np.asarray(x).tolist() == [1.0, 2.0] and x.tolist() == [1.0, 2.0]
    assert float(minijax.device_put(np.float32(3))) == 3.0 and x.shape == (2,) and x.ndim == 1
    assert x.block_until_ready() is not None
    with pytest.raises(TypeError, match="unhashable"):
        hash(x)


def test_jaxlib_version_gate_matches_installed_jaxlib():
    import jaxlib

    major_minor = tuple(int(p) for p in jaxlib.__version__.split(".")[:2])
    assert backends._HANDLER_NEEDS_SKIP_CHECKS == (major_minor < (0, 11))


@needs_gpu
def test_cuda_plugin_is_discovered_and_preferred():
    assert minijax.default_backend() == "gpu"
    assert all(d.platform == "gpu" for d in minijax.devices())
    x = minijax.device_put(np.arange(3, dtype=np.float32))
    assert x.device.platform == "gpu"


@needs_gpu
def test_gpu_float32_matmul_is_tf32_by_default_and_float32_when_asked():
    rng = np.random.default_rng(0)
    a, b = (rng.normal(size=(512, 512)).astype(np.float32) for _ in range(2))
    want = a.astype(np.float64) @ b.astype(np.float64)
    matmul = minijax.jit(lambda a, b: a @ b)

    def rel_error(precision):
        with minijax.default_matmul_precision(precision):
            return np.abs(np.asarray(matmul(a, b)) - want).max() / np.abs(want).max()

    # TF32 keeps 10 mantissa bits (2^-11 per product); float32 23.
    assert 1e-4 < rel_error(None) < 1e-2
    assert rel_error("float32") < 1e-5


def test_unknown_platform_is_a_clear_error():
    with pytest.raises(RuntimeError, match="Backend 'tpu' failed to initialize"):  # JAX's words
        backends.get_backend("tpu")
    with pytest.raises(RuntimeError, match="Unknown backend foo"):
        backends.get_backend("foo")


def test_jaxlib_never_imports_an_installed_jax_for_minijax(tmp_path):
    """jaxlib's C++ imports ``jax`` lazily (e.g. when copying a buffer to NumPy); an installed
    jax would then take over the methods of the Array type minijax shares with it."""
    fake = tmp_path / "jax"
    fake.mkdir()
    marker = tmp_path / "jax_was_imported"
    (fake / "__init__.py").write_text(
        f"open({str(marker)!r}, 'w').close()\nraise ImportError('a stand-in for jax')\n"
    )
    code = (
        "import minijax.numpy as jnp\n"
        "x = jnp.arange(4.0)\n"
        "print(repr(x * 2), x.tolist())\n"
        "import sys; assert 'jax' not in sys.modules\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), _REPO_ROOT]))
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "0., 2., 4., 6." in res.stdout
    assert not marker.exists(), "jaxlib imported the installed jax package"
