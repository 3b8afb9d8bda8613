"""Opt-in: run code that says ``import jax`` on minijax.

``install()`` puts an import finder first on ``sys.meta_path`` that answers every ``jax`` and
``jax.*`` import with minijax's module of the same path (``jax.numpy`` is ``minijax.numpy``),
so unmodified JAX programs and libraries (optax, chex ...) run on minijax. Real JAX may be
installed beside minijax (pip installs it as optax's dependency): while the finder is on, no
module of it is ever loaded, because this finder answers before the path-based one and the
``jax`` module it returns has no search path of its own.

``jax`` itself is a small module that reads through to ``minijax`` but reports the JAX API
level minijax implements (``__version__``), so libraries' version checks take the modern
paths. A few JAX module paths that minijax lays out differently are renamed in ``_RENAMED``.

``python -m minijax.run_as_jax script.py`` (or ``-m module``) is the command-line form.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import logging
import sys
import threading
import types

import jaxlib.version

import minijax

JAX_API_VERSION = "0.10.2"
JAX_API_VERSION_INFO = (0, 10, 2)

# JAX module paths whose minijax module lives elsewhere. Every other ``jax.x.y`` is
# ``minijax.x.y``.
_RENAMED = {
    # chex's restrict_backends wraps ``backend_compile_and_load`` here; minijax compiles
    # through the function of that name in lowering.backends, so the wrap takes effect.
    "jax._src.compiler": "minijax.lowering.backends",
    # chex's set_n_cpu_devices reads xla_bridge._backends (the platforms already started).
    "jax._src.xla_bridge": "minijax.lowering.backends",
    # flax.linen.fp8_ops imports it at the top (core.ShapedArray).
    "jax._src.core": "minijax.core",
    # equinox imports it and takes wait_for_tokens when there (minijax keeps no runtime
    # tokens between executions, so there is none).
    "jax._src.dispatch": "minijax.lowering.dispatch",
    # flax.nnx.transforms: checkify_lib.checkify / Error / JaxException / user_checks.
    "jax._src.checkify": "minijax.experimental.checkify",
    # flax's axes_scan stages its scan body on avals that include typed keys; the adapter
    # takes key avals over minijax's partial evaluation.
    "jax.interpreters.partial_eval": "minijax._src.partial_eval",
}

# JAX modules minijax deliberately does not provide, and what to use instead. Importing one
# raises ModuleNotFoundError (an ImportError, which libraries' optional imports expect).
NOT_PROVIDED = {
    "jax.experimental.jax2tf": "converting to TensorFlow is outside minijax; export the "
                               "StableHLO of jit(f).lower(...).as_text() instead",
    "jax.experimental.array_serialization": "save and restore (sharded) arrays with "
                                            "minijax.checkpoint_io instead",
}

_lock = threading.Lock()
_finder: _JaxFinder | None = None


class _JaxFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``jax``/``jax.*`` and loads each as the minijax module it names."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "jax" and not fullname.startswith("jax."):
            return None
        is_package = True  # a ``__path__`` lets ``import jax.a.b`` ask this finder for ``b``
        return importlib.machinery.ModuleSpec(fullname, self, is_package=is_package)

    def create_module(self, spec):
        name = spec.name
        if name == "jax":
            return _jax_module()
        refused = next((m for m in NOT_PROVIDED if name == m or name.startswith(m + ".")), None)
        if refused is not None:
            raise ModuleNotFoundError(f"minijax does not provide {refused}: "
                                      f"{NOT_PROVIDED[refused]}", name=name)
        target = _RENAMED.get(name, "minijax" + name[len("jax"):])
        if _is_package_prefix(name):
            return _namespace_module(name)
        try:
            module = importlib.import_module(target)
        except ModuleNotFoundError as e:
            if e.name != target:
                raise
            raise ModuleNotFoundError(
                f"No module named {name!r}: minijax, standing in for jax (minijax.compat), "
                f"has no {target}", name=name) from None
        # The import system is about to stamp this module with the ``jax.*`` spec;
        # exec_module puts the module's own spec back.
        spec.loader_state = module.__spec__
        return module

    def exec_module(self, module):
        own_spec = module.__spec__.loader_state
        if own_spec is not None:
            module.__spec__ = own_spec


def _is_package_prefix(name):
    """``jax._src`` and such: a path that exists only as the parent of a renamed module."""
    return name not in _RENAMED and any(r.startswith(name + ".") for r in _RENAMED)


def _renamed_child(parent, name):
    """``parent.name`` when that is a renamed module (or a parent of one), imported now: real
    JAX imports these with ``jax`` itself, and libraries reach them as attributes."""
    full = f"{parent}.{name}"
    if full in _RENAMED or _is_package_prefix(full):
        return importlib.import_module(full)
    raise AttributeError(f"module {parent!r} (minijax) has no attribute {name!r}")


def _namespace_child(parent, name):
    """``parent.name`` of a namespace module such as ``jax._src``: any module this finder
    can answer (``jax._src.dispatch`` read as an attribute after ``import jax._src.x``)."""
    try:
        return importlib.import_module(f"{parent}.{name}")
    except ModuleNotFoundError:
        raise AttributeError(f"module {parent!r} (minijax) has no attribute {name!r}") from None


def _namespace_module(name):
    module = types.ModuleType(name, f"Parent of minijax's stand-ins under {name}.")
    module.__path__ = []
    module.__getattr__ = lambda attr: _namespace_child(name, attr)
    return module


def _version_module():
    module = types.ModuleType("jax.version", "The JAX API level minijax implements.")
    module.__version__ = JAX_API_VERSION
    module.__version_info__ = JAX_API_VERSION_INFO
    module._version = JAX_API_VERSION
    return module


def _lib_module():
    """``jax.lib``: in JAX 0.10 it holds only the version of the jaxlib it runs on, which is
    the jaxlib minijax runs on too (equinox's tests read it)."""
    module = types.ModuleType("jax.lib", "The jaxlib minijax runs on.")
    module.__version__ = jaxlib.version.__version__
    return module


def _jax_module():
    module = types.ModuleType("jax", minijax.__doc__)
    module.__path__ = []  # submodules come from this finder alone, never from a directory
    module.__version__ = JAX_API_VERSION
    module.__version_info__ = JAX_API_VERSION_INFO
    module.version = sys.modules["jax.version"] = _version_module()  # as jax/__init__ does
    module.lib = sys.modules["jax.lib"] = _lib_module()

    def __getattr__(name):
        try:
            return getattr(minijax, name)
        except AttributeError:
            return _renamed_child("jax", name)

    def __dir__():
        return sorted({*vars(module), *dir(minijax)})

    module.__getattr__ = __getattr__
    module.__dir__ = __dir__
    return module


def install():
    """Make ``import jax`` (and every ``jax.*``) resolve to minijax in this process.

    Call it before anything imports jax (first thing in a notebook, or in a
    ``sitecustomize.py``). Calling it again is harmless. Raises RuntimeError if the real jax is
    already loaded, since two JAXes in one process would silently mix their arrays.
    """
    global _finder
    with _lock:
        if _finder is not None and _finder in sys.meta_path:
            return
        loaded = sorted(n for n in sys.modules if n == "jax" or n.startswith("jax."))
        if loaded:
            raise RuntimeError(
                "minijax.compat.install(): the real jax is already imported "
                f"({', '.join(loaded[:3])}...); call install() before anything imports jax")
        _finder = _JaxFinder()
        sys.meta_path.insert(0, _finder)
        # minijax's log records (jax_log_compiles ...) reach handlers attached to "jax", as
        # JAX's own loggers (jax._src.*) do; they still propagate up to the root after it.
        logging.getLogger("minijax").parent = logging.getLogger("jax")


def is_installed():
    """Whether ``import jax`` resolves to minijax in this process."""
    return _finder is not None and _finder in sys.meta_path
