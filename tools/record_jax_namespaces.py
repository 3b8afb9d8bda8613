"""Records JAX's public namespaces and the ``jax.*`` names four ecosystem libraries use, as the
data docs/make_api_coverage.py measures minijax against.

    /work/venv_jax/bin/python tools/record_jax_namespaces.py [--wheels DIR]

Run it with a Python that has real JAX 0.10.2, optax 0.2.8 and chex 0.1.92 installed (minijax
never imports jax, so this is the only place JAX's own modules are read). flax 0.12.8 and
equinox 0.13.8 are read from their wheels, downloaded with pip into a temporary directory
(or taken from --wheels DIR), never installed. It writes

- docs/data/jax_0.10.2_names.json: {namespace: {name: kind}} for every public name (no leading
  underscore) of the namespaces below. Deprecated names (those JAX's module ``__getattr__``
  warns or raises for) are left out, and so are modules that are not a walked namespace
  themselves (``jax.lib``, ``jax.version`` ...: what ``dir(jax)`` lists depends on what else
  happens to have been imported).
- docs/data/ecosystem_jax_names.json: each ``jax`` name the libraries' sources (test files
  excluded) reach, through ``import``/``from ... import`` and attribute chains on the names
  those bind (``jnp.sum``, ``jax.tree_util.tree_map``, ``from jax import lax; lax.scan``), with
  how often each library uses it. ``jax._src`` names and names 0.10.2 lacks are kept apart.

The namespaces walked are the public ones JAX documents, plus any other public module the
libraries use (``jax.core``, ``jax.interpreters.batching``, ``jax.experimental.*`` ...).
"""

from __future__ import annotations

import __future__
import argparse
import ast
import collections
import datetime
import importlib
import importlib.util
import json
import pathlib
import pkgutil
import subprocess
import sys
import tempfile
import types
import warnings
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "docs" / "data"

LIBRARIES = {"optax": "0.2.8", "chex": "0.1.92", "flax": "0.12.8", "equinox": "0.13.8"}
WHEEL_LIBRARIES = ("flax", "equinox")  # the others are installed beside JAX

# Packages walked with all their public submodules; single modules walked as they are.
PACKAGES = ("jax.numpy", "jax.lax", "jax.nn", "jax.scipy", "jax.extend")
MODULES = (
    "jax", "jax.random", "jax.tree", "jax.tree_util", "jax.flatten_util", "jax.sharding",
    "jax.stages", "jax.typing", "jax.dtypes", "jax.debug", "jax.profiler", "jax.errors",
    "jax.experimental", "jax.custom_derivatives", "jax.api_util", "jax.monitoring",
    "jax.test_util", "jax.image", "jax.ops", "jax.export",
)
# MLIR's own Python bindings, re-exported: generated dialect classes, not JAX's API.
SKIP_PREFIXES = ("jax.extend.mlir.",)


def is_test_file(path: pathlib.PurePath) -> bool:
    return (path.name.endswith("_test.py") or path.name.startswith("test_")
            or path.name == "conftest.py" or "tests" in path.parts)


# ---- step 1: which dotted jax paths a source file reaches (pure AST, no jax needed) ----------

