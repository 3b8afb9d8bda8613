"""Inside shard_map (check_vma=True), the programs JAX 0.10.2 refuses because values disagree in
their varying manual axes where a loop, a conditional or a gamma sampler needs them equal
(JAX pvarys no carry, branch output or key there), and the ones it accepts by inserting a
pvary itself. The messages and values below were recorded from JAX 0.10.2 (2 CPU devices)."""

import numpy as np
import pytest

import minijax as mj
import minijax.numpy as jnp
from minijax import lax, random
from minijax.sharding import Mesh
from minijax.sharding import PartitionSpec as P

pytestmark = pytest.mark.devices(4)

X, Y = jnp.arange(4.0), jnp.arange(2.0)  # x is split over 'd' (varying), y replicated

FIX = ("This might be fixed by applying `jax.lax.pcast(..., ('d',), to='varying')`, to the "
       "initial carry value corresponding to the input carry {}.\nSee "
       "https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more "
       "information.\n\n")
REVISE = "Revise the function so that all output types match the corresponding input types."


def shmap(f, *xs):
    mesh = Mesh(np.array(mj.devices()[:2]), ("d",))
    specs = tuple(P("d") if i == 0 else P() for i in range(len(xs)))
    return mj.shard_map(lambda *a: lax.psum(f(*a), "d"), mesh=mesh, in_specs=specs,
                        out_specs=P())(*xs)


def refusal(f, *xs, error=TypeError):
    with pytest.raises(error) as e:
        shmap(f, *xs)
    text = str(e.value)
    assert "\n  at " in text and __file__ in text  # the user's line
    return text.split("\n  at ")[0]


def test_while_loop_carry_gaining_axes():
    # s5037-262
    msg = refusal(lambda x, y: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] + x),
                                              (0, y))[1], X, Y)
    assert msg == (
        "while_loop body function carry input and carry output must have equal types, but they "
        "differ:\n\nThe input carry component c[1] has type float32[2] but the corresponding "
        "output carry component has type float32[2]{V:d}, so the manual axis types do not "
        "match.\n\n" + FIX.format("component c[1]") + REVISE)


def test_while_loop_carry_losing_axes_has_no_hint():
    msg = refusal(lambda x, y: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, y),
                                              (0, x))[1], X, Y)
    assert msg == (
        "while_loop body function carry input and carry output must have equal types, but they "
        "differ:\n\nThe input carry component c[1] has type float32[2]{V:d} but the "
        "corresponding output carry component has type float32[2], so the manual axis types "
        "do not match.\n\n" + REVISE)


def test_scan_and_fori_loop_carry():
    # s5020-198 is this check's cousin, but JAX fails there inside its own jvp (FINDINGS)
    msg = refusal(lambda x, y: lax.scan(lambda c, _: (c + x, None), y, None, length=2)[0], X, Y)
    assert msg == (
        "scan body function carry input and carry output must have equal types, but they "
        "differ:\n\nThe input carry c has type float32[2] but the corresponding output carry "
        "component has type float32[2]{V:d}, so the manual axis types do not match.\n\n"
        + FIX.format("c") + REVISE)
    msg = refusal(lambda x, y: lax.fori_loop(0, 2, lambda i, c: c + x, y), X, Y)
    assert msg == (
        "scan body function carry input and carry output must have equal types, but they "
        "differ:\n\nThe input carry component loop_carry[1] has type float32[2] but the "
        "corresponding output carry component has type float32[2]{V:d}, so the manual axis "
        "types do not match.\n\n" + FIX.format("component loop_carry[1]") + REVISE)


def test_fori_loop_with_traced_bounds_is_a_while_loop():
    mesh = Mesh(np.array(mj.devices()[:2]), ("d",))
    f = mj.jit(mj.shard_map(lambda x, y, n: lax.fori_loop(0, n, lambda i, c: c + x, y),
                            mesh=mesh, in_specs=(P("d"), P(), P()), out_specs=P()))
    with pytest.raises(TypeError) as e:
        f(X, Y, 2)
    assert str(e.value).split("\n  at ")[0] == (
        "while_loop body function carry input and carry output must have equal types, but they "
        "differ:\n\nThe input carry component loop_carry[2] has type float32[2] but the "
        "corresponding output carry component has type float32[2]{V:d}, so the manual axis "
        "types do not match.\n\n" + FIX.format("component loop_carry[2]") + REVISE)


