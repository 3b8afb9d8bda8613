"""Records the nested jit equations JAX makes for nn / scipy / jnp.linalg / jnp statistics calls
(tests/test_jit_structure_lib.py compares minijax's make_jaxpr with them).

    /work/venv_jax/bin/python tests/data/record_jit_structure_lib.py  # writes jit_structure_lib_jax.json

A case is (function path under the top-level package, traced argument kinds, static kwargs);
ARG_KINDS builds the arrays, the same in both frameworks.
"""
import json
import os

import numpy as np

ARG_KINDS = {  # kind -> (shape, dtype, how): the values do not matter to the structure
    "v": ((6,), "float32", "linspace"),
    "c": ((3,), "float32", "linspace"),
    "e": ((2,), "float32", "linspace"),
    "x": ((3, 4), "float32", "linspace"),
    "m": ((3, 3), "float32", "spd"),
    "i": ((5,), "int32", "arange"),
    "s": ((), "float32", "linspace"),
}


def make_arg(kind):
    shape, dtype, how = ARG_KINDS[kind]
    n = int(np.prod(shape))
    if how == "arange":
        return np.arange(n, dtype=dtype).reshape(shape)
    a = np.linspace(0.1, 0.9, n, dtype=dtype).reshape(shape)
    if how == "spd":
        a = (a @ a.T + 3 * np.eye(shape[0])).astype(dtype)
    return a


