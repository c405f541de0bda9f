"""Where a lowered program's ops came from, run alike by real JAX
(reference/make_source_locations_reference.py records source_locations_reference.json) and by
jxkernel (tests/xla/test_source_locations.py): `run(jax)` returns plain JSON data.

- "ops": per program, each op of `Lowered.compiler_ir()` in order (nested regions' after
  their op), as [function, op name, name stack, frames]: the name stack is the name of the
  location's NameLoc ("jit(outer)/mul"; None where it has none), the frames its call sites,
  innermost first, each [qualified name, line, column, end line, end column]. Only this
  file's frames are kept: the ones above `run` (the recorder's, pytest's) differ per side.
- "shapes": per program, the first op's location kind, then its child's and callee's (JAX's
  NameLoc around a CallSiteLoc), as source_info_test.py reads them.
- "tracebacks": per program traced by make_jaxpr, each equation's (those nested in jits,
  conds and scans too) traceback as jaxpr_util._all_eqns_with_traceback gives it (each
  nested equation's frames then its holder's), this file's frames as [name, line].
- "user_frames": `source_info_util.user_frame` of each equation of a function calling an
  inlined jit twice: [name, start line, end line] (the call's line, not the jit's body's).
- "profile_and_page": `jaxpr_util.pprof_equation_profile`'s samples (primitive, count, this
  file's frames as [name, line]) and its keys; `jaxpr_to_html`'s embedded data: its keys, the
  strings naming this file and its function (JAX's name its own frames too, jxkernel's the
  user's only), how many lines show an add.
- "short_locations": nested_jit's ops with jax_include_full_tracebacks_in_locations off:
  [function, op, [line, column] of the innermost frame's file location] (JAX's names differ
  there: `"mul"("jit(outer)"(...))`, from its cached lowering, where jxkernel keeps
  `"jit(outer)/mul"(...)`).
- "core_call": JAX's private `core.call` of a named scope's function inside another: the
  jaxpr printed, its body's equation's name stack, the HLO's op names, a gradient's jaxpr.

    run(jax)["ops"]["nested_jit"][1]  ->  ["main", "stablehlo.multiply", "jit(outer)/mul", [...]]
"""
import base64
import gzip
import importlib
import json
import os
import re

_HERE = os.path.splitext(os.path.abspath(__file__))[0]


def _ours(filename: str) -> bool:
    return os.path.splitext(os.path.abspath(filename))[0] == _HERE


def _frames(loc, ir) -> list:
    """A location's frames, innermost first, this file's only."""
    if isinstance(loc, ir.CallSiteLoc):
        return _frames(loc.callee, ir) + _frames(loc.caller, ir)
    if isinstance(loc, ir.NameLoc) and isinstance(loc.child_loc, ir.FileLineColLoc):
        where = loc.child_loc
        if not _ours(where.filename):
            return []
        return [[loc.name_str, where.start_line, where.start_col, where.end_line, where.end_col]]
    return []


def _describe(loc, ir) -> list:
    if isinstance(loc, ir.NameLoc) and isinstance(loc.child_loc, (ir.CallSiteLoc, ir.NameLoc,
                                                                  ir.UnknownLoc)):
        return [loc.name_str, _frames(loc.child_loc, ir)]
    return [None, _frames(loc, ir)]


def _each_op(module, describe) -> list:
    """[function, op name, *describe(its location)] of every op of `module`, in order."""
    rows = []

    def walk(op, function):
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    name = inner.operation.name
                    if name == "func.func":
                        walk(inner, inner.attributes["sym_name"].value)
                        continue
                    rows.append([function, name, *describe(inner.location)])
                    walk(inner, function)
    walk(module.operation, None)
    return rows


def _ops(module, ir) -> list:
    return _each_op(module, lambda loc: _describe(loc, ir))


def _shape(loc, ir) -> list:
    kinds = [type(loc).__name__]
    if isinstance(loc, ir.NameLoc):
        child = loc.child_loc
        kinds.append(type(child).__name__)
        if isinstance(child, ir.CallSiteLoc):
            kinds += [type(child.callee).__name__, type(child.caller).__name__]
    return kinds


def _programs(jax):
    lax = jax.lax

    @jax.jit
    def inner(x):
        return lax.add(x, 1)

    @jax.jit
    def outer(x):
        y = lax.mul(x, 2)
        return inner(y)

    @jax.jit
    def while_test(x):
        def cond(val):
            return lax.lt(val, 10)

        def body(val):
            return lax.add(val, 1)
        return lax.while_loop(cond, body, x)

    @jax.jit
    def cond_test(x):
        return lax.cond(lax.lt(x, 10), lambda v: lax.add(v, 1), lambda v: lax.mul(v, 2), x)

    @jax.jit
    def identity(x):
        return x

    @jax.jit
    def helper_calls(x):
        return _helper(jax, x) * 3.0

    return {"nested_jit": outer.lower(0), "while_loop": while_test.lower(0),
            "cond": cond_test.lower(0), "function_body": identity.lower(1.0),
            "helper_calls": helper_calls.lower(1.0)}


def _helper(jax, x):
    return jax.numpy.sin(x) + 1.0


