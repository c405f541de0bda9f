"""A small StableHLO text emitter: typed SSA values, blocks, regions, functions.

    >>> m = Module("demo")
    >>> f = m.function("main", [tensor_type((3,), np.float32)])
    >>> y = f.body.op1("stablehlo.sine", [f.args[0]], f.args[0].type, loc='loc("jit(f)/sin")')
    >>> f.set_results([y])
    >>> print(m.text())                                    # doctest: +NORMALIZE_WHITESPACE
    module @demo {
      func.func public @main(%arg0: tensor<3xf32> loc(unknown)) -> tensor<3xf32> {
        %0 = stablehlo.sine %arg0 : tensor<3xf32> loc("jit(f)/sin")
        return %0 : tensor<3xf32> loc(unknown)
      }
    }

Elementwise operations are written in StableHLO's short ("pretty") form; everything
else in the generic form, which every op accepts. Users read it as MLIR prints it
(`Lowered.as_text()`), so this text is for XLA and for us: one op per line, regions
indented.
"""
from __future__ import annotations

import functools
import math
import re
import weakref

import numpy as np

from ..core import dtypes
from ..core.avals import AbstractFuture, abstract_token

_ELEMENT_TYPES = {
    dtypes.bool_: "i1", dtypes.int8: "i8", dtypes.int16: "i16", dtypes.int32: "i32",
    dtypes.int64: "i64", dtypes.uint8: "ui8", dtypes.uint16: "ui16", dtypes.uint32: "ui32",
    dtypes.uint64: "ui64", dtypes.bfloat16: "bf16", dtypes.float16: "f16",
    dtypes.float32: "f32", dtypes.float64: "f64", dtypes.complex64: "complex<f32>",
    dtypes.complex128: "complex<f64>", dtypes.float8_e4m3fn: "f8E4M3FN",
    dtypes.float8_e5m2: "f8E5M2", dtypes.float8_e4m3fnuz: "f8E4M3FNUZ",
    dtypes.float8_e5m2fnuz: "f8E5M2FNUZ", dtypes.float8_e4m3b11fnuz: "f8E4M3B11FNUZ",
    dtypes.float8_e3m4: "f8E3M4", dtypes.float8_e4m3: "f8E4M3", dtypes.float8_e8m0fnu: "f8E8M0FNU",
    # (no float6, int1, uint1: XLA's CPU backend has no arrays of them, dtypes.NO_ARRAY_DTYPES)
    dtypes.float4_e2m1fn: "f4E2M1FN", dtypes.int2: "i2", dtypes.int4: "i4", dtypes.uint2: "ui2",
    dtypes.uint4: "ui4",
    # float0 (an integer's tangent) holds nothing: a program passes it as false bools, as JAX
    # lowers it (mlir's dtype_to_ir_type)
    dtypes.float0: "i1",
}
# (without ml_dtypes the narrow names are placeholders: no element type for them)
_ELEMENT_TYPES = {d: t for d, t in _ELEMENT_TYPES.items() if isinstance(d, np.dtype)}


def element_type(dtype) -> str:
    try:
        return _ELEMENT_TYPES[np.dtype(dtype)]
    except (KeyError, TypeError):
        dtypes.check_supported(dtype)
        dtypes.check_has_arrays(dtype, "a value in a program")
        raise


@functools.lru_cache(maxsize=4096)
def tensor_type(shape, dtype) -> str:
    """'tensor<2x3xf32>' for shape (2, 3) and float32; a symbolic dimension prints as `?`."""
    dims = "".join(f"{d}x" if isinstance(d, (int, np.integer)) else "?x" for d in shape)
    return f"tensor<{dims}{element_type(dtype)}>"


def aval_type(aval) -> str:
    if aval is abstract_token:
        return "!stablehlo.token"
    if type(aval) is AbstractFuture:      # a started collective (lax/parallel/futures.py)
        return f"!stablehlo.future<{aval_type(aval.inner_aval)}>"
    return tensor_type(aval.shape, aval.dtype)


class Value:
    """An SSA value: its printed name and its type."""
    __slots__ = ("name", "type")

    def __init__(self, name: str, type: str):
        self.name, self.type = name, type

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"{self.name}: {self.type}"


