#!/usr/bin/env bash
# Many fuzz drivers at once on a machine with cores to spare (the lent GPU machine's 16):
#   N=15 T=555 BASE=4000 OUT=/tmp/out bash tools/difftest/parallel.sh
# runs seeds BASE..BASE+N-1 for T seconds each (stopped with SIGINT, so each writes its
# summary), both workers with the machine's python3 (set DIFFTEST_JAX_PYTHON to a real-JAX
# interpreter elsewhere), and leaves OUT/mismatches_BASE.jsonl and OUT/summary_BASE.json.
export DIFFTEST_JAX_PYTHON=${DIFFTEST_JAX_PYTHON:-python3} DIFFTEST_MINIJAX_PYTHON=${DIFFTEST_MINIJAX_PYTHON:-python3}
export PYTHONUNBUFFERED=1
N=${N:-14}; T=${T:-120}; BASE=${BASE:-3000}; OUT=${OUT:-/tmp/difftest_out}
export N T BASE OUT
work=$(mktemp -d)
mkdir -p "$OUT"
"$DIFFTEST_JAX_PYTHON" -c "import jax, jaxlib, numpy; print('oracle jax', jax.__version__, \
'jaxlib', jaxlib.__version__, 'numpy', numpy.__version__)"
for i in $(seq 0 $((N - 1))); do
  s=$((BASE + i))
  timeout -s INT "$T" python3 -m tools.difftest fuzz --seed "$s" --n 100000 \
    --out "$work/mm_$s.jsonl" --summary "$work/sum_$s.json" > "$work/log_$s.txt" 2>&1 &
done
wait
cat "$work"/mm_*.jsonl > "$OUT/mismatches_$BASE.jsonl" 2>/dev/null
WORK=$work python3 - <<'PY'
import collections, glob, json, os
tot, per = collections.Counter(), {}
unreadable = []
for f in sorted(glob.glob(os.environ["WORK"] + "/sum_*.json")):
    try:  # a driver stopped while writing leaves its summary empty: named, not fatal
        d = json.load(open(f))
    except ValueError:
        unreadable.append(os.path.basename(f))
        continue
    per[d["seed"]] = {k: d[k] for k in ("n", "seconds", "counts", "classes")}
    tot.update(d["counts"])
out = {"totals": dict(tot), "per_seed": per, "unreadable_summaries": unreadable}
with open(f"{os.environ['OUT']}/summary_{os.environ['BASE']}.json", "w") as f:
    json.dump(out, f, indent=1)
print(json.dumps(dict(tot)))
PY
