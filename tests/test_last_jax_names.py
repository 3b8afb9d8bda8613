"""debug.breakpoint, api_util.debug_info/flatten_fun*, sharding.auto_axes, stages.CompilerOptions
and core.Atom; expected values are NumPy's or JAX 0.10.2's outputs (noted where so)."""

import functools
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import api_util, core, stages
from minijax.extend import linear_util as lu
from minijax.sharding import NamedSharding, PartitionSpec as P, auto_axes

_BREAKPOINT_PROGRAM = textwrap.dedent("""
    import minijax, minijax.numpy as jnp

    def f(x):
        y = jnp.sin(x)
        minijax.debug.breakpoint()
        return y * 2

    def g(x):
        t = minijax.debug.breakpoint(token=x)
        return t + 1

    print("jit", minijax.jit(f)(jnp.arange(3.0)))
    print("eager", f(jnp.arange(2.0)))
    print("token", minijax.jit(g)(jnp.ones(2)))
""")


def test_breakpoint_shows_concrete_values_eagerly_and_under_jit():
    # One scripted pdb-style session per breakpoint hit: print the traced locals, continue.
    commands = "p x\np y\nc\np y\nc\np x\nc\n"
    proc = subprocess.run([sys.executable, "-c", _BREAKPOINT_PROGRAM], input=commands,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    # JAX 0.10.2 prints exactly these lines for the same program and commands.
    assert out.count("Entering jdb:") == 3
    assert "(jdb) Array([0., 1., 2.], dtype=float32)" in out
    assert "(jdb) Array([0.        , 0.84147096, 0.9092974 ], dtype=float32)" in out
    assert "(jdb) Array([0.        , 0.84147096], dtype=float32)" in out
    assert "(jdb) Array([1., 1.], dtype=float32)" in out
    assert "token [2. 2.]" in out
    assert "eager [0.        1.6829419]" in out


def test_breakpoint_ordered_and_token_exclusive():
    with pytest.raises(ValueError, match="mutually exclusive"):
        minijax.debug.breakpoint(ordered=True, token=jnp.ones(2))


def test_breakpoint_unknown_backend_falls_back_and_custom_backend_gets_frames():
    from minijax import debugger

    seen = []
    debugger.register_debugger("test_recorder", lambda frames, tid: seen.append(frames), -10)

    def f(x):
        z = x + 1
        minijax.debug.breakpoint(backend="test_recorder", num_frames=1)
        return z

    minijax.jit(f)(jnp.arange(3.0))
    (frames,) = seen
    assert len(frames) == 1 and frames[0].filename == __file__
    np.testing.assert_array_equal(np.asarray(frames[0].locals["z"]), np.arange(3.0) + 1)
    assert debugger.get_debugger("no such backend") is debugger.get_debugger("cli")


def _f(x, y, *a, k=1, **kw):
    return x


# Expected arg_names/func_src_info as JAX 0.10.2's api_util.debug_info gives them.
@pytest.mark.parametrize("args, kwargs, static, names, expected", [
    ((1, {"a": 2, "b": [3, 4]}, 5), {"k": 6, "z": (7,)}, (), (),
     ("x", "y['a']", "y['b'][0]", "y['b'][1]", "a[0]", "k", "kw['z'][0]")),
    ((1, 2), {}, (1,), (), ("x",)),
    ((1,), {"y": 2, "k": 3}, (), ("k",), ("x", "y")),
    ((3, 4, 5, 6, 7), {"q": 1}, (-1,), (), ("x", "y", "a[0]", "a[1]", "kw['q']")),
])
def test_debug_info_arg_names(args, kwargs, static, names, expected):
    d = api_util.debug_info("jit", _f, args, kwargs, static_argnums=static,
                            static_argnames=names)
    assert d.arg_names == expected
    assert d.traced_for == "jit"
    assert d.func_src_info == f"_f at {__file__}:{_f.__code__.co_firstlineno}"
    assert (d.func_name, d.func_filename, d.func_lineno) == (
        "_f", __file__, _f.__code__.co_firstlineno)


def test_debug_info_partial_builtin_and_treedef_args():
    tree = minijax.tree.structure((1, 2))
    assert api_util.debug_info("scan", lambda c: c, (tree,), {}).arg_names == ("c",)
    d = api_util.debug_info("scan", functools.partial(_f, 1), (3,), {})
    assert (d.func_name, d.arg_names) == ("_f", ("y",))
    d = api_util.debug_info("x", max, (3, 4), {})
    assert (d.func_src_info, d.arg_names) == ("max", ("args[0]", "args[1]"))


def test_flatten_fun_and_nokwargs():
    def f(a, b, *, scale):
        return {"s": (a + b) * scale, "t": (a,)}

    in_tree = minijax.tree.structure(((1, 2), {"scale": 3}))
    flat, out_tree = api_util.flatten_fun(lu.wrap_init(f), in_tree)
    out = flat.call_wrapped(jnp.float32(1), jnp.float32(2), jnp.float32(3))
    np.testing.assert_allclose([np.asarray(o) for o in out], [9.0, 1.0])
    assert out_tree() == minijax.tree.structure({"s": 0, "t": (0,)})

    flat, out_tree = api_util.flatten_fun_nokwargs(
        lu.wrap_init(lambda a, b: [a * b[0]]), minijax.tree.structure((1, (2,))))
    assert flat.call_wrapped(2, 5) == [10]
    assert out_tree() == minijax.tree.structure([0])


def test_flatten_fun_under_trace_to_jaxpr_nounits():
    # flax's lazy_init / partial_eval_by_shape path.
    from minijax.interpreters import partial_eval as pe

    def f(x):
        return (jnp.sin(x), jnp.float32(2.0))

    dbg = api_util.debug_info("lazy_init", f, (0,), {})
    flat, out_tree = api_util.flatten_fun_nokwargs(lu.wrap_init(f, debug_info=dbg),
                                                   minijax.tree.structure((0,)))
    in_pvals = [pe.PartialVal.unknown(core.ShapedArray((3,), np.float32))]
    _, out_pvals, _ = pe.trace_to_jaxpr_nounits(flat, in_pvals)
    assert out_tree() == minijax.tree.structure((0, 0))
    assert out_pvals[0].is_known() is False
    np.testing.assert_allclose(np.asarray(out_pvals[1].get_known()), 2.0)


def test_auto_axes_reshards_outputs():
    s = NamedSharding(minijax.make_mesh((1,), ("x",)), P("x"))
    x = jnp.arange(4.0)
    f = auto_axes(lambda a: a * 2, out_sharding=s)
    for out in (f(x), minijax.jit(f)(x)):
        np.testing.assert_array_equal(np.asarray(out), np.arange(4.0) * 2)
        assert out.sharding.is_equivalent_to(s, 1)
    g = auto_axes(axes="x")(lambda a: a + 1)
    np.testing.assert_array_equal(np.asarray(g(x, out_sharding=s)), np.arange(4.0) + 1)
    with pytest.raises(TypeError, match="Missing required keyword argument: 'out_sharding'"):
        g(x)


def test_compiler_options_and_atom_aliases():
    assert stages.CompilerOptions == dict[str, str | bool]
    assert isinstance(core.Var(core.ShapedArray((), np.float32)), core.Atom)
    assert isinstance(core.Literal(1.0, core.ShapedArray((), np.float32)), core.Atom)
