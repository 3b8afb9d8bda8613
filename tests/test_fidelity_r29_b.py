"""An aval's strings with JAX 0.10.2's defaults (``str_short()`` spells dtypes in full unless
``short_dtypes=True``; ``mesh_axis_types=True`` adds the mesh's axis types; FINDINGS 280), and
``lax.broadcast_in_dim`` as JAX's: unsorted ``broadcast_dimensions`` transpose, a broadcast to
the operand's own shape is checked then forwarded (eager and staged), and the refusals are in
JAX's words and order (FINDINGS 269). Expected outcomes were recorded from JAX 0.10.2 by
tests/data/record_cases.py over tests/data/fidelity_r29_b_cases.py.
"""

import minijax as jax
import minijax.numpy as jnp
from tests.jax_records import replay

test_recorded_from_jax_0_10_2_over_the_current_cases, test_as_jax = replay(
    "r29_b", jax, jnp)
