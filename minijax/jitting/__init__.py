"""``jit``: stage a function once per signature, compile it with XLA, and call it fast.

- ``function.py``: ``JitFunction`` (the cache, the Python and C++ dispatch paths, the stages
  ``trace``/``lower``/``eval_shape``) and ``jit``;
- ``args.py``: static/dynamic argument splitting and ``ArgRecord``, the dynamic arguments
  flattened once on a cache miss;
- ``pjit.py``: the ``jit`` primitive a jitted function binds under another trace, with all
  its rules;
- ``placement.py``: where a program runs (one device, or a mesh's devices with Shardy
  annotations) and the committed-layout part of the cache key;
- ``prune.py``: the arguments a program does not use, dropped before placement and lowering
  (``keep_unused=False``, the default).
"""

from minijax.jitting.function import JitFunction, is_jitted, jit

__all__ = ["JitFunction", "is_jitted", "jit"]
