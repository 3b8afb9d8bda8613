"""The opt-in that runs ``import jax`` code on minijax (minijax/compat.py, minijax/run_as_jax.py).

Every case runs in a fresh interpreter: the finder changes a process's imports for good.
"""

import importlib.util
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
REAL_JAX = importlib.util.find_spec("jax")  # pip installs real jax beside optax and chex


def _python(code_or_args, *, cwd=None, no_real_jax=False):
    """Runs ``python -c code`` (then checks no real jax module was loaded) or ``python *args``."""
    if isinstance(code_or_args, str):
        code = textwrap.dedent(code_or_args) + (_NO_REAL_JAX if no_real_jax else "")
        args = ["-c", code]
    else:
        args = code_or_args
    env = {**os.environ, "MINIJAX_PLATFORMS": "cpu", "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300)


# Asserts that no module in sys.modules comes from the real jax package's files.
_NO_REAL_JAX = textwrap.dedent("""
    import sys, importlib.machinery, pathlib
    real = importlib.machinery.PathFinder.find_spec("jax")
    real_dir = pathlib.Path(real.origin).parent if real else None
    for name, mod in list(sys.modules.items()):
        f = getattr(mod, "__file__", None)
        assert not (real_dir and f and pathlib.Path(f).is_relative_to(real_dir)), (name, f)
        if name == "jax" or name.startswith("jax."):
            assert f is None or "minijax" in f, (name, f)
""")


def test_run_as_jax_script_uses_minijax_and_never_loads_real_jax(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent("""
        import sys
        import jax, jax.numpy as jnp
        from jax import lax, random
        import minijax
        assert jax.__version__ == "0.10.2" and jax.__version_info__ == (0, 10, 2)
        assert jax.version.__version_info__ == (0, 10, 2)
        import jax.lib, jaxlib.version
        assert jax.lib.__version__ == jaxlib.version.__version__   # the jaxlib minijax runs on
        assert minijax.__version__ != jax.__version__   # minijax keeps its own version
        assert sys.modules["jax.numpy"] is sys.modules["minijax.numpy"]
        assert jax.jit is minijax.jit and lax is minijax.lax and random is minijax.random
        y = jax.jit(jax.grad(lambda x: jnp.sum(jnp.sin(x) ** 2)))(jnp.arange(3.0))
        print(sys.argv[1:], [round(float(v), 5) for v in y])
    """) + _NO_REAL_JAX)
    out = _python(["-m", "minijax.run_as_jax", str(script), "a", "--b"])
    assert out.returncode == 0, out.stderr
    expected = [round(float(v), 5) for v in __import__("numpy").sin(2 * __import__("numpy")
                                                                    .arange(3.0))]
    assert out.stdout.strip() == f"['a', '--b'] {expected}"


@pytest.mark.skipif(REAL_JAX is None, reason="needs the real jax installed beside minijax")
def test_libraries_that_depend_on_jax_import_minijax_instead():
    code = """
        import minijax.compat; minijax.compat.install()
        import optax, chex, jax, jax.numpy as jnp
        params = {"w": jnp.ones(3)}
        opt = optax.adam(0.1)
        state = opt.init(params)
        grads = jax.grad(lambda p: jnp.sum(p["w"] ** 2))(params)
        updates, state = opt.update(grads, state)
        chex.assert_shape(updates["w"], (3,))
        import minijax
        print(isinstance(updates["w"], minijax.Array), jax.Array is minijax.Array)
    """
    out = _python(code, no_real_jax=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True True"


def test_run_as_jax_module_form_passes_argv_and_exit_code(tmp_path):
    (tmp_path / "mod_under_test.py").write_text(textwrap.dedent("""
        import sys, jax
        print(jax.__name__, sys.argv[1:])
        sys.exit(3)
    """))
    out = _python(["-m", "minijax.run_as_jax", "-m", "mod_under_test", "x"], cwd=tmp_path)
    assert out.returncode == 3, out.stderr
    assert out.stdout.strip() == "jax ['x']"


def test_install_refuses_when_real_jax_is_already_loaded():
    code = """
        import sys, types
        sys.modules["jax"] = types.ModuleType("jax")   # what an earlier `import jax` leaves
        import minijax.compat
        try:
            minijax.compat.install()
        except RuntimeError as e:
            print("refused:", "before anything imports jax" in str(e))
    """
    out = _python(code)
    assert out.stdout.strip() == "refused: True", out.stderr


def test_missing_module_names_minijax_and_is_an_import_error():
    code = """
        import minijax.compat; minijax.compat.install(); minijax.compat.install()
        try:
            import jax.no_such_module
        except ModuleNotFoundError as e:
            print(e.name, "|", e)
    """
    out = _python(code, no_real_jax=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().startswith("jax.no_such_module | No module named 'jax.no_such")
    assert "minijax" in out.stdout


def test_off_by_default():
    out = _python("import minijax, sys; print('jax' in sys.modules)")
    assert out.stdout.strip() == "False", out.stderr


def test_chex_restrict_backends_forbids_compiling_through_minijax():
    # chex wraps jax._src.compiler.backend_compile_and_load: minijax compiles through it.
    code = """
        import minijax.compat; minijax.compat.install()
        import jax, jax.numpy as jnp
        from jax._src import compiler
        import minijax.lowering.backends as backends
        assert compiler is backends
        x = jnp.ones(2)
        calls = []
        inner = compiler.backend_compile_and_load
        compiler.backend_compile_and_load = lambda c, *a, **k: calls.append(c.platform) or inner(c, *a, **k)
        jax.jit(lambda x: x * 3)(x)
        print(calls)
    """
    out = _python(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['cpu']"


def test_compile_logs_reach_handlers_on_the_jax_logger():
    # optax's test_utils.log_compilations: a handler on logging.getLogger("jax") and
    # jax.log_compiles(), then it matches "Finished .* compilation".
    code = """
        import logging, re
        import minijax.compat; minijax.compat.install()
        import jax, jax.numpy as jnp
        seen = []
        class H(logging.Handler):
            def emit(self, record):
                seen.append(record.getMessage())
        logging.getLogger("jax").addHandler(H())
        jax.config.update("jax_log_compiles", True)
        f = jax.jit(lambda x: x + 1)
        f(jnp.ones(2)); f(jnp.ones(2))
        print(sum(bool(re.search(r"Finished .* compilation", m)) for m in seen))
    """
    out = _python(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "1"


def test_modules_minijax_does_not_provide_say_so_and_what_instead():
    code = """
        import minijax.compat; minijax.compat.install()
        for name in ("jax.experimental.jax2tf", "jax.experimental.array_serialization.serialization"):
            try:
                __import__(name)
            except ModuleNotFoundError as e:
                print(isinstance(e, ImportError), "does not provide" in str(e), "instead" in str(e))
    """
    out = _python(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True"] * 6
