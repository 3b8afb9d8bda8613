"""Replays the difftest corpus (random programs with real JAX 0.10.2's results, recorded by
``python3 -m tools.difftest record``; header of each file) on minijax, without JAX.

Every case must agree with JAX (tools/difftest/compare.py: exact dtypes, shapes, weak types,
NaN positions; values to a per-dtype tolerance), except the KNOWN mismatches below, each a
bug listed in tools/difftest/FINDINGS.md. A known mismatch that starts agreeing fails the
test too: delete its line, so the list stays true as the bugs get fixed.
"""

import json
import os

import pytest

from tools.difftest.compare import compare
from tools.difftest.worker import Runner

DATA = os.path.join(os.path.dirname(__file__), "..", "data", "difftest")

# case id -> the bug (its number in tools/difftest/FINDINGS.md)
KNOWN = {
    # regressions.json: the minimized cases, one per FINDINGS.md entry
    "s101-90-min": "15: scatter-max JVP with an integer update: 0 where JAX gives NaN",
}

@pytest.fixture(scope="module")
def runner():
    r = Runner("minijax")
    yield r
    r.jax.config.update("jax_enable_x64", False)


def replay(runner, name):
    with open(os.path.join(DATA, name)) as f:
        corpus = json.load(f)
    assert corpus["header"]["jax_version"].startswith("0.10.2"), corpus["header"]
    found = {}
    for rec in corpus["cases"]:
        case = rec["case"]
        m = compare(case, rec["jax"], runner.run(case))
        if m is not None and m["kind"] != "intended":
            found[case["id"]] = f"{m['kind']}: {m['detail']}"
    return corpus["cases"], found


@pytest.mark.parametrize("name", ["corpus.json", "regressions.json"])
def test_corpus_agrees_with_jax(runner, name):
    cases, found = replay(runner, name)
    ids = {rec["case"]["id"] for rec in cases}
    new = {k: v for k, v in found.items() if k not in KNOWN}
    fixed = sorted(k for k in KNOWN if k in ids and k not in found)
    assert not new, "minijax differs from JAX (reproduce: python3 -m tools.difftest show " \
        "--file tests/data/difftest/%s --case-id ID):\n%s" % (
            name, "\n".join(f"{k}: {v}" for k, v in sorted(new.items())))
    assert not fixed, f"these known mismatches now agree with JAX; remove them from KNOWN: {fixed}"