CASES = [  # (id, function path, argument kinds, static kwargs)
    # jax.nn
    ("nn.relu", "nn.relu", "x", {}),
    ("nn.relu6", "nn.relu6", "x", {}),
    ("nn.sigmoid", "nn.sigmoid", "x", {}),
    ("nn.silu", "nn.silu", "x", {}),
    ("nn.swish", "nn.swish", "x", {}),
    ("nn.gelu", "nn.gelu", "x", {}),
    ("nn.gelu_exact", "nn.gelu", "x", {"approximate": False}),
    ("nn.glu", "nn.glu", "x", {}),
    ("nn.log_sigmoid", "nn.log_sigmoid", "x", {}),
    ("nn.softplus", "nn.softplus", "x", {}),
    ("nn.sparse_plus", "nn.sparse_plus", "x", {}),
    ("nn.sparse_sigmoid", "nn.sparse_sigmoid", "x", {}),
    ("nn.soft_sign", "nn.soft_sign", "x", {}),
    ("nn.hard_sigmoid", "nn.hard_sigmoid", "x", {}),
    ("nn.hard_silu", "nn.hard_silu", "x", {}),
    ("nn.hard_swish", "nn.hard_swish", "x", {}),
    ("nn.hard_tanh", "nn.hard_tanh", "x", {}),
    ("nn.elu", "nn.elu", "x", {}),
    ("nn.celu", "nn.celu", "x", {}),
    ("nn.selu", "nn.selu", "x", {}),
    ("nn.leaky_relu", "nn.leaky_relu", "x", {}),
    ("nn.identity", "nn.identity", "x", {}),
    ("nn.mish", "nn.mish", "x", {}),
    ("nn.squareplus", "nn.squareplus", "x", {}),
    ("nn.softmax", "nn.softmax", "x", {}),
    ("nn.log_softmax", "nn.log_softmax", "x", {}),
    ("nn.logsumexp", "nn.logsumexp", "x", {}),
    ("nn.logmeanexp", "nn.logmeanexp", "x", {}),
    ("nn.standardize", "nn.standardize", "x", {}),
    ("nn.one_hot", "nn.one_hot", "i", {"num_classes": 4}),
    # jax.scipy.special
    ("special.logsumexp", "scipy.special.logsumexp", "x", {}),
    ("special.logsumexp_axis", "scipy.special.logsumexp", "x", {"axis": 1}),
    ("special.xlogy", "scipy.special.xlogy", "xx", {}),
    ("special.xlog1py", "scipy.special.xlog1py", "xx", {}),
    ("special.entr", "scipy.special.entr", "x", {}),
    ("special.expit", "scipy.special.expit", "x", {}),
    ("special.logit", "scipy.special.logit", "x", {}),
    ("special.log_softmax", "scipy.special.log_softmax", "x", {}),
    ("special.softmax", "scipy.special.softmax", "x", {}),
    ("special.gammaln", "scipy.special.gammaln", "x", {}),
    ("special.gammasgn", "scipy.special.gammasgn", "x", {}),
    ("special.gamma", "scipy.special.gamma", "x", {}),
    ("special.digamma", "scipy.special.digamma", "x", {}),
    ("special.betaln", "scipy.special.betaln", "xx", {}),
    ("special.erf", "scipy.special.erf", "x", {}),
    ("special.ndtr", "scipy.special.ndtr", "x", {}),
    ("special.ndtri", "scipy.special.ndtri", "x", {}),
    ("special.log_ndtr", "scipy.special.log_ndtr", "x", {}),
    ("special.i0e", "scipy.special.i0e", "x", {}),
    ("special.i1", "scipy.special.i1", "x", {}),
    ("special.kl_div", "scipy.special.kl_div", "xx", {}),
    ("special.rel_entr", "scipy.special.rel_entr", "xx", {}),
    ("special.zeta", "scipy.special.zeta", "xx", {}),
    ("special.multigammaln", "scipy.special.multigammaln", "x", {"d": 2}),
    ("special.bessel_jn", "scipy.special.bessel_jn", "x", {"v": 2}),
    ("special.sinc", "numpy.sinc", "x", {}),
    ("special.loggamma", "scipy.special.loggamma", "x", {}),
    ("special.expi", "scipy.special.expi", "x", {}),
    ("special.hyp1f1", "scipy.special.hyp1f1", "xxx", {}),
    # jax.scipy.linalg
    ("sla.cholesky", "scipy.linalg.cholesky", "m", {}),
    ("sla.cho_factor", "scipy.linalg.cho_factor", "m", {}),
    ("sla.eigh", "scipy.linalg.eigh", "m", {}),
    ("sla.lu", "scipy.linalg.lu", "m", {}),
    ("sla.lu_factor", "scipy.linalg.lu_factor", "m", {}),
    ("sla.qr", "scipy.linalg.qr", "m", {}),
    ("sla.svd", "scipy.linalg.svd", "m", {}),
    ("sla.solve", "scipy.linalg.solve", "mm", {}),
    ("sla.solve_triangular", "scipy.linalg.solve_triangular", "mm", {}),
    ("sla.inv", "scipy.linalg.inv", "m", {}),
    ("sla.det", "scipy.linalg.det", "m", {}),
    ("sla.expm", "scipy.linalg.expm", "m", {}),
    ("sla.block_diag", "scipy.linalg.block_diag", "mm", {}),
    ("sla.polar", "scipy.linalg.polar", "m", {}),
    ("sla.hessenberg", "scipy.linalg.hessenberg", "m", {}),
    ("sla.toeplitz", "scipy.linalg.toeplitz", "v", {}),
    ("sla.sqrtm", "scipy.linalg.sqrtm", "m", {}),
    ("sla.schur", "scipy.linalg.schur", "m", {}),
    ("sla.expm_frechet", "scipy.linalg.expm_frechet", "mm", {}),
    ("sla.eigh_tridiagonal", "scipy.linalg.eigh_tridiagonal", "ce", {"eigvals_only": True}),
    ("sla.convolution_matrix", "scipy.linalg.convolution_matrix", "v", {"n": 3}),
    ("sla.hilbert", "scipy.linalg.hilbert", "", {"n": 3}),
    ("sla.invhilbert", "scipy.linalg.invhilbert", "", {"n": 3}),
    ("sla.pascal", "scipy.linalg.pascal", "", {"n": 3}),
    ("sla.invpascal", "scipy.linalg.invpascal", "", {"n": 3}),
    ("sla.dft", "scipy.linalg.dft", "", {"n": 3}),
    ("sla.hadamard", "scipy.linalg.hadamard", "", {"n": 4}),
    ("sla.helmert", "scipy.linalg.helmert", "", {"n": 3}),
    ("sla.solve_sylvester", "scipy.linalg.solve_sylvester", "mmm", {}),
    # jax.scipy.stats / integrate
    ("stats.norm.logpdf", "scipy.stats.norm.logpdf", "x", {}),
    ("stats.norm.cdf", "scipy.stats.norm.cdf", "x", {}),
    ("stats.sem", "scipy.stats.sem", "x", {}),
    ("stats.rankdata", "scipy.stats.rankdata", "v", {}),
    ("stats.mode", "scipy.stats.mode", "v", {}),
    ("stats.truncnorm.logpdf", "scipy.stats.truncnorm.logpdf", "xss", {}),
    ("stats.truncnorm.cdf", "scipy.stats.truncnorm.cdf", "xss", {}),
    ("stats.poisson.entropy", "scipy.stats.poisson.entropy", "v", {}),
    ("stats.betabinom.logpmf", "scipy.stats.betabinom.logpmf", "vsss", {}),
    ("stats.truncnorm.sf", "scipy.stats.truncnorm.sf", "xss", {}),
    ("stats.truncnorm.logsf", "scipy.stats.truncnorm.logsf", "xss", {}),
    ("integrate.trapezoid", "scipy.integrate.trapezoid", "v", {}),
    # jnp.linalg
    ("linalg.cholesky", "numpy.linalg.cholesky", "m", {}),
    ("linalg.eigh", "numpy.linalg.eigh", "m", {}),
    ("linalg.eigvalsh", "numpy.linalg.eigvalsh", "m", {}),
    ("linalg.matrix_power", "numpy.linalg.matrix_power", "m", {"n": 3}),
    ("linalg.matrix_rank", "numpy.linalg.matrix_rank", "m", {}),
    ("linalg.qr", "numpy.linalg.qr", "m", {}),
    ("linalg.svd", "numpy.linalg.svd", "m", {}),
    ("linalg.svdvals", "numpy.linalg.svdvals", "m", {}),
    ("linalg.lstsq", "numpy.linalg.lstsq", "mm", {}),
    ("linalg.pinv", "numpy.linalg.pinv", "m", {}),
    ("linalg.det", "numpy.linalg.det", "m", {}),
    ("linalg.inv", "numpy.linalg.inv", "m", {}),
    ("linalg.slogdet", "numpy.linalg.slogdet", "m", {}),
    ("linalg.solve", "numpy.linalg.solve", "mm", {}),
    ("linalg.norm", "numpy.linalg.norm", "m", {}),
    ("linalg.vector_norm", "numpy.linalg.vector_norm", "v", {}),
    ("linalg.matrix_norm", "numpy.linalg.matrix_norm", "m", {}),
    ("linalg.outer", "numpy.linalg.outer", "vv", {}),
    ("linalg.cond", "numpy.linalg.cond", "m", {}),
    ("linalg.cond_1", "numpy.linalg.cond", "m", {"p": 1}),
    ("linalg.tensorinv", "numpy.linalg.tensorinv", "m", {"ind": 1}),
    ("linalg.tensorsolve", "numpy.linalg.tensorsolve", "mc", {}),
    ("linalg.cross", "numpy.linalg.cross", "mm", {}),
    ("linalg.trace", "numpy.linalg.trace", "m", {}),
    ("linalg.diagonal", "numpy.linalg.diagonal", "m", {}),
    # jnp.fft
    ("fft.fft", "numpy.fft.fft", "v", {}),
    ("fft.rfft", "numpy.fft.rfft", "v", {}),
    ("fft.fft2", "numpy.fft.fft2", "x", {}),
    ("fft.fftshift", "numpy.fft.fftshift", "v", {}),
    ("fft.ifftshift", "numpy.fft.ifftshift", "v", {}),
    # jnp statistics / reductions
    ("numpy.median", "numpy.median", "x", {}),
    ("numpy.median_axis", "numpy.median", "x", {"axis": 0}),
    ("numpy.nanmedian", "numpy.nanmedian", "x", {}),
    ("numpy.quantile", "numpy.quantile", "xs", {}),
    ("numpy.percentile", "numpy.percentile", "xs", {}),
    ("numpy.nanquantile", "numpy.nanquantile", "xs", {}),
    ("numpy.nanpercentile", "numpy.nanpercentile", "xs", {}),
    ("numpy.average", "numpy.average", "x", {}),
    ("numpy.average_axis", "numpy.average", "x", {"axis": 1}),
    ("numpy.cov", "numpy.cov", "x", {}),
    ("numpy.corrcoef", "numpy.corrcoef", "x", {}),
    ("numpy.ptp", "numpy.ptp", "x", {}),
    ("numpy.count_nonzero", "numpy.count_nonzero", "x", {}),
    ("numpy.nanmax", "numpy.nanmax", "x", {}),
    ("numpy.nanmin", "numpy.nanmin", "x", {}),
    ("numpy.nansum", "numpy.nansum", "x", {}),
    ("numpy.nanprod", "numpy.nanprod", "x", {}),
    ("numpy.nanmean", "numpy.nanmean", "x", {}),
    ("numpy.nanvar", "numpy.nanvar", "x", {}),
    ("numpy.nanstd", "numpy.nanstd", "x", {}),
    ("numpy.cumprod", "numpy.cumprod", "x", {}),
    ("numpy.nancumsum", "numpy.nancumsum", "x", {}),
    ("numpy.nancumprod", "numpy.nancumprod", "x", {}),
    ("numpy.histogram", "numpy.histogram", "v", {"bins": 3}),
    ("numpy.histogram_bin_edges", "numpy.histogram_bin_edges", "v", {"bins": 3}),
    ("numpy.bincount", "numpy.bincount", "i", {"length": 6}),
]


