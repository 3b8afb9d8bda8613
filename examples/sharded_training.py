"""A GPT-style transformer trained on a 2-D device mesh (data x model), three ways:

  --parallel dp    data parallelism: the batch is split over 'data', parameters replicated;
                   XLA all-reduces the gradients.
  --parallel tp    Megatron tensor parallelism on 'model': attention heads and the MLP's hidden
                   units are split (QKV and the first MLP matrix by columns, the output
                   projections by rows), activations constrained to match with
                   with_sharding_constraint; the batch is split over 'data' as well.
  --parallel fsdp  fully sharded data parallelism: every parameter (and its Adam moments) is
                   split over 'data' along its largest divisible dimension; XLA gathers a
                   layer's weights when it needs them and reduce-scatters the gradients.

minijax never partitions the program itself: the step is one jit whose in/out shardings and
constraints become Shardy annotations, and XLA's SPMD partitioner inserts the collectives.

It uses every local device: all GPUs when the CUDA plugin is installed, otherwise N virtual
CPU devices (``--cpu-devices``, default 8). bf16 compute on GPU, f32 on CPU (``--dtype``).
The task is synthetic and learnable: each sequence is an arithmetic progression modulo the
vocabulary size, so the model must read the step from the context.

    python examples/sharded_training.py --parallel tp --quick

Parameters and Adam state are made on the devices by one jitted init whose out_shardings are
the training shardings, so with FSDP each device only ever holds its shard (``--preset 6b``: 6.4 B
parameters, 103 GB of f32 parameters, gradients and Adam moments, does not fit one 80 GB GPU).
The run ends with a summary: step time, tokens/s, MFU (GPUs of known peak), and the memory per
device (measured peak on GPUs; XLA's compiled estimate everywhere). ``--bench`` measures only
(no learning check, no plot) and ``--json FILE`` writes the summary; benchmarks/sharded_scaling.py
drives the runs on 1..N GPUs.
"""

from __future__ import annotations

import os
import sys


def _cpu_devices_from_argv(argv):
    for i, a in enumerate(argv):
        if a == "--cpu-devices" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--cpu-devices="):
            return a.split("=", 1)[1]
    return "8"


if __name__ == "__main__":
    # The CPU client reads its device count when it starts: set it before minijax makes it.
    os.environ.setdefault("MINIJAX_NUM_CPU_DEVICES", _cpu_devices_from_argv(sys.argv[1:]))

import json  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

import minijax  # noqa: E402
import minijax.numpy as jnp  # noqa: E402
from minijax import lax, random, tree_util  # noqa: E402
from minijax.sharding import Mesh, NamedSharding  # noqa: E402
from minijax.sharding import PartitionSpec as P  # noqa: E402

# ------------------------------------------------------------------------------------------------
# Configuration


class Config:
    def __init__(self, vocab=64, seq=32, d_model=128, heads=8, layers=4, mlp=4, batch=32):
        self.vocab, self.seq, self.d_model, self.heads = vocab, seq, d_model, heads
        self.layers, self.mlp, self.batch = layers, mlp, batch
        self.d_head = d_model // heads


# Model sizes by name (--preset); flags like --d-model override single fields.
PRESETS = {
    "quick": dict(vocab=32, seq=16, d_model=32, heads=4, layers=2, mlp=2, batch=16),
    "small": {},  # Config's defaults: seconds on a CPU
    "300m": dict(d_model=1024, heads=16, layers=24, seq=512, batch=16),  # GPU scaling runs
    "6b": dict(d_model=4096, heads=32, layers=32, seq=512, batch=16),  # FSDP over 8 GPUs only
}


def n_params(cfg):
    """Parameters of the model ``init_params`` makes."""
    d, f = cfg.d_model, cfg.mlp * cfg.d_model
    per_layer = 4 * d * d + 2 * d * f + f + 2 * d
    return cfg.layers * per_layer + (cfg.vocab + cfg.seq + 1) * d


def flops_per_step(cfg):
    """Training FLOPs per step as PaLM's MFU counts them (as benchmarks/gpu_train.py does):
    6 x matmul parameters x tokens, plus 12 x layers x d_model x seq per token for attention's
    two matmuls (forward and backward; the causal half is not discounted)."""
    d, f = cfg.d_model, cfg.mlp * cfg.d_model
    matmul_params = cfg.layers * (4 * d * d + 2 * d * f) + d * cfg.vocab  # + tied output layer
    tokens = cfg.batch * cfg.seq
    return 6 * matmul_params * tokens + 12 * cfg.layers * d * cfg.seq * tokens


