"""A small GPT-style character model, trained on public-domain text shipped in the repository.

    python examples/char_transformer.py            # a few minutes on a CPU
    python examples/char_transformer.py --quick    # CI: a short run that must lower the loss

The model is a decoder-only transformer (pre-norm blocks, causal multi-head attention, GELU
MLP). Its layers' parameters are stacked along a leading axis and applied with `lax.scan`, so
the traced program (and compile time) does not grow with depth. Sampling is one jitted
`lax.scan` over decoding steps, drawing each character with `random.categorical`.
"""

from __future__ import annotations

import functools
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # examples/_common.py

import _common  # noqa: E402

import minijax  # noqa: E402
import minijax.numpy as jnp  # noqa: E402
from minijax import lax, nn, random  # noqa: E402

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "public_domain.txt")
CONTEXT = 64  # characters the model sees
D_MODEL, HEADS, LAYERS = 64, 4, 2
BATCH = 32
LR = 3e-3


# ------------------------------------------------------------------------------------------------
# data


class Vocab:
    def __init__(self, text):
        self.chars = sorted(set(text))
        self.index = {c: i for i, c in enumerate(self.chars)}

    def encode(self, s):
        return np.array([self.index[c] for c in s], np.int32)

    def decode(self, ids):
        return "".join(self.chars[int(i)] for i in ids)


def random_windows(rng, data, batch):
    """`batch` random (input, next-character target) windows of CONTEXT characters."""
    starts = rng.integers(0, len(data) - CONTEXT - 1, batch)
    x = np.stack([data[s:s + CONTEXT] for s in starts])
    y = np.stack([data[s + 1:s + CONTEXT + 1] for s in starts])
    return x, y


# ------------------------------------------------------------------------------------------------
# model


@functools.partial(minijax.jit, static_argnums=1)  # one compiled program, not one per leaf
def init_params(key, vocab_size):
    k_emb, k_pos, k_layers, k_out = random.split(key, 4)
    d, std = D_MODEL, 0.02
    # Residual projections scaled by 1/sqrt(2 * layers), as GPT-2 does, so the residual stream's
    # variance does not grow with depth at initialization.
    res_std = std / math.sqrt(2 * LAYERS)
    ks = random.split(k_layers, 4)
    layers = {  # every leaf has a leading LAYERS axis: lax.scan walks over it
        "ln1": jnp.ones((LAYERS, d)), "ln1_b": jnp.zeros((LAYERS, d)),
        "w_qkv": random.normal(ks[0], (LAYERS, d, 3 * d)) * std,
        "w_o": random.normal(ks[1], (LAYERS, d, d)) * res_std,
        "ln2": jnp.ones((LAYERS, d)), "ln2_b": jnp.zeros((LAYERS, d)),
        "w_up": random.normal(ks[2], (LAYERS, d, 4 * d)) * std,
        "b_up": jnp.zeros((LAYERS, 4 * d)),
        "w_down": random.normal(ks[3], (LAYERS, 4 * d, d)) * res_std,
        "b_down": jnp.zeros((LAYERS, d)),
    }
    return {
        "embed": random.normal(k_emb, (vocab_size, d)) * std,
        "pos": random.normal(k_pos, (CONTEXT, d)) * std,
        "layers": layers,
        "ln_f": jnp.ones(d), "ln_f_b": jnp.zeros(d),
        "w_out": random.normal(k_out, (d, vocab_size)) * std,
    }


def layer_norm(x, scale, bias, eps=1e-5):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + eps) * scale + bias


