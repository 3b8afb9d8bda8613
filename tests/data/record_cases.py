"""Records JAX's outcomes for a record-replay fidelity test (tests/jax_records.replay): run
under the real-JAX environment,

    /work/venv_jax/bin/python tests/data/record_cases.py r29_a

evaluates each expression of ``fidelity_<name>_cases.py``'s CASES (with ``jax``, ``jnp`` and
``np`` bound, after its SETUP) and writes ``[source, outcome]`` pairs with JAX's version to
``fidelity_<name>_jax.json``. JAX sees ``DEVICES`` virtual CPU devices (the cases module's, else
8: the tests' count, tests/conftest.py)."""
import importlib
import json
import os
import pathlib
import sys

HERE = pathlib.Path(__file__).parent


def main(name):
    sys.path.insert(0, str(HERE))
    cases = importlib.import_module(f"fidelity_{name}_cases")  # plain Python: no jax yet
    os.environ["XLA_FLAGS"] = (
        f"--xla_force_host_platform_device_count={getattr(cases, 'DEVICES', 8)}")
    import jax
    import jax.numpy as jnp
    import jax.scipy.special  # noqa: F401 - cases read jax.scipy.special, not imported by jax
    import numpy as np

    env = {"jax": jax, "jnp": jnp, "np": np}
    exec(cases.SETUP, env)
    record = {"jax_version": jax.__version__,
              "cases": [[src, eval(src, env)] for src in cases.CASES]}
    (HERE / f"fidelity_{name}_jax.json").write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
