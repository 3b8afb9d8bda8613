"""Inspection tools: a jaxpr as a Graphviz graph.

    print(minijax.tools.jaxpr_to_dot(minijax.make_jaxpr(f)(x)))   # DOT text
    svg = minijax.tools.jaxpr_to_svg(minijax.make_jaxpr(f)(x))    # needs Graphviz's `dot`

Primitives are boxes (with their short parameters), inputs green ellipses, closed-over constants
grey dashed boxes, literals plain text, outputs orange; each edge carries the variable's name as
the jaxpr printer shows it and its type (``b:f32[3]``). Jaxprs held in parameters (the bodies of
``cond``, ``while``, ``scan``, ``pjit`` ...) are drawn as dashed clusters, linked to their
equation by a dashed edge.
"""

from __future__ import annotations

import shutil
import subprocess

from minijax import core
from minijax.core import ClosedJaxpr, Jaxpr, Literal
from minijax.interpreters.walk import sub_jaxprs

__all__ = ["jaxpr_to_dot", "jaxpr_to_svg"]

_MAX_PARAM_CHARS = 40

_STYLE = {
    "input": 'shape=ellipse, style=filled, fillcolor="#d5e8d4"',
    "const": 'shape=box, style="filled,dashed", fillcolor="#eeeeee"',
    "eqn": 'shape=box, style="rounded,filled", fillcolor="#dae8fc"',
    "literal": "shape=plaintext",
    "output": 'shape=box, style="filled", fillcolor="#ffe6cc"',
}