# Ops printed in the short form `%r = stablehlo.add %a, %b : tensor<..>` when every operand
# and the result have one type: those MLIR prints so (tests/core/test_primitive_tables.py
# holds this set against JAX 0.10.2's printer).
_PRETTY = frozenset(
    "stablehlo." + op for op in
    "abs add and atan2 cbrt ceil clamp convert cosine divide exponential "
    "exponential_minus_one floor imag log log_plus_one logistic maximum minimum multiply "
    "negate not optimization_barrier or popcnt power real remainder round_nearest_afz "
    "round_nearest_even rsqrt shift_left shift_right_arithmetic shift_right_logical sign "
    "sine sqrt subtract tan tanh xor count_leading_zeros".split())


# Every op is written with a location: without one, the parser would give it its place in this
# text ("-":LINE:COL), which XLA keeps as the op's source file and line in the compiled program.
_UNKNOWN = "loc(unknown)"


class Block:
    """Operations in order; the body of a function or of an op's region. Each op takes an
    MLIR location (`loc("jit(f)/sin")`, `loc("file":3:0)`; `loc(unknown)` without one)."""

    def __init__(self, function: Function, arg_types, loc=None, arg_loc=None):
        self._function = weakref.ref(function)
        self.args = [function._fresh_arg(t) for t in arg_types]
        self.lines: list[str] = []
        # a region's: the location of its ops that name none, and of its arguments
        self.loc, self.arg_loc = loc, arg_loc
        # the last token of this block's ordered effects (lax/_lowering.py's effect_token)
        self.effect_token = None
        # the location of its constants and return (JAX's locates main's at the function)
        self.fallback = _UNKNOWN

    # weak, as Function.module: a dropped module (an eager operation's) is no reference cycle
    function = property(lambda self: self._function())

    def op(self, name, operands, result_types, attrs=None, regions=(), loc=None) -> list[Value]:
        """Append op `name`; `result_types` is a list of type strings; returns the results."""
        results = self.function._fresh_results(len(result_types), result_types)
        lhs = ""
        if len(results) == 1:
            lhs = f"{results[0].name} = "
        elif results:
            lhs = f"{results[0].name.split('#')[0]}:{len(results)} = "
        operand_names = ", ".join(v.name for v in operands)
        if (name in _PRETTY and not attrs and not regions and len(result_types) == 1
                and all(v.type == result_types[0] for v in operands)):
            text = f"{lhs}{name} {operand_names} : {result_types[0]}"
        else:
            text = f'{lhs}"{name}"({operand_names})'
            if regions:
                text += " (" + ", ".join(r.region_text() for r in regions) + ")"
            if attrs:
                text += " {" + ", ".join(f"{k} = {v}" for k, v in attrs.items()) + "}"
            text += f" : ({', '.join(v.type for v in operands)}) -> {_result_types(result_types)}"
        self.lines.append(f"{text} {loc or self.loc or _UNKNOWN}")
        return results

    def op1(self, name, operands, result_type, attrs=None, regions=(), loc=None) -> Value:
        """Like `op`, for an op with exactly one result."""
        return self.op(name, operands, [result_type], attrs, regions, loc)[0]

    def constant(self, value, dtype=None) -> Value:
        """A `stablehlo.constant` of a scalar or NumPy array (exactly, bit for bit)."""
        array = np.asarray(value, dtype=dtype)
        if array.dtype == dtypes.float0:        # (holds nothing: false bools, as JAX's)
            array = np.zeros(array.shape, np.bool_)
        type_ = tensor_type(array.shape, array.dtype)
        name = self.function._fresh_results(1, [type_])[0]
        self.lines.append(f"{name.name} = stablehlo.constant {dense_attr(array)} : {type_} "
                          f"{self.fallback}")
        return name

    def ret(self, values, op="stablehlo.return") -> None:
        names = ", ".join(v.name for v in values)
        types = ", ".join(v.type for v in values)
        where = self.fallback
        self.lines.append(f"{op} {names} : {types} {where}" if values else f"{op} {where}")

    def call(self, function: Function, operands, loc=None) -> list[Value]:
        results = self.function._fresh_results(len(function.result_types), function.result_types)
        lhs = ""
        if len(results) == 1:
            lhs = f"{results[0].name} = "
        elif results:
            lhs = f"{results[0].name.split('#')[0]}:{len(results)} = "
        text = (f"{lhs}func.call @{function.name}({', '.join(v.name for v in operands)}) : "
                f"({', '.join(v.type for v in operands)}) -> "
                f"{_result_types(function.result_types)}")
        self.lines.append(f"{text} {loc or _UNKNOWN}")
        return results

    def inline(self, function: Function, operands) -> list[Value]:
        """`function`'s body emitted here, its arguments read as `operands` and its other
        values named afresh in this block's function; returns its results (JAX's
        `inlined_func_call`: a lowering made once, emitted at each use).

            f(%arg0) { %0 = stablehlo.sine %arg0 } inlined with [%5]: %6 = stablehlo.sine %5
        """
        names = {a.name: v.name for a, v in zip(function.args, operands)}
        fresh = self.function

        def rename(found):
            old = found.group()
            if old not in names:
                new = fresh._fresh_arg(None) if old.startswith("%arg") else \
                    fresh._fresh_results(1, [None])[0]
                names[old] = new.name
            return names[old]
        self.lines.extend(_VALUE_NAME.sub(rename, line) for line in function.body.lines[:-1])
        return [Value(_VALUE_NAME.sub(rename, v.name), v.type) for v in function.results]

    def region_text(self, indent: str = "  ") -> str:
        """This block as an op's region: `{ ^bb0(args): ops }`."""
        where = f" {self.arg_loc}" if self.arg_loc else ""
        head = ", ".join(f"{a.name}: {a.type}{where}" for a in self.args)
        body = "".join(f"\n{indent}{line}" for line in _indent_lines(self.lines, indent))
        return f"{{\n^bb0({head}):{body}\n}}"


