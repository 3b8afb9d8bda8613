"""Run 29000, helper b (tools/difftest/triage_29000_b.md).

- cond/switch prune the outputs every branch forwards from the same operand, as JAX 0.10.2's
  (the result is the operand itself; a grad through ``cond(p, lambda x: x, lambda x: x, x)``
  no longer reads the index, so a sharded jit's constant gradient has JAX's
  SingleDeviceSharding: s29026-428, "PartitionSpec None vs []"), and a const two branches
  close over is one operand (JAX's _merge_common_consts). Jaxprs recorded from JAX 0.10.2.
- take_along_axis broadcasts a 1 against a 0 as lax.broadcast_shapes (a slice x[1:] of a
  1-row shard gathered with (1, 3) indices: s29039-452, minijax raised "Incompatible shapes
  for broadcasting: (0, 3) and requested shape (1, 3)"); put_along_axis with no indices
  returns arr. Shapes and values recorded from JAX 0.10.2.
"""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax
from minijax.sharding import Mesh, NamedSharding
from minijax.sharding import PartitionSpec as P

_C = np.arange(3.0, dtype=np.float32)

JAXPRS = {
    'cond_identity': '{ lambda ; a:f32[]. let\n    b:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a\n    c:f32[] = reduce_sum[axes=() out_sharding=None] b\n    d:bool[] = gt c 0.0:f32[]\n    e:i32[] = convert_element_type[new_dtype=int32 weak_type=False] d\n    cond[\n      branches=(\n        { lambda ; f:f32[]. let  in () }\n        { lambda ; g:f32[]. let  in () }\n      )\n    ] e a\n  in (a,) }',
    'cond_partial': '{ lambda ; a:f32[]. let\n    b:bool[] = gt a 0.0:f32[]\n    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n    d:f32[] = cond[\n      branches=(\n        { lambda ; e:f32[] f:f32[]. let  in (f,) }\n        { lambda ; g:f32[] h:f32[]. let i:f32[] = mul h 2.0:f32[] in (i,) }\n      )\n    ] c a 2.0:f32[]\n  in (a, d) }',
    'cond_swapped': '{ lambda ; a:f32[] b:f32[]. let\n    c:bool[] = gt a 0.0:f32[]\n    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c\n    e:f32[] f:f32[] = cond[\n      branches=(\n        { lambda ; g:f32[] h:f32[]. let  in (h, g) }\n        { lambda ; i:f32[] j:f32[]. let  in (i, j) }\n      )\n    ] d a b\n  in (e, f) }',
    'switch_fwd': '{ lambda ; a:i32[] b:f32[]. let\n    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a\n    d:i32[] = clamp 0:i32[] c 2:i32[]\n    e:f32[] = cond[\n      branches=(\n        { lambda ; f:f32[]. let g:f32[] = add f 1.0:f32[] in (g,) }\n        { lambda ; h:f32[]. let i:f32[] = mul h 2.0:f32[] in (i,) }\n        { lambda ; j:f32[]. let  in (j,) }\n      )\n    ] d b\n  in (b, e) }',
    'cond_shared_const': '{ lambda a:f32[3]; b:f32[]. let\n    c:bool[] = gt b 0.0:f32[]\n    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c\n    cond[\n      branches=(\n        { lambda ; e:f32[3] f:f32[]. let  in () }\n        { lambda ; g:f32[3] h:f32[]. let  in () }\n      )\n    ] d a b\n  in (b, a) }',
    'grad_cond': '{ lambda ; a:f32[]. let\n    b:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a\n    c:f32[] = reduce_sum[axes=() out_sharding=None] b\n    d:bool[] = gt c 0.0:f32[]\n    e:i32[] = convert_element_type[new_dtype=int32 weak_type=False] d\n    cond[\n      branches=(\n        { lambda ; f:f32[]. let  in () }\n        { lambda ; g:f32[]. let  in () }\n      )\n    ] e a\n    h:f32[] = mul a 0.5:f32[]\n    i:f32[] = mul a 0.5:f32[]\n    _:f32[] = add h i\n    j:f32[] = mul 1.0:f32[] 0.5:f32[]\n    k:f32[] = mul 1.0:f32[] 0.5:f32[]\n    l:f32[] = add_any j k\n  in (l,) }',
}


