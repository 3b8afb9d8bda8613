"""The character transformer of char_transformer.py written as a flax.linen + optax user writes it.

    python -m minijax.run_as_jax examples/flax_char_transformer.py             # on minijax
    python -m minijax.run_as_jax examples/flax_char_transformer.py --steps 300
    python -m minijax.run_as_jax examples/flax_char_transformer.py --quick     # CI's short run

This file says ``import jax``, ``import flax.linen`` and ``import optax`` and nothing about
minijax: the opt-in (``python -m minijax.run_as_jax``) answers every ``jax`` import with
minijax, so flax's modules (``nn.Embed``, ``nn.MultiHeadDotProductAttention``, ``nn.LayerNorm``,
``nn.scan`` over ``nn.remat``'d blocks) and optax's AdamW run on minijax unchanged. With plain
``python`` it runs on whatever real JAX is installed: the same program, for comparison.

The model: decoder-only, pre-norm blocks (causal multi-head attention, GELU MLP), the blocks'
parameters stacked by ``nn.scan`` so the traced program does not grow with depth. Sampling is
one jitted ``lax.scan`` over decoding steps drawing each character with
``jax.random.categorical``. The corpus is public-domain text shipped in examples/data/.
"""

from __future__ import annotations

import functools
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # examples/_common.py

import _common  # noqa: E402  (flags, progress bar, plot: no jax calls)
import flax.linen as nn  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import optax  # noqa: E402

from char_transformer import CONTEXT, CORPUS, Vocab, random_windows  # noqa: E402  (same data)

D_MODEL, HEADS, LAYERS = 64, 4, 2
BATCH = 32
PEAK_LR = 3e-3


class Block(nn.Module):
    """One pre-norm transformer block; ``nn.scan`` calls it as ``(carry, x) -> (carry, y)``."""

    @nn.compact
    def __call__(self, h, _):
        t = h.shape[1]
        causal = nn.make_causal_mask(jnp.ones((1, t)))
        a = nn.LayerNorm()(h)
        h = h + nn.MultiHeadDotProductAttention(num_heads=HEADS, use_bias=False)(a, a,
                                                                                  mask=causal)
        u = nn.gelu(nn.Dense(4 * D_MODEL)(nn.LayerNorm()(h)))
        return h + nn.Dense(D_MODEL)(u), None


class CharTransformer(nn.Module):
    vocab_size: int

    @nn.compact
    def __call__(self, tokens):
        """Logits (batch, time, vocab) for int tokens (batch, time), time <= CONTEXT."""
        init = nn.initializers.normal(0.02)
        h = nn.Embed(self.vocab_size, D_MODEL, embedding_init=init)(tokens)
        pos = self.param("pos", init, (CONTEXT, D_MODEL))
        h = h + pos[: tokens.shape[1]]
        # One traced block applied LAYERS times (parameters stacked on a leading axis);
        # remat recomputes each block's activations in the backward pass instead of storing them.
        blocks = nn.scan(nn.remat(Block), variable_axes={"params": 0},
                         split_rngs={"params": True}, length=LAYERS)
        h, _ = blocks()(h, None)
        return nn.Dense(self.vocab_size, kernel_init=init)(nn.LayerNorm()(h))


def make_optimizer(steps):
    schedule = optax.warmup_cosine_decay_schedule(
        init_value=0.0, peak_value=PEAK_LR, warmup_steps=max(1, steps // 20),
        decay_steps=steps, end_value=PEAK_LR / 10)
    return optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(schedule, weight_decay=1e-4))