def test_a_pvaryd_initial_carry_runs():
    out = shmap(lambda x, y: lax.fori_loop(0, 2, lambda i, c: c + x,
                                           lax.pcast(y, "d", to="varying")), X, Y)
    np.testing.assert_allclose(out, [4.0, 10.0])  # JAX 0.10.2


def true_fun(a, b):
    return a, b


def false_fun(a, b):
    return b, a


def where(f):
    return f"{f.__name__} at {f.__code__.co_filename}:{f.__code__.co_firstlineno}"


def test_cond_branch_outputs():
    # s5030-343
    msg = refusal(lambda x, y: lax.cond(y[0] > 0, true_fun, false_fun, x, y)[0], X, Y)
    assert msg == (
        "cond branches must have equal output types but they differ.\n\n"
        f"true_fun is {where(true_fun)}\nfalse_fun is {where(false_fun)}\n\n"
        "  * the output of true_fun at path [0] has type float32[2]{V:d} but the corresponding "
        "output of false_fun has type float32[2], so the manual axis types do not match;\n"
        "  * the output of true_fun at path [1] has type float32[2] but the corresponding "
        "output of false_fun has type float32[2]{V:d}, so the manual axis types do not match."
        "\n\nThis might be fixed by:\n"
        "  * applying `jax.lax.pcast(..., (), to='varying')` to the output of true_fun at path "
        "[0];\n"
        "  * applying `jax.lax.pcast(..., (), to='varying')` to the output of false_fun at path "
        "[1].\nSee https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more "
        "information.\n\nRevise true_fun and/or false_fun so that all output types match.")


def test_switch_branch_outputs():
    branches = [true_fun, false_fun, false_fun]
    msg = refusal(lambda x, y: lax.switch(1, branches, x, y)[0], X, Y)
    assert msg.startswith(
        "switch branches must have equal output types but they differ.\n\n"
        f"branch 0 is {where(true_fun)}\nbranch1 is {where(false_fun)}\n\n"), msg


def test_cond_with_a_varying_predicate_runs():
    out = shmap(lambda x, y: lax.cond(x[0] > 0, lambda b: b, lambda b: b * 2, y), X, Y)
    np.testing.assert_allclose(out, [0.0, 3.0])  # JAX 0.10.2


GAMMA_MSG = (" requires all arguments to have matching type. Got key type: key<fry>[] vs arg "
             "type: float32[2]{V:d}. Use jax.lax.pcast(..., to='varying') to make them match. "
             "If your key is less varying than arg, watch out for key-reuse problems.")


@pytest.mark.parametrize("sample, name", [
    (lambda x: random.gamma(random.PRNGKey(0), x + 1.0), "gamma"),  # s5037-143, s5043-309
    (lambda x: random.loggamma(random.key(0), x + 1.0), "gamma"),
    (lambda x: random.dirichlet(random.PRNGKey(0), x + 1.0), "gamma"),
    (lambda x: random.beta(random.PRNGKey(0), x + 1.0, 2.0), "jax.random.beta"),
])
def test_gamma_with_a_less_varying_key(sample, name):
    assert refusal(lambda x, y: sample(x), X, Y) == name + GAMMA_MSG


def test_gamma_with_a_more_varying_key_pvarys_the_argument():
    keys = jnp.stack([random.key_data(random.PRNGKey(0))] * 2)
    out = shmap(lambda k, y: random.gamma(k[0], y + 1.0), keys, Y)
    np.testing.assert_allclose(out, [1.2369725704193115, 3.5198826789855957], rtol=1e-6)


def test_standard_ops_still_pvary():
    np.testing.assert_allclose(shmap(lambda x, y: lax.add(x, y), X, Y), [2.0, 6.0])
