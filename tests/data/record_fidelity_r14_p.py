"""Records JAX's gradients for tests/test_fidelity_r14_p.py (run 17000, cases s17105-137,
s17116-177, s17129-173: scatter min/max with mode='clip', FINDINGS 118).

For each case it records the gradient with the indices as given (`clip`, where JAX 0.10.2 is
wrong) and with the same indices already normalised and clipped by hand (`in_range`, the
right derivative, which minijax must give for both).

    /work/venv_jax/bin/python tests/data/record_fidelity_r14_p.py \
        > tests/data/fidelity_r14_p_jax.json
"""
import json

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update('jax_enable_x64', False)

# name: (operand, operand dtype, indices, indices clipped by hand, update, 'min' | 'max')
CASES = {
    's17129-173': ([-1.255859375, 1.470703125, 1.666015625], 'float16',
                   [1, 1, 4], [1, 1, 2], 0.5, 'min'),
    's17116-177': ([-0.259033203125, -65504.0, 0.544921875], 'float16',
                   [-2, -4, 3], [1, 0, 2], 0.0, 'min'),
    's17105-137': ([[0.1], [-0.05]], 'float32', [0, 3], [0, 1], 2.5, 'max'),
}


def grad(x, dtype, idx, upd, op):
    x = jnp.asarray(np.array(x, dtype))
    w = np.linspace(0.5, 1.5, x.size).reshape(x.shape).astype(dtype)
    f = lambda a: jnp.sum(getattr(a.at[jnp.array(idx)], op)(upd, mode='clip') * w)
    return np.asarray(jax.grad(f)(x), np.float64).tolist()


out = {'jax_version': jax.__version__}
for name, (x, dtype, idx, clipped, upd, op) in CASES.items():
    out[name] = {'x': x, 'dtype': dtype, 'idx': idx, 'update': upd, 'op': op,
                 'clip': grad(x, dtype, idx, upd, op),
                 'in_range': grad(x, dtype, clipped, upd, op)}
print(json.dumps(out, indent=1))
