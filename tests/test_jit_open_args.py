"""A jit argument with no ``in_shardings`` that is not committed is left open in a program on
several devices, as in JAX: no sharding on the module's argument, Shardy propagates one to it
(here a shard_map's P('d')), and the call places the argument where the executable wants it.
A committed argument keeps its sharding. Expected values: JAX 0.10.2 on virtual CPU devices
(tests/data/jit_open_args_jax.json, recorded by tests/data/record_jit_open_args.py)."""

import json
import os
import re

import numpy as np
import pytest

import minijax
from minijax import lax
from minijax.sharding import GSPMDSharding, Mesh, NamedSharding
from minijax.sharding import PartitionSpec as P

pytestmark = pytest.mark.devices(2)

with open(os.path.join(os.path.dirname(__file__), "data", "jit_open_args_jax.json")) as f:
    JAX = json.load(f)

X0 = np.array([-.0666, .0632, .0655, .0569], np.float32)
X1 = np.array([0, -4], np.int32)  # -4 on a shard of 2 rows is clamped to the shard's row 0


@pytest.fixture(scope="module")
def mesh():
    return Mesh(np.array(minijax.devices()[:2]), ("d",))


@pytest.fixture(scope="module")
def clamped(mesh):
    return minijax.jit(minijax.shard_map(
        lambda a, i: lax.dynamic_slice(a, (i[0],), (1,)), mesh=mesh,
        in_specs=(P("d"), P("d")), out_specs=P("d")))


def _signature(lowered):
    return re.search(r"@main\((.*)\) ->", lowered.as_text()).group(1)


def _shardings(compiled):
    return [["named", list(s.spec)] if isinstance(s, NamedSharding)
            else ["gspmd", str(s._hlo_sharding)] for s in compiled.input_shardings[0]]


def _check_stages(fun, args, want):
    lowered = fun.lower(*args)
    assert _signature(lowered) == want["signature"]
    assert _shardings(lowered.compile()) == want["input_shardings"]


def test_clamped_slice_of_open_arguments(clamped):
    # FINDINGS 150: replicated arguments gave [-.0666, -.0666] (XLA lost the clamp)
    want = JAX["open"]["value"]
    np.testing.assert_allclose(clamped(X0, X1), want, rtol=1e-6)
    np.testing.assert_allclose(clamped(minijax.numpy.asarray(X0), minijax.numpy.asarray(X1)),
                               want, rtol=1e-6)


def test_open_arguments_lowered_unannotated(clamped):
    _check_stages(clamped, (X0, X1), JAX["open"])
    assert isinstance(clamped.lower(X0, X1).compile().input_shardings[0][0], GSPMDSharding)


def test_committed_argument_stays_pinned(clamped, mesh):
    replicated = minijax.device_put(X0, NamedSharding(mesh, P()))
    _check_stages(clamped, (replicated, X1), JAX["committed_replicated"])


def test_committed_operand_beside_an_open_one(mesh):
    added = minijax.jit(lambda a, b: a * 2 + b)
    split = minijax.device_put(X0, NamedSharding(mesh, P("d")))
    b = X0[::-1].copy()
    _check_stages(added, (split, b), JAX["committed_beside_open"])
    out = added(split, b)
    np.testing.assert_allclose(out, JAX["committed_beside_open"]["value"], rtol=1e-6)
    assert out.sharding == NamedSharding(mesh, P("d"))


def test_grad_through_open_arguments(clamped, mesh):
    g = minijax.grad(lambda a, i: clamped(a, i).sum())(X0, X1)
    np.testing.assert_array_equal(g, JAX["grad_clamped"])
    scaled = minijax.jit(minijax.shard_map(lambda a, i: a * i[0], mesh=mesh,
                                           in_specs=(P("d"), P("d")), out_specs=P("d")))
    g = minijax.grad(lambda a: scaled(a, X1.astype(np.float32)).sum())(X0)
    np.testing.assert_array_equal(g, JAX["grad_scaled"])