def _tracebacks(jax) -> dict:
    jaxpr_util = importlib.import_module(jax.__name__ + "._src.jaxpr_util")

    @jax.jit
    def g(x):
        return jax.lax.sin(x)

    def f(x):
        y = jax.lax.cond(x > 0, lambda v: g(v) + 1.0, lambda v: v - 1.0, x)
        return jax.lax.scan(lambda c, _: (c * 2.0, None), y, None, length=3)[0]
    jaxpr = jax.make_jaxpr(f)(1.0).jaxpr
    rows = []
    for tb, eqn in jaxpr_util._all_eqns_with_traceback(jaxpr, None, set()):
        codes, lastis = tb.raw_frames() if tb is not None else ([], [])
        rows.append([eqn.primitive.name,
                     [[c.co_qualname, type(tb).code_addr2line(c, i)]
                      for c, i in zip(codes, lastis) if _ours(c.co_filename)]])
    return {"cond_jit_fori": rows}


def _user_frames(jax) -> list:
    source_info_util = importlib.import_module(jax.__name__ + "._src.source_info_util")

    @jax.jit(inline=True)
    def f(x):
        return jax.lax.add(x, 3)

    def g(x):
        return jax.lax.add(f(x),
                           f(x))
    frames = [source_info_util.user_frame(eqn.source_info.traceback)
              for eqn in jax.make_jaxpr(g)(2).eqns]
    return [[f.function_name, f.start_line, f.end_line] for f in frames]


def _profile_and_page(jax) -> dict:
    jaxpr_util = importlib.import_module(jax.__name__ + "._src.jaxpr_util")
    jaxlib = importlib.import_module("jaxlib._jax")

    def f(x, y):
        s = jax.jit(jax.numpy.sin)(x)
        return jax.numpy.sin(s) + jax.numpy.cos(y)
    jaxpr = jax.make_jaxpr(f)(1., 1.).jaxpr
    profile = json.loads(jaxlib.pprof_profile_to_json(
        gzip.decompress(jaxpr_util.pprof_equation_profile(jaxpr))))
    strings = profile["stringTable"]
    names = {fn["id"]: strings[int(fn["name"])].rpartition("source_locations_cases.")[2]
             for fn in profile["function"]}
    where = {loc["id"]: [names[line["functionId"]], int(line["line"])]
             for loc in profile["location"] for line in loc["line"]}
    samples = sorted([strings[int(s["label"][0]["str"])], int(s["value"][0]),
                      [where[i] for i in s["locationId"]]] for s in profile["sample"])
    page = jaxpr_util.jaxpr_to_html(jaxpr)
    data = json.loads(gzip.decompress(base64.b64decode(
        re.search(r'const base64Data = "([^"]+)";', page).group(1))))
    ours = [t for t in data["strings"] if _ours(t) or t.startswith("_profile_and_page")]
    return {"profile_keys": sorted(profile), "samples": samples, "page_keys": sorted(data),
            "page_strings": sorted(os.path.basename(t) for t in ours),
            "page_lines_with_add": sum("add" in line for line in data["lines"])}


def _core_call(jax) -> dict:
    core = importlib.import_module(jax.__name__ + "._src.core")
    lu = importlib.import_module(jax.__name__ + "._src.linear_util")
    api_util = importlib.import_module(jax.__name__ + ".api_util")

    @jax.named_scope("foo")
    def f(x):
        @jax.named_scope("bar")
        def body(x):
            return [x + 1]
        info = api_util.debug_info("test", body, (0,), {})
        return core.call(x, subfuns=(lu.wrap_init(body, debug_info=info),))[0]
    jaxpr = jax.make_jaxpr(f)(2)
    hlo = jax.jit(f).lower(2).as_text("hlo", debug_info=True)
    return {"printed": str(jaxpr),
            "inner_name_stack": str(jaxpr.eqns[0].params["call_jaxpr"].eqns[0]
                                    .source_info.name_stack),
            "op_names": sorted(set(re.findall(r'op_name="([^"]*)"', hlo))),
            "grad_jaxpr": str(jax.make_jaxpr(jax.grad(lambda x: f(x * 1.0) * 2.0))(2.0))}


def _short_locations(jax) -> list:
    """nested_jit's ops with jax_include_full_tracebacks_in_locations off: [function, op,
    [line, column] of the file location its NameLocs hold (this file's), or None]."""
    ir = importlib.import_module("jaxlib.mlir.ir")
    jax.config.update("jax_include_full_tracebacks_in_locations", False)
    try:
        module = _programs(jax)["nested_jit"].compiler_ir()
    finally:
        jax.config.update("jax_include_full_tracebacks_in_locations", True)

    def where(loc):
        while isinstance(loc, ir.NameLoc):
            loc = loc.child_loc
        return [[loc.start_line, loc.start_col] if isinstance(loc, ir.FileLineColLoc) and
                _ours(loc.filename) else None]
    return _each_op(module, where)


def run(jax) -> dict:
    ir = importlib.import_module("jaxlib.mlir.ir")
    programs = _programs(jax)
    return {"ops": {name: _ops(lowered.compiler_ir(), ir) for name, lowered in programs.items()},
            "shapes": {name: _shape(_first_op(lowered.compiler_ir()).location, ir)
                       for name, lowered in programs.items()},
            "tracebacks": _tracebacks(jax), "user_frames": _user_frames(jax),
            "profile_and_page": _profile_and_page(jax), "core_call": _core_call(jax),
            "short_locations": _short_locations(jax)}


def _first_op(module):
    main = next(op for op in module.body.operations
                if op.attributes["sym_name"].value == "main")
    return main.regions[0].blocks[0].operations[-1]       # its return
