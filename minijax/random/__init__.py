"""``minijax.random``: JAX's PRNGs bit for bit: threefry2x32 (the default, partitionable bits),
threefry4x32, philox2x32, philox4x32, rbg and unsafe_rbg (``random.key(0, impl=...)``).

Keys are explicit values: ``key = random.key(0)`` (typed) or ``random.PRNGKey(0)`` (raw
``uint32[2]``); ``split``/``fold_in`` derive new keys; samplers take one key and a static
shape. Everything works eagerly, under ``jit`` and under ``vmap`` over keys.

- ``_threefry``: the threefry2x32 primitive (lowering, batching, zero JVP) and its counters
- ``_philox``: the philox2x32 and philox4x32 primitives (threefry4x32's is in ``_threefry``)
- ``_keys``: the impls; seeding, typed keys, split, fold_in, bits
- ``_distributions``: samplers built from uniform bits
- ``_gamma``: gamma/beta/dirichlet (rejection sampling in a while loop)
- ``_compound``: transforms of uniform/normal/gamma samples (pareto, t, chisquare, f, ...)
- ``_counts``: poisson, binomial, multinomial (rejection sampling over whole arrays)
- ``_matrix``: multivariate_normal, orthogonal (through minijax.numpy.linalg)
"""

from minijax.random._compound import *  # noqa: F401,F403
from minijax.random._counts import *  # noqa: F401,F403
from minijax.random._distributions import *  # noqa: F401,F403
from minijax.random._gamma import *  # noqa: F401,F403
from minijax.random._keys import *  # noqa: F401,F403
from minijax.random._matrix import *  # noqa: F401,F403
from minijax.random._threefry import threefry2x32_p, threefry_2x32  # noqa: F401
