"""The JAX ecosystem's own test suites (optax, chex, flax, equinox), run under real JAX and
under minijax, side by side.

    python3 benchmarks/ecosystem_suites.py --setup            # make the environment (once)
    python3 benchmarks/ecosystem_suites.py                    # optax's and chex's tests, both
    python3 benchmarks/ecosystem_suites.py --only minijax --files optax/_src/alias_test.py
    python3 benchmarks/ecosystem_suites.py --markdown         # the table for RESULTS.md
    python3 benchmarks/ecosystem_suites.py --suites /tmp/suites --libraries flax equinox

optax's and chex's wheels ship their tests (found under site-packages). flax's and equinox's
live only in their source repositories: ``--suites DIR`` names a directory holding
``flax/tests`` and ``equinox/tests`` exported at the installed versions' commits (SOURCES;
``git --git-dir=REPO archive COMMIT tests | tar -x -C DIR/flax``). A test file is named by its
path under site-packages or under DIR, so its first component is its library.

One virtual environment (``--venv``, default ``~/.cache/minijax-ecosystem``) holds real JAX
0.10.2, the libraries, pytest and this checkout of minijax (editable): a file runs under real JAX
as ``python -m pytest FILE`` and under minijax as ``python -m minijax.run_as_jax -m pytest
FILE``, so both see the same packages on the same machine. Each run writes JUnit XML; the report
counts passes, failures, errors and skips per file and classifies every test that passes on JAX
but not on minijax (missing API, JAX-internal import, wrong number, timeout, crash). Results are
saved as JSON under benchmarks/results/.
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
VERSIONS = {"jax": "0.10.2", "jaxlib": "0.10.2", "optax": "0.2.8", "chex": "0.1.92",
            "flax": "0.12.8", "equinox": "0.13.8"}
# The libraries' tests need these beyond the libraries themselves.
TEST_DEPS = ["pytest", "absl-py", "scipy", "cloudpickle", "scikit-learn"]
WHEEL_LIBRARIES = ("optax", "chex")
# Libraries whose tests come from their repositories: (repository, commit of the installed
# version). flax's snapshot has no v0.12.8 tag; its commit is "update to v0.12.8".
SOURCES = {"flax": ("google/flax", "3a49110824001614baf35c6ee8934479fcdb133a"),
           "equinox": ("patrick-kidger/equinox", "v0.13.8")}
LIBRARIES = WHEEL_LIBRARIES + tuple(SOURCES)
# Files left out: they need a TPU, several hosts, or packages outside the environment
# (tensorflow, and orbax's checkpointing through it).
SKIP = {
    "flax/tests/tensorboard_test.py": "needs tensorflow",
    "flax/tests/io_test.py": "needs tensorflow",
}


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


def test_files(roots: dict, libraries) -> list[str]:
    """The test files of ``libraries``, each relative to its library's root in ``roots``."""
    files = []
    for lib in libraries:
        root = roots[lib]
        found = (root / lib).rglob("*_test.py") if lib in WHEEL_LIBRARIES else [
            *(root / lib / "tests").rglob("*_test.py"), *(root / lib / "tests").rglob("test_*.py")]
        files += sorted(r for r in {str(p.relative_to(root)) for p in found} if r not in SKIP)
    return files


def run_file(python, roots, rel, backend, timeout):
    """One pytest run of one file; returns {test id: (outcome, message)}."""
    with tempfile.TemporaryDirectory() as tmp:
        xml = pathlib.Path(tmp) / "junit.xml"
        path = roots[rel.split("/")[0]] / rel
        # --rootdir: the test ids are relative to the file's folder wherever the library and
        # the temporary folder live (pytest 9 otherwise roots them at a common ancestor of
        # both, e.g. /tmp for a venv under /tmp)
        pytest_args = ["-m", "pytest", str(path), "-q", "-p", "no:cacheprovider",
                       f"--rootdir={path.parent}", f"--junitxml={xml}",
                       "-o", "junit_family=xunit1"]
        cmd = [python, *pytest_args] if backend == "jax" else [
            python, "-m", "minijax.run_as_jax", *pytest_args]
        cmd = ["nice", "-n", "10", *cmd]  # the machine is shared
        env = {**os.environ, "JAX_PLATFORMS": "cpu", "MINIJAX_PLATFORMS": "cpu",
               "PYTHONDONTWRITEBYTECODE": "1"}
        start = time.time()
        try:
            proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True,
                                  timeout=timeout)
            tail = (proc.stdout + proc.stderr)[-3000:]
        except subprocess.TimeoutExpired:
            # The JUnit XML is written at the end, so a timed-out file has no per-test outcomes.
            return {"<file>": ("timeout", f"timed out after {timeout} s")}, timeout
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
    if message.startswith("timed out after"):
        return "timeout"
    if re.search(r"jax\._src|jax\.extend|jax\.interpreters", message):
        return "JAX-internal import"
    if re.search(r"has no attribute|No module named|cannot import name|ImportError", message):
        return "missing API"
    if re.search(r"Not equal to tolerance|Mismatched elements|not almost equal|Arrays are not "
                 r"equal|AssertionError: .*!=|assert .* == ", message):
        return "wrong number"
    return "crash"


def run(python, roots, files, backends, jobs, timeout):
    out = {b: {} for b in backends}
    tasks = [(b, f) for f in files for b in backends]
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        futures = {pool.submit(run_file, python, roots, f, b, timeout): (b, f) for b, f in tasks}
        for fut in concurrent.futures.as_completed(futures):
            b, f = futures[fut]
            cases, seconds = fut.result()
            out[b][f] = {"seconds": round(seconds, 1), "cases": cases}
            print(f"[{b:7s}] {f}: {summary(cases)} ({seconds:.0f} s)", file=sys.stderr)
    return out


def summary(cases):
    counts = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    for outcome, _ in cases.values():
        counts["error" if outcome == "timeout" else outcome] += 1
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
        for lib in sorted({f.split("/")[0] for f in files}):
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
    ap.add_argument("--libraries", nargs="*", default=list(WHEEL_LIBRARIES), choices=LIBRARIES,
                    help="whose test files to run when --files is not given")
    ap.add_argument("--suites", help="directory with flax/tests and equinox/tests (see SOURCES)")
    ap.add_argument("--jobs", type=int, default=1)
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
        suites = pathlib.Path(args.suites).resolve() if args.suites else None
        roots = {lib: suites if lib in SOURCES else site for lib in LIBRARIES}
        files = args.files or test_files(roots, args.libraries)
        backends = [args.only] if args.only else ["jax", "minijax"]
        results = run(python, roots, files, backends, args.jobs, args.timeout)
        RESULTS.mkdir(exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        libs = sorted({f.split("/")[0] for f in files})
        out = RESULTS / f"ecosystem_{'_'.join(libs)}_{'_'.join(backends)}_{stamp}.json"
        out.write_text(json.dumps(results, indent=1, sort_keys=True))
        print(f"saved {out}", file=sys.stderr)
    print(report(results, args.markdown))


if __name__ == "__main__":
    main()