def attention(x, w_qkv, w_o):
    """Causal multi-head self-attention over (batch, time, d_model)."""
    b, t, d = x.shape
    q, k, v = jnp.split(x @ w_qkv, 3, axis=-1)
    q, k, v = (a.reshape(b, t, HEADS, d // HEADS) for a in (q, k, v))
    scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(d // HEADS)
    causal = jnp.tril(jnp.ones((t, t), jnp.bool_))
    weights = nn.softmax(jnp.where(causal, scores, -1e9), axis=-1)
    return jnp.einsum("bhqk,bkhd->bqhd", weights, v).reshape(b, t, d) @ w_o


def block(h, p):
    """One pre-norm transformer block; `p` is one layer's slice of the stacked parameters."""
    h = h + attention(layer_norm(h, p["ln1"], p["ln1_b"]), p["w_qkv"], p["w_o"])
    u = nn.gelu(layer_norm(h, p["ln2"], p["ln2_b"]) @ p["w_up"] + p["b_up"])
    return h + u @ p["w_down"] + p["b_down"], None


def forward(params, tokens):
    """Logits (batch, time, vocab) for int tokens (batch, time), time <= CONTEXT."""
    t = tokens.shape[1]
    h = params["embed"][tokens] + params["pos"][:t]
    h, _ = lax.scan(block, h, params["layers"])  # over layers: one traced block, LAYERS steps
    return layer_norm(h, params["ln_f"], params["ln_f_b"]) @ params["w_out"]


def loss_fn(params, x, y):
    logp = nn.log_softmax(forward(params, x))
    return -jnp.mean(jnp.take_along_axis(logp, y[..., None], axis=-1))


@minijax.jit
def train_step(params, opt_state, x, y):
    loss, grads = minijax.value_and_grad(loss_fn)(params, x, y)
    params, opt_state = _common.adam_update(grads, opt_state, params, LR)
    return params, opt_state, loss


# ------------------------------------------------------------------------------------------------
# sampling: one compiled scan over decoding steps


@functools.partial(minijax.jit, static_argnames=("length", "temperature"))
def sample(params, key, prompt, length, temperature=0.8):
    """`prompt` (int tokens) continued by `length` sampled tokens. The buffer holds prompt and
    continuation; each step runs the model on the last CONTEXT tokens (no KV cache: the model
    is small, and the causal mask makes the not-yet-written tail harmless)."""
    total = len(prompt) + length
    assert len(prompt) >= 1 and total >= CONTEXT, "pad the request to at least one context"
    buf = jnp.zeros(total, jnp.int32).at[: len(prompt)].set(prompt)

    def step(carry, pos):  # pos: index of the last written token
        buf, key = carry
        key, sub = random.split(key)
        start = jnp.clip(pos - CONTEXT + 1, 0, total - CONTEXT)
        window = lax.dynamic_slice(buf, (start,), (CONTEXT,))
        logits = forward(params, window[None])[0]
        last = lax.dynamic_index_in_dim(logits, pos - start, keepdims=False)
        tok = random.categorical(sub, last / temperature).astype(jnp.int32)
        buf = lax.dynamic_update_slice(buf, tok[None], (pos + 1,))
        return (buf, key), tok

    positions = jnp.arange(len(prompt) - 1, total - 1)
    (buf, _), _ = lax.scan(step, (buf, key), positions)
    return buf


def main(argv=None):
    def extra(p):
        p.add_argument("--sample-length", type=int, default=300)
        p.add_argument("--prompt", default="Shall I ")

    args = _common.parse_args(__doc__.splitlines()[0], steps=1000, quick_steps=60, argv=argv,
                              extra=extra)
    _common.describe_devices()
    text = open(CORPUS, encoding="utf-8").read()
    vocab = Vocab(text)
    data = vocab.encode(text)
    print(f"corpus: {len(text)} characters, vocabulary {len(vocab.chars)}; model: {LAYERS} "
          f"layers x d={D_MODEL}, {HEADS} heads, context {CONTEXT}")

    key = random.PRNGKey(args.seed)
    params = init_params(key, len(vocab.chars))
    n_params = sum(int(np.prod(p.shape)) for p in minijax.tree_util.tree_leaves(params))
    print(f"parameters: {n_params:,}")
    opt_state = _common.adam_init(params)
    rng = np.random.default_rng(args.seed)
    losses, pending = [], []
    bar = _common.progress(args.steps, "char_transformer", disable=args.no_progress)
    meter = _common.Throughput()
    window = _common.ProfileWindow(args.profile)
    for step in range(args.steps):
        xb, yb = _common.shard_batch(*random_windows(rng, data, BATCH))
        with window.step(step, params):
            params, opt_state, loss = train_step(params, opt_state, xb, yb)
        pending.append(loss)
        meter.add(BATCH * CONTEXT)
        if (step + 1) % 20 == 0 or step + 1 == args.steps:
            losses.extend(float(v) for v in pending)
            pending = []
            bar.set_postfix(loss=f"{losses[-1]:.3f}", tok_per_s=f"{meter.rate():.0f}")
        bar.update(1)
    bar.close()
    window.close(params)

    length = max(args.sample_length, CONTEXT - len(args.prompt))
    out = sample(params, random.fold_in(key, 1), vocab.encode(args.prompt), length=length)
    print("--- sample " + "-" * 60)
    print(vocab.decode(np.asarray(out)))
    print("-" * 71)
    _common.save_loss_curve(losses, os.path.join(args.out_dir, "char_transformer_loss.png"),
                            "char transformer: next-character cross-entropy")
    # Uniform guessing costs ln(vocab) ~ 4 nats; a short run must at least learn character
    # frequencies, a full run words.
    _common.assert_loss_dropped(losses, 0.85 if args.quick else 0.5)
    return {"losses": losses, "sample": vocab.decode(np.asarray(out))}


if __name__ == "__main__":
    main()
