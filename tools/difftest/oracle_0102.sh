#!/usr/bin/env bash
# Real JAX 0.10.2 as the oracle on a machine whose own Python has another JAX (the lent GPU
# machine has 0.11.2). jaxlib 0.10.2's cp312 wheel (85 MB) is more than the device tool carries,
# so it travels unpacked, stripped of its debug symbols and recompressed (46 MB with xz -9e:
# the device tool's 64 MiB limit counts the tracked tree too, 16 MB by now):
#   pip download jaxlib==0.10.2 jax==0.10.2 --python-version 3.12 --only-binary=:all: \
#     --platform manylinux_2_27_x86_64 --no-deps -d /tmp/w
#   (cd /tmp/w && mkdir x && cd x && unzip -q ../jaxlib-*.whl \
#     && strip --strip-unneeded jaxlib/libjax_common.so && tar cf - . | xz -9e -T2 \
#     > .gpu_wheels/jaxlib-0.10.2-cp312.tar.xz); cp /tmp/w/jax-0.10.2-*.whl .gpu_wheels/
# Then, there: `source tools/difftest/oracle_0102.sh` unpacks both into /tmp/jax0102 and points
# both difftest workers at a python3 that imports them first, so minijax runs on jaxlib 0.10.2
# too, as on the project's machines.
set -e
dest=/tmp/jax0102
if [ ! -d "$dest/jaxlib" ]; then
  mkdir -p "$dest"
  tar xJf .gpu_wheels/jaxlib-0.10.2-cp312.tar.xz -C "$dest"
  (cd "$dest" && python3 -m zipfile -e "$OLDPWD"/.gpu_wheels/jax-0.10.2-py3-none-any.whl .)
fi
cat > "$dest/python3" <<PY
#!/bin/sh
PYTHONPATH=$dest\${PYTHONPATH:+:\$PYTHONPATH} exec python3 "\$@"
PY
chmod +x "$dest/python3"
export DIFFTEST_JAX_PYTHON=$dest/python3 DIFFTEST_MINIJAX_PYTHON=$dest/python3
set +e
