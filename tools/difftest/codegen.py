"""A case (pure JSON data) -> plain JAX source. The runner executes this source on both
frameworks and the minimizer prints it as the reproducer."""

import math

import numpy as np

from tools.difftest.ops import OPS, PRELUDE


def pyrepr(v):
    """Python source for a JSON parameter: lists become tuples, {"code": s} is raw code."""
    if isinstance(v, dict) and set(v) == {"code"}:
        return v["code"]
    if isinstance(v, bool) or v is None or isinstance(v, (int, str)):
        return repr(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "float('nan')"
        if math.isinf(v):
            return "float('inf')" if v > 0 else "-float('inf')"
        return repr(v)
    if isinstance(v, (list, tuple)):
        inner = ", ".join(pyrepr(x) for x in v)
        return f"({inner},)" if len(v) == 1 else f"({inner})"
    raise TypeError(f"unsupported parameter {v!r}")


def arg_src(a):
    if isinstance(a, str):
        return a
    if "lit" in a:
        return pyrepr(a["lit"])
    if "expr" in a:
        return a["expr"]
    raise TypeError(f"bad argument {a!r}")


def out_src(out):
    if isinstance(out, dict) and "tuple" in out:
        return "(" + ", ".join(out_src(o) for o in out["tuple"]) + ",)"
    if isinstance(out, dict) and "dict" in out:
        return "{" + ", ".join(f"{k!r}: {out_src(o)}" for k, o in out["dict"].items()) + "}"
    return arg_src(out)


class _Names:
    def __init__(self):
        self.n = 0

    def fresh(self, stem):
        self.n += 1
        return f"{stem}{self.n}"


def _fn_lines(name, body, indent, names):
    pad = " " * indent
    lines = [f"{pad}def {name}({', '.join(body['params'])}):"]
    for holder, parts in body.get("unpack", []):
        lines.append(f"{pad}    {', '.join(parts)} = {holder}")
    for st in body["stmts"]:
        lines += _stmt_lines(st, indent + 4, names)
    lines.append(f"{pad}    return {out_src(body['out'])}")
    return lines


def _stmt_lines(st, indent, names):
    lines, fields = [], {}
    for k, b in enumerate(st.get("bodies", [])):
        fname = names.fresh("body")
        lines += _fn_lines(fname, b, indent, names)
        fields[f"b{k}"] = fname
    for k, a in enumerate(st["args"]):
        fields[f"a{k}"] = arg_src(a)
    for k, v in st.get("p", {}).items():
        fields[k] = pyrepr(v)
    lines.append(" " * indent + f"{st['v']} = " + OPS[st["op"]].format(**fields))
    return lines


def layer_src(layer, inner):
    kind, *args = layer
    return f"T_{kind}({', '.join([inner] + [pyrepr(a) for a in args])})"


def program_src(case):
    """Defines ``f`` (the program), ``g`` (f under the transform stack) and
    ``result = g(x0, x1, ...)``."""
    names = _Names()
    prog = case["prog"]
    lines = _fn_lines("f", prog, 0, names)
    g = "f"
    for layer in reversed(case["stack"]):
        g = layer_src(layer, g)
    lines.append(f"g = {g}")
    lines.append(f"result = g({', '.join(prog['params'])})")
    return "\n".join(lines) + "\n"


def decode_array(spec):
    import ml_dtypes  # noqa: F401  (registers bfloat16 with NumPy)
    dt = np.dtype(spec["dtype"])
    return np.frombuffer(bytes.fromhex(spec["hex"]), dt).reshape(spec["shape"]).copy()


def input_value(jnp, spec):
    """A case input as the program receives it: a Python scalar (``"py"``) or an array."""
    a = decode_array(spec)
    return a.item() if spec.get("py") else jnp.asarray(a)


def _input_literal(spec):
    a = decode_array(spec)
    if spec.get("py"):
        return _nested(a.item()) if a.dtype.kind != "b" else repr(bool(a))
    return _array_literal(a)


def _nested(x):
    if isinstance(x, list):
        return "[" + ", ".join(_nested(e) for e in x) + "]"
    if isinstance(x, complex):
        return f"complex({pyrepr(x.real)}, {pyrepr(x.imag)})"
    return pyrepr(x)


def _array_literal(a):
    if a.dtype.kind in "biu":
        body = repr(a.tolist())
    else:
        wide = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
        body = _nested(wide.tolist())
    return f"jnp.asarray(np.array({body}, dtype=jnp.{a.dtype.name}).reshape({tuple(a.shape)}))"


def reproducer(case, prelude=True):
    """A standalone script: `python repro.py` under real JAX; swap the import for minijax.
    Without the prelude it is the compact form for reports (its helpers: ops.PRELUDE)."""
    lines = [
        "# difftest reproducer for case " + case["id"],
        "import jax",
        f"jax.config.update('jax_enable_x64', {bool(case.get('x64'))})",
        PRELUDE if prelude else "import numpy as np\njnp, lax, nn, random = "
                                "jax.numpy, jax.lax, jax.nn, jax.random",
    ]
    for name, spec in zip(case["prog"]["params"], case["inputs"]):
        lines.append(f"{name} = {_input_literal(spec)}")
    lines.append(program_src(case))
    lines.append("print(jax.tree_util.tree_map(lambda l: (l.dtype, l.shape, l), result))")
    return "\n".join(lines) + "\n"
