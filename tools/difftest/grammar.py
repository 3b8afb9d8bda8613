"""The generator: random cases (programs over the op table, inputs with special values, a
stack of transforms), as pure JSON data.

Types are tracked approximately (shape, dtype, weak) to steer towards valid programs; a wrong
guess only yields a program both frameworks should reject alike, which is still a comparison.
"""

from dataclasses import dataclass

import ml_dtypes
import numpy as np

from tools.difftest import ops as O

KIND = {"pair": "p", "bool": "b", "int8": "i", "int32": "i", "int64": "i", "uint8": "i",
        "uint32": "i",
        "float16": "f", "bfloat16": "f", "float32": "f", "float64": "f",
        "complex64": "c", "complex128": "c"}
RANK = {"b": 0, "i": 1, "f": 2, "c": 3}
SHAPES = [(), (3,), (3,), (2, 3), (2, 3), (3, 3), (1, 3), (4,), (0,), (2, 0), (3, 1), (2, 1, 3)]
DERIV = {"grad", "vag", "jvp", "vjp", "linearize", "jacfwd", "jacrev", "hessian"}
POLICIES = [None, "nothing_saveable", "everything_saveable", "dots_saveable",
            "dots_with_no_batch_dims_saveable", "checkpoint_dots"]


@dataclass(frozen=True)
class Ty:
    shape: tuple
    dtype: str
    weak: bool = False

    @property
    def kind(self):
        return KIND[self.dtype]

    @property
    def ndim(self):
        return len(self.shape)


def default_dtype(kind, x64):
    return {"b": "bool", "i": "int64" if x64 else "int32", "f": "float64" if x64 else "float32",
            "c": "complex128" if x64 else "complex64"}[kind]


def promote(tys, x64):
    top = max(RANK[t.kind] for t in tys)
    kind = [k for k, r in RANK.items() if r == top][0]
    strong = sorted({t.dtype for t in tys if t.kind == kind and not t.weak})
    if not strong:
        return default_dtype(kind, x64), True
    if len(strong) == 1:
        return strong[0], False
    if set(strong) == {"bfloat16", "float16"}:
        return "float32", False
    return max(strong, key=lambda d: np.dtype(d).itemsize), False


def bshape(*shapes):
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        return None


