#!/usr/bin/env bash
# The test suite on a GPU machine (CUDA plugin, jaxlib 0.11.x), in parts that each fit one
# 10-minute call of the device tool. Each test's result is printed as it finishes
# (`-v` lines "[gw3] [ 41%] FAILED tests/..."), so a run cut off by a time limit still names
# its failures; the summary at the end (-rf) gives each failure's line.
#
#   bash tests/run_on_gpu.sh 1      # tests/lax, tests/numpy, the op table's gradients (~1300 tests)
#   bash tests/run_on_gpu.sh 2      # tests/test_*.py, the rest of tests/ops           (~1200 tests)
#   bash tests/run_on_gpu.sh all
#
# Float32 matmuls run in full float32 there (tests/conftest.py sets
# MINIJAX_DEFAULT_MATMUL_PRECISION=highest under MINIJAX_TEST_GPU=1).
set -u
cd "$(dirname "$0")/.."
case "${1:-all}" in
  1) paths=(tests/lax tests/numpy tests/ops/test_op_grads.py) ;;
  2) paths=(tests/test_*.py tests/ops/test_op_db.py tests/ops/test_vmap_op_db.py
            tests/ops/test_completeness.py) ;;
  all) paths=(tests) ;;
  *) echo "usage: $0 1|2|all" >&2; exit 2 ;;
esac
MINIJAX_TEST_GPU=1 XLA_PYTHON_CLIENT_PREALLOCATE=false HYPOTHESIS_PROFILE=ci PYTHONPATH=. \
  python3 -m pytest -n "${WORKERS:-14}" -o addopts="" -v -rf --tb=line -p no:cacheprovider \
  "${paths[@]}"
