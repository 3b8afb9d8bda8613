"""jaxpr → StableHLO module, built with the jaxlib.mlir bindings.

Each equation is emitted by its primitive's ``lowering`` rule, called as
``rule(ctx, *operand_values, **params)`` with ``ctx.avals_in`` / ``ctx.avals_out`` describing the
types, and returns one ``ir.Value`` (or a list for multiple-result primitives). Every op carries
the user's source location (``jit(f)/sin`` at ``file:line``) so XLA's HLO metadata and error
messages point at the line that created it.
"""

from __future__ import annotations

import contextlib
import threading
import warnings

import numpy as np
from jaxlib.mlir import ir, passmanager
from jaxlib.mlir._mlir_libs import _jax_mlir_ext
from jaxlib.mlir.dialects import chlo, func, sdy
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import dtypes
from minijax.core import Jaxpr, Literal, abstract_token
from minijax.source_info import with_user_line
from minijax.sharding_types import sdy_sharding_attr

# ------------------------------------------------------------------------------------------------
# Context and types

class _ThreadContext(threading.local):
    """One thread's MLIR context and the IR objects cached in it (an ir.Type or ir.Location
    belongs to the context that made it; another context's would corrupt the module)."""

    def __init__(self):
        self.ctx = None
        self.locations = {}  # (op name, file, line) -> ir.Location
        self.tensor_types = {}  # (shape, dtype) -> ir.RankedTensorType


_contexts = _ThreadContext()


def make_context():
    """One MLIR context with func/stablehlo/chlo/sdy registered (an unregistered sdy crashes)."""
    ctx = ir.Context()
    registry = ir.DialectRegistry()
    _jax_mlir_ext.register_dialects(registry)
    ctx.append_dialect_registry(registry)
    ctx.load_all_available_dialects()
    hlo.register_dialect(ctx)
    chlo.register_dialect(ctx)
    sdy.register_dialect(ctx)
    return ctx


def context():
    """This thread's MLIR context: the bindings' contexts are not safe to build modules in
    from two threads at once, so each thread lowers in its own (made once per thread)."""
    ctx = _contexts.ctx
    if ctx is None:
        ctx = _contexts.ctx = make_context()
    return ctx


_ELEMENT_TYPES = {
    np.dtype(np.bool_): lambda: ir.IntegerType.get_signless(1),
    np.dtype(np.int8): lambda: ir.IntegerType.get_signless(8),
    np.dtype(np.int16): lambda: ir.IntegerType.get_signless(16),
    np.dtype(np.int32): lambda: ir.IntegerType.get_signless(32),
    np.dtype(np.int64): lambda: ir.IntegerType.get_signless(64),
    np.dtype(np.uint8): lambda: ir.IntegerType.get_unsigned(8),
    np.dtype(np.uint16): lambda: ir.IntegerType.get_unsigned(16),
    np.dtype(np.uint32): lambda: ir.IntegerType.get_unsigned(32),
    np.dtype(np.uint64): lambda: ir.IntegerType.get_unsigned(64),
    np.dtype(np.float16): ir.F16Type.get,
    np.dtype(np.float32): ir.F32Type.get,
    np.dtype(np.float64): ir.F64Type.get,
    np.dtype(dtypes.bfloat16): ir.BF16Type.get,
    np.dtype(np.complex64): lambda: ir.ComplexType.get(ir.F32Type.get()),
    np.dtype(np.complex128): lambda: ir.ComplexType.get(ir.F64Type.get()),
    dtypes.float8_e4m3fn: ir.Float8E4M3FNType.get,
    dtypes.float8_e5m2: ir.Float8E5M2Type.get,
    dtypes.float8_e4m3b11fnuz: ir.Float8E4M3B11FNUZType.get,
    dtypes.float8_e4m3fnuz: ir.Float8E4M3FNUZType.get,
    dtypes.float8_e5m2fnuz: ir.Float8E5M2FNUZType.get,
    dtypes.float8_e3m4: ir.Float8E3M4Type.get,
    dtypes.float8_e4m3: ir.Float8E4M3Type.get,
    dtypes.float8_e8m0fnu: ir.Float8E8M0FNUType.get,
    dtypes.float6_e2m3fn: ir.Float6E2M3FNType.get,
    dtypes.float6_e3m2fn: ir.Float6E3M2FNType.get,
    dtypes.float4_e2m1fn: ir.Float4E2M1FNType.get,
    dtypes.int1: lambda: ir.IntegerType.get_signless(1),
    dtypes.int2: lambda: ir.IntegerType.get_signless(2),
    dtypes.int4: lambda: ir.IntegerType.get_signless(4),
    dtypes.uint1: lambda: ir.IntegerType.get_unsigned(1),
    dtypes.uint2: lambda: ir.IntegerType.get_unsigned(2),
    dtypes.uint4: lambda: ir.IntegerType.get_unsigned(4),
    # float0 tangents travel as booleans (as in JAX's lowering): XLA has no zero-width type
    dtypes.float0: lambda: ir.IntegerType.get_signless(1),
}


