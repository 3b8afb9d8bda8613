"""The JAX API coverage table (docs/api_coverage.md): every name it marks present exists in
minijax, and the table covers every namespace the generator lists.

Names added to minijax after the table was generated only make it understate (run
`python3 docs/make_api_coverage.py` to refresh it); a table that claims a missing name fails.
"""

import importlib.util
import pathlib
import re

SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "docs" / "make_api_coverage.py"


def _load():
    spec = importlib.util.spec_from_file_location("make_api_coverage", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _committed_rows(text):
    """{(jax namespace, name): present} from the committed markdown."""
    rows, ns = {}, None
    for line in text.splitlines():
        if m := re.match(r"^## `([\w.]+)` → ", line):
            ns = m.group(1)
        elif ns and (m := re.match(r"^\| `(\w+)` \| (yes|—) \|$", line)):
            rows[(ns, m.group(1))] = m.group(2) == "yes"
    return rows


def test_table_claims_only_names_minijax_has():
    mod = _load()
    committed = _committed_rows(mod.OUT.read_text())
    now = {(ns, name): ok for ns, _, rows in mod.coverage() for name, ok in rows}
    assert set(committed) == set(now), "namespaces or names changed: regenerate the table"
    overclaimed = [k for k, ok in committed.items() if ok and not now[k]]
    assert not overclaimed, f"the table lists names minijax lacks: {overclaimed}"
    assert sum(now.values()) >= 300


def test_render_counts_and_lists_missing_names():
    mod = _load()
    text, done = mod.render([("jax.x", "minijax.x", [("a", True), ("b", False)])])
    assert done == 1 and "**1 of 2**" in text and "Missing: `b`." in text
    assert _committed_rows(text) == {("jax.x", "a"): True, ("jax.x", "b"): False}
