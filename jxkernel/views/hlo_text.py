"""XLA's optimized HLO text, read back: its instructions, the source line each came from,
and a cost estimate per instruction computed from its shapes (what jxkernel.explain shows).

    >>> text = '''ENTRY %main (x: f32[2,3], w: f32[3,4]) -> f32[2,4] {
    ...   %x = f32[2,3]{1,0} parameter(0)
    ...   %w = f32[3,4]{1,0} parameter(1)
    ...   ROOT %d = f32[2,4]{1,0} dot(%x, %w), lhs_contracting_dims={1}, metadata={source_line=3 source_file="m.py"}
    ... }'''
    >>> d = parse_hlo(text)[-1]
    >>> d.opcode, d.source_file, d.source_line, d.flops, d.bytes     # 2·2·4·3; (8+6+12)·4
    ('dot', 'm.py', 3, 48, 104)

Line attribution: an instruction's `metadata={source_file=... source_line=...}` (written by
XLA from the `loc(...)` of the StableHLO op it came from); an instruction without one (a
reducer's body, a constant XLA made) takes the line of the instruction that calls its
computation. `source_file="-"` is MLIR's placeholder for an op with no location: ignored.

Costs follow XLA's HloCostAnalysis rules for the common opcodes, per instruction:
- flops: `dot` 2·(output elements)·(contracted size); `convolution` 2·(output elements)·
  (kernel elements / output features); elementwise ops 1 per output element, except the
  transcendental ones (exp, log, sin, tanh, sqrt, ...), counted as `transcendentals`;
  `reduce` (input − output elements)·(flops of its reducer), `reduce-window`, `map` and
  `scatter` likewise; data movement (broadcast, reshape, slice, ...) 0.
- bytes: for an instruction the program runs at the top level (not inside a fusion): its
  operands' bytes plus its result's (a fusion's intermediates stay in registers), as XLA
  counts them: a fusion's operand that a slice or a dynamic slice reads counts the slice
  (each broadcast or reshape of it once more, any other reader once), a result made by a
  dynamic-update-slice its update alone (the rest is the operand, updated in place), a fused
  constant of more than one element once; a slice, dynamic slice or update by itself reads
  and writes its slice; a tuple is its table of 8-byte pointers. The totals then are XLA's
  cost_analysis() "bytes accessed" (tests/views/test_explain_cost_against_jax.py), but where
  a cond's branches are summed (XLA counts the costliest one).
- On a GPU, XLA runs dots and convolutions as library calls: a `custom-call` to cuBLAS
  (`__cublas$gemm`, `__cublas$lt$matmul`) counts as the dot it computes (its dimension numbers
  are in its backend_config), one to cuDNN's forward convolution (`__cudnn$convForward`,
  `__cudnn$convBiasActivationForward`) as that convolution (its `window` and `dim_labels`);
  their bytes leave out the scratch workspace in their result tuple.
- Other `custom-call`s (cuDNN's backward convolutions, LAPACK/cuSOLVER, host callbacks),
  `sort`, `fft`, `triangular-solve`, `cholesky` and `rng*` are not estimated (0, listed in
  `not_estimated`).
Instructions of a fusion count their own flops, at their own lines; the instructions of a
reducer count in the reduce that applies them.
"""
from __future__ import annotations

import dataclasses
import math
import re

_DTYPE_BYTES = {"pred": 1, "s2": 1, "u2": 1, "s4": 1, "u4": 1, "s8": 1, "u8": 1, "f8e4m3fn": 1,
                "f8e5m2": 1, "f8e4m3b11fnuz": 1, "f8e4m3fnuz": 1, "f8e5m2fnuz": 1, "f8e4m3": 1,
                "f8e3m4": 1, "f8e8m0fnu": 1, "f4e2m1fn": 1, "s16": 2, "u16": 2, "f16": 2,
                "bf16": 2, "s32": 4, "u32": 4, "f32": 4, "s64": 8, "u64": 8, "f64": 8,
                "c64": 8, "c128": 16, "token": 0}
