"""``minijax.lax``: the primitives with JAX's names and signatures.

Each submodule defines a family of primitives (every rule beside its primitive) and lists its
public names in ``__all__``; this package only re-exports them.
"""

from minijax.lax.elementwise import *  # noqa: F401,F403