# ------------------------------------------------------------------------------------------------
# Data: arithmetic progressions modulo the vocabulary


def batches(cfg, seed):
    rng = np.random.default_rng(seed)
    t = np.arange(cfg.seq + 1)
    while True:
        start = rng.integers(0, cfg.vocab, (cfg.batch, 1))
        step = rng.integers(1, 5, (cfg.batch, 1))
        seqs = ((start + step * t) % cfg.vocab).astype(np.int32)
        yield seqs[:, :-1], seqs[:, 1:]


# ------------------------------------------------------------------------------------------------
# The model (parameters: a dict of arrays; layers stacked in lists)


def init_params(cfg, key):
    """The parameters (all f32), drawn with minijax.random from ``key``. Written in minijax ops
    so that ``jit(..., out_shardings=...)`` of it makes each device's shard on that device
    (``init_state``): a model larger than one device's memory never exists whole anywhere."""
    d, f = cfg.d_model, cfg.mlp * cfg.d_model
    keys = iter(random.split(key, 2 + 6 * cfg.layers))

    def w(*shape, scale=None):
        scale = scale if scale is not None else 1.0 / np.sqrt(shape[0])
        return random.normal(next(keys), shape, jnp.float32) * scale

    layers = []
    for _ in range(cfg.layers):
        layers.append({
            "ln1": jnp.ones(d, jnp.float32), "ln2": jnp.ones(d, jnp.float32),
            "wq": w(d, d), "wk": w(d, d), "wv": w(d, d),
            "wo": w(d, d, scale=0.5 / np.sqrt(d * cfg.layers)),
            "w1": w(d, f), "b1": jnp.zeros(f, jnp.float32),
            "w2": w(f, d, scale=0.5 / np.sqrt(f * cfg.layers)),
        })
    return {"embed": w(cfg.vocab, d, scale=0.1), "pos": w(cfg.seq, d, scale=0.1),
            "ln_f": jnp.ones(d, jnp.float32), "layers": layers}


def _layer_norm(x, scale):
    x32 = x.astype(jnp.float32)
    mean = jnp.mean(x32, axis=-1, keepdims=True)
    var = jnp.mean((x32 - mean) ** 2, axis=-1, keepdims=True)
    return ((x32 - mean) * lax.rsqrt(var + 1e-5) * scale).astype(x.dtype)


def forward(params, tokens, cfg, act=None, dtype=jnp.float32):
    """Logits (B, T, V). ``act(x, kind)`` constrains an activation's sharding ('resid',
    'heads', 'hidden'); the identity when nothing is sharded."""
    act = act or (lambda x, kind: x)
    cast = lambda p: p.astype(dtype)  # noqa: E731 - compute dtype; parameters stay f32
    B, T = tokens.shape
    H, Dh = cfg.heads, cfg.d_head
    x = cast(params["embed"])[tokens] + cast(params["pos"])[None, :T]
    x = act(x, "resid")
    causal = jnp.tril(jnp.ones((T, T), jnp.bool_))
    for lp in params["layers"]:
        h = _layer_norm(x, lp["ln1"])
        q, k, v = (act((h @ cast(lp[n])).reshape(B, T, H, Dh), "heads")
                   for n in ("wq", "wk", "wv"))
        s = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(jnp.float32) / np.sqrt(Dh)
        s = jnp.where(causal, s, -1e9)
        a = minijax.nn.softmax(s, axis=-1).astype(dtype)
        o = act(jnp.einsum("bhqk,bkhd->bqhd", a, v), "heads").reshape(B, T, H * Dh)
        x = act(x + o @ cast(lp["wo"]), "resid")
        h = _layer_norm(x, lp["ln2"])
        h = act(minijax.nn.gelu(h @ cast(lp["w1"]) + cast(lp["b1"])), "hidden")
        x = act(x + h @ cast(lp["w2"]), "resid")
    x = _layer_norm(x, params["ln_f"])
    return (x @ cast(params["embed"]).T).astype(jnp.float32)  # tied embeddings


def loss_fn(params, tokens, targets, cfg, act=None, dtype=jnp.float32):
    logits = forward(params, tokens, cfg, act, dtype)
    logp = minijax.nn.log_softmax(logits, axis=-1)
    onehot = minijax.nn.one_hot(targets, cfg.vocab, dtype=jnp.float32)
    return -jnp.mean(jnp.sum(logp * onehot, axis=-1))