TRANSCENDENTAL = frozenset({"exponential", "exponential-minus-one", "log", "log-plus-one",
                            "sine", "cosine", "tan", "tanh", "sqrt", "rsqrt", "cbrt", "power",
                            "atan2", "logistic", "erf"})
ELEMENTWISE = frozenset({"add", "subtract", "multiply", "divide", "remainder", "maximum",
                         "minimum", "negate", "abs", "sign", "compare", "select", "clamp",
                         "and", "or", "xor", "not", "floor", "ceil", "round-nearest-afz",
                         "round-nearest-even", "convert", "shift-left", "shift-right-arithmetic",
                         "shift-right-logical", "is-finite", "real", "imag", "complex",
                         "popcnt", "count-leading-zeros", "stochastic-convert",
                         "bitcast-convert", "reduce-precision", "mulhi"})
NOT_ESTIMATED = frozenset({"custom-call", "sort", "fft", "triangular-solve", "cholesky",
                           "rng", "rng-bit-generator", "rng-get-and-update-state"})
# GPU library calls whose work is a dot or a convolution (XLA's GPU cost model counts them so)
GEMM_CALLS = frozenset({"__cublas$gemm", "__cublas$lt$matmul", "__cublas$lt$matmul$f8"})
CONV_CALLS = frozenset({"__cudnn$convForward", "__cudnn$convBiasActivationForward"})
_TARGET = re.compile(r'custom_call_target="([^"]+)"')
_POINTER_BYTES = 8     # XLA's CPU shape-size function: a tuple is a table of pointers
# Instructions that move no data of their own (views, bookkeeping, or bodies counted apart).
_FREE = frozenset({"parameter", "constant", "get-tuple-element", "bitcast", "while",
                   "conditional", "call", "after-all", "partition-id", "replica-id"})
_CALLED = re.compile(r"\b(calls|to_apply|body|condition|true_computation|false_computation)="
                     r"%?([\w.\-]+)|branch_computations=\{([^}]*)\}")
_META_FILE = re.compile(r'source_file="((?:[^"\\]|\\.)*)"')
_META_LINE = re.compile(r"\bsource_line=(\d+)")
_COMPUTATION = re.compile(r"^(ENTRY\s+)?%?([\w.\-]+)\s.*\{\s*$")


@dataclasses.dataclass
class Instruction:
    """One instruction of the optimized HLO, with its line and estimated cost."""
    index: int
    computation: str
    name: str
    opcode: str
    shape: str
    text: str
    text_line: int                 # 1-based line in the HLO text
    operands: list
    called: list                   # names of the computations it calls
    source_file: str | None = None
    source_line: int | None = None
    top_level: bool = False        # run by the program itself (bytes counted), not fused
    flops: int = 0
    transcendentals: int = 0
    bytes: int = 0
    estimated: bool = True


def cost_text(v) -> str:
    """A cost as explain and %hlo print it: a whole number with thousands separators, another
    float to 4 significant digits.

    >>> cost_text(1234567.0), cost_text(0.000123456), cost_text(12)
    ('1,234,567', '0.0001235', '12')
    """
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return f"{int(v):,}"
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def shape_elements(shape: str) -> int:
    """Elements of an array type: 'f32[4,3]{1,0}' -> 12; a tuple counts its leaves."""
    return sum(math.prod(dims) for _, dims in _arrays(shape))


def shape_bytes(shape: str) -> int:
    """Bytes of an HLO type: 'f32[4,3]{1,0}' -> 48; a tuple sums its leaves."""
    return sum(math.prod(dims) * _DTYPE_BYTES.get(dtype, 4) for dtype, dims in _arrays(shape))


