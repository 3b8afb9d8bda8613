"""The JAX-internal names minijax provides for flax and equinox (docs/compat.md): refs,
traceback_util, the pytree node registry, hijax primitives, typeof of typed keys; checked
against NumPy and against what JAX 0.10.2 does (its messages and outcomes quoted here)."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax._src import traceback_util, tree_util as src_tree_util
from minijax.experimental import hijax
from minijax.refs import AbstractRef


def test_ref_reads_and_writes():
    r = minijax.new_ref(jnp.arange(3.0))
    assert isinstance(minijax.typeof(r), AbstractRef)
    assert minijax.typeof(r).inner_aval == minijax.ShapedArray((3,), np.float32)
    assert (r.shape, r.dtype, len(r)) == ((3,), np.dtype(np.float32), 3)
    r[1] = 5.0  # a weak float takes the ref's dtype
    r[...] = r[...] * 2
    np.testing.assert_array_equal(r[...], [0.0, 10.0, 4.0])
    np.testing.assert_array_equal(minijax.freeze(r), [0.0, 10.0, 4.0])
    assert repr(r) == "Ref([ 0., 10.,  4.], dtype=float32)"


def test_ref_write_checks_dtype_and_shape_as_jax():
    r = minijax.new_ref(jnp.arange(3.0))
    with pytest.raises(ValueError, match="Ref dtype: float32. Value dtype: int32"):
        r[0] = 5  # JAX refuses a Python int for a float ref too
    with pytest.raises(ValueError, match=r"Expected shape: \(3,\). Value shape: \(4,\)"):
        r[...] = jnp.ones(4)


def test_ref_inside_jit():
    def f(x):
        r = minijax.new_ref(x)
        r[0] = 7.0
        return r[...] * 2

    np.testing.assert_array_equal(minijax.jit(f)(jnp.arange(3.0)), [14.0, 2.0, 4.0])  # JAX's


def test_traceback_util_exclusions(tmp_path):
    lib = str(tmp_path / "lib")
    traceback_util.register_exclusion(lib)
    assert not traceback_util.include_filename(lib + "/mod.py")
    assert traceback_util.include_filename(str(tmp_path / "user.py"))
    assert not traceback_util.include_filename(minijax.__file__)
    f = lambda: 1  # noqa: E731
    assert traceback_util.api_boundary(f) is f


def test_source_info_exclusion_names_the_callers_line(tmp_path):
    lib = tmp_path / "mylib.py"
    lib.write_text("import minijax.numpy as jnp\ndef bad(x):\n    return jnp.dot(x, x[:2])\n")
    prog = textwrap.dedent(f"""
        import sys; sys.path.insert(0, {str(tmp_path)!r})
        import minijax, minijax.numpy as jnp
        from minijax.extend import source_info_util
        source_info_util.register_exclusion({str(lib)!r})
        import mylib
        try:
            minijax.jit(mylib.bad)(jnp.ones(3))
        except TypeError as e:
            print(e, *getattr(e, "__notes__", ()))  # the user's line is a note (PEP 678)
        """)
    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True,
                         timeout=300)
    assert "mylib.py" not in out.stdout and "<string>" in out.stdout, out.stdout + out.stderr


def test_pytree_node_registry():
    class Point:
        def __init__(self, x):
            self.x = x

    reg = src_tree_util._registry
    assert {tuple, list, dict, type(None)} <= set(reg)
    assert Point not in reg
    minijax.tree_util.register_pytree_node(Point, lambda p: ((p.x,), None),
                                           lambda _, c: Point(*c))
    assert Point in reg and np.ndarray not in reg
    flatten, unflatten = reg[Point]
    assert unflatten(*reversed(flatten(Point(3)))).x == 3


def test_typeof_typed_key():
    k = minijax.random.split(minijax.random.key(0))
    assert isinstance(k, minijax.Array)  # as JAX's PRNGKeyArray
    assert str(minijax.typeof(k)) == "key<fry>[2]"  # JAX 0.10.2: key<fry>[2]


class _Box:
    def __init__(self, v):
        self.v = v


class _BoxTy(hijax.HiType):
    def __eq__(self, other):
        return isinstance(other, _BoxTy)

    def __hash__(self):
        return 0


class _Unbox(hijax.HiPrimitive):
    def impl(self, box):
        return box.v

    def abstract_eval(self, box_ty):
        return minijax.ShapedArray((), np.float32), set()

    def jvp(self, primals, tangents):
        return unbox_p.bind(*primals), unbox_p.bind(*tangents)


unbox_p = _Unbox("unbox")
hijax.register_hitype(_Box, lambda b: _BoxTy())


def test_hijax_primitive_runs_eagerly():
    b = _Box(jnp.float32(2.5))
    assert isinstance(minijax.typeof(b), _BoxTy)
    assert float(unbox_p.bind(b)) == 2.5
    assert unbox_p.abstract_eval(_BoxTy()) == minijax.ShapedArray((), np.float32)
    effects = hijax.EffectTypeSet()
    effects.add_type(KeyError)
    assert effects.contains(KeyError()) and not effects.contains(ValueError())


def test_dot_general_out_sharding():
    from minijax.sharding import NamedSharding, PartitionSpec

    mesh = minijax.make_mesh((1,), ("x",))
    s = NamedSharding(mesh, PartitionSpec())
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    dims = (((1,), (1,)), ((), ()))
    out = minijax.lax.dot_general(a, a, dims, out_sharding=s)
    np.testing.assert_allclose(out, a @ a.T)
    assert out.sharding.device_set == s.device_set  # JAX 0.10.2: SingleDeviceSharding here
    jitted = minijax.jit(lambda x: minijax.lax.dot_general(x, x, dims, out_sharding=s))
    np.testing.assert_allclose(jitted(a), a @ a.T)
