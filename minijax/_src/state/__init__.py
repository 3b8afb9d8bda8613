"""``jax._src.state``: the types of mutable refs (minijax.refs)."""