def _arrays(shape: str):
    for dtype, dims in re.findall(r"([a-z][a-z0-9]*)\[([^\]]*)\]", shape):
        yield dtype, [int(d.lstrip("<=")) for d in dims.split(",") if d.strip()]


def _dims(shape: str) -> list:
    arrays = list(_arrays(shape))
    return arrays[0][1] if arrays else []


def _closing(text: str, start: int) -> int:
    """Index just past the bracket that closes the one at `start` (any of ( [ {)."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] in "([{":
            depth += 1
        elif text[i] in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def _parse_instruction(line: str):
    """(name, shape, opcode, operands text, attributes text) of an instruction line, or None."""
    m = re.match(r"\s*(?:ROOT\s+)?%?([\w.\-]+)\s*=\s*", line)
    if m is None:
        return None
    rest = line[m.end():]
    end = _closing(rest, 0) if rest.startswith("(") else rest.find(" ")
    shape, rest = rest[:end], rest[end:].lstrip()
    op = re.match(r"([\w\-]+)\(", rest)
    if op is None:
        return None
    close = _closing(rest, op.end() - 1)
    return m.group(1), shape, op.group(1), rest[op.end():close - 1], rest[close:]


def parse_hlo(text: str) -> list[Instruction]:
    """The instructions of an HLO module's text, each with its line and cost filled in."""
    instructions, computation = [], None
    for number, line in enumerate(text.splitlines(), 1):
        head = _COMPUTATION.match(line)
        if head and "=" not in line.split("(")[0]:
            computation = head.group(2)
            continue
        parsed = _parse_instruction(line) if computation else None
        if parsed is None:
            continue
        name, shape, opcode, operands, attrs = parsed
        instructions.append(_instruction(len(instructions), computation, name, shape, opcode,
                                         operands, attrs, line.strip(), number))
    _attribute_lines(instructions)
    _estimate_costs(instructions)
    return instructions


def _instruction(index, computation, name, shape, opcode, operands, attrs, text, number):
    called = []
    for m in _CALLED.finditer(attrs):
        called += [m.group(2)] if m.group(2) else re.findall(r"%?([\w.\-]+)", m.group(3))
    file = _META_FILE.search(attrs)
    line = _META_LINE.search(attrs)
    known = file is not None and line is not None and file.group(1) != "-"
    return Instruction(index, computation, name, opcode, shape, text, number,
                       re.findall(r"%([\w.\-]+)", operands), called,
                       _unescape(file.group(1)) if known else None,
                       int(line.group(1)) if known else None)


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _callers(instructions) -> dict:
    """computation name -> the instruction calling it (the first one, if several do)."""
    callers: dict = {}
    for inst in instructions:
        for name in inst.called:
            callers.setdefault(name, inst)
    return callers


def _attribute_lines(instructions) -> None:
    """Instructions without a line take their caller's (a fusion's, a reduce's, ...)."""
    callers = _callers(instructions)
    for inst in instructions:
        caller, seen = callers.get(inst.computation), set()
        while inst.source_line is None and caller is not None and caller.name not in seen:
            seen.add(caller.name)
            inst.source_file, inst.source_line = caller.source_file, caller.source_line
            caller = callers.get(caller.computation)


def _kinds(instructions) -> dict:
    """computation -> 'top' (run by the program: ENTRY, loop and branch bodies), 'fused'
    (a fusion's body) or 'applied' (a reducer, counted in the instruction applying it)."""
    callers, kinds = _callers(instructions), {}

    def kind(comp, depth=0):
        if comp not in kinds:
            caller = callers.get(comp)
            outer = "top" if caller is None or depth > 64 else kind(caller.computation, depth + 1)
            if caller is None or outer == "applied" or caller.opcode in ("while", "conditional",
                                                                         "call"):
                kinds[comp] = outer
            else:
                kinds[comp] = "fused" if caller.opcode == "fusion" else "applied"
        return kinds[comp]

    for inst in instructions:
        kind(inst.computation)
    return kinds


