"""Student's t distribution with ``df`` degrees of freedom.

Written term by term as JAX's (its order of operations and ``lax_const`` constants), so values
and weak types match bit for bit."""

import numpy as np

from minijax import lax
from minijax.numpy._util import lax_const
from minijax.scipy.stats._common import promote


def logpdf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote("t.logpdf", x, df, loc, scale)
    two = lax_const(x, 2)
    scaled_x = lax.div(lax.sub(x, loc), scale)
    df_over_two = lax.div(df, two)
    df_plus_one_over_two = lax.add(df_over_two, lax_const(x, 0.5))
    normalize_term_const = lax.mul(lax.mul(scale, scale), lax_const(x, np.pi))
    normalize_term_tmp = lax.div(lax.log(lax.mul(normalize_term_const, df)), two)
    normalize_term = lax.sub(lax.add(lax.lgamma(df_over_two), normalize_term_tmp),
                             lax.lgamma(df_plus_one_over_two))
    quadratic = lax.div(lax.mul(scaled_x, scaled_x), df)
    return lax.neg(lax.add(normalize_term, lax.mul(df_plus_one_over_two, lax.log1p(quadratic))))


def pdf(x, df, loc=0, scale=1):
    return lax.exp(logpdf(x, df, loc, scale))