def resolve(root, path):
    obj = root
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _subjaxprs(value):
    """The jaxprs held by one equation parameter (a jaxpr, a closed jaxpr, or a tuple of them)."""
    if hasattr(value, "eqns"):
        yield value
    elif hasattr(value, "jaxpr") and hasattr(value.jaxpr, "eqns"):
        yield value.jaxpr
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _subjaxprs(v)


def jit_structure(jaxpr):
    """[[name, children], ...] of the jit equations in ``jaxpr``, found recursively: a jit's
    children are the jits in its own jaxpr; other equations' sub-jaxprs add to the caller's list."""
    out = []
    for eqn in jaxpr.eqns:
        subs = [j for v in eqn.params.values() for j in _subjaxprs(v)]
        if eqn.primitive.name in ("jit", "pjit"):
            children = []
            for j in subs:
                children.extend(jit_structure(j))
            out.append([str(eqn.params["name"]), children])
        else:
            for j in subs:
                out.extend(jit_structure(j))
    return out


def structure_of(mod, make_jaxpr, path, kinds, kwargs):
    fn = resolve(mod, path)
    args = [make_arg(k) for k in kinds]
    return jit_structure(make_jaxpr(lambda *a: fn(*a, **kwargs))(*args).jaxpr)


if __name__ == "__main__":
    import jax
    out = {"jax_version": jax.__version__, "arg_kinds": {k: list(v[0]) + [v[1], v[2]]
                                                         for k, v in ARG_KINDS.items()},
           "cases": []}
    for cid, path, kinds, kwargs in CASES:
        try:
            st = structure_of(jax, jax.make_jaxpr, path, kinds, kwargs)
        except Exception as e:  # pylint: disable=broad-except
            print("skip", cid, type(e).__name__, e)
            continue
        out["cases"].append({"id": cid, "path": path, "args": kinds, "kwargs": kwargs,
                             "structure": st})
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jit_structure_lib_jax.json")
    with open(path, "w") as fh:
        json.dump(out, fh, indent=0)
    print(len(out["cases"]), "cases")