class Gen:
    def __init__(self, rng, x64=False):
        self.rng = rng
        self.x64 = x64
        self.inputs = []      # (name, Ty, fill)
        self.n = 0

    # ---- helpers -------------------------------------------------------------------------
    def choice(self, seq, p=None):
        if p is not None:
            p = np.asarray(p, float)
            p = p / p.sum()
        return seq[self.rng.choice(len(seq), p=p)]

    def coin(self, p):
        return self.rng.random() < p

    def fresh(self):
        self.n += 1
        return f"t{self.n}"

    def rand_dtype(self, kind=None):
        if kind is None:
            kind = self.choice(["f", "i", "b", "c"], [0.75, 0.15, 0.06, 0.04])
        if kind == "f":
            opts = ["float32", "float16", "bfloat16"] + (["float64"] * 3 if self.x64 else [])
            return self.choice(opts, [0.8, 0.1, 0.1] + ([0.5] * 3 if self.x64 else []))
        if kind == "i":
            opts = ["int32", "uint8", "int8"] + (["int64"] if self.x64 else [])
            return self.choice(opts, [0.8, 0.1, 0.1] + ([0.6] if self.x64 else []))
        if kind == "c":
            return "complex128" if self.x64 and self.coin(0.5) else "complex64"
        return "bool"

    def new_input(self, ty, fill=None, pool=None):
        name = f"x{len(self.inputs)}"
        self.inputs.append((name, ty, fill))
        if pool is not None:
            pool.append((name, ty))
        return name, ty

    def pick(self, pool, pred, make, fill=None):
        cands = [v for v in pool if pred(v[1])]
        if cands and self.coin(0.85):
            # recent values first: programs become chains rather than forests
            w = np.arange(1, len(cands) + 1, dtype=float) ** 2
            return cands[self.rng.choice(len(cands), p=w / w.sum())]
        return self.new_input(make(), fill, pool)

    def lit(self):
        v = self.choice([0.5, 2, -1.5, 3.0, 0, 1e30, True, float("nan"), -0.0, 2.5], 
                        [4, 3, 3, 2, 1, 0.5, 0.5, 0.3, 0.3, 1])
        if isinstance(v, bool):
            ty = Ty((), "bool", False)
        elif isinstance(v, int):
            ty = Ty((), default_dtype("i", self.x64), True)
        else:
            ty = Ty((), default_dtype("f", self.x64), True)
        return {"lit": v}, ty

    def rand_shape(self):
        return self.choice(SHAPES)

    def float_ty(self, shape=None):
        return Ty(self.rand_shape() if shape is None else shape, self.rand_dtype("f"))

    # ---- statement families --------------------------------------------------------------
    def s_unary_float(self, pool, body=False):
        name = self.choice(list(O.UNARY_FLOAT))
        v, t = self.pick(pool, lambda t: t.kind in "fc" or self.coin(0.1), self.float_ty)
        p = {}
        if name == "nn.leaky_relu":
            p["slope"] = self.choice([0.01, 0.2])
        if name == "nn.gelu":
            p["approximate"] = self.coin(0.5)
        dt = t.dtype if t.kind in "fc" else default_dtype("f", self.x64)
        return name, [v], p, [], Ty(t.shape, dt, t.weak)

    def s_unary_keep(self, pool, body=False):
        name = self.choice(list(O.UNARY_KEEP))
        v, t = self.pick(pool, lambda t: True, self.float_ty)
        p = {}
        if name == "round":
            p["decimals"] = self.choice([0, 1, 2, -1])
        if name == "clip":
            p["lo"], p["hi"] = self.choice([(-1.0, 1.0), (0, 2), (None, 0.5), (1.0, -1.0)])
        if name in ("integer_pow", "pow_lit"):
            p["y"] = self.choice([2, 3, -1, 0, -2] + ([0.5] if name == "pow_lit" else []))
        if name == "arange_pick":
            p["start"], p["stop"], p["step"], p["k"] = self.choice(
                [(0.1, 2.0, 0.1, 13), (0.3, 5.7, None, 4), (-1.5, 3.3, 0.7, 5),
                 (2.5, 9, 1.5, 3), (1e3, 1050.0, 0.7, 40), (1e8, 1e8 + 100, 7.0, 11)])
        dt = "float32" if name == "real" and t.kind == "c" else t.dtype
        weak = t.weak and name != "arange_pick"
        return name, [v], p, [], Ty(t.shape, dt if dt != "bool" or name != "arange_pick"
                                    else "int8", weak)

    def s_predicate(self, pool, body=False):
        name = self.choice(list(O.PREDICATES))
        v, t = self.pick(pool, lambda t: True, self.float_ty)
        return name, [v], {}, [], Ty(t.shape, "bool")

    def partner(self, pool, t, body):
        """A second operand that broadcasts with t (a literal, a value in scope or a new input)."""
        r = self.rng.random()
        if r < 0.3:
            return self.lit()
        if body:
            return self.pick(pool, lambda u: u.shape in ((), t.shape) and u.kind in "fi",
                             lambda: Ty(t.shape, t.dtype))
        if r < 0.4:
            shape = self.choice([(), t.shape[1:], (1,) + t.shape[1:], t.shape, (2,) + t.shape])
            return self.new_input(Ty(tuple(shape), self.rand_dtype()), pool=pool)
        return self.pick(pool, lambda u: bshape(u.shape, t.shape) is not None,
                         lambda: Ty(t.shape, self.rand_dtype()))

    def s_binary(self, pool, body=False):
        name = self.choice(list(O.BINARY))
        a, ta = self.pick(pool, lambda t: t.kind != "b", self.float_ty)
        b, tb = self.partner(pool, ta, body)
        if self.coin(0.3):
            a, ta, b, tb = b, tb, a, ta
        shape = bshape(ta.shape, tb.shape) or ta.shape
        dt, weak = promote([ta, tb], self.x64)
        if name in ("divide", "op_div", "arctan2", "hypot", "logaddexp", "copysign",
                    "true_divide", "float_power", "logaddexp2", "nextafter") and \
                KIND[dt] in "bi":
            dt, weak = default_dtype("f", self.x64), weak
        return name, [a, b], {}, [], Ty(shape, dt, weak)

    def s_compare(self, pool, body=False):
        name = self.choice(list(O.COMPARE))
        a, ta = self.pick(pool, lambda t: t.kind != "c", self.float_ty)
        b, tb = self.partner(pool, ta, body)
        return name, [a, b], {}, [], Ty(bshape(ta.shape, tb.shape) or ta.shape, "bool")

    def s_logical(self, pool, body=False):
        name = self.choice(list(O.LOGICAL))
        a, ta = self.pick(pool, lambda t: t.kind in "bi",
                          lambda: Ty(self.rand_shape(), self.choice(["bool", "int32"])))
        b, tb = self.pick(pool, lambda t: t.kind in "bi" and bshape(t.shape, ta.shape),
                          lambda: Ty(ta.shape, ta.dtype))
        dt = "bool" if name.startswith("logical") else promote([ta, tb], self.x64)[0]
        return name, [a, b], {}, [], Ty(bshape(ta.shape, tb.shape) or ta.shape, dt)

    def s_where(self, pool, body=False):
        name = self.choice(list(O.SELECT), [0.8, 0.2])
        x, tx = self.pick(pool, lambda t: True, self.float_ty)
        c, tc = self.pick(pool, lambda t: t.kind == "b" and
                          (t.shape == tx.shape or (not body and bshape(t.shape, tx.shape))),
                          lambda: Ty(tx.shape, "bool"))
        if name == "lax.select" or body:
            y, ty = self.pick(pool, lambda t: t.shape == tx.shape, lambda: Ty(tx.shape, tx.dtype))
        else:
            y, ty = self.partner(pool, tx, body)
        shape = bshape(tc.shape, tx.shape, ty.shape) or tx.shape
        dt, weak = promote([tx, ty], self.x64)
        return name, [c, x, y], {}, [], Ty(shape, dt, weak)

    def axis_for(self, t, allow_none=True):
        opts = ([None] if allow_none else []) + list(range(t.ndim)) + \
            ([-1] if t.ndim else [])
        return self.choice(opts) if opts else None

    def s_reduce(self, pool, body=False):
        name = self.choice(list(O.REDUCE))
        x, t = self.pick(pool, lambda t: t.ndim > 0 or self.coin(0.2), self.float_ty)
        axis = self.axis_for(t)
        keep = self.coin(0.3)
        if axis is None:
            shape = (1,) * t.ndim if keep else ()
        else:
            ax = axis % t.ndim
            shape = tuple(1 if i == ax else d for i, d in enumerate(t.shape)) if keep else \
                tuple(d for i, d in enumerate(t.shape) if i != ax)
        if name in ("argmax", "argmin", "count_nonzero", "nanargmax", "nanargmin"):
            dt = default_dtype("i", self.x64)
        elif name in ("any", "all"):
            dt = "bool"
        elif name in ("mean", "var", "std", "var_ddof", "nn.logsumexp", "linalg.norm",
                      "nanmean", "nanstd", "nanvar", "average") and t.kind in "bi":
            dt = default_dtype("f", self.x64)
        elif name in ("sum", "prod") and t.kind == "b":
            dt = default_dtype("i", self.x64)
        else:
            dt = t.dtype
        if name == "linalg.norm" and t.kind == "c":
            dt = "float32"
        return name, [x], {"axis": axis, "keepdims": keep}, [], Ty(shape, dt, t.weak)

    def s_axis(self, pool, body=False):
        name = self.choice(list(O.AXIS_OPS))
        x, t = self.pick(pool, lambda t: t.ndim > 0, lambda: self.float_ty((3,)))
        axis = self.axis_for(t, allow_none=False)
        p = {"axis": axis}
        if name.startswith("lax.cum"):
            p = {"axis_nn": axis % t.ndim, "reverse": self.coin(0.3)}
        if name == "roll":
            p["shift"] = self.choice([1, -2, 5])
        shape, dt = t.shape, t.dtype
        if name == "diff":
            if body:
                return self.s_unary_keep(pool, body)
            shape = tuple(max(d - 1, 0) if i == axis % t.ndim else d
                          for i, d in enumerate(t.shape))
        if name == "argsort":
            dt = default_dtype("i", self.x64)
        if (name.startswith("nn.") or name == "unwrap") and t.kind in "bi":
            dt = default_dtype("f", self.x64)
        return name, [x], p, [], Ty(shape, dt, t.weak)

    def s_shape(self, pool, body=False):
        name = self.choice(list(O.SHAPE_OPS))
        x, t = self.pick(pool, lambda t: True, self.float_ty)
        size = int(np.prod(t.shape))
        p, args = {}, [x]
        if name == "ravel":
            shape = (size,)
        elif name == "reshape":
            shape = self.choice([(-1,), (size, 1), (1, -1)] +
                                ([(3, -1)] if size % 3 == 0 and size else []))
            p["shape"] = list(shape)
            shape = tuple(size if d == -1 and len(shape) == 1 else d for d in shape)
            if -1 in shape:
                other = int(np.prod([d for d in shape if d != -1])) or 1
                shape = tuple(size // other if d == -1 else d for d in shape)
        elif name == "transpose":
            shape = t.shape[::-1]
        elif name == "expand_dims":
            p["axis"] = self.choice([0, -1])
            shape = (1,) + t.shape if p["axis"] == 0 else t.shape + (1,)
        elif name == "concat_self":
            if not t.ndim:
                return self.s_unary_keep(pool)
            p["axis"] = self.axis_for(t, False)
            ax = p["axis"] % t.ndim
            shape = tuple(2 * d if i == ax else d for i, d in enumerate(t.shape))
        elif name == "stack2":
            y, ty = self.pick(pool, lambda u: u.shape == t.shape, lambda: Ty(t.shape, t.dtype))
            args.append(y)
            p["axis"] = self.choice([0, -1])
            shape = (2,) + t.shape if p["axis"] == 0 else t.shape + (2,)
        elif name == "tile":
            p["reps"] = [2]
            shape = t.shape[:-1] + (t.shape[-1] * 2,) if t.ndim else (2,)
        elif name == "repeat":
            p["repeats"], p["axis"] = 2, self.axis_for(t, False)
            if p["axis"] is None:
                shape = (2,)
            else:
                ax = p["axis"] % t.ndim
                shape = tuple(2 * d if i == ax else d for i, d in enumerate(t.shape))
        elif name == "broadcast_to":
            shape = (2,) + t.shape
            p["shape"] = list(shape)
        elif name == "pad":
            p["pad_width"] = self.choice([1, [[1, 2]] * t.ndim or 1])
            p["mode"] = self.choice(["constant", "edge", "reflect", "wrap", "symmetric",
                                     "maximum", "mean", "linear_ramp"], [4, 2, 1, 1, 1, 1, 1, 1])
            w = p["pad_width"]
            shape = tuple(d + (2 if w == 1 else 3) for d in t.shape)
        elif name in ("slice_tail", "slice_rev"):
            if not t.ndim:
                return self.s_unary_keep(pool)
            shape = ((max(t.shape[0] - 1, 0),) + t.shape[1:]) if name == "slice_tail" else t.shape
        elif name == "slice_last":
            if not t.ndim:
                return self.s_unary_keep(pool)
            shape = t.shape[:-1] + (min(2, t.shape[-1]),)
        elif name == "moveaxis":
            if not t.ndim:
                return self.s_unary_keep(pool)
            shape = t.shape[1:] + t.shape[:1]
        elif name == "top_k":
            if not t.ndim:
                return self.s_unary_keep(pool)
            p["k"] = self.choice([1, 2])
            p["which"] = self.choice([0, 1])
            shape = t.shape[:-1] + (p["k"],)
            return name, args, p, [], Ty(shape, t.dtype if p["which"] == 0 else "int32")
        elif name == "one_hot":
            x, t = self.pick(pool, lambda u: u.kind == "i",
                             lambda: Ty(self.rand_shape(), "int32"))
            args = [x]
            p["num_classes"] = self.choice([3, 4])
            return name, args, p, [], Ty(t.shape + (p["num_classes"],),
                                         default_dtype("f", self.x64))
        elif name == "outer":
            y, ty = self.pick(pool, lambda u: u.ndim == 1, lambda: self.float_ty((3,)))
            args.append(y)
            shape = (size, ty.shape[0])
            dt, weak = promote([t, ty], self.x64)
            return name, args, p, [], Ty(shape, dt, weak)
        return name, args, p, [], Ty(tuple(shape), t.dtype, t.weak)

    def s_cast(self, pool, body=False):
        name = self.choice(list(O.CAST))
        x, t = self.pick(pool, lambda t: True, self.float_ty)
        dt = self.rand_dtype(self.choice(["f", "i", "b"], [0.6, 0.25, 0.15]))
        return name, [x], {"dtype": {"code": f"jnp.{dt}"}}, [], Ty(t.shape, dt)

    def index_input(self, pool, shape, hi):
        return self.new_input(Ty(shape, self.choice(["int32", "int32", "uint8", "int8"])),
                              fill=("index", hi), pool=pool)

    def s_index(self, pool, body=False):
        name = self.choice(["getitem_int", "getitem_arr", "getitem_bool", "take",
                            "take_along_axis", "at_get_arr", "at_static", "at_arr", "at_slice",
                            "dyn_slice", "dyn_index", "dyn_update", "dyn_slice2"],
                           [2, 2, 0.5, 1, 1, 1, 3, 2, 1, 1, 1, 1, 0.5])
        x, t = self.pick(pool, lambda t: t.ndim > 0, lambda: self.float_ty((3,)))
        n0 = t.shape[0]
        if name.startswith("dyn_"):
            return self.s_dynamic(pool, name, x, t, body)
        if name == "getitem_int":
            idx = self.choice([0, -1, 1, n0, -n0 - 1, 2])
            return name, [x], {"idx": idx}, [], Ty(t.shape[1:], t.dtype, t.weak)
        if name in ("getitem_arr", "at_get_arr"):
            i, ti = self.index_input(pool, self.choice([(), (2,), (4,)]), n0)
            p = {"mode": self.choice(["fill", "clip", "drop", None])} \
                if name == "at_get_arr" else {}
            if p.get("mode") == "drop":
                p["mode"] = "fill"
            return name, [x, i], p, [], Ty(ti.shape + t.shape[1:], t.dtype, t.weak)
        if name == "getitem_bool":
            m, tm = self.new_input(Ty(t.shape, "bool"), pool=pool)
            return name, [x, m], {}, [], Ty((0,), t.dtype, t.weak)  # shape data-dependent
        if name == "take":
            axis = self.axis_for(t)
            i, ti = self.index_input(pool, self.choice([(), (2,)]), n0)
            p = {"axis": axis, "mode": self.choice([None, "clip", "wrap", "fill"])}
            if axis is None:
                shape = ti.shape
            else:
                ax = axis % t.ndim
                shape = t.shape[:ax] + ti.shape + t.shape[ax + 1:]
            return name, [x, i], p, [], Ty(shape, t.dtype, t.weak)
        if name == "take_along_axis":
            axis = self.axis_for(t, allow_none=False)
            i, ti = self.index_input(pool, t.shape, t.shape[axis])
            return name, [x, i], {"axis": axis}, [], Ty(t.shape, t.dtype, t.weak)
        methods = ["set", "add", "mul", "min", "max", "get"]
        method = self.choice(methods if name == "at_static" else methods[:5])
        if name == "at_static":
            idx = self.choice([0, -1, n0, n0 + 3, -n0 - 1, 1])
            if method == "get":
                return "at_static_get", [x], {"idx": idx}, [], Ty(t.shape[1:], t.dtype)
            v, tv = self.upd_value(pool, t.shape[1:], body)
            return name, [x, v], {"idx": idx, "method": {"code": method}}, [], \
                Ty(t.shape, t.dtype, t.weak)
        if name == "at_slice":
            v, tv = self.upd_value(pool, (), body)
            return name, [x, v], {"method": {"code": method}}, [], Ty(t.shape, t.dtype, t.weak)
        i, ti = self.index_input(pool, self.choice([(), (2,), (3,)]), n0)
        v, tv = self.upd_value(pool, ti.shape + t.shape[1:] if self.coin(0.5) else (), body)
        mode = self.choice([None, "drop", "clip", "promise_in_bounds"], [3, 2, 2, 0.3])
        return name, [x, v, i], {"method": {"code": method}, "mode": mode}, [], \
            Ty(t.shape, t.dtype, t.weak)

    def s_dynamic(self, pool, name, x, t, body):
        """lax's dynamic slices: a scalar start (of int32, int8 or uint8, maybe negative or out
        of range), negative starts counted from the end or not."""
        n0 = t.shape[0]
        i, ti = self.new_input(Ty((), self.choice(["int32", "int32", "int8", "uint8"])),
                               fill=("index", n0), pool=pool)
        p = {"neg": self.coin(0.7)}
        if name == "dyn_slice2":
            if t.ndim < 2:
                return self.s_unary_keep(pool, body)
            j, tj = self.new_input(Ty((), self.choice([ti.dtype, ti.dtype, "int32"])),
                                   fill=("index", t.shape[1]), pool=pool)
            return name, [x, i, j], {}, [], Ty((1, 1) + t.shape[2:], t.dtype, t.weak)
        if name == "dyn_slice":
            p["size"] = min(n0, self.choice([1, 2]))
            return name, [x, i], p, [], Ty((p["size"],) + t.shape[1:], t.dtype, t.weak)
        if name == "dyn_index":
            p["keepdims"] = self.coin(0.5)
            return name, [x, i], p, [], Ty(t.shape if p["keepdims"] and n0 == 1 else
                                           ((1,) if p["keepdims"] else ()) + t.shape[1:],
                                           t.dtype, t.weak)
        size = min(n0, 1)
        v, tv = self.pick(pool, lambda u: u.shape == (size,) + t.shape[1:] and u.dtype == t.dtype,
                          lambda: Ty((size,) + t.shape[1:], t.dtype))
        return name, [x, i, v], p, [], Ty(t.shape, t.dtype, t.weak)

    def upd_value(self, pool, shape, body):
        if self.coin(0.35):
            return self.lit()
        return self.pick(pool, lambda u: u.shape == shape, lambda: Ty(shape, self.rand_dtype()))

    def s_linalg(self, pool, body=False):
        name = self.choice(list(O.LINALG))
        n = self.choice([3, 3, 2])
        dt = self.choice(["float32"] * 5 + ["complex64"] + (["float64"] * 3 if self.x64 else []))
        sq = Ty((n, n), dt)
        if name in ("matmul", "dot", "einsum_ij_jk"):
            a, ta = self.pick(pool, lambda t: t.ndim == 2, lambda: Ty((2, n), dt))
            b, tb = self.pick(pool, lambda t: t.ndim == 2 and t.shape[0] == ta.shape[1],
                              lambda: Ty((ta.shape[1], self.choice([1, 3])), ta.dtype))
            d, weak = promote([ta, tb], self.x64)
            return name, [a, b], {}, [], Ty((ta.shape[0], tb.shape[1]), d, weak)
        a, ta = self.pick(pool, lambda t: t.ndim == 2 and t.shape[0] == t.shape[1] and
                          t.kind in "fc",
                          lambda: sq)
        n, dt = ta.shape[0], ta.dtype
        if name == "spd" or (name in ("cholesky", "eigvalsh", "eigh_vals") and self.coin(0.7)):
            v = self.fresh()
            pool.append((v, ta))
            self.stmts.append({"v": v, "op": "spd", "args": [a], "p": {"n": n}})
            a = v
            if name == "spd":
                return "id", [a], {}, [], ta
        real = "float64" if dt in ("float64", "complex128") else "float32"
        if name in ("solve", "triangular_solve"):
            b, tb = self.pick(pool, lambda t: t.shape in ((n,), (n, 1), (n, 2)) and t.kind in "fc",
                              lambda: Ty((n, 1), dt))
            return name, [a, b], {}, [], Ty(tb.shape, promote([ta, tb], self.x64)[0])
        if name in ("inv", "cholesky", "qr_r"):
            return name, [a], {}, [], ta
        if name in ("qr", "slogdet"):
            return name, [a], {}, [], Ty((), "pair")  # a pytree: an output, not an operand
        if name in ("svdvals", "eigvalsh", "eigh_vals"):
            return name, [a], {}, [], Ty((n,), real)
        return name, [a], {}, [], Ty((), dt)

    def s_fft(self, pool, body=False):
        name = self.choice(list(O.FFT))
        if name in ("abs_c", "angle", "imag"):
            x, t = self.pick(pool, lambda t: t.kind == "c", lambda: Ty((3,), "complex64"))
            real = "float64" if t.dtype == "complex128" else "float32"
            return name, [x], {}, [], Ty(t.shape, real)
        x, t = self.pick(pool, lambda t: t.ndim >= (2 if name == "fft2" else 1) and t.kind in "fc",
                         lambda: self.float_ty((2, 4) if name == "fft2" else (4,)))
        cdt = "complex128" if t.dtype in ("float64", "complex128") else "complex64"
        if name == "rfft":
            return name, [x], {}, [], Ty(t.shape[:-1] + (t.shape[-1] // 2 + 1,), cdt)
        if name == "irfft":
            return name, [x], {}, [], Ty(t.shape[:-1] + (max(2 * (t.shape[-1] - 1), 0),),
                                         "float64" if cdt == "complex128" else "float32")
        return name, [x], {}, [], Ty(t.shape, cdt)

    def s_conv(self, pool, body=False):
        name = self.choice(list(O.CONV))
        if name == "conv1d":
            lhs, tl = self.pick(pool, lambda t: t.ndim == 3, lambda: Ty((1, 2, 5), "float32"))
            c = tl.shape[1]
            rhs, tr = self.pick(pool, lambda t: t.ndim == 3 and t.shape[1] == c,
                                lambda: Ty((self.choice([1, 2]), c, self.choice([2, 3])), tl.dtype))
            strides, dil = [self.choice([1, 2])], [self.choice([1, 2])]
            padding = self.choice(["SAME", "VALID", [[1, 0]]])
            k = (tr.shape[2] - 1) * dil[0] + 1
            w = tl.shape[2]
            if padding == "SAME":
                ow = -(-w // strides[0])
            else:
                padw = w + (1 if padding != "VALID" else 0)
                ow = max((padw - k) // strides[0] + 1, 0)
            return name, [lhs, rhs], {"strides": strides, "padding": padding, "dil": dil}, [], \
                Ty((tl.shape[0], tr.shape[0], ow), promote([tl, tr], self.x64)[0])
        if name == "convolve":
            a, ta = self.pick(pool, lambda t: t.ndim == 1, lambda: self.float_ty((4,)))
            b, tb = self.pick(pool, lambda t: t.ndim == 1, lambda: self.float_ty((3,)))
            mode = self.choice(["full", "same", "valid"])
            na, nb = ta.shape[0], tb.shape[0]
            n = {"full": na + nb - 1, "same": max(na, nb), "valid": abs(na - nb) + 1}[mode]
            return name, [a, b], {"mode": mode}, [], Ty((max(n, 0),),
                                                        promote([ta, tb], self.x64)[0])
        x, t = self.pick(pool, lambda t: t.ndim >= 1 and t.kind == "f",
                         lambda: self.float_ty((2, 4)))
        window = [1] * (t.ndim - 1) + [self.choice([2, 3])]
        strides = [1] * (t.ndim - 1) + [self.choice([1, 2])]
        padding = self.choice(["VALID", "SAME"])
        last = t.shape[-1]
        if padding == "SAME":
            ol = -(-last // strides[-1])
        else:
            ol = max((last - window[-1]) // strides[-1] + 1, 0)
        return name, [x], {"window": window, "strides": strides, "padding": padding}, [], \
            Ty(t.shape[:-1] + (ol,), t.dtype)

    def s_custom(self, pool, body=False):
        name = self.choice(list(O.CUSTOM))
        x, t = self.pick(pool, lambda t: t.kind == "f", self.float_ty)
        if name in ("cv_mul3", "cj_pair"):
            y, ty = self.pick(pool, lambda u: u.shape == t.shape and u.dtype == t.dtype,
                              lambda: Ty(t.shape, t.dtype))
            return name, [x, y], {}, [], t
        return name, [x], {}, [], t

    def s_random(self, pool, body=False):
        name = self.choice(list(O.RANDOM))
        p = {"seed": int(self.rng.integers(0, 1000)), "typed": self.coin(0.5)}
        if name == "rnd_split_data":
            p = {"seed": p["seed"], "n": self.choice([2, 3])}
            return name, [], p, [], Ty((p["n"], 2), "uint32")
        if name == "rnd_fold_in":
            i, ti = self.pick(pool, lambda t: t.kind == "i" and t.shape == (),
                              lambda: Ty((), "int32"))
            return name, [i], p, [], Ty((3,), "float32")
        if name == "rnd_randint":
            x, t = self.pick(pool, lambda t: t.kind == "i", lambda: Ty((3,), "int32"))
            return name, [x], p, [], Ty(t.shape, t.dtype)
        x, t = self.pick(pool, lambda t: t.kind == "f" and
                         (t.ndim > 0 or name != "rnd_permutation"),
                         lambda: self.float_ty((3,)))
        if name == "rnd_bernoulli":
            return name, [x], p, [], Ty(t.shape, "bool")
        if name == "rnd_categorical":
            return name, [x], p, [], Ty(t.shape[:-1], "int32")
        return name, [x], p, [], t

    # ---- control flow: bodies are chains of shape-preserving statements -----------------
    BODY_FAMILIES = ["s_unary_float", "s_unary_keep", "s_binary", "s_where", "s_custom", "s_axis"]

    def chain(self, pool, start, ty, steps):
        """Statements from `start` keeping its shape; the last is cast back to ty.dtype."""
        stmts_outer = self.stmts
        self.stmts = []
        local = list(pool) + [(start, ty)]
        cur, cty = start, ty
        for _ in range(steps):
            fam = self.choice(self.BODY_FAMILIES, [4, 3, 4, 1, 1, 1])
            local_cur = [v for v in local if v[0] != cur] + [(cur, cty)]
            res = getattr(self, fam)(local_cur, body=True)
            name, args, p, bodies, oty = res
            if oty.shape != ty.shape:
                continue
            v = self.fresh()
            self.stmts.append({"v": v, "op": name, "args": args, "p": p, "bodies": bodies})
            local.append((v, oty))
            cur, cty = v, oty
        if cty.dtype != ty.dtype or cty.weak != ty.weak:
            v = self.fresh()
            self.stmts.append({"v": v, "op": "astype", "args": [cur],
                               "p": {"dtype": {"code": f"jnp.{ty.dtype}"}}})
            cur = v
        stmts, self.stmts = self.stmts, stmts_outer
        return stmts, cur

    def s_control(self, pool, body=False):
        if body:
            return self.s_unary_keep(pool, body)
        name = self.choice(list(O.CONTROL), [3, 1.5, 3, 1.5, 2, 1.5, 3, 1, 1])
        c, t = self.pick(pool, lambda t: t.kind == "f", self.float_ty)
        # bodies see the outer values of matching or scalar shape (closures)
        outer = [v for v in pool if v[1].shape in ((), t.shape) and v[1].kind != "c"]
        steps = int(self.rng.integers(1, 4))
        if name == "fori_loop":
            stmts, out = self.chain(outer + [("i", Ty((), "int32"))], "c", t, steps)
            b = {"params": ["i", "c"], "stmts": stmts, "out": out}
            return name, [c], {"n": self.choice([0, 1, 3])}, [b], t
        if name == "fori_loop2":
            d, td = self.pick(pool, lambda u: u.kind == "f", self.float_ty)
            s1, o1 = self.chain(outer, "c1", t, steps)
            s2, o2 = self.chain([], "c2", td, 1)
            b = {"params": ["i", "cc"], "unpack": [["cc", ["c1", "c2"]]], "stmts": s1 + s2,
                 "out": {"tuple": [o1, o2]}}
            which = self.choice([0, 1])
            return name, [c, d], {"n": self.choice([1, 2]), "which": which}, [b], [t, td][which]
        if name == "scan":
            xs, tx = self.pick(pool, lambda u: u.ndim >= 1 and u.kind == "f" and
                               u.shape[1:] in ((), t.shape),
                               lambda: Ty((self.choice([2, 3, 0]),) + t.shape, t.dtype))
            s1, o1 = self.chain(outer + [("x", Ty(tx.shape[1:], tx.dtype))], "c", t, steps)
            s2, o2 = self.chain(outer + [("c", t)], "x", Ty(tx.shape[1:], tx.dtype), 1)
            b = {"params": ["c", "x"], "stmts": s1 + s2, "out": {"tuple": [o1, o2]}}
            which = self.choice([0, 1])
            oty = t if which == 0 else tx
            return name, [c, xs], {"reverse": self.coin(0.3), "which": which}, [b], oty
        if name == "while_loop":
            stmts, out = self.chain(outer, "c", t, steps)
            b = {"params": ["ic"], "unpack": [["ic", ["i", "c"]]], "stmts": stmts,
                 "out": {"tuple": [{"expr": "i + 1"}, out]}}
            return name, [c], {"n": self.choice([0, 2, 3])}, [b], t
        if name in ("cond", "switch"):
            pv, _ = self.pick(pool, lambda u: u.kind in "fib", self.float_ty)
            bodies = []
            for _ in range(2 if name == "cond" else 3):
                stmts, out = self.chain(outer, "x", t, steps)
                bodies.append({"params": ["x"], "stmts": stmts, "out": out})
            return name, [pv, c], {}, bodies, t
        if name == "remat":
            stmts, out = self.chain(outer, "x", t, steps)
            if t.ndim == 2 and self.coin(0.6):
                w = self.new_input(Ty((t.shape[1], t.shape[1]), t.dtype), pool=None)[0]
                v = self.fresh()
                stmts = [{"v": v, "op": "matmul", "args": ["x", w], "p": {}}] + \
                    self.chain(outer, v, t, steps)[0]
                out = stmts[-1]["v"]
            b = {"params": ["x"], "stmts": stmts, "out": out}
            return name, [c], {"policy": self.choice(POLICIES),
                               "prevent_cse": self.coin(0.7)}, [b], t
        if name == "jit_inner":
            stmts, out = self.chain(outer, "x", t, steps)
            return name, [c], {}, [{"params": ["x"], "stmts": stmts, "out": out}], t
        # vmap_inner over the leading axis: the body sees rows
        if t.ndim == 0:
            return self.s_unary_keep(pool)
        row = Ty(t.shape[1:], t.dtype)
        stmts, out = self.chain([v for v in outer if v[1].shape == ()], "x", row, steps)
        return name, [c], {}, [{"params": ["x"], "stmts": stmts, "out": out}], t

    FAMILIES = {"s_unary_float": 12, "s_unary_keep": 8, "s_predicate": 2, "s_binary": 14,
                "s_compare": 3, "s_logical": 2, "s_where": 4, "s_reduce": 8, "s_axis": 8,
                "s_shape": 6, "s_cast": 4, "s_index": 9, "s_linalg": 4, "s_fft": 2,
                "s_conv": 2, "s_control": 7, "s_custom": 3, "s_random": 3}

    def program(self, n_stmts, want_float):
        pool, pairs, self.stmts = [], [], []
        self.new_input(self.float_ty(), pool=pool)
        if self.coin(0.4):
            self.new_input(Ty(self.rand_shape(), self.rand_dtype()), pool=pool)
        fams = list(self.FAMILIES)
        w = np.array([self.FAMILIES[f] for f in fams], float)
        for _ in range(n_stmts):
            fam = fams[self.rng.choice(len(fams), p=w / w.sum())]
            name, args, p, bodies, oty = getattr(self, fam)(pool)
            v = self.fresh()
            st = {"v": v, "op": name, "args": args}
            if p:
                st["p"] = p
            if bodies:
                st["bodies"] = bodies
            self.stmts.append(st)
            (pairs if oty.dtype == "pair" else pool).append((v, oty))
        cands = [v for v in pool if v[0].startswith("t")] + pairs or pool
        if want_float:
            cands = [v for v in cands if v[1].kind in "fc"] or cands
        last = cands[-1][0]
        r = self.rng.random()
        if r < 0.2 and len(cands) > 1:
            out = {"tuple": [last, cands[-2][0]]}
        elif r < 0.27:
            out = {"dict": {"a": last, "b": pool[0][0]}}
        else:
            out = last
        return {"params": [n for n, _, _ in self.inputs], "stmts": self.stmts, "out": out}


PRESET_STACKS = [["shard", "vmap"], ["grad", "grad"], ["jit", "vmap", "grad"],
                 ["grad", "remat"],
                 ["jit", "grad", "remat"], ["vmap", "jvp"], ["jit", "vjp"], ["hessian"],
                 ["jacfwd", "jit"], ["jacrev"], ["vmap", "vmap"], ["jit", "vag"]]
LAYERS = {"jit": 3, "vmap": 3, "grad": 2.5, "vag": 1, "jvp": 1.5, "vjp": 1.5, "linearize": 0.5,
          "jacfwd": 0.7, "jacrev": 0.7, "hessian": 0.3, "remat": 1.2}


def gen_stack(g):
    r = g.rng.random()
    if r < 0.2:
        kinds = []
    elif r < 0.4:
        kinds = list(g.choice(PRESET_STACKS))
    else:
        names = list(LAYERS)
        w = np.array([LAYERS[n] for n in names])
        kinds = [names[g.rng.choice(len(names), p=w / w.sum())]
                 for _ in range(g.choice([1, 2, 3], [0.45, 0.4, 0.15]))]
        if sum(k in ("jacfwd", "jacrev", "hessian") for k in kinds) > 1:
            kinds = [k for k in kinds if k not in ("jacfwd", "jacrev", "hessian")] + ["jacrev"]
    if g.coin(0.06):  # sharded execution on virtual CPU devices, outermost
        # shard_map's collectives on virtual CPU devices cost seconds a case: a third of these
        kinds = [g.choice(["shard", "shard", "shmap"])] + [k for k in kinds if k != "jit"]
    return kinds


SPECIALS = ["zero", "negzero", "inf", "neginf", "nan", "denormal", "huge", "neghuge", "half"]


def fill_values(g, ty, fill):
    rng, shape, dt = g.rng, ty.shape, ty.dtype
    npdt = np.dtype(ml_dtypes.bfloat16) if dt == "bfloat16" else np.dtype(dt)
    if fill and fill[0] == "index":
        hi = max(fill[1], 1)
        lo = -hi - 1 if np.dtype(dt).kind == "i" else 0
        v = rng.integers(lo, hi + 2, size=shape)
        if g.coin(0.6):  # mostly in range, sometimes not
            v = rng.integers(-hi if np.dtype(dt).kind == "i" else 0, hi, size=shape)
        return v.astype(npdt)
    kind = KIND[dt]
    if kind == "b":
        return rng.random(shape) < 0.5
    if kind == "i":
        info = np.iinfo(npdt)
        v = rng.integers(max(info.min, -4), min(info.max, 5) + 1, size=shape).astype(npdt)
        if v.size and g.coin(0.05):
            v.flat[rng.integers(v.size)] = g.choice([info.min, info.max])
        return v
    v = rng.standard_normal(shape) * g.choice([1.0, 3.0, 0.1], [3, 1, 1])
    if kind == "c":
        v = v + 1j * rng.standard_normal(shape)
    if g.coin(0.2):
        v = np.round(v * 2) / 2  # ties for sort/round/max
    if g.coin(0.15):
        v = np.abs(v)
    if v.size and g.coin(0.35):
        info = ml_dtypes.finfo(npdt) if kind == "f" else np.finfo(np.float32)
        sub = float(info.smallest_subnormal) * 3 if hasattr(info, "smallest_subnormal") else 1e-45
        vals = {"zero": 0.0, "negzero": -0.0, "inf": np.inf, "neginf": -np.inf, "nan": np.nan,
                "denormal": sub, "huge": float(info.max), "neghuge": -float(info.max), "half": 0.5}
        for k in range(v.size):
            if g.coin(0.3):
                v.flat[k] = vals[g.choice(SPECIALS)]
    with np.errstate(all="ignore"):
        return v.astype(npdt)


def encode_array(a):
    name = "bfloat16" if a.dtype == np.dtype(ml_dtypes.bfloat16) else a.dtype.name
    return {"shape": list(a.shape), "dtype": name, "hex": a.tobytes().hex()}


def gen_case(seed, index):
    """Case `index` of the stream `seed`: the same (seed, index) always gives the same case."""
    rng = np.random.default_rng([seed, index])
    g = Gen(rng, x64=rng.random() < 0.08)
    kinds = gen_stack(g)
    deriv = any(k in DERIV for k in kinds)
    prog = g.program(int(rng.integers(1, 6)), want_float=deriv)
    shapes = [ty.shape for _, ty, _ in g.inputs]
    stack = []
    for k in reversed(kinds):  # innermost first: vmap layers add batch dims outwards
        if k == "vmap":
            b = g.choice([2, 3, 1, 0], [4, 3, 1, 0.3])
            axes = []
            for i, s in enumerate(shapes):
                ax = None if g.coin(0.3) else g.choice(list(range(len(s) + 1)) + [-1])
                axes.append(ax)
            if all(a is None for a in axes):
                axes[0] = 0
            for i, ax in enumerate(axes):
                if ax is not None:
                    pos = ax if ax >= 0 else len(shapes[i]) + 1 + ax
                    shapes[i] = shapes[i][:pos] + (b,) + shapes[i][pos:]
            stack.append(["vmap", axes])
        elif k == "remat":
            stack.append(["remat", g.choice(POLICIES)])
        else:
            stack.append([k])
    stack.reverse()
    inputs = [encode_array(fill_values(g, Ty(tuple(s), ty.dtype), fill))
              for s, (_, ty, fill) in zip(shapes, g.inputs)]
    # Some unbatched scalar inputs are passed as Python scalars (weakly typed, as users pass
    # `grad(f)(1.0)`), from a stream of their own so that the rest of the case is unchanged.
    py_rng = np.random.default_rng([seed, index, 1])
    for spec in inputs:
        if (spec["shape"] == [] and spec["dtype"] in PY_SCALAR_DTYPES[g.x64]
                and py_rng.random() < 0.5):
            spec["py"] = True
    return {"id": f"s{seed}-{index}", "x64": g.x64, "inputs": inputs, "prog": prog,
            "stack": stack}


# the dtypes a Python scalar takes (bool, int, float, complex) without and with x64
PY_SCALAR_DTYPES = {False: ("bool", "int32", "float32", "complex64"),
                    True: ("bool", "int64", "float64", "complex128")}
