"""Shrink a mismatching case while the mismatch persists (same kind, same error types):
drop transform layers, keep one output, replace statements by their operands, drop dead code
and unused inputs, shrink shapes, simplify values. Each try runs both frameworks."""

import copy
import re

import numpy as np

from tools.difftest.codegen import decode_array
from tools.difftest.compare import compare
from tools.difftest.grammar import encode_array


def signature(m, res_jax, res_mj):
    """What must stay the same while shrinking: the kind, both error types and the start of
    each error message (with numbers blurred), so a case does not drift to another bug."""
    if m is None:
        return None

    def msg(r):
        return re.sub(r"[0-9]+", "#", r.get("msg", ""))[:40]
    return (m["kind"], res_jax.get("type"), res_mj.get("type"), msg(res_jax), msg(res_mj))


def _names_used(body, acc):
    def add(a):
        if isinstance(a, str):
            acc.add(a)
        elif isinstance(a, dict) and "tuple" in a:
            for x in a["tuple"]:
                add(x)
        elif isinstance(a, dict) and "dict" in a:
            for x in a["dict"].values():
                add(x)
    add(body["out"])
    for st in body["stmts"]:
        for a in st["args"]:
            add(a)
        for b in st.get("bodies", []):
            _names_used(b, acc)
    return acc


def dce(case):
    case = copy.deepcopy(case)
    prog = case["prog"]

    def prune(body):
        changed = True
        while changed:
            used = _names_used(case["prog"], set())
            keep = [st for st in body["stmts"] if st["v"] in used]
            changed = len(keep) != len(body["stmts"])
            body["stmts"] = keep
        for st in body["stmts"]:
            for b in st.get("bodies", []):
                prune(b)
    prune(prog)
    used = _names_used(prog, set())
    keep = [i for i, p in enumerate(prog["params"]) if p in used] or [0]
    prog["params"] = [prog["params"][i] for i in keep]
    case["inputs"] = [case["inputs"][i] for i in keep]
    for layer in case["stack"]:
        if layer[0] == "vmap":
            layer[1] = [layer[1][i] for i in keep]
            if all(a is None for a in layer[1]):
                return None
    return case


def _drop_layer(case, k):
    case = copy.deepcopy(case)
    layer = case["stack"].pop(k)
    if layer[0] != "vmap":
        return case
    # inputs carry the batch dims of every vmap layer outside and at k: remove layer k's
    axes = layer[1]
    for i, ax in enumerate(axes):
        if ax is None:
            continue
        a = decode_array(case["inputs"][i])
        if a.shape[ax] == 0:
            return None
        case["inputs"][i] = encode_array(np.take(a, 0, axis=ax))
    return case


def _candidates(case):
    for k in range(len(case["stack"])):
        yield _drop_layer(case, k)
    out = case["prog"]["out"]
    if isinstance(out, dict):
        for o in out.get("tuple", []) + list(out.get("dict", {}).values()):
            c = copy.deepcopy(case)
            c["prog"]["out"] = o
            yield c
    # a statement's value as the output: the rest becomes dead code and goes (the mismatch may
    # sit in a value the output does not use, which eager evaluation still computes)
    for st in reversed(case["prog"]["stmts"]):
        if out != st["v"]:
            c = copy.deepcopy(case)
            c["prog"]["out"] = st["v"]
            yield c
    yield from _stmt_candidates(case, [])
    for i, spec in enumerate(case["inputs"]):
        a = decode_array(spec)
        for ax, d in enumerate(a.shape):
            if d > 1:
                c = copy.deepcopy(case)
                c["inputs"][i] = encode_array(np.take(a, [0], axis=ax))
                yield c
        if a.dtype.kind in "fc" and a.size:
            for v in (1.0, 0.0):
                if not (a == v).all():
                    c = copy.deepcopy(case)
                    c["inputs"][i] = dict(spec, **encode_array(np.full_like(a, v)))
                    yield c
            for j in range(min(a.size, 12)):
                if a.flat[j] not in (0.0, 1.0):
                    c, b = copy.deepcopy(case), a.copy()
                    b.flat[j] = 1.0
                    c["inputs"][i] = dict(spec, **encode_array(b))
                    yield c


def _body_at(case, path):
    body = case["prog"]
    for si, bi in path:
        body = body["stmts"][si]["bodies"][bi]
    return body


def _stmt_candidates(case, path):
    body = _body_at(case, path)
    for si in reversed(range(len(body["stmts"]))):
        st = body["stmts"][si]
        for a in st["args"]:
            if isinstance(a, str) and st["op"] != "id":
                c = copy.deepcopy(case)
                t = _body_at(c, path)["stmts"][si]
                t.update(op="id", args=[a], p={}, bodies=[])
                yield c
        for bi in range(len(st.get("bodies", []))):
            yield from _stmt_candidates(case, path + [(si, bi)])


def minimize(case, pair, budget=200, log=print):
    """The smallest case found whose run still gives the original mismatch's signature."""
    rj, rm = pair.run(case)
    sig = signature(compare(case, rj, rm), rj, rm)
    if sig is None:
        return case, None
    tries = 0
    progress = True
    while progress and tries < budget:
        progress = False
        for cand in _candidates(case):
            if cand is None:
                continue
            cand = dce(cand)
            if cand is None:
                continue
            tries += 1
            rj, rm = pair.run(cand)
            if signature(compare(cand, rj, rm), rj, rm) == sig:
                case, progress = cand, True
                log(f"  shrunk ({tries} tries): {len(case['stack'])} layers, "
                    f"{sum(1 for _ in _all_stmts(case['prog']))} statements")
                break
            if tries >= budget:
                break
    rj, rm = pair.run(case)
    return case, compare(case, rj, rm)


def _all_stmts(body):
    for st in body["stmts"]:
        yield st
        for b in st.get("bodies", []):
            yield from _all_stmts(b)
