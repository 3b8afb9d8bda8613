"""minijax's memory kinds against real JAX's on the same device: where each result lives
(``sharding.memory_kind``), its values, and refusals (type and message). Needs real JAX in the
same interpreter (the lent GPU machines have it); each framework runs in its own process:
    PYTHONPATH=. python3 tools/difftest/gpu_memory_kinds_vs_jax.py
Cases: device_put into pinned_host / unpinned_host and back, eager ops on host arrays, jit with
host arguments, out_shardings in host memory, device_put to another memory inside jit (GPU: the
placement custom calls), NamedSharding with a memory kind, mixed memories."""
from tools.difftest.gpu_linalg_vs_jax import run

CASES = r'''
import json, sys, warnings
import numpy as np
warnings.simplefilter("ignore")
if sys.argv[1] == "jax":
    import jax
else:
    import minijax as jax
jnp = jax.numpy
out = {}

def record(key, fn):
    try:
        res = fn()
        leaves = res if isinstance(res, (tuple, list)) else [res]
        out[key] = [[getattr(getattr(r, "sharding", None), "memory_kind", None),
                     np.asarray(r).tolist()] for r in leaves]
    except Exception as e:  # a refusal must be the same one
        out[key] = ["error", type(e).__name__, str(e)[:300]]

d = jax.devices()[0]
out["memories"] = sorted(m.kind for m in d.addressable_memories())
out["default"] = d.default_memory().kind
kinds = [k for k in ("pinned_host", "unpinned_host") if k in out["memories"]]  # GPU: no unpinned
host = {k: jax.sharding.SingleDeviceSharding(d, memory_kind=k) for k in kinds + ["device"]}
mesh = jax.sharding.Mesh(np.array(jax.devices()[:1]), ("x",))
v = np.arange(8.0, dtype=np.float32)
dev = jax.device_put(v, host["device"])
for kind in kinds:
    s = host[kind]
    x = jax.device_put(v, s)
    record(f"{kind} device_put", lambda: x)
    record(f"{kind} eager mul", lambda: x * 2)
    record(f"{kind} eager sin", lambda: jnp.sin(x))
    record(f"{kind} jit arg", lambda: jax.jit(lambda a: a + 1)(x))
    record(f"{kind} back to device", lambda: jax.device_put(x, host["device"]))
    record(f"{kind} out_shardings", lambda: jax.jit(lambda a: a * 3, out_shardings=s)(dev))
    record(f"{kind} put inside jit", lambda: jax.jit(lambda a: jax.device_put(a, s) * 1)(dev))
    record(f"{kind} put to device inside jit",
           lambda: jax.jit(lambda a: jax.device_put(a, host["device"]) + 1)(x))
    record(f"{kind} mixed", lambda: jax.jit(lambda a, b: a + b)(x, dev))
    record(f"{kind} named", lambda: jax.device_put(
        v, jax.sharding.NamedSharding(mesh, jax.P(), memory_kind=kind)))
    record(f"{kind} with_memory_kind", lambda: jax.device_put(
        v, host["device"].with_memory_kind(kind)))
record("bad kind", lambda: jax.sharding.SingleDeviceSharding(d, memory_kind="hbm"))
record("unpinned_host", lambda: jax.sharding.SingleDeviceSharding(
    d, memory_kind="unpinned_host").memory_kind)
print(json.dumps(out))
'''


def main():
    jax_out, minijax_out = run("jax", CASES), run("minijax", CASES)
    differ = [k for k in jax_out if jax_out[k] != minijax_out.get(k)]
    for k in differ:
        print("DIFF", k, "| jax:", str(jax_out[k])[:300], "| minijax:", str(minijax_out.get(k))[:300])
    print(f"cases {len(jax_out)}, differ {len(differ)}")


if __name__ == "__main__":
    main()