# ml_dtypes floats reach MLIR as their bit patterns (MLIR does not read their buffers).
_BITS_VIEWED = frozenset(t for t in (dtypes._bf16, *dtypes.float_types) if t.kind == "V")


def element_type(dtype):
    return _ELEMENT_TYPES[np.dtype(dtype)]()


def tensor_type(aval):
    if aval is abstract_token:
        return hlo.TokenType.get()
    key = (aval.shape, aval.dtype)
    types = _contexts.tensor_types
    t = types.get(key)
    if t is None:
        t = types[key] = ir.RankedTensorType.get(aval.shape, element_type(aval.dtype))
    return t


def dense_i64(values):
    return ir.DenseI64ArrayAttr.get([int(v) for v in values])


def ir_constant(value, dtype=None):
    """A ``stablehlo.constant`` holding ``value`` (any NumPy-convertible value)."""
    x = np.asarray(value, dtype=dtype)
    if x.dtype == dtypes.float0:  # float0 holds only zeros: boolean False, as its type is i1
        x = np.zeros(x.shape, np.bool_)
    etype = element_type(x.dtype)
    if x.dtype in _BITS_VIEWED:
        bits = x.view(np.dtype(f"uint{8 * x.dtype.itemsize}"))
        attr = ir.DenseElementsAttr.get(np.ascontiguousarray(bits), type=etype, shape=x.shape)
    else:
        attr = ir.DenseElementsAttr.get(np.ascontiguousarray(x), type=etype, shape=x.shape)
    return hlo.constant(attr)


def full_like_aval(value, aval):
    """A tensor of ``aval``'s type filled with ``value`` (constant scalar + broadcast)."""
    scalar = ir_constant(np.array(value, aval.dtype))
    if not aval.shape:
        return scalar
    return hlo.broadcast_in_dim(tensor_type(aval), scalar, dense_i64([]))


# ------------------------------------------------------------------------------------------------
# Lowering a jaxpr


class LoweringRuleContext:
    """What a lowering rule may read besides its operands."""

    __slots__ = ("avals_in", "avals_out", "module_ctx", "eqn")

    def __init__(self, avals_in, avals_out, module_ctx, eqn=None):
        self.avals_in = avals_in
        self.avals_out = avals_out
        self.module_ctx = module_ctx
        self.eqn = eqn