def _chain(node):
    """'a.b.c' for the Name/Attribute chain ``a.b.c``, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _bindings(tree):
    """{local name: dotted jax path} for names bound to jax by imports or by plain module-level
    assignments of a jax path (``jnp = jax.numpy``). A name also bound to something else in
    the file (``random`` from both ``jax`` and the stdlib) is ambiguous and dropped."""
    jax_bound, other = {}, set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                top = a.name.split(".")[0]
                if top == "jax":
                    if a.asname:
                        jax_bound.setdefault(a.asname, set()).add(a.name)
                    else:  # `import jax.numpy` binds `jax`
                        jax_bound.setdefault("jax", set()).add("jax")
                else:
                    other.add(a.asname or top)
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                if a.name == "*":
                    continue
                if node.level == 0 and node.module and node.module.split(".")[0] == "jax":
                    jax_bound.setdefault(a.asname or a.name, set()).add(
                        f"{node.module}.{a.name}")
                else:
                    other.add(a.asname or a.name)
    aliases = {k: next(iter(v)) for k, v in jax_bound.items() if len(v) == 1 and k not in other}
    for node in tree.body:  # module-level `jnp = jax.numpy`
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            chain = _chain(node.value)
            if chain and chain.split(".")[0] in aliases:
                root, _, rest = chain.partition(".")
                aliases[node.targets[0].id] = aliases[root] + (f".{rest}" if rest else "")
    return aliases


def dotted_uses(source: str) -> collections.Counter:
    """Counter of the dotted jax paths ``source`` reaches: each ``from jax.x import y`` counts
    ``jax.x.y`` once, each use of a bound name counts its longest attribute chain."""
    tree = ast.parse(source)
    aliases = _bindings(tree)
    uses = collections.Counter()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and (
                node.module.split(".")[0] == "jax"):
            uses.update(f"{node.module}.{a.name}" for a in node.names if a.name != "*")
        elif isinstance(node, ast.Import):
            uses.update(a.name for a in node.names if a.name.startswith("jax."))
    inner = set()  # Attribute/Name nodes that are part of a longer chain already counted
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Attribute, ast.Name)) or id(node) in inner:
            continue
        chain = _chain(node)
        if chain is None:
            continue
        sub = node.value if isinstance(node, ast.Attribute) else None
        while sub is not None:
            inner.add(id(sub))
            sub = sub.value if isinstance(sub, ast.Attribute) else None
        root, _, rest = chain.partition(".")
        if root in aliases and (rest or isinstance(node.ctx, ast.Load)):
            path = aliases[root] + (f".{rest}" if rest else "")
            if "." in path:  # the bare `jax` module passed around names nothing
                uses[path] += 1
    return uses


def scan_tree(root: pathlib.Path) -> collections.Counter:
    uses = collections.Counter()
    for path in sorted(root.rglob("*.py")):
        if is_test_file(path.relative_to(root)):
            continue
        try:
            uses.update(dotted_uses(path.read_text(encoding="utf-8")))
        except SyntaxError as e:
            print(f"skipping {path}: {e}", file=sys.stderr)
    return uses


# ---- step 2: resolve paths and walk namespaces against the installed JAX --------------------

def _import(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return importlib.import_module(name)
        except Exception:  # noqa: BLE001  (a module needing TensorFlow etc.: not walkable here)
            return None


def _is_module_path(name):
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _lookup(module, name):
    """(value, deprecated) for module.name; AttributeError if 0.10.2 lacks it (or has only an
    accelerated deprecation, which raises)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = getattr(module, name)
    return value, any(issubclass(w.category, DeprecationWarning) for w in caught)


def resolve(path):
    """('jax.numpy.linalg', 'norm', kind, deprecated) for 'jax.numpy.linalg.norm.__call__': the
    deepest module on the path, the name used in it and what that name is; None if 0.10.2 has
    no such name."""
    parts = path.split(".")
    module_name = parts[0]
    for i, part in enumerate(parts[1:], start=1):
        child = f"{module_name}.{part}"
        if _is_module_path(child):
            if i == len(parts) - 1 or _import(child) is None:
                return module_name, part, "module", False
            module_name = child
            continue
        module = _import(module_name)
        try:
            value, deprecated = _lookup(module, part)
        except AttributeError:
            return None
        return module_name, part, _kind(value), deprecated
    return None  # the bare top-level package


def walked_namespaces(extra):
    names = set(MODULES) | set(extra)
    for pkg in PACKAGES:
        names.add(pkg)
        module = _import(pkg)
        for info in pkgutil.walk_packages(module.__path__, pkg + "."):
            if "._" not in info.name and not info.name.startswith(SKIP_PREFIXES):
                names.add(info.name)
    return {n for n in names if _import(n) is not None}


def _kind(value):
    if isinstance(value, types.ModuleType):
        return "module"
    if isinstance(value, type):
        return "class"
    return "function" if callable(value) else "object"


def public_names(module_name, children):
    module = _import(module_name)
    deprecated = set(vars(module).get("_deprecations", ()))
    out = {}
    for name in sorted(dir(module)):
        if name.startswith("_") or name in deprecated:
            continue
        try:
            value, warned = _lookup(module, name)
        except AttributeError:
            continue
        if warned or isinstance(value, __future__._Feature):  # `from __future__ import ...`
            continue
        if isinstance(value, types.ModuleType) and value.__name__ != f"{module_name}.{name}":
            continue  # another module imported under a public name, e.g. `np`
        if isinstance(value, types.ModuleType) and value.__name__ not in children:
            continue  # jax.lib, jax.version ...: in dir() only if something imported them
        out[name] = _kind(value)
    # A child module is part of its parent's namespace whether or not it was imported.
    for child in children:
        parent, _, leaf = child.rpartition(".")
        if parent == module_name and not leaf.startswith("_"):
            out[leaf] = "module"
    return dict(sorted(out.items()))


