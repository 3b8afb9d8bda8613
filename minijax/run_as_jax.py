"""Run a Python program with ``import jax`` answered by minijax (see minijax/compat.py).

    python -m minijax.run_as_jax script.py [args ...]
    python -m minijax.run_as_jax -m module [args ...]      # e.g. -m pytest tests/

The program runs as ``__main__`` with ``sys.argv`` as if Python had started it directly.
"""

from __future__ import annotations

import os
import runpy
import sys

from minijax import compat

_USAGE = "usage: python -m minijax.run_as_jax (script.py | -m module) [args ...]"


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(_USAGE, file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    compat.install()
    if argv[0] == "-m":
        if len(argv) < 2:
            print(_USAGE, file=sys.stderr)
            return 2
        sys.argv = [argv[1], *argv[2:]]  # runpy puts the module's path in argv[0]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return 0
    script = argv[0]
    sys.argv = list(argv)
    sys.path[0] = os.path.dirname(os.path.abspath(script))  # as `python script.py` sets it
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