# a value's name in an op's text (`%arg3`, `%7`, `%7` of `%7#1`)
_VALUE_NAME = re.compile(r"%(?:arg)?\d+\b")


def _indent_lines(lines, indent):
    for line in lines:
        yield line.replace("\n", "\n" + indent)


def _result_types(types) -> str:
    return types[0] if len(types) == 1 else f"({', '.join(types)})"


class Function:
    """A func.func with a body block; `args` are its parameters."""

    def __init__(self, module: Module, name: str, arg_types, arg_attrs=None,
                 public: bool = True):
        self._module, self.name, self.public = weakref.ref(module), name, public
        self._count = 0
        self._arg_count = 0
        self.arg_attrs = list(arg_attrs) if arg_attrs else [None] * len(arg_types)
        self.arg_names: list = [None] * len(arg_types)      # set by the caller, e.g. ["x", "y"]
        self.results: list[Value] = []
        self.result_types: list[str] = []
        self.result_attrs: list = []
        # in a module lowered for several platforms (jax.export's), the argument holding the
        # index of the platform the program runs on; None in a module for one platform
        self.platform_index: Value | None = None
        self.body = Block(self, arg_types)
        self.args = self.body.args

    module = property(lambda self: self._module())     # (the module holds its functions)

    def _fresh_arg(self, type_) -> Value:
        v = Value(f"%arg{self._arg_count}", type_)
        self._arg_count += 1
        return v

    def _fresh_results(self, n, types) -> list[Value]:
        base = f"%{self._count}"
        self._count += 1
        if n == 1:
            return [Value(base, types[0])]
        return [Value(f"{base}#{i}", t) for i, t in enumerate(types)]

    def new_block(self, arg_types, loc=None, arg_loc=None) -> Block:
        """A block for an op's region (e.g. the reducer of stablehlo.reduce); `loc` is where
        its ops are that name no location, `arg_loc` where its arguments are."""
        return Block(self, arg_types, loc, arg_loc)

    def mark(self) -> tuple:
        """Where the value names stand, for `rewind`."""
        return self._count, self._arg_count

    def rewind(self, mark: tuple) -> None:
        """Name values again from `mark`: a lowering tried into a block that is then dropped
        leaves no gap, and two tries from one mark print alike when they emit alike."""
        self._count, self._arg_count = mark

    def set_results(self, values, attrs=None) -> None:
        self.results = list(values)
        self.result_types = [v.type for v in values]
        self.result_attrs = list(attrs) if attrs else [None] * len(values)
        self.body.ret(values, op="return")

    def text(self) -> str:
        # an argument's name (`loc("x")`) names its HLO parameter (`x.1`), as in JAX's
        params = ", ".join(
            f"{a.name}: {a.type}" + (f" {{{attr}}}" if attr else "") +
            (f" loc({string_attr(name)})" if name else f" {_UNKNOWN}")
            for a, attr, name in zip(self.args, self.arg_attrs, self.arg_names))
        results = [t + (f" {{{attr}}}" if attr else "")
                   for t, attr in zip(self.result_types, self.result_attrs)]
        result_text = results[0] if len(results) == 1 and not self.result_attrs[0] else \
            f"({', '.join(results)})"
        # (public None: no visibility written, public by MLIR's default, as JAX's comparators)
        visibility = "" if self.public is None else "public " if self.public else "private "
        body = "".join(f"\n    {line}" for line in _indent_lines(self.body.lines, "    "))
        return f"  func.func {visibility}@{self.name}({params}) -> {result_text} {{{body}\n  }}"


