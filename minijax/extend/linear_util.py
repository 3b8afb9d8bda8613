"""``jax.extend.linear_util``: ``WrappedFun``, a function with transformations stacked on it.

JAX's partial-evaluation entry points (``partial_eval.trace_to_jaxpr_nounits``) take a
``WrappedFun``; libraries make one with ``wrap_init`` and stack transformations (generators,
or the ``*2`` functions) that may store auxiliary outputs read back after the call.
"""

from __future__ import annotations

import functools

__all__ = ["Store", "StoreException", "WrappedFun", "merge_linear_aux", "transformation",
           "transformation2", "transformation_with_aux", "transformation_with_aux2",
           "wrap_init"]


class StoreException(Exception):
    pass


class Store:
    """A slot an auxiliary output is written to once during the call."""

    __slots__ = ("_val",)

    def __init__(self):
        self._val = _EMPTY

    def store(self, val):
        if self._val is not _EMPTY:
            raise StoreException("Store occupied")
        self._val = val

    def reset(self):
        self._val = _EMPTY

    @property
    def val(self):
        if self._val is _EMPTY:
            raise StoreException("Store empty")
        return self._val

    def __nonzero__(self):
        return self._val is not _EMPTY

    __bool__ = __nonzero__


_EMPTY = object()


class WrappedFun:
    """``f`` (with keyword ``params``) and the transformations applied on top of it;
    ``call_wrapped(*args)`` runs the whole stack."""

    __slots__ = ("f", "f_transformed", "transforms", "stores", "params", "debug_info")

    def __init__(self, f, f_transformed, transforms, stores, params, debug_info):
        self.f = f
        self.f_transformed = f_transformed
        self.transforms = transforms
        self.stores = stores
        self.params = params
        self.debug_info = debug_info

    @property
    def __name__(self):
        return getattr(self.f, "__name__", "<unnamed wrapped function>")

    def wrap(self, gen, gen_static_args, out_store):
        """A new WrappedFun calling ``gen(f, [out_store,] *gen_static_args, *args, **kw)``
        with ``f`` this one's transformed function."""
        extra = () if out_store is None else (out_store,)
        return WrappedFun(
            self.f, functools.partial(gen, self.f_transformed, *extra, *gen_static_args),
            (*self.transforms, (gen, gen_static_args)), (*self.stores, out_store),
            self.params, self.debug_info)

    def call_wrapped(self, *args, **kwargs):
        return self.f_transformed(*args, **kwargs)

    def populate_stores(self, stores):
        for self_store, other_store in zip(self.stores, stores):
            if self_store is not None:
                self_store.store(other_store.val)

    def __repr__(self):
        transforms = ", ".join(getattr(g, "__name__", repr(g)) for g, _ in self.transforms)
        return f"Wrapped function:\n  {transforms or '(no transformations)'}\nCore: {self.__name__}"

    def __eq__(self, other):
        return (type(other) is WrappedFun and self.f == other.f
                and self.transforms == other.transforms and self.params == other.params)

    def __hash__(self):
        return hash((self.f, self.transforms, self.params))


def wrap_init(f, params=None, *, debug_info=None):
    """``f`` as a WrappedFun with no transformations (``params`` are keyword arguments)."""
    params_tuple = () if params is None else tuple(sorted(params.items()))
    f_transformed = f if not params else functools.partial(f, **params)
    return WrappedFun(f, f_transformed, (), (), params_tuple, debug_info)


def transformation2(gen, fun, *gen_static_args):
    """``gen(f, *gen_static_args, *args, **kwargs)`` wrapped around ``fun``."""
    return fun.wrap(gen, gen_static_args, None)


def transformation_with_aux2(gen, fun, *gen_static_args, use_eq_store=False):
    """``gen(f, store, *gen_static_args, *args, **kwargs)`` wrapped around ``fun``; the
    returned thunk reads what ``gen`` stored."""
    del use_eq_store
    out_store = Store()
    return fun.wrap(gen, gen_static_args, out_store), lambda: out_store.val


def _run_generator(gen, f, *args, **kwargs):
    """The generator protocol of ``transformation``: the generator yields the arguments to
    call ``f`` with, is sent ``f``'s answer, and yields the transformed answer."""
    g = gen(*args, **kwargs)
    call_args, call_kwargs = next(g)
    return g.send(f(*call_args, **call_kwargs))


def transformation(gen, fun, *gen_static_args):
    def step(f, *args, **kwargs):
        return _run_generator(gen, f, *gen_static_args, *args, **kwargs)

    step.__name__ = getattr(gen, "__name__", "transformation")
    return fun.wrap(step, (), None)


def transformation_with_aux(gen, fun, *gen_static_args):
    def step(f, store, *args, **kwargs):
        ans, aux = _run_generator(gen, f, *gen_static_args, *args, **kwargs)
        store.store(aux)
        return ans

    step.__name__ = getattr(gen, "__name__", "transformation_with_aux")
    out_store = Store()
    return fun.wrap(step, (), out_store), lambda: out_store.val


def merge_linear_aux(aux1, aux2):
    """``(True, aux1())`` if the first store was filled, else ``(False, aux2())``."""
    try:
        out1 = aux1()
    except StoreException:
        try:
            out2 = aux2()
        except StoreException:
            raise StoreException("neither store occupied") from None
        return False, out2
    try:
        aux2()
    except StoreException:
        return True, out1
    raise StoreException("both stores occupied")
