"""Records real JAX's losses for tests/ecosystem/flax_equinox_programs.py.

Run with a Python that has real jax, flax, equinox, optax and scikit-learn installed (not
minijax's opt-in):

    ~/.cache/minijax-ecosystem/bin/python tests/data/record_flax_equinox.py

writes tests/data/flax_equinox_jax.json (losses per program and the library versions).
"""

import json
import os
import pathlib
import subprocess
import sys
from importlib.metadata import version

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "tests" / "ecosystem" / "flax_equinox_programs.py"


def main():
    out = subprocess.run([sys.executable, str(PROGRAMS)], capture_output=True, text=True,
                         check=True, env={**os.environ, "JAX_PLATFORMS": "cpu"})
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["real_jax"], "ran on something other than the real jax"
    packages = ("jax", "jaxlib", "flax", "equinox", "optax", "scikit-learn")
    data = {"versions": {p: version(p) for p in packages}, "platform": "cpu",
            "losses": result["losses"]}
    path = ROOT / "tests" / "data" / "flax_equinox_jax.json"
    path.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