# ---- the two files --------------------------------------------------------------------------

def library_roots(wheel_dir):
    roots = {}
    for lib in LIBRARIES:
        if lib in WHEEL_LIBRARIES:
            wheel = next(wheel_dir.glob(f"{lib}-{LIBRARIES[lib]}-*.whl"))
            dest = wheel_dir / f"{lib}-src"
            with zipfile.ZipFile(wheel) as z:
                z.extractall(dest)
            roots[lib] = dest / lib
        else:
            module = importlib.import_module(lib)
            if module.__version__ != LIBRARIES[lib]:
                sys.exit(f"{lib} {module.__version__} is installed; this records {LIBRARIES[lib]}")
            roots[lib] = pathlib.Path(module.__file__).parent
    return roots


def download_wheels(dest):
    pins = [f"{lib}=={LIBRARIES[lib]}" for lib in WHEEL_LIBRARIES]
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(dest),
                    *pins], check=True)


def ecosystem(wheel_dir):
    per_lib = {lib: scan_tree(root) for lib, root in library_roots(wheel_dir).items()}
    public, src, absent = {}, {}, {}
    for path in sorted(set().union(*per_lib.values())):
        counts = {lib: c[path] for lib, c in per_lib.items() if c[path]}
        resolved = resolve(path)
        if resolved is None:
            absent[path] = counts
            continue
        ns, name, kind, deprecated = resolved
        # jax._src is not API (a separate piece of work): kept apart from the public names.
        table = src if ns.startswith("jax._src") or name == "_src" else public
        entry = table.setdefault(f"{ns}.{name}", {
            "namespace": ns, "name": name, "kind": kind, "deprecated": deprecated,
            "libraries": {}})
        for lib, n in counts.items():
            entry["libraries"][lib] = entry["libraries"].get(lib, 0) + n
    for entry in (*public.values(), *src.values()):
        entry["count"] = sum(entry["libraries"].values())
    return dict(sorted(public.items())), dict(sorted(src.items())), absent


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheels", type=pathlib.Path,
                        help="a directory holding the flax and equinox wheels (else pip "
                             "downloads them into a temporary directory)")
    args = parser.parse_args(argv)
    jax = importlib.import_module("jax")
    if jax.__version__ != "0.10.2":
        sys.exit(f"jax {jax.__version__} is installed; this records 0.10.2")
    today = datetime.date.today().isoformat()
    with tempfile.TemporaryDirectory() as tmp:
        wheel_dir = pathlib.Path(tmp)
        if args.wheels:
            for whl in args.wheels.glob("*.whl"):
                (wheel_dir / whl.name).write_bytes(whl.read_bytes())
        else:
            download_wheels(wheel_dir)
        public, src, absent = ecosystem(wheel_dir)

    walked = walked_namespaces({e["namespace"] for e in public.values()})
    # A module the libraries use is a name of its parent even where it cannot be imported
    # here (jax.experimental.jax2tf needs TensorFlow).
    children = walked | {k for k, e in public.items() if e["kind"] == "module"}
    namespaces = {ns: public_names(ns, children) for ns in sorted(walked)}
    namespaces = {ns: names for ns, names in namespaces.items() if names}

    common = {"jax_version": jax.__version__, "date": today,
              "generator": "tools/record_jax_namespaces.py"}
    DATA.mkdir(parents=True, exist_ok=True)
    (DATA / "jax_0.10.2_names.json").write_text(json.dumps(
        {**common, "namespaces": namespaces}, indent=1) + "\n")
    (DATA / "ecosystem_jax_names.json").write_text(json.dumps(
        {**common, "libraries": LIBRARIES,
         "scanned": "each library's package sources; test files (*_test.py, test_*.py, "
                    "conftest.py, tests/) left out",
         "names": public, "jax_src": src, "not_in_jax_0.10.2": absent}, indent=1) + "\n")
    total = sum(len(v) for v in namespaces.values())
    print(f"{len(namespaces)} namespaces, {total} names; ecosystem: {len(public)} public names, "
          f"{len(src)} jax._src paths, {len(absent)} paths 0.10.2 lacks")


if __name__ == "__main__":
    main()