def _estimate_costs(instructions) -> None:
    by_name = {(i.computation, i.name): i for i in instructions}
    kinds = _kinds(instructions)
    applied = _applied_flops(instructions)
    bodies: dict = {}
    for inst in instructions:
        bodies.setdefault(inst.computation, []).append(inst)
    for inst in instructions:
        kind = kinds.get(inst.computation, "top")
        inst.top_level = kind == "top"
        if kind == "applied":
            continue                                # counted in the reduce that applies it
        library = _library_call(inst)
        inst.estimated = inst.opcode not in NOT_ESTIMATED or library is not None
        operand_shapes = [by_name[(inst.computation, o)].shape for o in inst.operands
                          if (inst.computation, o) in by_name]
        flops = _flops(inst, operand_shapes, applied)
        if inst.opcode in TRANSCENDENTAL:
            inst.transcendentals = flops
        else:
            inst.flops = flops
        if inst.top_level and inst.opcode not in _FREE:
            # a library call's result is (its output, its scratch workspace): the output only
            result = _first_array(inst.shape) if library is not None else inst.shape
            inst.bytes = _sliced_bytes(inst, operand_shapes)
            if inst.bytes is None and inst.opcode == "fusion" and inst.called:
                inst.bytes = _fusion_bytes(inst, bodies.get(inst.called[0], []))
            if inst.bytes is None:
                inst.bytes = shape_bytes(result) + sum(shape_bytes(s) for s in operand_shapes)


def _sliced_bytes(inst, operand_shapes) -> int | None:
    """XLA's bytes for a slice, dynamic-slice or dynamic-update-slice run by itself: the
    part read and written, not the whole operand (the update's operand 0 is the output,
    updated in place); a tuple's, its table of pointers; None for any other opcode."""
    if inst.opcode == "tuple":      # its table of pointers (8 bytes each) alone
        return _POINTER_BYTES * len(inst.operands)
    if inst.opcode == "slice":
        return 2 * shape_bytes(inst.shape)
    if inst.opcode == "dynamic-slice" and len(operand_shapes) > 1:
        return 2 * shape_bytes(inst.shape) + shape_bytes(operand_shapes[1])
    if inst.opcode == "dynamic-update-slice" and len(operand_shapes) > 2:
        return 2 * shape_bytes(operand_shapes[1]) + shape_bytes(operand_shapes[2])
    return None


def _fusion_bytes(fusion, body) -> int:
    """A fusion's bytes as XLA's HloCostAnalysis counts them: its result (a dynamic-update-
    slice's update alone: the rest of the buffer is updated in place), each operand as its
    fused parameter is read (a slice or dynamic slice of it reads the slice; any other reads
    it whole, once; a broadcast or reshape once more each), and a fused constant of more than
    one element."""
    by_name = {i.name: i for i in body}
    users: dict = {}
    root = None
    for i in body:
        for o in dict.fromkeys(i.operands):
            users.setdefault(o, []).append(i)
        if i.text.startswith("ROOT "):
            root = i
    if root is None:
        return shape_bytes(fusion.shape)
    roots = [by_name.get(o) for o in root.operands] if root.opcode == "tuple" else [root]
    size = 0
    for r in roots:
        if r is not None and r.opcode == "dynamic-update-slice" and r.operands[1] in by_name:
            size += shape_bytes(by_name[r.operands[1]].shape)
        elif r is not None:
            size += shape_bytes(r.shape)
    for i in body:
        if i.opcode == "constant" and shape_elements(i.shape) > 1:
            size += shape_bytes(i.shape)
        if i.opcode != "parameter":
            continue
        read, whole = 0, False
        for u in users.get(i.name, []):
            if u.opcode == "slice":
                read += shape_bytes(u.shape)
            elif u.opcode == "dynamic-slice" and u.operands[0] == i.name:
                read += shape_bytes(u.shape)
            elif u.opcode == "dynamic-update-slice" and u.operands[0] == i.name:
                pass                            # the buffer updated in place
            elif u.opcode in ("broadcast", "reshape"):
                read += shape_bytes(i.shape)
            elif not whole:
                whole = True
                read += shape_bytes(i.shape)
        size += read
    return size


