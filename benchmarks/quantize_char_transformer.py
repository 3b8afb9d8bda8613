"""Weight quantization of the char transformer (examples/char_transformer.py): loss and weight
memory. Its layers are stacked and run by ``lax.scan``, so its layer matmuls are quantized
inside the scan body (per layer, per output channel).

    python benchmarks/quantize_char_transformer.py [--steps 300]

Trains the example's GPT in f32 (batch 32, Adam), then evaluates the mean loss over fixed
evaluation windows with the f32 model, int8 weight-only and fp8 (e4m3fn) weights, and int8
activations + weights calibrated on 2 training batches (minijax.transforms). Prints one line per
variant with the loss and the bytes of the matmul weights.
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "examples"))

import char_transformer as ct  # noqa: E402
from _common import adam_init  # noqa: E402

import minijax  # noqa: E402
from minijax import random, transforms  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    text = open(ct.CORPUS).read()
    vocab = ct.Vocab(text)
    data = vocab.encode(text)
    rng = np.random.default_rng(args.seed)
    params = ct.init_params(random.PRNGKey(args.seed), len(vocab.chars))
    opt = adam_init(params)
    t0 = time.perf_counter()
    for _ in range(args.steps):
        params, opt, loss = ct.train_step(params, opt, *ct.random_windows(rng, data, ct.BATCH))
    print(f"trained {args.steps} steps in {time.perf_counter() - t0:.1f} s, "
          f"last batch loss {float(loss):.4f}")
    evals = [ct.random_windows(np.random.default_rng(1000 + i), data, ct.BATCH)
             for i in range(8)]
    calib = [ct.random_windows(rng, data, ct.BATCH) for _ in range(2)]

    def mean_loss(fn):
        fn = minijax.jit(fn)
        return float(np.mean([float(fn(x, y)) for x, y in evals]))

    f32 = mean_loss(lambda x, y: ct.loss_fn(params, x, y))
    variants = [("int8 weight-only", transforms.quantize(ct.loss_fn, params, "int8_weight_only")),
                ("fp8 e4m3fn weights", transforms.quantize(ct.loss_fn, params, "fp8")),
                ("int8 activations (calibrated) + weights",
                 transforms.calibrate(ct.loss_fn, params, calib))]
    results = [(name, mean_loss(q), q) for name, q in variants]
    mem = results[0][2].weight_memory()
    print(f"f32: loss {f32:.4f}, matmul weights {mem['bytes_before']} B")
    for name, value, q in results:
        m = q.weight_memory()
        print(f"{name}: loss {value:.4f} ({(value - f32) / f32:+.3%} vs f32), matmul weights "
              f"{m['bytes_after']} B ({m['ratio']:.3f}x), {m['num_weights']} weights")


if __name__ == "__main__":
    main()
