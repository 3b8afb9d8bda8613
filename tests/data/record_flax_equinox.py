"""Records real JAX's losses for tests/ecosystem/flax_equinox_programs.py.

Run with a Python that has real jax, flax, equinox and optax installed (not minijax's opt-in):

    ~/.cache/minijax-ecosystem/bin/python tests/data/record_flax_equinox.py

writes tests/data/flax_equinox_jax.json (losses per program and the library versions).
"""

import json
import pathlib
import subprocess
import sys
from importlib.metadata import version

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "tests" / "ecosystem" / "flax_equinox_programs.py"
NAMES = ("linen_mlp", "nnx_mlp", "equinox_mlp")


def main():
    losses = {}
    for name in NAMES:
        out = subprocess.run([sys.executable, str(PROGRAMS), name], capture_output=True,
                             text=True, check=True)
        losses[name] = json.loads(out.stdout.strip().splitlines()[-1])
    data = {"versions": {p: version(p) for p in ("jax", "jaxlib", "flax", "equinox", "optax")},
            "platform": "cpu", "losses": losses}
    path = ROOT / "tests" / "data" / "flax_equinox_jax.json"
    path.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
