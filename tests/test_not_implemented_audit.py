"""Every NotImplementedError minijax raises is one JAX 0.10.2 raises too (issue 21).

The table tests/data/not_implemented_jax_0102.json (recorded under real JAX by
tests/data/record_not_implemented.py) names, per function holding such a raise, the user call
that reaches it and what JAX 0.10.2 does on that call. This file checks that the table covers
every raise in minijax/ (found with ``ast``, keyed by function so edits elsewhere do not matter),
that each raise carries a comment naming JAX's refusal (or why it is internal), and that minijax
does on each call what JAX did: the same exception type and message, or, where JAX computes
(a refusal minijax lifted), the same value.
"""
import ast
import json
import pathlib
import re

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp

ROOT = pathlib.Path(minijax.__file__).parent
TABLE = json.loads((pathlib.Path(__file__).parent / "data" / "not_implemented_jax_0102.json")
                   .read_text())
ROWS = TABLE["rows"]

# Raises another engineer owns this round: (file, function) -> why they are not audited here.
EXEMPT = {("shard_map.py", "_lowering"): "nested shard_map refusal, removed by its own change"}


def _is_nie(node):
    return isinstance(node, ast.Name) and node.id == "NotImplementedError"


def _sites():
    """(file under minijax/, qualified function, line of the statement) of each raise (or
    construction, as a factory returning one) of NotImplementedError."""
    out = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()

        def visit(node, qual):
            for child in ast.iter_child_nodes(node):
                q = qual
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    q = f"{qual}.{child.name}" if qual else child.name
                if isinstance(child, (ast.Raise, ast.Return, ast.Expr, ast.Assign)):
                    if (isinstance(child, ast.Raise) and _is_nie(child.exc)) or any(
                            isinstance(n, ast.Call) and _is_nie(n.func) for n in ast.walk(child)):
                        out.append((rel, q, child.lineno))
                    continue
                visit(child, q)

        visit(ast.parse(path.read_text()), "")
    return out


SITES = _sites()


def _comment_above(lines, lineno):
    """The comment block right above line ``lineno`` (1-based), or the preceding line's
    trailing comment."""
    i = lineno - 2
    block = []
    while i >= 0 and lines[i].lstrip().startswith("#"):
        block.append(lines[i])
        i -= 1
    if block:
        return "\n".join(block)
    return lines[lineno - 2].partition("#")[2] if lineno >= 2 else ""


def test_the_walk_finds_the_raises():
    keys = {(f, fn) for f, fn, _ in SITES}
    assert ("numpy/linear_algebra.py", "outer") in keys
    assert ("core.py", "Primitive.missing_rule") in keys  # a factory: return NotImplementedError(
    assert len(SITES) > 60


def test_every_raise_is_in_the_table():
    counts = {}
    for f, fn, _ in SITES:
        counts[(f, fn)] = counts.get((f, fn), 0) + 1
    rows = {}
    for r in ROWS:
        rows[(r["file"], r["function"])] = rows.get((r["file"], r["function"]), 0) + 1
    missing = {k: n for k, n in counts.items() if k not in EXEMPT and rows.get(k, 0) < n}
    assert not missing, f"raises without (enough) rows in the table: {missing}"
    # a row expecting a refusal names a function that still holds one
    stale = {(r["file"], r["function"]) for r in ROWS
             if (r["call"] is None or r.get("jax_exception") == "NotImplementedError")
             and (r["file"], r["function"]) not in counts}
    assert not stale, f"rows for functions with no NotImplementedError: {stale}"


def test_every_raise_carries_the_comment():
    bad = []
    for f, fn, line in SITES:
        if (f, fn) in EXEMPT:
            continue
        comment = _comment_above((ROOT / f).read_text().split("\n"), line)
        if "JAX 0.10.2" not in comment and "internal" not in comment:
            bad.append(f"{f}:{line} ({fn})")
    assert not bad, f"raises without a comment naming JAX 0.10.2's refusal: {bad}"


def test_internal_rows_say_why():
    for r in ROWS:
        if r["call"] is None:
            assert r.get("why"), r


def _normalize(message):
    """minijax's message less what ``with_user_line`` adds (the jnp function's name and the
    user's line), and each printed set's items sorted (a set prints in hash order)."""
    message = message.split("\n  at ")[0]
    message = re.sub(r"^jnp\.[\w.]+: ", "", message)
    return re.sub(r"\{([^{}]*)\}",
                  lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", message)


def _param(r):
    marks = ()
    if r.get("divergence"):
        marks = pytest.mark.xfail(strict=True, reason=r["divergence"])
    return pytest.param(r, id=f"{r['file']}:{r['function']}", marks=marks)


@pytest.mark.parametrize("row", [_param(r) for r in ROWS if r["call"] is not None])
def test_minijax_does_what_jax_did(row):
    *body, last = re.sub(r"\bjax\b", "minijax", row["call"]).split("\n")
    env = {"minijax": minijax, "jnp": jnp, "np": np}
    if row["jax_exception"] is None:
        exec("\n".join(body), env)
        np.testing.assert_allclose(np.asarray(eval(last, env)), np.asarray(row["jax_value"]),
                                   rtol=1e-6)
        return
    with pytest.raises(Exception) as info:
        exec("\n".join(body), env)
        eval(last, env)
    assert type(info.value).__name__ == row["jax_exception"]
    assert _normalize(str(info.value)) == _normalize(row["jax_message"])

