"""The package's layers hold for every import in ``minijax/``, top-level and function-level.

A module imports only from its own layer or below. A function-level import of a minijax module
is allowed only where it is named in ``FUNCTION_LEVEL`` with its reason (an optional heavy
dependency, or a registration that must invert a dependency); everything else is imported at
the top of the module. The source is parsed, never imported, so the test is fast and sees
imports that a run would not reach.
"""

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "minijax"

# Lowest first. A module's layer is that of the longest prefix listed here.
LAYERS = {
    0: ["core", "dtypes", "errors", "config", "source_info", "tree_util", "monitoring",
        "deprecations", "caches"],
    # distributed: the multi-process runtime (PJRT clients); it imports only core and lowering.
    1: ["lowering", "layout", "sharding_types", "distributed"],
    2: ["interpreters"],
    3: ["lax"],
    4: ["transforms", "jitting", "autodiff", "vmapping", "custom_derivatives",
        "rematerialization", "shard_map", "callbacks", "inspect_sharding", "debug", "debugger",
        "debug_numerics", "stages", "refs", "pmapping", "sharding"],
    5: ["numpy", "nn", "random", "scipy", "experimental", "flatten_util"],
    6: ["", "api", "compat", "run_as_jax", "tools", "test_util", "checkpoint_io", "profiler",
        "typing", "api_util", "tree", "_src", "extend"],
}
_LAYER_OF = {prefix: n for n, prefixes in LAYERS.items() for prefix in prefixes}

# (importing module, imported module) -> why the import must sit inside a function.
FUNCTION_LEVEL = {
    ("minijax.lowering.array", "minijax.layout"):
        "Array.format: layout imports sharding_types, which imports lowering.array",
}

MAX_FUNCTION_LEVEL = 40


def layer(module):
    """The layer of ``minijax.a.b``: the entry for ``a.b`` or else ``a`` (``""``: the package)."""
    parts = module.split(".")[1:]
    for n in range(len(parts), -1, -1):
        found = _LAYER_OF.get(".".join(parts[:n]))
        if found is not None:
            return found
    return None


def _is_module(name):
    path = PACKAGE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").exists() or path.is_dir()


def _module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imported(node, module, is_package):
    """The minijax modules an import statement loads: ``from m import x`` names the submodule
    ``m.x`` where ``x`` is one, else ``m``."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = module.split(".")
        if not is_package:
            base.pop()
        base = base[:len(base) - (node.level - 1)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module
    out = []
    for alias in node.names:
        sub = f"{source}.{alias.name}"
        out.append(sub if _is_module(sub) else source)
    return list(dict.fromkeys(out))


def _collect():
    """Rows (importing module, imported module, line, function-level) for all of minijax/."""
    rows = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        tree = ast.parse(path.read_text(), filename=str(path))
        in_function = set()
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                in_function.update(id(n) for n in ast.walk(fn)
                                   if isinstance(n, (ast.Import, ast.ImportFrom)))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for target in _imported(node, module, path.name == "__init__.py"):
                if target == "minijax" or target.startswith("minijax."):
                    rows.append((module, target, node.lineno, id(node) in in_function))
    return rows


ROWS = _collect()


def test_every_module_has_a_layer():
    modules = {m for row in ROWS for m in row[:2]}
    modules |= {_module_name(p) for p in PACKAGE.rglob("*.py")}
    missing = sorted(m for m in modules if layer(m) is None)
    assert not missing, f"modules in no layer (add them to LAYERS): {missing}"


def test_no_upward_import():
    upward = [f"{mod}:{line} imports {target} (layer {layer(mod)} -> {layer(target)})"
              for mod, target, line, func in ROWS
              if layer(mod) is not None and layer(target) is not None
              and layer(target) > layer(mod) and not (func and (mod, target) in FUNCTION_LEVEL)]
    assert not upward, "imports from a higher layer:\n" + "\n".join(upward)


def test_function_level_imports_are_named():
    unnamed = [f"{mod}:{line} imports {target}" for mod, target, line, func in ROWS
               if func and (mod, target) not in FUNCTION_LEVEL]
    assert not unnamed, (
        "function-level imports of minijax modules not in FUNCTION_LEVEL (import at the top of "
        "the module, or invert the dependency with a hook):\n" + "\n".join(unnamed))


def test_function_level_exceptions_are_used_and_few():
    used = {(mod, target) for mod, target, _, func in ROWS if func}
    stale = sorted(set(FUNCTION_LEVEL) - used)
    assert not stale, f"FUNCTION_LEVEL entries no import needs any more: {stale}"
    count = sum(1 for row in ROWS if row[3])
    assert count < MAX_FUNCTION_LEVEL, f"{count} function-level minijax imports"


@pytest.mark.parametrize("module, expected", [
    ("minijax.core", 0), ("minijax.lowering.dispatch", 1), ("minijax.interpreters.ad", 2),
    ("minijax.lax.control_flow.loops", 3), ("minijax.transforms.walk", 4),
    ("minijax.numpy._util", 5), ("minijax", 6), ("minijax.extend.core", 6),
])
def test_layer_table(module, expected):
    assert layer(module) == expected


def test_import_parsing():
    """Submodules named in ``from`` imports and relative imports resolve to the module."""
    def parse(src, module="minijax.lax.dot", is_package=False):
        return _imported(ast.parse(src).body[0], module, is_package)

    assert parse("from minijax.lax import structural") == ["minijax.lax.structural"]
    assert parse("from minijax.lax.structural import reshape") == ["minijax.lax.structural"]
    assert parse("from minijax import lax, dtypes") == ["minijax.lax", "minijax.dtypes"]
    assert parse("from . import families") == ["minijax.lax.families"]
    assert parse("from ..core import Primitive") == ["minijax.core"]
    assert parse("from .control_flow import cond", "minijax.lax", True) == [
        "minijax.lax.control_flow"]
    assert parse("import minijax.numpy as jnp") == ["minijax.numpy"]
