"""optax's and chex's own test suites, run under real JAX and under minijax, side by side.

    python3 benchmarks/ecosystem_suites.py --setup            # make the environment (once)
    python3 benchmarks/ecosystem_suites.py                    # every shipped test file, both
    python3 benchmarks/ecosystem_suites.py --only minijax --files optax/_src/alias_test.py
    python3 benchmarks/ecosystem_suites.py --markdown         # the table for RESULTS.md

The libraries' wheels ship their tests. One virtual environment (``--venv``, default
``~/.cache/minijax-ecosystem``) holds real JAX 0.10.2, optax, chex, pytest and this checkout of
minijax (editable): a file runs under real JAX as ``python -m pytest FILE`` and under minijax as
``python -m minijax.run_as_jax -m pytest FILE``, so both see the same packages on the same
machine. Each run writes JUnit XML; the report counts passes, failures, errors and skips per
file and classifies every test that passes on JAX but not on minijax (missing API, JAX-internal
import, wrong number, crash). Results are saved as JSON under benchmarks/results/.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
VERSIONS = {"jax": "0.10.2", "jaxlib": "0.10.2", "optax": "0.2.8", "chex": "0.1.92"}
# The libraries' tests need these beyond the libraries themselves.
TEST_DEPS = ["pytest", "absl-py", "scipy", "cloudpickle", "scikit-learn", "flax==0.12.8"]
LIBRARIES = ("optax", "chex")


def setup(venv: pathlib.Path) -> None:
    """Create the environment both runs use."""
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, *(f"{k}=={v}" for k, v in VERSIONS.items()), *TEST_DEPS], check=True)
    subprocess.run([*pip, "--no-deps", "-e", str(ROOT)], check=True)


def site_packages(python: str) -> pathlib.Path:
    out = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True)
    return pathlib.Path(out.stdout.strip())


def test_files(site: pathlib.Path) -> list[str]:
    """The test files each library's wheel ships, relative to site-packages."""
    files = []
    for lib in LIBRARIES:
        files += sorted(str(p.relative_to(site)) for p in (site / lib).rglob("*_test.py"))
    return files


def run_file(python, site, rel, backend, timeout):
    """One pytest run of one file; returns {test id: (outcome, message)}."""
    with tempfile.TemporaryDirectory() as tmp:
        xml = pathlib.Path(tmp) / "junit.xml"
        pytest_args = ["-m", "pytest", str(site / rel), "-q", "-p", "no:cacheprovider",
                       f"--junitxml={xml}", "-o", "junit_family=xunit1"]
        cmd = [python, *pytest_args] if backend == "jax" else [
            python, "-m", "minijax.run_as_jax", *pytest_args]
        env = {**os.environ, "JAX_PLATFORMS": "cpu", "MINIJAX_PLATFORMS": "cpu",
               "PYTHONDONTWRITEBYTECODE": "1"}
        start = time.time()
        try:
            proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True,
                                  timeout=timeout)
            tail = (proc.stdout + proc.stderr)[-3000:]
        except subprocess.TimeoutExpired:
            return {"<file>": ("error", f"timed out after {timeout} s")}, timeout
        seconds = time.time() - start
        if not xml.exists():
            return {"<file>": ("error", tail)}, seconds
        return parse_junit(xml), seconds


def parse_junit(path):
    results = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        outcome, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed" if child.tag == "failure" else "error"
                message = (child.get("message") or "") + "\n" + (child.text or "")[-1500:]
            elif child.tag == "skipped":
                outcome, message = "skipped", child.get("message") or ""
        results[name] = (outcome, message)
    return results


def classify(message: str) -> str:
    """Why a test that passes on JAX fails on minijax, from its failure text."""
    if re.search(r"jax\._src|jax\.extend|jax\.interpreters", message):
        return "JAX-internal import"
    if re.search(r"has no attribute|No module named|cannot import name|ImportError", message):
        return "missing API"
    if re.search(r"Not equal to tolerance|Mismatched elements|not almost equal|Arrays are not "
                 r"equal|AssertionError: .*!=|assert .* == ", message):
        return "wrong number"
    return "crash"


def run(python, site, files, backends, jobs, timeout):
    out = {b: {} for b in backends}
    tasks = [(b, f) for f in files for b in backends]
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        futures = {pool.submit(run_file, python, site, f, b, timeout): (b, f) for b, f in tasks}
        for fut in concurrent.futures.as_completed(futures):
            b, f = futures[fut]
            cases, seconds = fut.result()
            out[b][f] = {"seconds": round(seconds, 1), "cases": cases}
            print(f"[{b:7s}] {f}: {summary(cases)} ({seconds:.0f} s)", file=sys.stderr)
    return out


