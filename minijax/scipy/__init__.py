"""jax.scipy: SciPy's functions on minijax arrays, differentiable and jittable."""

import importlib as _importlib

_SUBMODULES = ("cluster", "fft", "integrate", "interpolate", "linalg", "ndimage", "optimize",
               "signal", "sparse", "spatial", "special", "stats")


def __getattr__(name):  # submodules load on first use, as `import minijax` stays fast
    if name in _SUBMODULES:
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted((*globals(), *_SUBMODULES))