class ModuleContext:
    """Per-module state: the module, its name, the platform being compiled for."""

    def __init__(self, module, name, platform):
        self.module = module
        self.name = name
        # The root of the locations' op names, JAX's: "jit(f)" for the module jit_f (""
        # while a callee's private function is emitted: its ops are named from there)
        self.scope = f"jit({name[4:] if name.startswith('jit_') else name})"
        # The named scopes the region being emitted inherited from its op (its equations'
        # name stacks start with them): they are in ``scope`` already (``region_named``)
        self.scope_base = ()
        self.platform = platform
        self.meshes = {}  # minijax Mesh -> its sdy.mesh symbol name
        self.host_callbacks = []  # Python functions of host-callback custom calls (callbacks.py)
        # Each ordered effect's token in the region being emitted (``ordered_effects``)
        self.tokens = {}
        self.inlined_meshes = False  # whether a sharding names a mesh inline (host calls')
        self.keepalives = []  # objects a library's lowering asks to outlive the module
        # Functions of (devices, mesh) that compiling calls first: a lowering that must know
        # where the program runs (inspect_array_sharding's) learns it there.
        self.compile_hooks = []
        # Whether Shardy partitions the program (arguments or results carry shardings).
        self.partitioned = False
        self.functions = {}  # a callee jaxpr -> the symbol of its private function
        # Whether any value is placed in a memory other than the default (JAX's
        # all_default_mem_kind, negated): only then are device memory moves annotated.
        self.memory_kinds = False

    def add_keepalive(self, obj):
        self.keepalives.append(obj)

    def emit_host_call(self, host_fn, operands, result_avals, side_effect, ordered,
                       placed=True):
        """A custom call of the Python function ``host_fn`` (numpy arrays in, a sequence of
        arrays out) from the program; returns its results. ``ordered`` (an ordered effect's
        name, or None) threads that effect's token of the region through it, so ordered calls
        run in program order (a region not given the token starts one). ``placed``: the call carries
        JAX's sharding (once, on device 0, in a program; on each device in a shard_map
        body); JAX leaves an ordered debug callback without one."""
        index = len(self.host_callbacks)
        token = None
        if ordered:
            token = self.tokens.get(ordered)
            if token is None:
                token = hlo.after_all([])

        def host(*args):
            if ordered:
                args = args[1:]
            outs = host_fn(*args)
            return ((None,) + tuple(outs)) if ordered else tuple(outs)

        self.host_callbacks.append(host)
        target = "xla_ffi_python_gpu_callback" if self.platform in ("cuda", "gpu", "rocm") else (
            "xla_ffi_python_cpu_callback"
        )
        result_types = [tensor_type(a) for a in result_avals]
        if ordered:
            result_types = [hlo.TokenType.get()] + result_types
            operands = [token] + list(operands)
        op = hlo.CustomCallOp(
            result_types,
            list(operands),
            target,
            has_side_effect=ir.BoolAttr.get(bool(side_effect or ordered)),
            api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1),
            backend_config=ir.StringAttr.get(""),
        )
        op.attributes["mhlo.backend_config"] = ir.DictAttr.get(
            {"index": ir.IntegerAttr.get(ir.IntegerType.get_unsigned(64), index)}
        )
        # XLA's FFI custom calls name their row-major layouts, as JAX's (a token has none)
        op.attributes["operand_layouts"] = _layouts(x.type for x in operands)
        op.attributes["result_layouts"] = _layouts(result_types)
        if placed:
            op.attributes["sdy.sharding"] = self._host_call_sharding(result_avals, ordered)
        results = list(op.results)
        if ordered:
            self.tokens[ordered] = results[0]
            results = results[1:]
        return results

    def region_tokens(self, effects):
        """The current region's token of each of ``effects`` (started where it has none): a
        control-flow op that orders effects takes them first among its operands, as JAX's."""
        for e in effects:
            if e not in self.tokens:
                self.tokens[e] = hlo.after_all([])
        return [self.tokens[e] for e in effects]

    def _host_call_sharding(self, result_avals, ordered):
        """JAX's sharding of a host callback: in a shard_map body each device calls back on
        its block (replicated over no mesh); elsewhere the call is maximal, on logical
        device 0, so it runs once on the whole value. One sharding per result (the token
        first, where there are results), one when there is none. The meshes are written
        inline; the module's last pass names them (``maximal_mesh_0``, ``empty_mesh``)."""
        self.inlined_meshes = True
        manual = getattr(self, "manual_mesh", None) is not None  # set by shard_map's lowering
        mesh = sdy.MeshAttr.get([]) if manual else sdy.MeshAttr.get([], [0])
        whole = sdy.TensorShardingAttr.get(mesh, [])
        if manual:
            shardings = [sdy.TensorShardingAttr.get(
                mesh, [sdy.DimensionShardingAttr.get([], is_closed=True)] * len(a.shape))
                for a in result_avals]
        else:
            shardings = [whole] * len(result_avals)
        if not shardings or ordered:
            shardings = [whole] + shardings
        return sdy.TensorShardingPerValueAttr.get(shardings)

    def mesh_symbol(self, mesh):
        """The ``sdy.mesh`` symbol for ``mesh``, declared at the top of the module once.

        Logical device i of every mesh is partition i of the program (the device assignment
        is the mesh's flat device order), so all meshes of one program share one device order.
        """
        name = self.meshes.get(mesh)
        if name is not None:
            return name
        for other in self.meshes:
            if other._flat != mesh._flat:
                raise ValueError(
                    f"one program cannot use two meshes with different devices or device "
                    f"orders: {other!r} (device ids {[d.id for d in other._flat]}) and "
                    f"{mesh!r} (device ids {[d.id for d in mesh._flat]})"
                )
        name = "mesh" if not self.meshes else f"mesh_{len(self.meshes)}"
        axes = [sdy.MeshAxisAttr.get(a, int(n)) for a, n in mesh.shape.items()]
        with ir.InsertionPoint.at_block_begin(self.module.body), ir.Location.unknown():
            sdy.MeshOp(name, sdy.MeshAttr.get(axes))
        self.meshes[mesh] = name
        return name