def _quote(*lines):
    """A DOT string literal; ``lines`` become separate lines of the label."""
    escaped = [str(x).replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") for x in lines]
    return '"' + "\\n".join(escaped) + '"'


def _as_jaxpr(x):
    if isinstance(x, ClosedJaxpr):
        return x.jaxpr, x.consts
    if isinstance(x, Jaxpr):
        return x, None
    inner = getattr(x, "jaxpr", None)  # a Traced stage, or anything holding one
    if isinstance(inner, (ClosedJaxpr, Jaxpr)):
        return _as_jaxpr(inner)
    raise TypeError(f"jaxpr_to_dot expects a Jaxpr or ClosedJaxpr, got {type(x).__name__}")


def _short_params(eqn):
    shown = eqn.params
    hook = eqn.primitive.pp_params
    if hook is not None:
        shown = hook(shown)
    lines = []
    for k, v in sorted(shown.items()):
        if isinstance(v, (ClosedJaxpr, Jaxpr)) or (
            isinstance(v, (list, tuple)) and any(isinstance(x, (ClosedJaxpr, Jaxpr)) for x in v)
        ):
            continue
        text = f"{k}={core.pp_param(v)}"
        if len(text) > _MAX_PARAM_CHARS:
            text = text[: _MAX_PARAM_CHARS - 3] + "..."
        lines.append(text)
    return lines


class _Writer:
    def __init__(self):
        self.lines = []
        self.scopes = 0

    def node(self, ident, kind, *label, indent):
        self.lines.append(f"{indent}{ident} [label={_quote(*label)}, {_STYLE[kind]}];")

    def edge(self, src, dst, label=None, indent="  ", extra=""):
        attrs = [] if label is None else [f"label={_quote(label)}"]
        if extra:
            attrs.append(extra)
        tail = f" [{', '.join(attrs)}]" if attrs else ""
        self.lines.append(f"{indent}{src} -> {dst}{tail};")

    def jaxpr(self, jaxpr, consts, indent):
        """Emits one jaxpr's nodes and edges; returns the id of its first node (an anchor)."""
        scope = self.scopes
        self.scopes += 1
        namer = core._Namer()
        where = {}  # Var -> node id that produces it
        anchor = None

        def add(ident, kind, *label):
            nonlocal anchor
            anchor = anchor or ident
            self.node(ident, kind, *label, indent=indent)

        for i, v in enumerate(jaxpr.constvars):
            ident = f"s{scope}_const{i}"
            value = "" if consts is None or i >= len(consts) else _const_summary(consts[i])
            extra = [value] if value else []
            add(ident, "const", f"const {namer(v)}", v.aval.str_short(True), *extra)
            where[v] = ident
        for i, v in enumerate(jaxpr.invars):
            ident = f"s{scope}_in{i}"
            add(ident, "input", f"in {namer(v)}", v.aval.str_short(True))
            where[v] = ident
        literals = 0

        def source(v):
            nonlocal literals
            if type(v) is Literal:
                ident = f"s{scope}_lit{literals}"
                literals += 1
                add(ident, "literal", core._pp_literal(v.val))
                return ident
            return where.get(v)

        def edge_label(v):
            return v.aval.str_short(True) if type(v) is Literal else namer.binder(v)

        for k, eqn in enumerate(jaxpr.eqns):
            ident = f"s{scope}_eqn{k}"
            add(ident, "eqn", eqn.primitive.name, *_short_params(eqn))
            for v in eqn.invars:
                src = source(v)
                if src is not None:
                    self.edge(src, ident, edge_label(v), indent)
            for v in eqn.outvars:
                where[v] = ident
                namer(v)  # name outputs in order, as the printer does
            for label, inner in sub_jaxprs(dict(sorted(eqn.params.items()))):
                cluster = self.scopes
                self.lines.append(f"{indent}subgraph cluster_{cluster} {{")
                self.lines.append(f"{indent}  label={_quote(f'{eqn.primitive.name} {label}')};")
                self.lines.append(f'{indent}  style=dashed; color="#888888";')
                inner_jaxpr, inner_consts = _as_jaxpr(inner)
                inner_anchor = self.jaxpr(inner_jaxpr, inner_consts, indent + "  ")
                self.lines.append(f"{indent}}}")
                if inner_anchor is not None:
                    self.edge(ident, inner_anchor, label, indent,
                              f"style=dashed, arrowhead=odot, lhead=cluster_{cluster}")
        for i, v in enumerate(jaxpr.outvars):
            ident = f"s{scope}_out{i}"
            add(ident, "output", f"out {i}", v.aval.str_short(True))
            src = source(v)
            if src is not None:
                self.edge(src, ident, edge_label(v), indent)
        return anchor


def _const_summary(value):
    shape = getattr(value, "shape", None)
    if shape is not None and len(shape) == 0:
        try:
            return f"= {value.item() if hasattr(value, 'item') else value}"
        except Exception:  # noqa: BLE001 - a summary is optional
            return ""
    return ""


def jaxpr_to_dot(jaxpr, name="jaxpr") -> str:
    """Graphviz DOT text of a ``Jaxpr`` / ``ClosedJaxpr`` (e.g. from ``make_jaxpr(f)(x)``)."""
    inner, consts = _as_jaxpr(jaxpr)
    writer = _Writer()
    writer.lines += [
        f"digraph {_quote(name)} {{",
        "  compound=true; rankdir=TB;",
        '  node [fontname="monospace", fontsize=10];',
        '  edge [fontname="monospace", fontsize=9];',
    ]
    writer.jaxpr(inner, consts, "  ")
    writer.lines.append("}")
    return "\n".join(writer.lines) + "\n"


def dot_executable():
    """The path of Graphviz's ``dot`` program, or None when Graphviz is not installed."""
    return shutil.which("dot")


def jaxpr_to_svg(jaxpr, name="jaxpr", timeout=60) -> str:
    """SVG text of the jaxpr's graph, rendered by Graphviz's ``dot`` (must be installed)."""
    dot = dot_executable()
    if dot is None:
        raise RuntimeError(
            "jaxpr_to_svg needs Graphviz's 'dot' program, which is not on PATH. Install Graphviz "
            "(apt-get install graphviz, brew install graphviz, conda install graphviz), or render "
            "the text of minijax.tools.jaxpr_to_dot(...) with any Graphviz viewer."
        )
    result = subprocess.run(
        [dot, "-Tsvg"], input=jaxpr_to_dot(jaxpr, name).encode(), capture_output=True,
        timeout=timeout, check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"dot failed: {result.stderr.decode(errors='replace').strip()}")
    return result.stdout.decode()
