"""JAX's recorded outcomes for a test, one file per kind of CPU they were recorded on.

XLA:CPU compiles for the host's vector units (AVX-512 or AVX2) and jaxlib's LAPACK picks its
kernels by CPU, so JAX 0.10.2 itself gives other last bits, another iteration count of a solver
that stops on rounding, or another basis of a null space on another machine. Measured on an AMD
EPYC with AVX2 against records made on an AVX-512 machine: 165, 119, 410 and 2 recorded values
of fidelity_r18_n, r18_v, r20_m and r22_lead differed, and BFGS on float32 Rosenbrock stopped
after 35 iterations instead of 26. minijax compiles the same programs with the same XLA, and on
each machine matched JAX's outcome there bit for bit. So a record made on another kind of CPU
sits beside the first as ``<stem>.<cpu>.json`` (written by the same recording script), and a
case passes when minijax matches JAX's outcome on one of them.
"""
import importlib
import json
import pathlib
import sys

import numpy as np
import pytest

DATA = pathlib.Path(__file__).parent / "data"


def load(name):
    """The record ``tests/data/<name>``, then each ``<stem>.<cpu>.json`` beside it."""
    first = DATA / name
    others = sorted(DATA.glob(first.stem + ".*.json"))
    return [json.loads(p.read_text()) for p in [first, *others]]


def assert_matches_one(check, expectations):
    """Passes when ``check(expected)`` passes for one of ``expectations`` (JAX's outcomes on the
    machines recorded); otherwise raises ``check``'s AssertionError for the first."""
    errors = []
    for expected in expectations:
        try:
            check(expected)
            return
        except AssertionError as e:
            errors.append(e)
    raise errors[0]


def assert_equals_one(got, expectations):
    """``got`` equals one of ``expectations`` (JAX's outcomes on the machines recorded)."""
    def check(expected):
        assert got == expected
    assert_matches_one(check, expectations)


def replay(name, jax, jnp, marks=()):
    """The two tests of a record-replay file: ``tests/data/fidelity_<name>_cases.py`` holds
    SETUP and CASES (expressions over ``jax``, ``jnp`` and ``np`` giving JSON-able outcomes),
    ``fidelity_<name>_jax.json`` JAX 0.10.2's outcomes of them (tests/data/record_cases.py).
    ``marks`` go on the per-case test. Assign the pair to module-level test names."""
    sys.path.insert(0, str(DATA))
    cases = importlib.import_module(f"fidelity_{name}_cases")
    records = load(f"fidelity_{name}_jax.json")
    env = {"jax": jax, "jnp": jnp, "np": np}
    exec(cases.SETUP, env)

    def test_recorded_from_jax_0_10_2_over_the_current_cases():
        assert records[0]["jax_version"] == "0.10.2"
        assert [src for src, _ in records[0]["cases"]] == cases.CASES

    @pytest.mark.parametrize("i", range(len(cases.CASES)))
    def test_as_jax(i):
        got = eval(cases.CASES[i], env)
        assert_equals_one(got, [r["cases"][i][1] for r in records])

    for mark in marks:
        test_as_jax = mark(test_as_jax)
    return test_recorded_from_jax_0_10_2_over_the_current_cases, test_as_jax
