"""Weight quantization of the digits MLP (examples/mlp_digits.py): accuracy and weight memory.

    python benchmarks/quantize_digits.py [--steps 1000]

Trains the example's MLP (64-256-128-10) in f32, then evaluates the test split with the f32
model, int8 weight-only and fp8 (e4m3fn) weights with per-output-channel scales, and int8
activations + weights calibrated on 256 training images (minijax.transforms). Prints one line
per variant with the accuracy and the bytes of the matmul weights.
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "examples"))

import mlp_digits as md  # noqa: E402
from _common import adam_init  # noqa: E402

from minijax import random, transforms  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    (x_train, y_train), (x_test, y_test) = md.load_data(args.seed)
    params = md.init_params(random.PRNGKey(args.seed), (x_train.shape[1], *md.HIDDEN, 10))
    opt = adam_init(params)
    rng = np.random.default_rng(args.seed)
    for _ in range(args.steps):
        idx = rng.choice(len(x_train), md.BATCH, replace=False)
        params, opt, _ = md.train_step(params, opt, x_train[idx], y_train[idx])

    def acc(logits):
        return float(np.mean(np.argmax(np.asarray(logits), -1) == y_test))

    f32_bytes = sum(np.asarray(w).nbytes for w, _ in params)
    print(f"digits MLP 64-{'-'.join(map(str, md.HIDDEN))}-10, {args.steps} steps, "
          f"{len(x_test)} test images")
    print(f"  f32                 accuracy {acc(md.predict(params, x_test)):.4f}  "
          f"weights {f32_bytes} B")
    for name, qf in (("int8 weight-only", transforms.quantize(md.predict, params)),
                     ("fp8 e4m3 weights", transforms.quantize(md.predict, params, "fp8")),
                     ("int8 calibrated", transforms.calibrate(md.predict, params,
                                                              [x_train[:256]]))):
        a = acc(qf(x_test))
        mem = qf.weight_memory()
        print(f"  {name:19s} accuracy {a:.4f}  weights {mem['bytes_after']} B "
              f"({mem['ratio']:.3f} of {mem['bytes_before']} B, scales included)")


if __name__ == "__main__":
    main()
