"""``python3 -m tools.difftest fuzz|record|minimize|show`` (see tools/difftest/__init__.py)."""

import argparse
import collections
import json
import os
import re
import signal
import sys
import time

from tools.difftest.codegen import reproducer
from tools.difftest.compare import compare
from tools.difftest.grammar import gen_case
from tools.difftest.minimize import minimize
from tools.difftest.runner import Pair


def mismatch_class(m):
    """Group mismatches: kind + the detail with numbers, names and quotes blurred."""
    d = re.sub(r"\[[0-9]+\]|-?[0-9][0-9.e+-]*|'[^']*'|t[0-9]+|x[0-9]+", "#", m["detail"])
    return f"{m['kind']}: {d[:110]}"


def cmd_fuzz(args):
    pair = Pair(timeout=args.timeout)
    out = open(args.out, "a") if args.out else None
    counts, classes, t0 = collections.Counter(), collections.defaultdict(list), time.time()

    def summarize(final):
        """Also written every 100 cases, so a stopped run still leaves its counts."""
        summary = {"seed": args.seed, "start": args.start, "n": counts["cases"],
                   "seconds": round(time.time() - t0), "counts": dict(counts),
                   "classes": {k: {"count": len(v), "examples": v[:5]}
                               for k, v in sorted(classes.items(), key=lambda kv: -len(kv[1]))}}
        if final:
            print(json.dumps(summary, indent=1))
        if args.summary:  # replaced whole: a signal mid-write must not leave it truncated
            with open(args.summary + ".tmp", "w") as f:
                json.dump(summary, f, indent=1)
            os.replace(args.summary + ".tmp", args.summary)

    try:
        for i in range(args.start, args.start + args.n):
            try:
                case = gen_case(args.seed, i)
            except Exception as e:  # a generator bug must not end a long run
                counts["generator_error"] += 1
                print(f"s{args.seed}-{i}: generator {type(e).__name__}: {e}", flush=True)
                continue
            rj, rm = pair.run(case)
            m = compare(case, rj, rm)
            counts["cases"] += 1
            counts["jax_ok" if rj["status"] == "ok" else "jax_error"] += 1
            if counts["cases"] % 100 == 0:
                print(f"... {counts['cases']} cases, {time.time() - t0:.0f} s", flush=True)
                summarize(final=False)
            if m is None:
                counts["agree"] += 1
                continue
            counts[m["kind"]] += 1
            classes[mismatch_class(m)].append(case["id"])
            if out:
                out.write(json.dumps({"case": case, "mismatch": m, "jax": rj, "minijax": rm})
                          + "\n")
                out.flush()
            if args.verbose:
                print(f"{case['id']}: {m['kind']}: {m['detail']}", flush=True)
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second SIGINT must not cut the counts
        # The counts first: timeout's SIGINT reaches the workers too (their process group), and
        # closing them may be interrupted, which would leave the last periodic counts behind.
        summarize(final=True)
        pair.close()
    return 0


def _case_from(args):
    if args.id:
        seed, index = args.id[1:].split("-")
        return gen_case(int(seed), int(index))
    with open(args.file) as f:
        text = f.read()
    if text.startswith('{"header"'):  # a recorded corpus
        recs = json.loads(text)["cases"]
    else:  # JSON lines: cases or mismatch records
        recs = [json.loads(line) for line in text.splitlines() if line.strip()]
    for rec in recs:
        case = rec.get("case", rec)
        if args.case_id is None or case["id"] == args.case_id:
            return case
    raise SystemExit("case not found")


def cmd_minimize(args):
    case = _case_from(args)
    pair = Pair(timeout=args.timeout)
    try:
        small, m = minimize(case, pair, budget=args.budget,
                            log=lambda s: print(s, file=sys.stderr))
    finally:
        pair.close()
    print(f"# mismatch: {m}")
    print(reproducer(small, prelude=args.full))
    if args.save:
        with open(args.save, "a") as f:
            f.write(json.dumps({"case": small, "mismatch": m}) + "\n")
    return 0


