"""What the distribution modules share: argument promotion as JAX's ``promote_args_inexact``
(integers become the default float, shapes broadcast) and the standardized variable."""

from minijax.numpy._util import promote_args_inexact
from minijax.numpy.creation import to_array


def promote(name, *args):
    return [to_array(x) for x in promote_args_inexact(name, *args)]


def standardize(x, loc, scale):
    return (x - loc) / scale
