"""minijax.tools (jaxpr → DOT/SVG) and the stage objects' text and analyses."""

import re

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import core, tools

_NODE = re.compile(r'^\s*(\w+) \[label="((?:[^"\\]|\\.)*)"(?:, [^\]]*)?\];$')
_EDGE = re.compile(r'^\s*(\w+) -> (\w+)(?: \[(.*)\])?;$')


def _check_dot(text):
    """Validates DOT structure without Graphviz: balanced braces outside strings, one statement
    per line, every edge endpoint declared as a node. Returns (nodes, edges, clusters)."""
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            assert depth >= 0, "unbalanced braces"
    assert depth == 0 and not in_string
    lines = text.strip().splitlines()
    assert lines[0].startswith("digraph ") and lines[-1] == "}"
    nodes, edges, clusters = {}, [], []
    for line in lines[1:-1]:
        if m := _NODE.match(line):
            assert m.group(1) not in nodes, f"node {m.group(1)} declared twice"
            nodes[m.group(1)] = m.group(2)
        elif m := _EDGE.match(line):
            edges.append((m.group(1), m.group(2), m.group(3) or ""))
        elif line.strip().startswith("subgraph cluster_"):
            clusters.append(line.strip().split()[1])
        else:
            assert re.match(r"^\s*(}|[a-z]+=|label=|style=|node \[|edge \[|compound)", line), line
    for src, dst, _ in edges:
        assert src in nodes and dst in nodes, (src, dst)
    return nodes, edges, clusters


def _render_if_possible(text):
    if tools.dot_executable() is None:
        return None
    import subprocess

    out = subprocess.run(["dot", "-Tsvg"], input=text.encode(), capture_output=True, check=True)
    return out.stdout.decode()


def test_dot_of_a_simple_jaxpr():
    c = np.arange(3.0, dtype=np.float32)

    def f(x, n):
        return jnp.sin(x) * 2.0 + c, n

    closed = minijax.make_jaxpr(f)(jnp.ones(3), 1)
    text = tools.jaxpr_to_dot(closed)
    nodes, edges, clusters = _check_dot(text)
    labels = list(nodes.values())
    assert [v for v in labels if v.startswith("in ")] == ["in b\\nf32[3]", "in c\\ni32[]"]
    assert [v for v in labels if v.startswith("const ")] == ["const a\\nf32[3]"]
    assert {"sin", "mul", "add"} <= set(labels) and "2.0" in labels
    assert [v for v in labels if v.startswith("out ")] == ["out 0\\nf32[3]", "out 1\\ni32[]"]
    # avals on edges, with the printer's variable names
    assert 'label="d:f32[3]"' in text and 'label="c:i32[]"' in text
    # an input passed straight through to an output is one edge
    assert any(nodes[s] == "in c\\ni32[]" and nodes[d].startswith("out 1") for s, d, _ in edges)
    assert not clusters
    svg = _render_if_possible(text)
    if svg is not None:
        assert "<svg" in svg and "sin" in svg


def test_dot_file_of_a_training_step(tmp_path):
    """The graph of a whole grad step, written to a .dot file, parses back as a DOT graph (and
    renders to a PNG where Graphviz is installed)."""

    def loss(w, x):
        return jnp.mean(jnp.tanh(x @ w) ** 2)

    def step(w, x):
        return w - 0.1 * minijax.grad(loss)(w, x)

    closed = minijax.make_jaxpr(step)(jnp.ones((3, 2)), jnp.ones((4, 3)))
    path = tmp_path / "step.dot"
    path.write_text(tools.jaxpr_to_dot(closed, name="step"))
    nodes, edges, _ = _check_dot(path.read_text())
    prims = {v.split("\\n")[0] for v in nodes.values()}  # a label's first line: the primitive
    assert {"tanh", "transpose", "dot_general", "reduce_sum"} <= prims
    assert len(edges) >= len(closed.jaxpr.eqns)
    if tools.dot_executable() is not None:
        import subprocess

        png = tmp_path / "step.png"
        subprocess.run(["dot", "-Tpng", str(path), "-o", str(png)], check=True, timeout=60)
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_nested_jaxprs_become_clusters():
    inner = minijax.make_jaxpr(lambda x: jnp.cos(x) + 1.0)(jnp.ones(2))
    prim = core.Primitive("call_like")
    invars = [core.Var(a) for a in inner.in_avals]
    outvars = [core.Var(a) for a in inner.out_avals]
    params = {"jaxpr": inner, "branches": (inner, inner.jaxpr), "num_consts": 0}
    eqn = core.JaxprEqn(prim, invars, outvars, params, None)
    outer = core.ClosedJaxpr(core.Jaxpr([], invars, outvars, [eqn]), [])
    text = tools.jaxpr_to_dot(outer)
    nodes, edges, clusters = _check_dot(text)
    assert len(clusters) == 3
    assert nodes["s0_eqn0"] == "call_like\\nnum_consts=0"  # jaxpr params are clusters, not text
    assert sum(1 for v in nodes.values() if v == "cos") == 3
    assert len([e for e in edges if "lhead=cluster_" in e[2]]) == 3
    svg = _render_if_possible(text)
    if svg is not None:
        assert "cluster_" in svg


def test_labels_are_escaped():
    def f(x):
        return x + 1

    text = tools.jaxpr_to_dot(minijax.make_jaxpr(f)(1.0), name='my "graph"\\')
    assert text.startswith('digraph "my \\"graph\\"\\\\" {')
    _check_dot(text)


def test_svg_needs_dot_and_says_so(monkeypatch):
    closed = minijax.make_jaxpr(jnp.sin)(jnp.ones(2))
    if tools.dot_executable() is not None:
        assert tools.jaxpr_to_svg(closed).lstrip().startswith(("<?xml", "<svg"))
    monkeypatch.setenv("PATH", "")
    with pytest.raises(RuntimeError, match="Graphviz's 'dot'"):
        tools.jaxpr_to_svg(closed)


def test_stage_texts_and_analyses():
    def f(x, w):
        return jnp.tanh(x @ w).sum()

    x = np.ones((4, 8), np.float32)
    w = np.ones((8, 2), np.float32)
    lowered = minijax.jit(f).lower(x, w)
    shlo = lowered.as_text(dialect="stablehlo")
    assert "stablehlo.dot_general" in shlo and "tensor<4x8xf32>" in shlo
    assert "loc(" in lowered.as_text(debug_info=True)
    hlo = lowered.as_text(dialect="hlo")
    assert hlo.startswith("HloModule") and "dot(" in hlo
    with pytest.raises(ValueError, match="dialect"):
        lowered.as_text(dialect="llvm")
    compiled = lowered.compile()
    assert compiled.as_text().startswith("HloModule")
    cost = compiled.cost_analysis()
    assert cost["flops"] >= 4 * 8 * 2 * 2
    mem = compiled.memory_analysis()
    assert mem.argument_size_in_bytes == (4 * 8 + 8 * 2) * 4 and mem.output_size_in_bytes == 4
    np.testing.assert_allclose(float(compiled(x, w)), 8 * np.tanh(8.0), rtol=1e-6)
