"""The XLA options minijax gives every GPU compile (``lowering/backends.py`` GPU_XLA_OPTIONS).

Their speed is measured on a GPU by ``benchmarks/gpu_xla_options.py``; here, on the CPU: that
GPU compiles get them, other platforms do not, a flag in ``XLA_FLAGS`` wins, and XLA takes
each name and value (a misspelt option or a value of the wrong type fails the compile).
"""

import types

import numpy as np

import minijax
import minijax.numpy as jnp
from minijax.lowering import backends


def _gpu_device():
    return types.SimpleNamespace(platform="gpu", id=0)


def test_gpu_compiles_get_the_options(monkeypatch):
    monkeypatch.delenv("XLA_FLAGS", raising=False)
    opts = backends.compile_options([_gpu_device()])
    assert backends.GPU_XLA_OPTIONS
    assert dict(opts.env_option_overrides) == backends.GPU_XLA_OPTIONS


def test_cpu_compiles_get_none(monkeypatch):
    monkeypatch.delenv("XLA_FLAGS", raising=False)
    assert backends.compile_options([minijax.devices("cpu")[0]]).env_option_overrides == []


def test_a_flag_in_xla_flags_wins(monkeypatch):
    name = next(iter(backends.GPU_XLA_OPTIONS))
    monkeypatch.setenv("XLA_FLAGS", f"--xla_dump_hlo_as_text --{name}=true")
    opts = backends.compile_options([_gpu_device()])
    assert name not in dict(opts.env_option_overrides)


def test_xla_takes_the_options(monkeypatch):
    plain = backends.compile_options

    def with_gpu_options(devices):
        opts = plain(devices)
        opts.env_option_overrides = list(backends.GPU_XLA_OPTIONS.items())
        return opts

    monkeypatch.setattr(backends, "compile_options", with_gpu_options)
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    got = minijax.jit(lambda a: jnp.tanh(a @ a.T * 0.01))(x)
    np.testing.assert_allclose(np.asarray(got), np.tanh(x @ x.T * 0.01), rtol=1e-6)
