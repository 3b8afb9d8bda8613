"""The JAX API coverage table (docs/api_coverage.md) and the data it is made from.

The table must list exactly the names recorded in docs/data/*.json and never mark present a
name minijax lacks. Names added to minijax after the table was generated only make it
understate (run `python3 docs/make_api_coverage.py`; `--check` is the strict test).
"""

import importlib.util
import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, ROOT / path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _mod():
    return _load("docs/make_api_coverage.py", "make_api_coverage")


def _committed(text):
    """({(namespace, name): present}, {(namespace, name) listed as an ecosystem name missing})
    from the markdown."""
    rows, eco_missing, ns, heading = {}, set(), None, ""
    for line in text.splitlines():
        if line.startswith("#"):
            heading = line
        if m := re.match(r"^## `([\w.]+)` → ", line):
            ns = m.group(1)
        elif ns and (m := re.match(r"^(Missing|Present) \((\d+)\): (.*)\.$", line)):
            names = re.findall(r"`(\w+)`", m.group(3))
            assert len(names) == int(m.group(2)), line
            rows.update({(ns, n): m.group(1) == "Present" for n in names})
        elif heading == "### Missing, by namespace" and (
                m := re.match(r"^\| `([\w.]+)` \| `(\w+)` \| ", line)):
            eco_missing.add((m.group(1), m.group(2)))
    return rows, eco_missing


def test_table_lists_the_recorded_names_and_claims_only_what_minijax_has():
    mod = _mod()
    rows, eco_missing = _committed(mod.OUT.read_text())
    now = {(ns, name): ok for ns, _, names in mod.coverage() for name, ok in names}
    assert set(rows) == set(now), "the recorded names changed: regenerate the table"
    overclaimed = [k for k, ok in rows.items() if ok and not now[k]]
    assert not overclaimed, f"the table lists names minijax lacks: {overclaimed}"

    eco_rows, _ = mod.ecosystem()
    missing_now = {(ns, name) for ns, name, _, _, ok in eco_rows if not ok}
    assert eco_missing <= {(ns, name) for ns, name, *_ in eco_rows}
    assert missing_now <= eco_missing, (
        f"ecosystem names the table counts present: {sorted(missing_now - eco_missing)}")
    # Floors: what minijax had when the table was first made from JAX's real namespaces.
    assert sum(now.values()) >= 950
    assert len(eco_rows) - len(missing_now) >= 330


def test_recorded_jax_names_are_complete_public_and_current():
    data = json.loads((ROOT / "docs/data/jax_0.10.2_names.json").read_text())
    assert data["jax_version"] == "0.10.2"
    spaces = data["namespaces"]
    for ns in ("jax", "jax.numpy", "jax.numpy.linalg", "jax.numpy.fft", "jax.lax",
               "jax.lax.linalg", "jax.nn", "jax.nn.initializers", "jax.random", "jax.tree",
               "jax.tree_util", "jax.scipy.special", "jax.scipy.stats.norm", "jax.scipy.linalg",
               "jax.sharding", "jax.debug", "jax.profiler", "jax.extend.core", "jax.export"):
        assert ns in spaces, ns
    assert all(not n.startswith("_") for names in spaces.values() for n in names)
    assert len(spaces["jax.numpy"]) >= 400 and sum(map(len, spaces.values())) >= 1900
    assert {"jit", "grad", "vmap", "Array", "numpy"} <= set(spaces["jax"])
    # JAX 0.10.2 raises for these deprecated names: they are not API to cover.
    assert "fix" not in spaces["jax.numpy"]
    assert "device_put_replicated" not in spaces["jax"]

    eco = json.loads((ROOT / "docs/data/ecosystem_jax_names.json").read_text())
    assert set(eco["libraries"]) == {"optax", "chex", "flax", "equinox"}
    assert len(eco["names"]) >= 400
    assert all(not e["namespace"].startswith("jax._src") for e in eco["names"].values())
    for key, e in eco["names"].items():  # every used public name is in its namespace's list
        if e["namespace"] in spaces and not e["deprecated"] and not e["name"].startswith("_"):
            assert e["name"] in spaces[e["namespace"]], key
    assert {"optax", "flax", "equinox"} <= set(eco["names"]["jax.numpy.where"]["libraries"])


def test_recorder_finds_uses_through_imports_and_aliases():
    record = _load("tools/record_jax_namespaces.py", "record_jax_namespaces")
    uses = record.dotted_uses(
        "import jax\n"
        "import jax.numpy as jnp\n"
        "from jax import lax, tree_util as jtu\n"
        "from jax.scipy.special import logsumexp\n"
        "import random\n"
        "jr = jax.random\n"
        "def f(x):\n"
        "    y = jnp.sum(jnp.abs(x).T) + lax.psum(x, 'i') + logsumexp(x)\n"
        "    k = jr.split(jax.random.PRNGKey(0))\n"
        "    jax.tree_util.tree_map(f, y); jtu.tree_leaves(y); random.random()\n"
        "    return jax.numpy.linalg.norm(y)\n")
    assert uses == {
        "jax.numpy": 1, "jax.lax": 1, "jax.tree_util": 1, "jax.scipy.special.logsumexp": 2,
        "jax.numpy.sum": 1, "jax.numpy.abs": 1, "jax.lax.psum": 1, "jax.random": 1,
        "jax.random.split": 1, "jax.random.PRNGKey": 1, "jax.tree_util.tree_map": 1,
        "jax.tree_util.tree_leaves": 1, "jax.numpy.linalg.norm": 1,
    }
    assert record.is_test_file(pathlib.PurePath("optax/_src/alias_test.py"))
    assert not record.is_test_file(pathlib.PurePath("chex/_src/asserts.py"))


def test_placeholders_that_only_raise_are_not_counted():
    mod = _mod()

    def refuses(x):
        """Not here yet."""
        raise NotImplementedError("minijax lacks this")

    def works(x):
        if x is None:
            raise ValueError("x")
        return x

    assert mod.is_placeholder(refuses) and not mod.is_placeholder(works)
    assert not mod.is_placeholder(len)


def test_render_counts_ecosystem_and_scipy_totals():
    mod = _mod()
    sections = [("jax.x", "minijax.x", [("a", True), ("b", False)]),
                ("jax.scipy.special", "minijax.scipy.special", [("erf", True)]),
                ("jax.scipy.stats.norm", "minijax.scipy.stats.norm", [("pdf", False)])]
    eco_rows = [("jax.x", "a", {"optax": 3}, False, True),
                ("jax.x", "b", {"optax": 1, "flax": 2}, True, False)]
    meta = {"jax_version": "0.10.2", "date": "d", "libraries": {"optax": "1", "flax": "2"},
            "scanned": "s", "jax_src": {}, "not_in_jax_0.10.2": {}}
    text, done = mod.render(sections, eco_rows, meta)
    assert done == 2 and "**2 of 4**" in text and "**1 of 2**" in text
    assert "| optax | 1 | 2 |" in text and "| flax | 0 | 1 |" in text
    assert "`jax.scipy` in all: **1 of 2** names (2 namespaces)" in text
    assert "| `jax.x` | `b` | optax (1), flax (2) — deprecated in JAX |" in text
    rows, eco_missing = _committed(text)
    assert rows == {("jax.x", "a"): True, ("jax.x", "b"): False,
                    ("jax.scipy.special", "erf"): True, ("jax.scipy.stats.norm", "pdf"): False}
    assert eco_missing == {("jax.x", "b")}
