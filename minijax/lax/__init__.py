"""``minijax.lax``: the primitives with JAX's names and signatures.

Each submodule defines a family of primitives (every rule beside its primitive) and lists its
public names in ``__all__``; this package only re-exports them.
"""

from minijax.lax.control_flow import *  # noqa: F401,F403,E402
from minijax.lax.accuracy import *  # noqa: F401,F403
from minijax.lax.ann import *  # noqa: F401,F403
from minijax.lax.barrier import *  # noqa: F401,F403
from minijax.lax.broadcasting import *  # noqa: F401,F403
from minijax.lax.convert import *  # noqa: F401,F403
from minijax.lax.composite import *  # noqa: F401,F403
from minijax.lax.conv_shapes import *  # noqa: F401,F403
from minijax.lax.convolution import *  # noqa: F401,F403
from minijax.lax.copy import *  # noqa: F401,F403
from minijax.lax.cumulative import *  # noqa: F401,F403
from minijax.lax.dce_sink import *  # noqa: F401,F403
from minijax.lax.dot import *  # noqa: F401,F403
from minijax.lax.dot_algorithm import *  # noqa: F401,F403
from minijax.lax.elementwise import *  # noqa: F401,F403
from minijax.lax.fft import *  # noqa: F401,F403
from minijax.lax.indexing import *  # noqa: F401,F403
from minijax.lax.linalg import *  # noqa: F401,F403
from minijax.lax.mulhi import *  # noqa: F401,F403
from minijax.lax.other import *  # noqa: F401,F403
from minijax.lax.parallel import *  # noqa: F401,F403
from minijax.lax.platform import *  # noqa: F401,F403
from minijax.lax.ragged_dot import *  # noqa: F401,F403
from minijax.lax.reductions import *  # noqa: F401,F403
from minijax.lax.scaled_dot import *  # noqa: F401,F403
from minijax.lax.general_reduce import *  # noqa: F401,F403
from minijax.lax.rng import *  # noqa: F401,F403
from minijax.lax.scatter_combine import *  # noqa: F401,F403
from minijax.lax.sorting import *  # noqa: F401,F403
from minijax.lax.stacking import *  # noqa: F401,F403
from minijax.lax.special import *  # noqa: F401,F403
from minijax.lax.structural import *  # noqa: F401,F403
from minijax.lax.tokens import *  # noqa: F401,F403
from minijax.lax.total_order import *  # noqa: F401,F403
from minijax.lax.windowed_reductions import *  # noqa: F401,F403
from minijax.lax.sharding_constraint import (  # noqa: F401,E402
    sharding_constraint_p,
    with_sharding_constraint,
)
from minijax.interpreters import lax_ops as _lax_ops  # noqa: E402

# The interpreters apply these themselves but cannot import lax (lax's rules import them).
_lax_ops.install(add=add, broadcast_in_dim=broadcast_in_dim, full=full,  # noqa: F405
                 reduce_sum=reduce_sum, reshape=reshape, transpose=transpose)  # noqa: F405