def op_name(module_ctx, eqn):
    """The name of ``eqn``'s ops in their locations, JAX's: the program's root, the named
    scopes, the primitive (``jit(f)/outer/sin``); a call is named by its callee
    (``jit(f)/jit(<lambda>)``)."""
    info = eqn.source_info
    stack = info.name_stack if info is not None else ()
    base = module_ctx.scope_base
    if base and stack[:len(base)] == base:
        stack = stack[len(base):]
    scopes = "".join(f"{n}/" for n in stack)
    label = eqn.primitive.name
    if label == "jit":
        label = f"jit({eqn.params['name']})"
    return f"{module_ctx.scope}/{scopes}{label}" if module_ctx.scope else f"{scopes}{label}"


@contextlib.contextmanager
def region_named(module_ctx, eqn, region):
    """While a control-flow op's region is emitted, its ops are named under the op and the
    region as JAX's: ``jit(f)/s/while/body/sin``, ``cond/branch_0_fun/...``."""
    saved = module_ctx.scope, module_ctx.scope_base
    if eqn is not None:
        module_ctx.scope = f"{op_name(module_ctx, eqn)}/{region}"
        if eqn.source_info is not None:
            module_ctx.scope_base = eqn.source_info.name_stack
    try:
        yield
    finally:
        module_ctx.scope, module_ctx.scope_base = saved


def _location(module_ctx, eqn):
    info = eqn.source_info
    name = op_name(module_ctx, eqn)
    key = (name, info.file, info.line) if info is not None else (name, None, None)
    locations = _contexts.locations
    loc = locations.get(key)
    if loc is None:
        if info is None:
            loc = ir.Location.name(name)
        else:
            loc = ir.Location.name(name, childLoc=ir.Location.file(info.file, info.line, 0))
        locations[key] = loc
    return loc


def ordered_effects(jaxpr):
    """The ordered effects of ``jaxpr`` (nested jaxprs included), in order of appearance: the
    names of its effectful primitives bound with ``ordered=True`` (``debug_callback``,
    ``io_callback``). As in JAX, a program threads one token per ordered effect through
    ``main`` (an argument and a result) and through each region that holds one."""
    found = []

    def visit(j):
        for eqn in j.eqns:
            prim = eqn.primitive
            if prim.effectful and eqn.params.get("ordered") and prim.name not in found:
                found.append(prim.name)
            for v in eqn.params.values():  # nested jaxprs (a loop body, cond's branches)
                for sub in (v if isinstance(v, (tuple, list)) else (v,)):
                    sub = getattr(sub, "jaxpr", sub)
                    if isinstance(sub, Jaxpr):
                        visit(sub)

    visit(jaxpr)
    return found