class Module:
    """A module of functions; `main` is the entry point XLA runs."""

    def __init__(self, name: str = "jit", attrs: dict | None = None):
        self.name = name
        self.attrs = dict(attrs or {})
        self.functions: list[Function] = []
        self.symbols: list[str] = []        # lines before the functions (e.g. `sdy.mesh @mesh`)
        self._names: set[str] = set()
        self._renamed = 0                   # MLIR's SymbolTable: one counter for every clash
        self.final_renames: dict[str, str] = {}  # symbols renamed as printed (all at once)

    def function(self, name, arg_types, arg_attrs=None, public=True) -> Function:
        name = self.unique_name(name)
        f = Function(self, name, arg_types, arg_attrs, public)
        self.functions.append(f)
        return f

    def unique_name(self, base: str) -> str:
        """`base` as a symbol (quoted where MLIR needs it: `@"<lambda>"`), renamed as MLIR's
        SymbolTable renames a clash: `_<n>` from one counter for the whole module, as JAX's
        names read (`g`, `h`, `g_0`, `h_1`)."""
        name = symbol_ref(base)
        while name in self._names:
            name = symbol_ref(f"{base}_{self._renamed}")
            self._renamed += 1
        self._names.add(name)
        return name

    def mark(self) -> tuple:
        """Where its functions and symbol names stand, for `rewind`."""
        return list(self.functions), set(self._names), self._renamed

    def rewind(self, mark: tuple) -> None:
        """Drop the functions made since `mark`, and their names (a lowering tried, then done
        again another way: lowering.py's lower_per_platform); those put first (a top k's
        comparator, as JAX inserts it at the module's start) too."""
        functions, names, renamed = mark
        kept = set(map(id, functions))
        self.functions = [f for f in self.functions if id(f) in kept]
        self._names, self._renamed = set(names), renamed      # (a mark may be rewound to again)

    def take_names(self, names) -> None:
        """Symbols (printed, as `unique_name` returns them) already chosen elsewhere: an
        inlined module's, renamed by its own rule."""
        self._names.update(names)

    def has_name(self, name: str) -> bool:
        return name in self._names

    def text(self) -> str:
        attrs = ""
        if self.attrs:
            attrs = " attributes {" + ", ".join(f"{k} = {v}" for k, v in self.attrs.items()) + "}"
        funcs = "\n".join([f"  {line}" for line in self.symbols] +
                          [f.text() for f in self.functions])
        if self.final_renames:
            renamed = "|".join(map(re.escape, self.final_renames))
            pattern = re.compile(r"@(" + renamed + r")(?![\w.$])")
            funcs = pattern.sub(lambda m: "@" + self.final_renames[m.group(1)], funcs)
        # JAX strips the `_` a name's last character became: `jit(<lambda>)` -> jit__lambda
        return f"module @{_symbol(self.name).rstrip('_') or '_'}{attrs} {{\n{funcs}\n}}\n"


_BARE_ID = re.compile(r"[A-Za-z_][\w$.]*\Z", re.ASCII)


def symbol_ref(name: str) -> str:
    """`name` as MLIR prints a symbol: bare when it can be, else quoted with MLIR's escapes
    (`<lambda>` -> `"<lambda>"`, a `"` as `\\22`)."""
    if _BARE_ID.match(name):
        return name
    escaped = "".join(c if c.isprintable() and c not in '"\\' and ord(c) < 128 else
                      "\\\\" if c == "\\" else
                      "".join(f"\\{b:02X}" for b in c.encode()) for c in name)
    return f'"{escaped}"'