def cmd_classes(args):
    """Mismatch classes over saved mismatch files (`fuzz --out`), most frequent first."""
    classes = collections.defaultdict(list)
    for path in args.files:
        with open(path) as f:
            for line in f:
                rec = json.loads(line)
                classes[mismatch_class(rec["mismatch"])].append(rec["case"]["id"])
    for k, ids in sorted(classes.items(), key=lambda kv: -len(kv[1])):
        print(f"{len(ids):5d}  {k}  [{', '.join(ids[:4])}]")
    return 0


def cmd_show(args):
    case = _case_from(args)
    print(reproducer(case, prelude=args.full))
    return 0


def cmd_record(args):
    """Cases plus real JAX's results: the CI corpus (tests/difftest/ replays it on minijax)."""
    pair = Pair(frameworks=("jax",), timeout=args.timeout)
    import platform
    if args.file:  # e.g. minimized cases (`minimize --save`)
        with open(args.file) as f:
            todo = [json.loads(line).get("case") or json.loads(line) for line in f if line.strip()]
    else:
        todo = (gen_case(args.seed, i) for i in range(args.start, args.start + args.n))
    cases = []
    try:
        for i, case in enumerate(todo, args.start):
            (rj,) = pair.run(case)
            if rj["status"] == "harness":
                continue
            rj.pop("seconds", None)
            cases.append({"case": case, "jax": rj})
            if (i + 1) % 50 == 0:
                print(f"... {i + 1 - args.start} cases", flush=True)
    finally:
        pair.close()
    header = {"what": "difftest corpus: random programs with real JAX's results",
              "jax_version": _jax_version(),
              "command": "python3 -m tools.difftest record " + " ".join(sys.argv[2:]),
              "python": platform.python_version()}
    header.update({"cases_from": args.file} if args.file else
                  {"seed": args.seed, "start": args.start, "n": args.n})
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"header": header, "cases": cases}, f, separators=(",", ":"))
    print(f"wrote {len(cases)} cases to {args.out}")
    return 0


def _jax_version():
    import subprocess
    from tools.difftest.runner import PYTHONS
    return subprocess.run([PYTHONS["jax"], "-c", "import jax, jaxlib; print(jax.__version__, "
                           "jaxlib.__version__)"], capture_output=True, text=True).stdout.strip()


def main(argv=None):
    # a terminated driver still stops its workers (the finally clauses close them)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    p = argparse.ArgumentParser(prog="python3 -m tools.difftest")
    sub = p.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fuzz", help="generate cases, run both frameworks, compare")
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--start", type=int, default=0)
    f.add_argument("--n", type=int, default=100)
    f.add_argument("--out", help="append mismatches (JSON lines) here")
    f.add_argument("--summary", help="write the counts and mismatch classes here")
    f.add_argument("--timeout", type=float, default=60)
    f.add_argument("-v", "--verbose", action="store_true")
    r = sub.add_parser("record", help="cases + real JAX's results as a corpus")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--start", type=int, default=0)
    r.add_argument("--n", type=int, default=400)
    r.add_argument("--out", default="tests/data/difftest/corpus.json")
    r.add_argument("--timeout", type=float, default=60)
    r.add_argument("--file", help="record these cases (JSON lines) instead of generating")
    for name, fn in (("minimize", cmd_minimize), ("show", cmd_show)):
        m = sub.add_parser(name)
        m.add_argument("--id", help="a generated case, sSEED-INDEX")
        m.add_argument("--file", help="a JSON-lines file of cases or mismatch records")
        m.add_argument("--case-id")
        m.add_argument("--full", action="store_true", help="print the prelude too")
        m.add_argument("--budget", type=int, default=200)
        m.add_argument("--timeout", type=float, default=60)
        m.add_argument("--save")
        m.set_defaults(fn=fn)
    c = sub.add_parser("classes", help="group saved mismatches into classes")
    c.add_argument("files", nargs="+")
    c.set_defaults(fn=cmd_classes)
    f.set_defaults(fn=cmd_fuzz)
    r.set_defaults(fn=cmd_record)
    args = p.parse_args(argv)
    return args.fn(args)