def lower_jaxpr_body(module_ctx, jaxpr, consts_values, arg_values, tokens=None):
    """Emits the equations of ``jaxpr`` at the current insertion point; returns the outputs.
    ``tokens`` (ordered effect -> token) are the tokens the region continues from, updated in
    place to those it ends with; without them the region orders its effects on its own."""
    env = {}
    baked = {}  # an array literal (a baked constant) is emitted once, however often it is read

    def read(v):
        if type(v) is Literal:
            if v.aval is abstract_token:  # a concrete Token the function closed over
                return hlo.create_token()
            if not v.aval.shape:
                return ir_constant(v.val, v.aval.dtype)
            x = baked.get(id(v))
            if x is None:
                x = baked[id(v)] = ir_constant(v.val, v.aval.dtype)
            return x
        return env[v]

    for v, x in zip(jaxpr.constvars, consts_values):
        env[v] = x
    for v, x in zip(jaxpr.invars, arg_values):
        env[v] = x
    saved_tokens, module_ctx.tokens = module_ctx.tokens, {} if tokens is None else tokens
    for eqn in jaxpr.eqns:
        prim = eqn.primitive
        rule = prim.lowering
        if rule is None:
            # JAX 0.10.2 refuses it too, in these words
            raise NotImplementedError(with_user_line(
                f"MLIR translation rule for primitive '{prim.name}' not found for platform "
                f"{module_ctx.platform}", eqn.source_info))
        with _location(module_ctx, eqn):
            ctx = LoweringRuleContext(
                [v.aval for v in eqn.invars], [v.aval for v in eqn.outvars], module_ctx, eqn
            )
            outs = rule(ctx, *[read(v) for v in eqn.invars], **eqn.params)
        if not prim.multiple_results:
            outs = (outs,)
        for v, x in zip(eqn.outvars, outs):
            env[v] = x
    module_ctx.tokens = saved_tokens
    return [read(v) for v in jaxpr.outvars]


def lower_closed_jaxpr(module_ctx, closed, arg_values, tokens=None):
    """Emits a ClosedJaxpr's equations in place on ``arg_values``, its consts as constants
    (``tokens``: as :func:`lower_jaxpr_body`'s)."""
    consts = [ir_constant(np.asarray(c)) for c in closed.consts]
    return lower_jaxpr_body(module_ctx, closed.jaxpr, consts, list(arg_values), tokens)


def lower_call(module_ctx, jaxpr, args, name):
    """``jaxpr`` called on ``args``: a ``func.call`` of a private function of the module, as JAX
    lowers a nested jit (one function per callee jaxpr). In a partitioned program the call
    boundaries steer Shardy's propagation as in JAX's; in any program they steer XLA: the
    inlined call's instructions come in another order, and XLA fuses otherwise (a bfloat16
    primal rounded, or kept in float32 inside a fusion: s22013-377). A callee with ordered
    effects takes and returns their tokens first, as JAX's."""
    effects = ordered_effects(jaxpr)
    k = len(effects)
    tokens = [hlo.TokenType.get()] * k
    out_types = tokens + [tensor_type(v.aval) for v in jaxpr.outvars]
    symbol = module_ctx.functions.get(jaxpr)
    if symbol is None:
        # the callee's own name, as JAX's (MLIR quotes one like "<lambda>")
        symbol = _unique_symbol(module_ctx, name)
        # Taken before the body is lowered: a callee may call a function of the same name
        # (complex nan_to_num calls nan_to_num on the real and imaginary parts).
        module_ctx.functions[jaxpr] = symbol
        ftype = ir.FunctionType.get(tokens + [tensor_type(v.aval) for v in jaxpr.invars],
                                    out_types)
        with ir.InsertionPoint(module_ctx.module.body):
            fn = func.FuncOp(symbol, ftype)
            fn.attributes["sym_visibility"] = ir.StringAttr.get("private")
            if k:
                token = ir.DictAttr.get({"jax.token": ir.BoolAttr.get(True)})
                none = ir.DictAttr.get({})
                fn.arg_attrs = ir.ArrayAttr.get([token] * k + [none] * len(jaxpr.invars))
                fn.result_attrs = ir.ArrayAttr.get([token] * k + [none] * len(jaxpr.outvars))
            entry = fn.add_entry_block()
        # a jit's trace has its own name stack: its ops are named from its function
        saved = module_ctx.scope, module_ctx.scope_base
        module_ctx.scope, module_ctx.scope_base = "", ()
        with ir.InsertionPoint(entry):
            threaded = dict(zip(effects, entry.arguments))
            outs = lower_jaxpr_body(module_ctx, jaxpr, [], list(entry.arguments)[k:], threaded)
            func.ReturnOp([threaded[e] for e in effects] + outs)
        module_ctx.scope, module_ctx.scope_base = saved
    results = list(func.CallOp(out_types, ir.FlatSymbolRefAttr.get(symbol),
                               module_ctx.region_tokens(effects) + list(args)).results)
    module_ctx.tokens.update(zip(effects, results))
    return results[k:]


