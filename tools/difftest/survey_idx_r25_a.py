"""Survey of gather/scatter index staging (helper r25_a): make_jaxpr of indexing forms, diffed
between JAX 0.10.2 and minijax:

    cd /tmp && /work/venv_jax/bin/python survey_idx_r25_a.py > jax.txt
    cd /tmp && PYTHONPATH=/work/main python3 -m minijax.run_as_jax survey_idx_r25_a.py > mj.txt

(optionally with program names as arguments). Sections start with ``===== name``."""
import sys
import numpy as np
import jax

x3 = np.linspace(-1.0, 1.0, 3, dtype=np.float32)
v8 = np.arange(8, dtype=np.float32)
m = np.arange(12, dtype=np.float32).reshape(3, 4)
t = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
i2 = np.array([0, 2], np.int32)

P = {
 "arr": (lambda x: x[np.array([1, 2])], (v8,)),
 "arr_neg": (lambda x: x[np.array([0, -1])], (v8,)),
 "arr_u": (lambda x: x[np.array([0, 2], np.uint8)], (v8,)),
 "arr_i64": (lambda x: x[np.array([0, -2], np.int64)], (v8,)),
 "arr_i8": (lambda x: x[np.array([0, -2], np.int8)], (v8,)),
 "list": (lambda x: x[[0, 2]], (v8,)),
 "arr_2d": (lambda x: x[np.array([[0, 1], [2, -1]])], (v8,)),
 "int_arr": (lambda x: x[1, np.array([0, 2])], (m,)),
 "arr_int": (lambda x: x[np.array([0, 2]), -1], (m,)),
 "arr_slice": (lambda x: x[np.array([0, 2]), 1:3], (m,)),
 "slice_arr": (lambda x: x[:, np.array([0, -1])], (m,)),
 "arr_arr": (lambda x: x[np.array([0, 2]), np.array([1, 3])], (m,)),
 "arr_sl_arr": (lambda x: x[np.array([0, 1]), :, np.array([1, 3])], (t,)),
 "int_sl_arr": (lambda x: x[1, :, np.array([1, 3])], (t,)),
 "traced_arr": (lambda x, i: x[i], (v8, i2)),
 "traced_int_arr": (lambda x, i: x[1, i], (m, i2)),
 "bool_mask": (lambda x: x[np.array([True, False, True])], (x3,)),
 "none_arr": (lambda x: x[None, np.array([0, 1])], (v8,)),
 "at_set_int": (lambda x: x.at[1].set(2.0), (v8,)),
 "at_set_neg": (lambda x: x.at[-1].set(2.0), (v8,)),
 "at_add_int": (lambda x: x.at[np.int32(1)].add(5.0), (v8,)),
 "at_set_2int": (lambda x: x.at[1, 2].set(2.0), (m,)),
 "at_set_int_slice": (lambda x: x.at[1, 1:3].set(2.0), (m,)),
 "at_set_slice": (lambda x: x.at[2:5].set(2.0), (v8,)),
 "at_set_arr": (lambda x: x.at[np.array([1, 2])].set(2.0), (v8,)),
 "at_add_arr_neg": (lambda x: x.at[np.array([0, -1])].add(2.0), (v8,)),
 "at_add_arr_u": (lambda x: x.at[np.array([0, 2], np.uint32)].add(2.0), (v8,)),
 "at_set_int_arr": (lambda x: x.at[1, np.array([0, -1])].set(2.0), (m,)),
 "at_get_arr": (lambda x: x.at[np.array([0, -1])].get(), (v8,)),
 "at_get_fill": (lambda x: x.at[np.array([0, 9])].get(mode="fill", fill_value=0.0), (v8,)),
 "at_set_clip": (lambda x: x.at[np.array([0, 9])].set(1.0, mode="clip"), (v8,)),
 "at_set_int_clip": (lambda x: x.at[3].set(1.0, mode="clip"), (v8,)),
 "at_set_traced": (lambda x, i: x.at[i].set(1.0), (v8, i2)),
 "at_set_step": (lambda x: x.at[1:7:2].set(1.0), (v8,)),
 "grad_arr": (jax.grad(lambda x: x[np.array([1, -1])].sum()), (v8,)),
 "grad_at_set": (jax.grad(lambda x: x.at[1].set(2.0).sum()), (v8,)),
 "grad_int_arr": (jax.grad(lambda x: x[1, np.array([0, 2])].sum()), (m,)),
 "idx_int": (lambda x: x[1], (v8,)),
 "idx_np_int": (lambda x: x[np.int32(-1)], (v8,)),
}

def keys(closed):
    return "\n".join(e.primitive.name + " " + repr(sorted(e.params)) for e in closed.jaxpr.eqns)

sel = sys.argv[1:] or list(P)
for name in sel:
    fn, args = P[name]
    print("=====", name)
    try:
        c = jax.make_jaxpr(fn)(*args)
        print(c)
        print("--value")
        print(np.asarray(fn(*args)).tolist())
    except Exception as e:
        print("ERR", type(e).__name__, e)
