"""Issue 21's known differences in ``Lowered.as_text()`` (helper r22_b), each recorded from
JAX 0.10.2 by tests/data/record_fidelity_r22_b.py over tests/data/fidelity_r22_b_cases.py:

1. Ordered effects (``debug.print(..., ordered=True)``, ``io_callback(..., ordered=True)``):
   main takes and returns a ``!stablehlo.token {jax.token = true}`` per effect, ``while``
   carries it first, ``cond``'s case returns it first, a nested jit's private function takes
   and returns it, and inlined calls (checkpoint, custom_jvp) continue it.
2. Host callbacks: their custom calls' ``operand_layouts``/``result_layouts`` and Shardy
   shardings (maximal on device 0 in a program, replicated per device in a shard_map body).
3. ``pmap``'s module is ``jit__fun`` and its results carry their shardings.
4. A nested jit's private function keeps its callee's name (``@"<lambda>"``); locations name
   ops ``jit(f)/scope/prim`` (``while/body/``, ``cond/branch_0_fun/`` in regions) and main's
   arguments by JAX's argument names
   (``as_text(debug_info=True)``).
"""
import json
import pathlib
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r22_b_cases import ARG_NAMES, LOWERED, NAMES, SETUP  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r22_b_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["lowered"]] == LOWERED
    assert [src for src, _ in _JAX["names"]] == NAMES
    assert [src for src, _ in _JAX["arg_names"]] == ARG_NAMES


@pytest.mark.devices(4)
@pytest.mark.parametrize("src,expected", _JAX["lowered"], ids=range(len(LOWERED)))
def test_lowered_text_as_jax(src, expected):
    assert eval(src, _ENV).as_text() == expected


@pytest.mark.parametrize("src,expected", _JAX["names"], ids=range(len(NAMES)))
def test_op_names_as_jax(src, expected):
    # JAX also names the callee's function location "jit(f)/outer/jit" ("jit:" on the func),
    # which minijax's private functions do not carry
    assert set(expected) - {"jit(scoped)/outer/jit"} == set(_ENV["op_names"](eval(src, _ENV)))


@pytest.mark.parametrize("src,expected", _JAX["arg_names"], ids=range(len(ARG_NAMES)))
def test_main_argument_locations_as_jax(src, expected):
    assert _ENV["main_arg_locations"](eval(src, _ENV)) == expected


def test_ordered_effects_run_in_order_with_their_tokens(capsys):
    def f(a):
        jax.debug.print("first {}", a, ordered=True)
        r = jax.lax.while_loop(lambda c: c < 2, lambda c: (
            jax.debug.print("loop {}", c, ordered=True), c + 1)[1], 0)
        out = jax.experimental.io_callback(lambda v: v * 2, _ENV["f32"], a, ordered=True)
        jax.debug.print("last {}", out, ordered=True)
        return out + r

    x = jnp.float32(3.0)
    assert float(jax.jit(f, donate_argnums=0)(x)) == 8.0  # the tokens are no outputs
    jax.effects_barrier()
    assert capsys.readouterr().out.split("\n") == [
        "first 3.0", "loop 0", "loop 1", "last 6.0", ""]


@pytest.mark.devices(4)
def test_ordered_effects_refuse_several_devices():
    def f(a):
        jax.debug.print("{}", a, ordered=True)
        return a

    # JAX 0.10.2: "The following ordered effects are not supported for more than 1 device:
    # [<jax._src.debugging.OrderedDebugEffect object at ...>]"
    with pytest.raises(ValueError, match="ordered effects are not supported for more than 1"):
        jax.jit(f, in_shardings=_ENV["xs"]).lower(jnp.ones(8))


@pytest.mark.devices(4)
def test_placed_callbacks_run_once_per_program_or_device():
    seen = []

    def cb(v):
        seen.append(v.shape)
        return v

    spec8, spec2 = (jax.ShapeDtypeStruct((n,), jnp.float32) for n in (8, 2))
    out = jax.jit(lambda a: jax.pure_callback(cb, spec8, a * 2),
                  in_shardings=_ENV["xs"])(jnp.arange(8.0))
    assert out.tolist() == [2.0 * i for i in range(8)]
    out = jax.jit(jax.shard_map(lambda b: jax.pure_callback(cb, spec2, b), mesh=_ENV["mesh"],
                                in_specs=_ENV["P"]("x"), out_specs=_ENV["P"]("x")))(
        jnp.arange(8.0))
    assert out.tolist() == list(range(8)) and seen == [(8,)] + [(2,)] * 4
