"""Module attributes JAX removed behind a message, as ``jax._src.deprecations`` keeps them."""


def removed_getattr(module, removed):
    """A module ``__getattr__`` for ``module`` (its ``__name__``): a name in ``removed`` raises
    AttributeError with that name's message (JAX 0.10.2's accelerated deprecations), any other
    name Python's usual AttributeError."""

    def __getattr__(name):
        if name in removed:
            raise AttributeError(removed[name])
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__