def symbol_name(ref: str) -> str:
    """The name a printed symbol (`symbol_ref`'s) stands for."""
    if not ref.startswith('"'):
        return ref
    raw = re.sub(rb"\\([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]),
                 ref[1:-1].encode().replace(b"\\\\", b"\\5C"))
    return raw.decode("utf-8", "replace")


def _symbol(name: str) -> str:
    """A symbol name MLIR accepts unquoted: letters, digits, `_`, `.`, `$`."""
    cleaned = "".join(c if c.isalnum() or c in "_.$" else "_" for c in name)
    return cleaned if cleaned and not cleaned[0].isdigit() else "_" + cleaned


# ----------------------------------------------------------------- attributes
def i64_array(values) -> str:
    """`array<i64: 1, 2>` (a DenseI64ArrayAttr)."""
    return f"array<i64: {', '.join(str(int(v)) for v in values)}>" if len(values) else "array<i64>"


def bool_array(values) -> str:
    return f"array<i1: {', '.join('true' if v else 'false' for v in values)}>" if len(values) \
        else "array<i1>"


def i64_attr(value) -> str:
    return f"{int(value)} : i64"


def string_attr(text: str) -> str:
    """An MLIR string literal: `"` and `\\` escaped with a backslash, control characters as
    `\\XX` in hex, the rest as it is (UTF-8); MLIR reads them all and prints bytes outside
    printable ASCII in hex.

        >>> print(string_attr('say "hi"'))
        "say \\"hi\\""
    """
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    if escaped.isprintable():        # no control character (each op's name: the common case)
        return f'"{escaped}"'
    return '"' + "".join(c if c >= " " else f"\\{ord(c):02X}" for c in escaped) + '"'


def i32_attr(value) -> str:
    return f"{int(value)} : i32"


def bool_attr(value) -> str:
    return "true" if value else "false"


def dims_list(values) -> str:
    return f"[{', '.join(str(int(v)) for v in values)}]"


def dense_i64(rows) -> str:
    """A 2-D i64 elements attribute, e.g. padding or replica groups."""
    array = np.asarray(rows, dtype=np.int64)
    return f"{dense_attr(array)} : {tensor_type(array.shape, np.int64)}"


def enum(dialect_attr: str, value: str) -> str:
    """`#stablehlo<comparison_direction LT>`."""
    return f"#stablehlo<{dialect_attr} {value}>"


def sdy_mesh_attr(axes) -> str:
    """The attribute JAX's modules put on each `sdy.mesh`: its `axes` ((name, size) pairs)
    again, `{stablehlo.mesh = {axes = [{name = "x", size = 4 : i64}]}}`."""
    listed = ", ".join(f'{{name = "{n}", size = {s} : i64}}' for n, s in axes)
    return f"{{stablehlo.mesh = {{axes = [{listed}]}}}}"


EMPTY_MESH = "sdy.mesh @empty_mesh = <[]> " + sdy_mesh_attr([])   # (JAX's, for one device)


def maximal_sharding(module, n_values: int) -> str:
    """`#sdy.sharding_per_value<[<@maximal_mesh_0, []>]>`: what runs on the program's first
    device alone (a host callback in a program partitioned over several: XLA's partitioner
    refuses a side effect with no sharding), per value (one where there is none), as JAX's
    callbacks; declares `@maximal_mesh_0` once in `module`."""
    line = ("sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]> {stablehlo.mesh = {axes = [], "
            "device_ids = dense<0> : tensor<1xi64>}}")
    if line not in module.symbols:
        module.symbols.append(line)
    return f"#sdy.sharding_per_value<[{', '.join(['<@maximal_mesh_0, []>'] * max(n_values, 1))}]>"


def empty_mesh_sharding(ndim: int) -> str:
    """The attribute of a value on one device given a sharding (a committed argument, a pinned
    jit's): JAX's over its empty mesh, `sdy.sharding = #sdy.sharding<@empty_mesh, [{}, {}]>`."""
    return f"sdy.sharding = #sdy.sharding<@empty_mesh, [{', '.join(['{}'] * ndim)}]>"


def declare_empty_mesh(module: Module) -> None:
    if EMPTY_MESH not in module.symbols:
        module.symbols.append(EMPTY_MESH)