def _unique_symbol(module_ctx, name):
    taken = set(module_ctx.functions.values())
    symbol, i = name, 0
    while symbol in taken or symbol == "main":
        symbol, i = f"{name}_{i}", i + 1
    return symbol


class LoweredModule:
    """A lowered program: the MLIR ``module`` (or its text), the Python functions its
    host-callback custom calls name by position (``host_callbacks``) and the module context's
    ``compile_hooks``; compiling needs all three. It also holds the context's ``keepalives``,
    so they outlive the compile (XLA calls back into some of them while compiling)."""

    __slots__ = ("module", "host_callbacks", "compile_hooks", "keepalives", "n_tokens")

    def __init__(self, module, host_callbacks=(), compile_hooks=(), keepalives=(), n_tokens=0):
        self.module = module
        self.host_callbacks = list(host_callbacks)
        self.compile_hooks = list(compile_hooks)
        self.keepalives = list(keepalives)
        # ``main``'s leading token arguments and results, one per ordered effect (the
        # executable passes and drops them)
        self.n_tokens = n_tokens


class MemoryKinds:
    """The memories of a program's values where one is not the devices' default, as JAX
    lowers them: ``args`` (one per argument, consts included) and ``results`` are each
    value's memory kind ("device", "pinned_host", ...) or None, written as
    ``mhlo.memory_kind``; ``placed`` (per result) names the kinds ``out_shardings`` asked for,
    which an ``annotate_device_placement`` custom call before the return tells XLA to move
    the value to."""

    __slots__ = ("args", "results", "placed")

    def __init__(self, args, results, placed):
        self.args, self.results, self.placed = args, results, placed