def summary(cases):
    counts = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    for outcome, _ in cases.values():
        counts[outcome] += 1
    return counts


def report(results, markdown=False):
    files = sorted({f for per in results.values() for f in per})
    backends = list(results)
    lines = []
    header = ["file"] + [f"{b} {k}" for b in backends for k in ("pass", "fail", "err", "skip")]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    totals = {b: {"passed": 0, "failed": 0, "error": 0, "skipped": 0} for b in backends}
    for f in files:
        row = [f"`{f}`"]
        for b in backends:
            c = summary(results[b].get(f, {}).get("cases", {}))
            row += [str(c["passed"]), str(c["failed"]), str(c["error"]), str(c["skipped"])]
            for k in c:
                totals[b][k] += c[k]
        lines.append("| " + " | ".join(row) + " |")
    row = ["**total**"]
    for b in backends:
        row += [f"**{totals[b][k]}**" for k in ("passed", "failed", "error", "skipped")]
    lines.append("| " + " | ".join(row) + " |")
    if set(backends) == {"jax", "minijax"}:
        lines.append("")
        for lib in LIBRARIES:
            jp = sum(summary(v["cases"])["passed"] for f, v in results["jax"].items()
                     if f.startswith(lib + "/"))
            mp = sum(summary(v["cases"])["passed"] for f, v in results["minijax"].items()
                     if f.startswith(lib + "/"))
            lines.append(f"- {lib}: {mp} pass on minijax, {jp} on JAX "
                         f"({100 * mp / max(jp, 1):.1f}% of JAX's passes)")
        lines.append("")
        lines.append("Tests that pass on JAX and not on minijax:")
        lines.append("")
        for f in files:
            jc = results["jax"].get(f, {}).get("cases", {})
            mc = results["minijax"].get(f, {}).get("cases", {})
            for name, (outcome, _) in sorted(jc.items()):
                if outcome != "passed":
                    continue
                m_outcome, msg = mc.get(name, mc.get("<file>", ("missing", "not collected")))
                if m_outcome == "passed":
                    continue
                first = next((ln for ln in msg.splitlines() if ln.strip()), "")[:160]
                lines.append(f"- `{name}` ({classify(msg)}): {first}")
    text = "\n".join(lines)
    if not markdown:
        text = text.replace("`", "")
    return text


CI_DATA = ROOT / "tests" / "data" / "ecosystem_jax_passes.json"


def record_ci(jax_json, files):
    """The tests that pass under real JAX in ``files``: the CI subset's expectations
    (tests/ecosystem/test_optax_chex_suites.py)."""
    jax_results = json.loads(jax_json.read_text())["jax"]
    passes = {f: sorted(n for n, (o, _) in jax_results[f]["cases"].items() if o == "passed")
              for f in files}
    CI_DATA.write_text(json.dumps({
        "recorded_with": {**VERSIONS, "script": "benchmarks/ecosystem_suites.py --record-ci",
                          "date": time.strftime("%Y-%m-%d")},
        "files": passes}, indent=1, sort_keys=True) + "\n")
    print(f"wrote {CI_DATA}: {sum(map(len, passes.values()))} tests in {len(files)} files")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--venv", default=str(pathlib.Path.home() / ".cache/minijax-ecosystem"))
    ap.add_argument("--setup", action="store_true", help="create the environment and exit")
    ap.add_argument("--only", choices=("jax", "minijax"), help="run under one backend")
    ap.add_argument("--files", nargs="*", help="test files relative to site-packages")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=1200, help="seconds per file")
    ap.add_argument("--load", nargs="*", help="merge saved JSON results instead of running")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--record-ci", metavar="JAX_JSON",
                    help="write the JAX passes of --files from a saved JAX run to CI_DATA")
    args = ap.parse_args()
    venv = pathlib.Path(args.venv)
    if args.setup:
        setup(venv)
        return
    if args.record_ci:
        record_ci(pathlib.Path(args.record_ci), args.files)
        return
    if args.load:
        results = {}
        for path in args.load:
            for b, per in json.loads(pathlib.Path(path).read_text()).items():
                results.setdefault(b, {}).update(per)
    else:
        python = str(venv / "bin" / "python")
        site = site_packages(python)
        files = args.files or test_files(site)
        backends = [args.only] if args.only else ["jax", "minijax"]
        results = run(python, site, files, backends, args.jobs, args.timeout)
        RESULTS.mkdir(exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        out = RESULTS / f"ecosystem_{'_'.join(backends)}_{stamp}.json"
        out.write_text(json.dumps(results, indent=1, sort_keys=True))
        print(f"saved {out}", file=sys.stderr)
    print(report(results, args.markdown))


if __name__ == "__main__":
    main()
