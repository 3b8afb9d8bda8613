"""JAX 0.10.2 public names added in run 23000 (tools/difftest/triage_23000_h.md), each checked
against outcomes recorded from real JAX 0.10.2: tests/data/record_fidelity_r19_h.py over the
cases in tests/data/fidelity_r19_h_cases.py, and the small hard-coded ones below."""
import json
import pathlib
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from tests import jax_records
from tests.jax_records import assert_matches_one
from minijax.nn.scaled_matmul import _quantize

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r19_h_cases import CASES, SETUP, describe  # noqa: E402

_RECORDS = jax_records.load("fidelity_r19_h_jax.json")
_JAX = _RECORDS[0]
_ENV = {"jax": jax, "jnp": jnp, "np": np, "Q": _quantize}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("i", range(len(CASES)))
def test_as_jax(i):
    assert_matches_one(lambda e: _check(CASES[i], e), [r["cases"][i][1] for r in _RECORDS])


def _check(src, expected):
    if isinstance(expected, dict):
        with pytest.raises(Exception) as e:
            eval(src, _ENV)
        message = str(e.value).split("\n  at ")[0]  # less the user's line minijax adds
        assert (type(e.value).__name__, message) == (expected["error"], expected["message"])
        return
    got = json.loads(json.dumps(describe(eval(src, _ENV), jax.tree_util.tree_leaves)))
    assert len(got) == len(expected)
    for g, x in zip(got, expected):
        if isinstance(x, list):  # [dtype, shape, values]
            assert g[:2] == x[:2]
            np.testing.assert_allclose(g[2], x[2], rtol=2e-6, atol=1e-6)
        else:
            assert g == x


@pytest.mark.parametrize("name", ["fromfile", "fromiter"])
def test_fromfile_fromiter_refused_with_jax_message(name, tmp_path):
    # JAX's messages, as tests/data/record_not_implemented.py recorded them from JAX 0.10.2
    rows = json.loads((_DATA / "not_implemented_jax_0102.json").read_text())["rows"]
    (message,) = {r["jax_message"] for r in rows if r["function"] == name}
    path = tmp_path / "data.bin"
    path.write_bytes(b"\0" * 8)
    with pytest.raises(NotImplementedError) as e:
        getattr(jnp, name)(str(path) if name == "fromfile" else iter([1.0]), dtype=float)
    assert str(e.value) == message


@pytest.mark.devices(4)
def test_explicit_axes():
    # Recorded from JAX 0.10.2 (4 virtual CPU devices, an Auto mesh under jax.set_mesh): f sees
    # AbstractMesh('x': 4, axis_types=(Explicit,)) and its argument resharded to P('x'); the
    # result is x * 2 laid out P('x'); the refusals below are JAX's words.
    from minijax.sharding import AxisType, PartitionSpec as P, explicit_axes, get_abstract_mesh
    x = jnp.arange(8.0)
    seen = []

    def f(a):
        seen.append(get_abstract_mesh().axis_types)
        return a * 2

    with pytest.raises(ValueError, match="Context mesh cannot be empty. Please use `jax.set_mesh`"):
        explicit_axes(f, in_sharding=P("x"))(x)
    with pytest.raises(TypeError, match="^Missing required keyword argument: 'in_sharding'$"):
        explicit_axes(f)(x)
    mesh = jax.make_mesh((4,), ("x",), axis_types=(AxisType.Auto,))
    with jax.set_mesh(mesh):
        for out in (explicit_axes(f, in_sharding=P("x"))(x),
                    explicit_axes(f)(x, in_sharding=P("x")),
                    jax.jit(explicit_axes(f, in_sharding=P("x")))(x)):
            np.testing.assert_array_equal(out, np.arange(8.0) * 2)
            assert out.sharding.spec == P("x")
        with pytest.raises(KeyError, match="'y'"):
            explicit_axes(f, axes="y", in_sharding=P("x"))(x)
    assert seen == [(AxisType.Explicit,)] * 3
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
    with jax.set_mesh(mesh):
        explicit_axes(f, axes="x", in_sharding=P("x"))(x)
    assert seen[-1] == (AxisType.Explicit, AxisType.Auto)


def test_make_single_device_sharding():
    # Recorded from JAX 0.10.2: keyword-only memory_kind; equal to SingleDeviceSharding(d);
    # an unknown memory kind is this ValueError on a CPU device.
    from minijax.sharding import SingleDeviceSharding, make_single_device_sharding
    d = jax.devices("cpu")[0]
    s = make_single_device_sharding(d)
    assert s == SingleDeviceSharding(d) == make_single_device_sharding(d, memory_kind="device")
    assert jax.device_put(jnp.ones(2), s).devices() == {d}
    with pytest.raises(TypeError, match="takes 1 positional argument but 2 were given"):
        make_single_device_sharding(d, "device")
    with pytest.raises(ValueError) as e:
        make_single_device_sharding(d, memory_kind="foo")
    assert str(e.value) == (
        "Could not find memory addressable by device cpu. Device cpu can address the following "
        "memory kinds: device, pinned_host, unpinned_host. Got memory kind: foo")