def lower_jaxpr(
    closed, name="main", platform="cpu", donated=(), arg_shardings=None, result_shardings=None,
    memory_kinds=None, result_names=None, num_partitions=1, arg_names=None,
):
    """A :class:`LoweredModule` whose ``main`` takes (consts..., args...) and returns the
    outputs.

    Closed-over constants are *arguments* of ``main``, never baked into the module.
    ``donated`` are positions among the arguments after the consts; each becomes an alias of
    an output or a buffer donor, as in JAX (:func:`_donations`).
    ``arg_shardings`` (one per argument, consts included) and ``result_shardings`` are minijax
    NamedShardings or None (no annotation: Shardy propagates); they become ``sdy.sharding``.
    ``memory_kinds`` (a :class:`MemoryKinds`, None when every value is in device memory)
    places values in host memory. ``result_names`` (one per output: JAX's "result",
    "result[0]['a']", ...) become ``jax.result_info``; ``num_partitions`` is the number of
    devices the program runs on (the module's ``mhlo.num_partitions``, as JAX writes it).
    ``arg_names`` (one per argument after the consts, JAX's ``x``, ``d['a']``) become the
    arguments' locations. A program with ordered effects takes and returns one token per
    effect before its arguments and outputs (``jax.token``), as JAX's.
    """
    jaxpr = closed.jaxpr
    effects = ordered_effects(jaxpr)
    if effects and num_partitions > 1:  # JAX 0.10.2's refusal
        raise ValueError(f"The following ordered effects are not supported for more than 1 "
                         f"device: {effects}")
    k = len(effects)
    in_avals = [v.aval for v in jaxpr.constvars] + [v.aval for v in jaxpr.invars]
    out_avals = jaxpr.out_avals
    n_consts = len(jaxpr.constvars)
    aliases, donors = _donations(
        in_avals, out_avals, [n_consts + i for i in sorted(donated)], arg_shardings,
        result_shardings, memory_kinds, num_partitions)
    with context(), ir.Location.unknown():
        module = ir.Module.create()
        module_attrs = module.operation.attributes
        module_attrs["sym_name"] = ir.StringAttr.get(_module_name(name))
        module_attrs["mhlo.num_replicas"] = _i32(1)
        module_attrs["mhlo.num_partitions"] = _i32(num_partitions)
        mctx = ModuleContext(module, name, platform)
        mctx.partitioned = bool(arg_shardings or result_shardings)
        mctx.memory_kinds = memory_kinds is not None
        with ir.InsertionPoint(module.body):
            tokens = [hlo.TokenType.get()] * k
            ftype = ir.FunctionType.get(
                tokens + [tensor_type(a) for a in in_avals],
                tokens + [tensor_type(a) for a in out_avals]
            )
            fn = func.FuncOp("main", ftype)
            fn.attributes["sym_visibility"] = ir.StringAttr.get("public")
            token_attrs = [ir.DictAttr.get({"jax.token": ir.BoolAttr.get(True)})] * k
            if aliases or donors or arg_shardings or memory_kinds or effects:
                attrs = list(token_attrs)
                for i in range(len(in_avals)):
                    attr = {}
                    if i in donors:
                        attr["jax.buffer_donor"] = ir.BoolAttr.get(True)
                    if i in aliases:
                        attr["tf.aliasing_output"] = _i32(k + aliases[i])
                    if memory_kinds and memory_kinds.args[i] is not None:
                        attr["mhlo.memory_kind"] = ir.StringAttr.get(memory_kinds.args[i])
                    if arg_shardings and arg_shardings[i] is not None:
                        attr["sdy.sharding"] = _sdy_attr(mctx, arg_shardings[i], in_avals[i])
                    attrs.append(ir.DictAttr.get(attr))
                fn.arg_attrs = ir.ArrayAttr.get(attrs)
            sharded = result_shardings and any(s is not None for s in result_shardings)
            if sharded or memory_kinds or result_names or effects:
                attrs = list(token_attrs)
                for i, a in enumerate(out_avals):
                    attr = {}
                    if result_names:
                        attr["jax.result_info"] = ir.StringAttr.get(result_names[i])
                    if memory_kinds and memory_kinds.results[i] is not None:
                        attr["mhlo.memory_kind"] = ir.StringAttr.get(memory_kinds.results[i])
                    if sharded and result_shardings[i] is not None:
                        attr["sdy.sharding"] = _sdy_attr(mctx, result_shardings[i], a)
                    attrs.append(ir.DictAttr.get(attr))
                fn.result_attrs = ir.ArrayAttr.get(attrs)
            locs = None
            if arg_names:
                locs = ([ir.Location.unknown()] * (k + n_consts)
                        + [ir.Location.name(n) for n in arg_names])
            entry = fn.add_entry_block(locs)
        with ir.InsertionPoint(entry):
            args = list(entry.arguments)
            threaded = dict(zip(effects, args[:k]))
            args = args[k:]
            outs = lower_jaxpr_body(mctx, jaxpr, args[:n_consts], args[n_consts:], threaded)
            if memory_kinds:
                outs = [x if kind is None else annotate_device_placement(x, kind)
                        for x, kind in zip(outs, memory_kinds.placed)]
            func.ReturnOp([threaded[e] for e in effects] + outs)
        _verify(module)
        if mctx.meshes or mctx.inlined_meshes:
            # as JAX's last pass: meshes written inline get symbols, each sdy.mesh is also
            # written as a dictionary
            passmanager.PassManager.parse("builtin.module(sdy-lift-inlined-meshes)").run(
                module.operation)
    return LoweredModule(module, mctx.host_callbacks, mctx.compile_hooks, mctx.keepalives, k)


def annotate_device_placement(x, memory_kind):
    """``x`` moved to the memory ``memory_kind`` names (XLA's placement custom call, as JAX
    emits it)."""
    op = hlo.CustomCallOp([x.type], [x], "annotate_device_placement",
                          has_side_effect=ir.BoolAttr.get(True),
                          backend_config=ir.StringAttr.get(""),
                          api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1))
    op.attributes["mhlo.frontend_attributes"] = ir.DictAttr.get(
        {"_xla_buffer_placement": ir.StringAttr.get(memory_kind)})
    return op.result


def _verify(module):
    """JAX's check before compiling: an op its verifier rejects (a zero-size window, ...) is
    JAX's ValueError, not XLA's compile error."""
    try:
        ok = module.operation.verify()
    except ir.MLIRError as e:
        lines = ["Cannot lower jaxpr with verifier errors:"]
        lines += [f"\t{d.message}\n\t\tat {d.location}" for d in e.error_diagnostics]
        raise ValueError("\n".join(lines)) from None
    if not ok:
        raise ValueError("Cannot lower jaxpr with verifier errors.")


def _i32(value):
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), value)


