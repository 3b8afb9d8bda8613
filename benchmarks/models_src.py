"""The models grad_trace.py and train_steps.py measure, as source text both MEASURE programs
include (a MEASURE runs as ``python -c`` under minijax or under JAX in its own environment, so
the models are spliced in as text rather than imported). Before this text a MEASURE defines
``jax``, ``jnp``, ``np``, ``rng``, ``MLP_LAYERS`` and ``TF_LAYERS``.
"""

MODELS = r'''
# --- a tanh MLP (32 wide, batch 16) of MLP_LAYERS layers
mlp_params = [(rng.normal(size=(32, 32)).astype(np.float32) / 6, np.zeros(32, np.float32))
              for _ in range(MLP_LAYERS)]
xb = rng.normal(size=(16, 32)).astype(np.float32)
yb = rng.normal(size=(16, 32)).astype(np.float32)

def mlp_layer(h, w, b):
    return jnp.tanh(h @ w + b)

def make_mlp_loss(layer=mlp_layer):
    def loss(params, x, y):
        h = x
        for w, b in params:
            h = layer(h, w, b)
        return jnp.mean((h - y) ** 2)
    return loss

mlp_loss = make_mlp_loss()

# --- a pre-layernorm transformer of TF_LAYERS blocks (d_model 64, 4 heads, MLP 256, seq 32)
D, H, F, S = 64, 4, 256, 32

def dense(*shape):
    return (rng.normal(size=shape) / np.sqrt(shape[0])).astype(np.float32)

tf_params = [dict(ln1=np.ones(D, np.float32), ln2=np.ones(D, np.float32), wq=dense(D, D),
                  wk=dense(D, D), wv=dense(D, D), wo=dense(D, D), w1=dense(D, F), w2=dense(F, D))
             for _ in range(TF_LAYERS)]
tokens = rng.normal(size=(S, D)).astype(np.float32)
target = rng.normal(size=(S, D)).astype(np.float32)

def layernorm(x, g):
    m = jnp.mean(x, axis=-1, keepdims=True)
    v = jnp.mean((x - m) ** 2, axis=-1, keepdims=True)
    return (x - m) / jnp.sqrt(v + 1e-5) * g

def block(x, p):
    h = layernorm(x, p["ln1"])
    q = (h @ p["wq"]).reshape(S, H, D // H).transpose(1, 0, 2)
    k = (h @ p["wk"]).reshape(S, H, D // H).transpose(1, 0, 2)
    v = (h @ p["wv"]).reshape(S, H, D // H).transpose(1, 0, 2)
    att = jax.nn.softmax(q @ k.transpose(0, 2, 1) / np.sqrt(D // H), axis=-1)
    x = x + (att @ v).transpose(1, 0, 2).reshape(S, D) @ p["wo"]
    h = layernorm(x, p["ln2"])
    return x + jax.nn.gelu(h @ p["w1"]) @ p["w2"]

def tf_loss(params, x, y):
    for p in params:
        x = block(x, p)
    return jnp.mean((x - y) ** 2)
'''