def _applied_flops(instructions) -> dict:
    """computation -> flops of one application (a reducer's body on scalars)."""
    flops: dict = {}
    for inst in instructions:
        one = 1 if inst.opcode in ELEMENTWISE or inst.opcode in TRANSCENDENTAL else 0
        flops[inst.computation] = flops.get(inst.computation, 0) + one
    return flops


def _library_call(inst) -> str | None:
    """'gemm' or 'conv' for a cuBLAS/cuDNN custom call this module estimates, else None."""
    if inst.opcode != "custom-call":
        return None
    target = _TARGET.search(inst.text)
    name = target.group(1) if target else ""
    return "gemm" if name in GEMM_CALLS else "conv" if name in CONV_CALLS else None


def _first_array(shape: str) -> str:
    """A tuple type's first array ('(f32[2,4]{1,0}, s8[64]{0})' -> 'f32[2,4]{1,0}')."""
    m = re.search(r"[a-z][a-z0-9]*\[[^\]]*\](?:\{[^}]*\})?", shape)
    return m.group(0) if m else shape


def _flops(inst, operand_shapes, applied) -> int:
    library = _library_call(inst)
    if library == "gemm" and operand_shapes:
        # cuBLAS: 2 * (output elements) * (contracted size), as the dot it replaced
        m = re.search(r'"lhs_contracting_dimensions":\[([^\]]*)\]', inst.text)
        dims = _dims(operand_shapes[0])
        contracted = math.prod(dims[int(d)] for d in re.findall(r"\d+", m.group(1))) if m else 1
        return 2 * shape_elements(_first_array(inst.shape)) * contracted
    if library == "conv" and len(operand_shapes) > 1:
        return 2 * shape_elements(_first_array(inst.shape)) * \
            _kernel_per_output(inst.text, operand_shapes[1])
    out = shape_elements(inst.shape)
    op = inst.opcode
    if op in ELEMENTWISE or op in TRANSCENDENTAL:
        return out
    per_application = sum(applied.get(c, 0) for c in inst.called)
    if op == "dot" and operand_shapes:
        return 2 * out * _contracted(inst.text, "lhs_contracting_dims", operand_shapes[0])
    if op == "convolution" and len(operand_shapes) > 1:
        return 2 * out * _kernel_per_output(inst.text, operand_shapes[1])
    if op == "reduce" and operand_shapes:
        half = len(operand_shapes) // 2 or 1           # operands, then as many init values
        return max(shape_elements(operand_shapes[0]) - out // half, 0) * per_application
    if op == "reduce-window":
        return out * max(_window_size(inst.text) - 1, 0) * per_application
    if op == "map":
        return out * per_application
    if op == "scatter" and operand_shapes:
        return shape_elements(operand_shapes[-1]) * per_application
    return 0


def _contracted(text, key, shape) -> int:
    m = re.search(key + r"=\{([\d,]*)\}", text)
    dims = _dims(shape)
    return math.prod(dims[int(d)] for d in m.group(1).split(",") if d) if m else 1


def _kernel_per_output(text, kernel_shape) -> int:
    dims = _dims(kernel_shape)
    m = re.search(r"dim_labels=\w+_(\w+)->", text)
    if not m or len(m.group(1)) != len(dims) or "o" not in m.group(1):
        return 1
    return math.prod(dims) // max(dims[m.group(1).index("o")], 1)


def _window_size(text) -> int:
    m = re.search(r"window=\{size=([\dx]+)", text)
    return math.prod(int(d) for d in m.group(1).split("x")) if m else 1
