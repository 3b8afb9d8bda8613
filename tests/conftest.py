"""Shared test setup: a hypothesis profile for CI (bounded examples), 8 virtual CPU devices
(tests/test_sharding.py uses 2-D meshes of 8)."""

import os

os.environ.setdefault("MINIJAX_NUM_CPU_DEVICES", "8")
os.environ.setdefault(
    "MINIJAX_PLATFORMS", "cpu" if os.environ.get("MINIJAX_TEST_GPU") != "1" else ""
)

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

if os.environ.get("MINIJAX_TEST_GPU") == "1":
    # XLA on NVIDIA GPUs multiplies float32 in TF32 by default (as in JAX), ~1e-3 relative:
    # the suite's NumPy comparisons test the math, so on a GPU they run matmuls in full
    # float32. test_backends checks the TF32 default itself.
    os.environ.setdefault("MINIJAX_DEFAULT_MATMUL_PRECISION", "highest")

_common = dict(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=False,
    print_blob=True,
)
# CI draws the same examples every run (derandomize: a seed from each test's name), so a pass
# is reproducible and a stop cannot fail on a draw no earlier run saw; "dev" and "thorough"
# explore fresh random examples each run, which is where new bugs are found.
settings.register_profile("ci", max_examples=8, **{**_common, "derandomize": True})
settings.register_profile("dev", max_examples=25, **_common)
settings.register_profile("thorough", max_examples=200, **_common)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "devices(n): needs n devices (8 virtual CPU ones here; a 1-GPU run skips it)")
    config.addinivalue_line(
        "markers", "jax_cpu_values: compares with values JAX 0.10.2 computed on the CPU, so it "
        "runs on the CPU in a GPU run too (XLA's GPU math rounds differently)")


def pytest_collection_modifyitems(config, items):
    # tests/test_fidelity_*.py hold JAX 0.10.2's values recorded on the CPU, bit for bit.
    for item in items:
        if item.path.name.startswith("test_fidelity_"):
            item.add_marker("jax_cpu_values")


@pytest.fixture(autouse=True)
def _cpu_for_jax_cpu_values(request):
    if (os.environ.get("MINIJAX_TEST_GPU") != "1"
            or request.node.get_closest_marker("jax_cpu_values") is None):
        yield
        return
    import minijax
    from minijax.config import config_context

    with config_context("jax_default_device", minijax.devices("cpu")[0]):
        yield


def pytest_runtest_setup(item):
    marker = item.get_closest_marker("devices")
    if marker is not None:
        import minijax

        if len(minijax.devices()) < marker.args[0]:
            pytest.skip(f"needs {marker.args[0]} devices, {len(minijax.devices())} here")


@pytest.fixture
def x64():
    """64-bit dtypes on for one test (``pytestmark = pytest.mark.usefixtures("x64")`` for a
    whole module)."""
    from minijax.config import config_context

    with config_context("jax_enable_x64", True):
        yield
