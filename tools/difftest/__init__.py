"""difftest: differential testing of minijax against real JAX (issue 21).

A *case* is pure JSON data: a program (statements over the op table in ``ops.py``: jnp, lax,
nn, random, linalg, fft, convolutions, windowed reductions, control flow with closures and
tuple carries, custom_jvp/custom_vjp, checkpoint with policies, nested jit/vmap), its inputs
(exact bytes; special values: +-0, +-inf, NaN, subnormals, the dtype's max, zero-size
shapes, out-of-range and negative indices) and a transform stack (jit, vmap with in_axes,
grad, value_and_grad, jvp, vjp, linearize, jacfwd, jacrev, hessian, checkpoint; composed).

- ``grammar.py``   the generator: ``gen_case(seed, index)`` is deterministic.
- ``codegen.py``   case -> plain JAX source (the same source runs on both frameworks and is
                   the reproducer).
- ``worker.py``    a long-lived process per framework: real JAX under /work/venv_jax's python,
                   minijax under the project's python3; never both in one process.
- ``runner.py``    drives the two workers, with a timeout per case.
- ``compare.py``   dtype/shape/weak type/structure exactly, NaN/inf positions exactly, values
                   to a per-dtype tolerance (the module docstring justifies them).
- ``minimize.py``  shrinks a mismatching case while its mismatch persists.
- ``cli.py``       the commands below.

Commands (from the repository root)::

    python3 -m tools.difftest fuzz --seed 7 --n 500 --out /tmp/mm.jsonl --summary /tmp/s.json
    python3 -m tools.difftest show --id s7-123 [--full]      # the case as JAX source
    python3 -m tools.difftest minimize --id s7-123 [--full]  # shrink, print a reproducer
    python3 -m tools.difftest record --seed 21 --n 400 --out tests/data/difftest/corpus.json

``record`` runs real JAX only and writes the CI corpus; tests/difftest/test_corpus.py replays
it on minijax without JAX. FINDINGS.md lists the mismatch classes found, each minimized.
"""