# ------------------------------------------------------------------------------------------------
# Shardings per mode


def make_mesh_for(mode, devices, model_parallel=None):
    n = len(devices)
    m = 1
    if mode == "tp":
        m = model_parallel or (2 if n % 2 == 0 and n > 1 else 1)
        if n == 2 and model_parallel is None:
            m = 2  # two GPUs: all tensor parallel
    if n % m:
        raise SystemExit(f"--model-parallel {m} does not divide the {n} devices")
    return Mesh(np.array(devices).reshape(n // m, m), ("data", "model"))


_TP_SPECS = {"wq": P(None, "model"), "wk": P(None, "model"), "wv": P(None, "model"),
             "wo": P("model", None), "w1": P(None, "model"), "b1": P("model"),
             "w2": P("model", None)}


def param_specs(params, mode, mesh):
    """A pytree of PartitionSpecs like ``params``."""
    n_data = mesh.shape["data"]

    def spec(path, x):
        name = path[-1]
        if mode == "tp":
            return _TP_SPECS.get(name, P())
        if mode == "fsdp":  # split the largest dimension 'data' divides
            dims = sorted(range(x.ndim), key=lambda i: -x.shape[i])
            for i in dims:
                if x.shape[i] % n_data == 0 and x.shape[i] >= n_data:
                    return P(*([None] * i + ["data"]))
        return P()

    def walk(path, x):
        if isinstance(x, dict):
            return {k: walk(path + (k,), v) for k, v in x.items()}
        if isinstance(x, list):
            return [walk(path + (i,), v) for i, v in enumerate(x)]
        return spec(path, x)

    return walk((), params)


def activation_constraint(mesh, mode):
    """Megatron's layout of activations: heads and hidden units split over 'model', the
    residual stream replicated over it; the batch split over 'data' everywhere."""
    if mode != "tp":
        return None
    specs = {"resid": P("data", None, None), "heads": P("data", None, "model", None),
             "hidden": P("data", None, "model")}
    return lambda x, kind: lax.with_sharding_constraint(x, NamedSharding(mesh, specs[kind]))


def build_step(cfg, mesh, mode, lr, dtype):
    """``(step, init_state, batch_sharding)``: the jitted training step for ``mode`` on
    ``mesh`` (mesh None: the unsharded step on one device), and the jitted
    ``init_state(key) -> (params, adam_state)`` that makes both where the step expects them.
    The step donates the parameters and the Adam state: updating in place halves their memory,
    which is what lets FSDP fit a large model."""
    act = activation_constraint(mesh, mode) if mesh is not None else None

    def step(params, opt, tokens, targets):
        loss, grads = minijax.value_and_grad(loss_fn)(params, tokens, targets, cfg, act, dtype)
        params, opt = _common.adam_update(grads, opt, params, lr)
        return params, opt, loss

    def init_state(key):
        params = init_params(cfg, key)
        return params, _common.adam_init(params)

    if mesh is None:
        return minijax.jit(step, donate_argnums=(0, 1)), minijax.jit(init_state), None

    shapes = minijax.eval_shape(lambda key: init_params(cfg, key), random.PRNGKey(0))
    p_sh = tree_util.tree_map(lambda s: NamedSharding(mesh, s), param_specs(shapes, mode, mesh),
                              is_leaf=lambda s: isinstance(s, P))
    replicated = NamedSharding(mesh, P())
    o_sh = {"m": p_sh, "v": p_sh, "t": replicated}
    batch_sh = NamedSharding(mesh, P("data", None))
    step = minijax.jit(step, in_shardings=(p_sh, o_sh, batch_sh, batch_sh),
                       out_shardings=(p_sh, o_sh, replicated), donate_argnums=(0, 1))
    return step, minijax.jit(init_state, out_shardings=(p_sh, o_sh)), batch_sh


def plan_memory(cfg, step, init_state, devices):
    """Compiles ``step`` for abstract arguments (shapes only: nothing is allocated, so this
    works for a model no device could hold) and prints XLA's per-device estimate against each
    device's memory. Returns the estimate in bytes."""
    t0 = time.perf_counter()
    state = minijax.eval_shape(init_state, random.PRNGKey(0))
    tokens = minijax.ShapeDtypeStruct((cfg.batch, cfg.seq), np.int32)
    compiled = step.lower(*state, tokens, tokens).compile()
    estimate, _ = memory_per_device(compiled, [])
    ma = compiled.memory_analysis()
    stats = devices[0].memory_stats()
    limit = stats.get("bytes_limit") if stats else None
    verdict = ("" if limit is None else
               f"; device memory {limit / 2**30:.1f} GiB: "
               + ("fits" if estimate <= limit else "DOES NOT FIT"))
    print(f"XLA's estimate per device: {estimate / 2**30:.2f} GiB (arguments "
          f"{ma.argument_size_in_bytes / 2**30:.2f} GiB, temporaries "
          f"{ma.temp_size_in_bytes / 2**30:.2f} GiB){verdict}  "
          f"(compiled in {time.perf_counter() - t0:.1f} s)")
    return estimate


def memory_per_device(compiled, devices):
    """``(estimate, measured)`` bytes per device: XLA's compiled estimate of the step's peak
    (arguments + outputs + temporaries - donated buffers reused as outputs), and the largest
    peak the devices' allocators report since the process started (None where the platform
    keeps no statistics, as the CPU)."""
    ma = compiled.memory_analysis()
    estimate = (ma.argument_size_in_bytes + ma.output_size_in_bytes + ma.temp_size_in_bytes
                - ma.alias_size_in_bytes)
    stats = [d.memory_stats() for d in devices]
    measured = max(s["peak_bytes_in_use"] for s in stats) if stats and all(stats) else None
    return estimate, measured


# ------------------------------------------------------------------------------------------------
# Main


def _extra_flags(p):
    p.add_argument("--parallel", choices=("dp", "tp", "fsdp"), default="dp")
    p.add_argument("--model-parallel", type=int, default=None,
                   help="size of the 'model' mesh axis for tp (default 2)")
    p.add_argument("--num-devices", type=int, default=None,
                   help="use the first N local devices (default: all)")
    p.add_argument("--cpu-devices", type=int, default=8,
                   help="virtual CPU devices when no GPU is used")
    p.add_argument("--dtype", choices=("auto", "float32", "bfloat16"), default="auto")
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--preset", choices=tuple(PRESETS), default=None,
                   help="model size (default small; quick with --quick)")
    p.add_argument("--batch", type=int, default=None, help="global batch (default 32; 16 quick)")
    p.add_argument("--d-model", type=int, default=None)
    p.add_argument("--heads", type=int, default=None)
    p.add_argument("--layers", type=int, default=None)
    p.add_argument("--seq", type=int, default=None)
    p.add_argument("--bench", action="store_true",
                   help="measure only: no learning check, no loss-curve plot")
    p.add_argument("--json", metavar="FILE", default=None, help="write the run's summary here")
    p.add_argument("--coordinator", default=None, metavar="HOST:PORT",
                   help="run as one process of a multi-process job (minijax.distributed): "
                        "process 0 listens here; also --num-processes, --process-id")
    p.add_argument("--num-processes", type=int, default=1)
    p.add_argument("--process-id", type=int, default=0)
    p.add_argument("--local-device-ids", default=None,
                   help="comma-separated GPUs this process owns (one process per GPU)")
    p.add_argument("--plan", action="store_true",
                   help="only compile the step on abstract inputs (nothing allocated) and print "
                        "XLA's memory estimate per device: does this model fit?")


def _config(args):
    kw = dict(PRESETS[args.preset or ("quick" if args.quick else "small")])
    for flag in ("batch", "d_model", "heads", "layers", "seq"):
        if getattr(args, flag) is not None:
            kw[flag] = getattr(args, flag)
    return Config(**kw)


def main(argv=None):
    args = _common.parse_args(__doc__.splitlines()[0], steps=300, quick_steps=40, argv=argv,
                              extra=_extra_flags)
    if args.coordinator:  # before anything makes a backend
        ids = args.local_device_ids and [int(i) for i in args.local_device_ids.split(",")]
        minijax.distributed.initialize(args.coordinator, args.num_processes, args.process_id,
                                       local_device_ids=ids)
    _common.describe_devices()
    devices = minijax.devices()[:args.num_devices]  # global: every process's devices
    lead = minijax.process_index() == 0  # writes the files of a multi-process run
    cfg = _config(args)
    on_gpu = minijax.default_backend() == "gpu"
    dtype = {"auto": jnp.bfloat16 if on_gpu else jnp.float32, "float32": jnp.float32,
             "bfloat16": jnp.bfloat16}[args.dtype]
    mesh = make_mesh_for(args.parallel, devices, args.model_parallel)
    print(f"mode: {args.parallel}  mesh: {dict(mesh.shape)}  dtype: {np.dtype(dtype).name}  "
          f"model: d={cfg.d_model} layers={cfg.layers} heads={cfg.heads} seq={cfg.seq} "
          f"batch={cfg.batch}  parameters: {n_params(cfg):,}")
    if cfg.batch % mesh.shape["data"]:
        raise SystemExit(f"batch {cfg.batch} is not divisible by the data axis "
                         f"{mesh.shape['data']}")

    step, init_state, batch_sh = build_step(cfg, mesh, args.parallel, args.lr, dtype)
    if args.plan:
        return plan_memory(cfg, step, init_state, minijax.local_devices())
    params, opt = init_state(random.PRNGKey(args.seed))
    data = batches(cfg, args.seed + 1)

    def next_batch():
        return tuple(minijax.device_put(a, batch_sh) for a in next(data))

    t0 = time.perf_counter()
    step = step.lower(params, opt, *next_batch()).compile()
    compile_s = time.perf_counter() - t0
    losses, times = [], []
    bar = _common.progress(args.steps, f"sharded_training[{args.parallel}]",
                           disable=args.no_progress)
    window = _common.ProfileWindow(args.profile)
    for i in range(args.steps):
        tokens, targets = next_batch()
        t0 = time.perf_counter()
        with window.step(i, params):
            params, opt, loss = step(params, opt, tokens, targets)
            loss = float(loss)  # waits for the step: step time is the device time too
        times.append(time.perf_counter() - t0)
        losses.append(loss)
        bar.update(1)
        if i % 10 == 0:
            bar.set_postfix(loss=f"{loss:.3f}")
    window.close(params)
    bar.close()
    local = [d for d in mesh.devices.flat if d.process_index == minijax.process_index()]
    summary = _summary(cfg, args, mesh, dtype, times, losses, compile_s,
                       memory_per_device(step, local))
    print(_summary_line(summary))
    if args.json and lead:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    if not args.bench:
        _common.assert_loss_dropped(losses, 0.8 if args.quick else 0.5)
        if not args.quick and lead:
            _common.save_loss_curve(
                losses, os.path.join(args.out_dir, f"sharded_training_{args.parallel}.png"),
                f"sharded_training ({args.parallel}, mesh {dict(mesh.shape)})")
    return {"losses": losses, "summary": summary, "cfg": cfg, "mesh": mesh, "step": step,
            "init_state": init_state, "batch_sharding": batch_sh, "dtype": dtype,
            "lr": args.lr}


def _summary(cfg, args, mesh, dtype, times, losses, compile_s, memory):
    """The run's figures as a JSON-able dict (what RESULTS.md tables are made of)."""
    steady = times[min(len(times) - 1, 3):]  # the first steps still warm up
    step_s = float(np.median(steady))
    devices = list(mesh.devices.flat)
    tflops = flops_per_step(cfg) / step_s / 1e12
    peak = _common.peak_tflops(devices[0].device_kind, np.dtype(dtype).name)
    return {
        "mode": args.parallel, "mesh": dict(mesh.shape), "devices": len(devices),
        "processes": minijax.process_count(),
        "device_kind": devices[0].device_kind, "dtype": np.dtype(dtype).name,
        "config": vars(cfg), "parameters": n_params(cfg), "steps": len(times),
        "step_ms": step_s * 1e3, "tokens_per_s": cfg.batch * cfg.seq / step_s,
        "compile_s": compile_s, "tflops_per_device": tflops / len(devices),
        "mfu": None if peak is None else tflops / (peak * len(devices)),
        "memory_estimate_bytes": memory[0], "memory_peak_bytes": memory[1],
        "losses": losses,
    }


def _summary_line(s):
    def size(b):
        return "n/a" if b is None else (f"{b / 2**30:.2f} GiB" if b >= 2**30
                                        else f"{b / 2**20:.1f} MiB")

    mfu = "n/a (unknown peak)" if s["mfu"] is None else f"{s['mfu']:.3f}"
    return (f"step time: {s['step_ms']:.2f} ms (median after warm-up)  "
            f"tokens/s: {s['tokens_per_s']:,.0f}  MFU: {mfu}  compile: {s['compile_s']:.1f} s\n"
            f"memory per device: peak {size(s['memory_peak_bytes'])}, "
            f"XLA's estimate {size(s['memory_estimate_bytes'])}")


if __name__ == "__main__":
    main()