def _donations(in_avals, out_avals, donated, arg_shardings, result_shardings, memory_kinds,
               num_partitions):
    """``(aliases, donors)``: what JAX 0.10.2 makes of the donated arguments (positions in
    ``in_avals``; its ``mlir._set_up_aliases``). A donated argument aliases the first
    output not yet taken of the same per-device shape and dtype (and memory), where that
    output's layout is known (one device, or a result sharding given): ``tf.aliasing_output``,
    XLA must reuse the buffer. Otherwise it is a buffer donor XLA may reuse when an output of
    the same shape, or not yet taken of the same size, exists, and over several devices with
    an output whose sharding XLA picks also without one. Any other donation is dropped with
    JAX's warning: the argument stays alive."""
    if not donated:
        return {}, set()

    def pieces(avals, shardings, kinds):  # (per-device shape, dtype, memory) of each value
        shardings = shardings or [None] * len(avals)
        kinds = kinds or [None] * len(avals)
        return [None if a is abstract_token else
                (a.shape if s is None else s.shard_shape(a.shape), a.dtype, k)
                for a, s, k in zip(avals, shardings, kinds)]

    ins = pieces(in_avals, arg_shardings, memory_kinds and memory_kinds.args)
    outs = pieces(out_avals, result_shardings, memory_kinds and memory_kinds.results)
    layout_known = [num_partitions == 1 or (result_shardings is not None and s is not None)
                    for s in (result_shardings or [None] * len(outs))]
    waiting = {}
    for i in donated:
        if ins[i] is not None:  # a token is never donated
            waiting.setdefault(ins[i], []).append(i)
    aliases, donors = {}, set()
    for j, key in enumerate(outs):
        if key is not None and waiting.get(key):
            i = waiting[key].pop(0)
            if layout_known[j]:
                aliases[i] = j
            else:
                donors.add(i)
    sizes = {}  # outputs no argument aliases, by (size, memory)
    taken = set(aliases.values())
    for j, key in enumerate(outs):
        if j not in taken and key is not None:
            sizes.setdefault((int(np.prod(key[0])), key[2]), []).append(j)
    unused = []
    for i in donated:
        if i in aliases or i in donors or ins[i] is None:
            continue
        size = (int(np.prod(ins[i][0])), ins[i][2])
        if sizes.get(size):
            sizes[size].pop(0)
            donors.add(i)
        elif num_partitions > 1 and not all(layout_known):
            donors.add(i)
        else:
            unused.append(in_avals[i] if arg_shardings is None or arg_shardings[i] is None
                          else in_avals[i].update(shape=ins[i][0]))
    if unused:
        warnings.warn("Some donated buffers were not usable: "
                      f"{', '.join(map(str, unused))}.\nSee an explanation at "
                      "https://docs.jax.dev/en/latest/faq.html#buffer-donation.")
    return aliases, donors


def _layouts(types):
    """The ``operand_layouts``/``result_layouts`` of a custom call: each array's dimensions
    minor to major (row-major), nothing for a token."""
    ranks = [t.rank if isinstance(t, ir.RankedTensorType) else 0
             for t in (t.maybe_downcast() for t in types)]
    return ir.ArrayAttr.get([
        ir.DenseIntElementsAttr.get(np.arange(r - 1, -1, -1, dtype=np.int64),
                                    type=ir.IndexType.get())
        for r in ranks])


def _sdy_attr(mctx, sharding, aval):
    return sdy_sharding_attr(sharding, len(aval.shape), mctx.mesh_symbol(sharding.mesh))


def _module_name(name):
    """JAX's module names: characters XLA would alter become "_" and trailing ones are dropped
    (jit of a lambda is "jit__lambda"); the name is the executable's in XLA's errors."""
    return "".join(c if c.isalnum() or c in "_.-" else "_" for c in name).rstrip("_")


def module_to_text(module, debug_info=False):
    with context():
        return module.operation.get_asm(enable_debug_info=debug_info)


__all__ = [
    "context",
    "dense_i64",
    "element_type",
    "full_like_aval",
    "ir_constant",
    "LoweredModule",
    "MemoryKinds",
    "annotate_device_placement",
    "lower_jaxpr",
    "lower_jaxpr_body",
    "lower_call",
    "module_to_text",
    "op_name",
    "region_named",
    "ordered_effects",
    "tensor_type",
]