PROGRAMS = {
    "cond_identity": (lambda x: lax.cond(jnp.sum(x) > 0, lambda x: x, lambda x: x, x), (1.0,)),
    "cond_partial": (lambda x: lax.cond(x > 0, lambda x, y: (x, y * 2), lambda x, y: (x, y), x,
                                        2.0), (1.0,)),
    "cond_swapped": (lambda x, y: lax.cond(x > 0, lambda x, y: (x, y), lambda x, y: (y, x), x, y),
                     (1.0, 2.0)),
    "switch_fwd": (lambda i, x: lax.switch(i, [lambda x: (x, x + 1), lambda x: (x, x * 2),
                                              lambda x: (x, x)], x), (1, 1.0)),
    "cond_shared_const": (lambda x: lax.cond(x > 0, lambda x: (x, _C), lambda x: (x, _C), x),
                          (1.0,)),
    "grad_cond": (jax.grad(lambda x: lax.cond(jnp.sum(x) > 0, lambda x: x, lambda x: x, x) * 0.5
                           + x * 0.5), (1.0,)),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_cond_forwarded_outputs_pruned_as_jax(name):
    f, args = PROGRAMS[name]
    assert str(jax.make_jaxpr(f)(*args)) == JAXPRS[name]


# (src, type name, dtype, weak_type, value) recorded from JAX 0.10.2
FORWARDED = [
    ("lax.cond(True, lambda x: x, lambda x: x, 2.0)", "float32", True, 2.0),
    ("lax.cond(False, lambda x: x, lambda x: x, np.float32(2.0))", "float32", False, 2.0),
    ("lax.cond(True, lambda x: x, lambda x: x, 3)", "int32", True, 3),
    ("jax.jit(lambda p: lax.cond(p, lambda x: x, lambda x: x, 2.0))(True)", "float32", True, 2.0),
]


@pytest.mark.parametrize("src,dtype,weak,value", FORWARDED)
def test_cond_forwarded_operand_is_an_array(src, dtype, weak, value):
    r = eval(src, {"jax": jax, "lax": lax, "np": np})
    assert isinstance(r, jax.Array)
    assert np.dtype(r.dtype).name == dtype and bool(r.weak_type) == weak and float(r) == value


def test_s29026_428_sharded_grad_through_identity_cond_is_single_device():
    """JAX 0.10.2: all three gradients SingleDeviceSharding (values 1, zeros, zeros)."""
    mesh = Mesh(np.array(jax.devices()[:2]), ("d",))
    x0 = np.float32(-1.7695444)
    x1 = np.array([[1.39], [-1.30], [0.84]], np.float32)
    x2 = np.array([-0.15, 0.99, -1.44], np.float32)

    def f(x0, x1, x2):
        t1 = lax.cond(jnp.sum(x0) > 0, lambda x: x, lambda x: x, x0)
        return jnp.sum(t1 * 0.5) + jnp.sum(x0 * 0.5)

    ys = [jax.device_put(x0, NamedSharding(mesh, P())),
          jax.device_put(x1, NamedSharding(mesh, P())),
          jax.device_put(x2, NamedSharding(mesh, P()))]
    out = jax.jit(jax.grad(f, argnums=(0, 1, 2)))(*ys)
    assert [type(o.sharding).__name__ for o in out] == ["SingleDeviceSharding"] * 3
    assert float(out[0]) == 1.0 and not np.any(out[1]) and not np.any(out[2])


# (arr shape, indices shape, axis, take's shape, put's shape and values) from JAX 0.10.2
ALONG = [
    ((0, 3), (1, 3), 1, (0, 3), (0, 3), []),
    ((1, 3), (0, 2), 1, (0, 2), (1, 3), [0., 1., 2.]),
    ((2, 1, 3), (1, 0, 2), 2, (2, 0, 2), (2, 1, 3), [0., 1., 2., 3., 4., 5.]),
    ((0, 3), (1, 2), 1, (0, 2), (0, 3), []),
    ((3, 1), (1, 0), 0, (1, 0), (3, 1), [0., 1., 2.]),
    ((2, 0), (1, 0), 1, (2, 0), (2, 0), []),
]


@pytest.mark.parametrize("sa,si,axis,take_shape,put_shape,put_vals", ALONG)
def test_along_axis_broadcasts_one_against_zero(sa, si, axis, take_shape, put_shape, put_vals):
    a = jnp.arange(int(np.prod(sa)), dtype=jnp.float32).reshape(sa)
    i = jnp.arange(int(np.prod(si)), dtype=jnp.int32).reshape(si) % 2
    assert jnp.take_along_axis(a, i, axis=axis).shape == take_shape
    assert jax.jit(lambda a, i: jnp.take_along_axis(a, i, axis=axis))(a, i).shape == take_shape
    r = jnp.put_along_axis(a, i, 7.0, axis=axis, inplace=False)
    assert r.shape == put_shape and np.asarray(r).ravel().tolist() == put_vals


def test_s29039_452_take_along_axis_of_an_empty_slice_in_vmap():
    """JAX 0.10.2: bf16[1, 0, 3] for both outputs."""
    x0 = jnp.ones((1, 3), jnp.bfloat16)
    x2 = jnp.array([[[1, 3, 0]]], jnp.uint8)

    def f(x0, x2):
        t3 = x0[1:]
        return jnp.take_along_axis(t3, x2, axis=1), t3

    t4, t3 = jax.vmap(f, (None, 0))(x0, x2)
    assert t4.shape == (1, 0, 3) and t3.shape == (1, 0, 3) and t4.dtype == jnp.bfloat16