def on_empty_mesh(module: Module, in_vars, arg_attrs, out_vars, given) -> tuple[list, list]:
    """(argument attributes, result attributes) of a program on one device whose inputs and
    results `given` ((per invar after the constvars, per result) whether JAX gives it a
    sharding) carry one over the empty mesh, declared in `module`, as JAX's."""
    declare_empty_mesh(module)
    ins = [False] * (len(in_vars) - len(given[0])) + list(given[0])

    def attr(base, g, var):      # (MLIR prints a dictionary's attributes sorted by name)
        return ", ".join(sorted(filter(None, [base, g and empty_mesh_sharding(
            len(var.aval.shape))]))) or None
    return ([attr(b, g, v) for b, g, v in zip(arg_attrs, ins, in_vars)],
            [attr(None, g, v) for g, v in zip(given[1], out_vars)])


def on_one_device(module: Module, block: Block, values, variables, placed) -> list:
    """`values` (of `variables`) constrained over the empty mesh where `placed` says (a
    pinned jit's operands and results inside its function, as JAX's)."""
    if not any(placed):
        return list(values)
    declare_empty_mesh(module)
    return [block.op1("sdy.sharding_constraint", [x], aval_type(v.aval), {
                "sharding": empty_mesh_sharding(len(v.aval.shape)).split(" = ", 1)[1]})
            if p is not None else x for x, v, p in zip(values, variables, placed)]


def replicate_trailing_dims(module: Module, block: Block, values, variables, key_ndims) -> list:
    """`values` (of the physical `variables`) constrained where `key_ndims` gives a typed key
    array's rank (None: left as they are): its key dimensions open (XLA chooses), its key
    data's trailing dimensions replicated, `<@empty_mesh, [{?}, {?}, {}]>`, as JAX's
    `replicate_trailing_dims` for a key argument or result of a partitioned `main` that has
    no sharding given."""
    if not any(n is not None for n in key_ndims):
        return list(values)
    declare_empty_mesh(module)
    return [x if n is None else block.op1("sdy.sharding_constraint", [x], aval_type(v.aval), {
                "sharding": "#sdy.sharding<@empty_mesh, [" + ", ".join(
                    "{?}" if i < n else "{}" for i in range(len(v.aval.shape))) + "]>"})
            for x, v, n in zip(values, variables, key_ndims)]


def _float_text(x, dtype) -> str:
    x = float(x)
    if not math.isfinite(x):
        bits = np.asarray(x, dtype=dtype).view(f"u{np.dtype(dtype).itemsize}").item()
        return f"0x{bits:0{2 * np.dtype(dtype).itemsize}X}"
    text = repr(x)
    if "e" in text and "." not in text.split("e")[0]:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}.0e{exponent}"
    return text


def _element_text(x, dtype) -> str:
    if dtype == dtypes.bool_:
        return "true" if x else "false"
    if dtype in dtypes.INT_DTYPES:
        return str(int(x))
    if dtype in dtypes.COMPLEX_DTYPES:
        part = np.dtype(np.float32 if dtype == dtypes.complex64 else np.float64)
        return f"({_float_text(x.real, part)}, {_float_text(x.imag, part)})"
    return _float_text(x, dtype)


def dense_attr(array: np.ndarray) -> str:
    """`dense<...>` holding `array` exactly: a splat, a nested list, or raw hex for big arrays."""
    dtype = array.dtype
    if array.size == 1:           # a splat of its one element (most constants: scalars)
        return f"dense<{_element_text(array.reshape(-1)[0], dtype)}>"
    # (a closed-over broadcast or transposed view, written into a module: its bytes in order)
    array = np.ascontiguousarray(array)
    flat = array.reshape(-1)
    if flat.size == 0:
        return "dense<>"          # any empty shape (`dense<[[]]>` would be 1x0)
    raw = flat.view(np.uint8).reshape(flat.size, dtype.itemsize)
    if (raw == raw[0]).all():                      # every element has the same bits
        return f"dense<{_element_text(flat[0], dtype)}>"
    if flat.size <= 64 or dtype == dtypes.bool_:
        return f"dense<{_nested(array, dtype)}>"
    little = array.astype(dtype.newbyteorder("<"), copy=False)
    return f'dense<"0x{little.tobytes().hex().upper()}">'


def _nested(array, dtype) -> str:
    if array.ndim == 0:
        return _element_text(array[()], dtype)
    return "[" + ", ".join(_nested(sub, dtype) for sub in array) + "]"
