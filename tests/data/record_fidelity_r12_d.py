"""Prints the JAX 0.10.2 values that tests/test_fidelity_r12_d.py holds (run it with the JAX
venv: /work/venv_jax/bin/python tests/data/record_fidelity_r12_d.py)."""
import jax
import numpy as np

jnp, nn = jax.numpy, jax.nn

print("jax", jax.__version__)

# s12030-65: softmax/log_softmax of integers shift in the integer dtype
for dt, a in (("uint32", [[2, 1], [3, 4]]), ("uint8", [[200, 1], [5, 5]]),
              ("int8", [[100, -100], [5, 5]]), ("int32", [[1, 2], [3, 4]])):
    x = jnp.array(a, dt)
    for f in (nn.softmax, nn.log_softmax):
        print(dt, f.__name__, np.asarray(f(x)).tolist(),
              np.asarray(jax.jit(f)(x)).tolist())
    w = jnp.array([[True, False], [True, True]])
    print(dt, "log_softmax where", np.asarray(nn.log_softmax(x, where=w)).tolist())

# s12012-31: pow's JVP for an integer exponent converts y to x's dtype before y - 1
x = jnp.array([0.5, -2.5, 2.0, -3.0, 0.0], jnp.float32)
y = jnp.array([-2**31, -2**31, 2**31 - 1, 3, 0], jnp.int32)
print("pow jvp f32", np.asarray(jax.jvp(lambda x: jax.lax.pow(x, y), (x,),
                                        (jnp.ones_like(x),))[1]).tolist())
print("pow grad f32", np.asarray(jax.grad(lambda x: (x ** y).sum())(x)).tolist())
xh = jnp.array([0.5, -2.5, 3.0], jnp.float16)
yh = jnp.array([70000, 70000, -2**31], jnp.int32)
print("pow jvp f16", np.asarray(jax.jvp(lambda x: jax.lax.pow(x, yh), (xh,),
                                        (jnp.ones_like(xh),))[1], np.float32).tolist())

# s12027-41: QR's JVP adds I * (M - re(M)) for real inputs too (NaN where M is not finite)
big = 3.4028234663852886e+38
x = jnp.array([[-0.32724982500076294, -2.5751304626464844, -big],
               [big, 0.5513923168182373, 0.18049247562885284],
               [0.2591884732246399, -0.9602075219154358, 0.8826934099197388]], jnp.float32)
print("qr r", np.asarray(jnp.linalg.qr(x)[1]).tolist())
ct_r = jax.vjp(jnp.linalg.det, jnp.linalg.qr(x)[1])[1](jnp.float32(0.5))[0]
print("det ct", np.asarray(ct_r).tolist())
print("qr vjp", np.asarray(jax.vjp(lambda x: jnp.linalg.qr(x)[1], x)[1](ct_r)[0]).tolist())
