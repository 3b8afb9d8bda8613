"""Structured control flow: ``cond``/``switch`` (``cond_p``), ``while_loop`` (``while_p``),
``scan``/``fori_loop``/``map`` (``scan_p``), ``associative_scan`` and the implicitly
differentiated solves ``custom_linear_solve`` (``linear_solve_p``) and ``custom_root``.

Each primitive takes its branches or loop body as closed jaxprs in its params and keeps all
its rules beside it (abstract eval, lowering, JVP, partial evaluation, transpose, batching);
``common`` holds the tracing and jaxpr-rewriting machinery they share.
"""

from minijax.lax.control_flow.associative_scan import associative_scan
from minijax.lax.control_flow.conditionals import cond, cond_p, switch
from minijax.lax.control_flow.loops import fori_loop, map, scan, scan_p, while_loop, while_p
from minijax.lax.control_flow.solves import custom_linear_solve, custom_root, linear_solve_p

__all__ = ["associative_scan", "cond", "cond_p", "custom_linear_solve", "custom_root",
           "fori_loop", "linear_solve_p", "map", "scan", "scan_p", "switch", "while_loop",
           "while_p"]