def make_sampler(model):
    @functools.partial(jax.jit, static_argnames=("length", "temperature"))
    def sample(params, key, prompt, length, temperature=0.8):
        """``prompt`` continued by ``length`` sampled tokens; each step runs the model on the
        last CONTEXT tokens of the buffer (the causal mask makes the unwritten tail harmless)."""
        total = len(prompt) + length
        assert len(prompt) >= 1 and total >= CONTEXT, "pad the request to at least one context"
        buf = jnp.zeros(total, jnp.int32).at[: len(prompt)].set(prompt)

        def step(carry, pos):  # pos: index of the last written token
            buf, key = carry
            key, sub = jax.random.split(key)
            start = jnp.clip(pos - CONTEXT + 1, 0, total - CONTEXT)
            window = jax.lax.dynamic_slice(buf, (start,), (CONTEXT,))
            logits = model.apply(params, window[None])[0]
            last = jax.lax.dynamic_index_in_dim(logits, pos - start, keepdims=False)
            tok = jax.random.categorical(sub, last / temperature).astype(jnp.int32)
            return (jax.lax.dynamic_update_slice(buf, tok[None], (pos + 1,)), key), tok

        (buf, _), _ = jax.lax.scan(step, (buf, key), jnp.arange(len(prompt) - 1, total - 1))
        return buf

    return sample


def main(argv=None):
    def extra(p):
        p.add_argument("--sample-length", type=int, default=300)
        p.add_argument("--prompt", default="Shall I ")

    args = _common.parse_args(__doc__.splitlines()[0], steps=1000, quick_steps=60, argv=argv,
                              extra=extra)
    print(f"jax {jax.__version__} ({jax.numpy.__name__.split('.')[0]}): "
          f"{jax.default_backend()} x {len(jax.devices())}")
    text = open(CORPUS, encoding="utf-8").read()
    vocab = Vocab(text)
    data = vocab.encode(text)
    print(f"corpus: {len(text)} characters, vocabulary {len(vocab.chars)}; model: {LAYERS} "
          f"layers x d={D_MODEL}, {HEADS} heads, context {CONTEXT}")

    model = CharTransformer(len(vocab.chars))
    key = jax.random.PRNGKey(args.seed)
    params = jax.jit(model.init)(key, jnp.zeros((1, CONTEXT), jnp.int32))
    print(f"parameters: {sum(p.size for p in jax.tree_util.tree_leaves(params)):,}")
    optimizer = make_optimizer(args.steps)
    opt_state = optimizer.init(params)

    @jax.jit
    def train_step(params, opt_state, x, y):
        def loss_fn(p):
            logits = model.apply(p, x)
            return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()
        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    rng = np.random.default_rng(args.seed)
    losses, pending = [], []
    bar = _common.progress(args.steps, "flax_char_transformer", disable=args.no_progress)
    meter = _common.Throughput()
    for step in range(args.steps):
        xb, yb = random_windows(rng, data, BATCH)
        params, opt_state, loss = train_step(params, opt_state, xb, yb)
        pending.append(loss)  # device values: read them in bulk, not every step
        meter.add(BATCH * CONTEXT)
        if (step + 1) % 20 == 0 or step + 1 == args.steps:
            losses.extend(float(v) for v in pending)
            pending = []
            bar.set_postfix(loss=f"{losses[-1]:.3f}", tok_per_s=f"{meter.rate():.0f}")
        bar.update(1)
    bar.close()

    length = max(args.sample_length, CONTEXT - len(args.prompt))
    out = make_sampler(model)(params, jax.random.fold_in(key, 1), vocab.encode(args.prompt),
                              length=length)
    print("--- sample " + "-" * 60)
    print(vocab.decode(np.asarray(out)))
    print("-" * 71)
    _common.save_loss_curve(losses, os.path.join(args.out_dir, "flax_char_transformer_loss.png"),
                            "flax char transformer: next-character cross-entropy")
    # Uniform guessing costs ln(vocab) ~ 4 nats; a short run must at least learn character
    # frequencies, a full run words.
    _common.assert_loss_dropped(losses, 0.85 if args.quick else 0.5)
    return {"losses": losses, "sample": vocab.decode(np.asarray(out))}


if __name__ == "__main__":
    main()
