"""An exported module placed inside the module that calls it: its functions placed (all
private) beside the caller's, its `main` named `call_exported_<fun>` and the others renamed
only where the caller has their names, as JAX names them, once per caller module, and its
Shardy meshes (`sdy.mesh @mesh = <["a"=8]>`) named as the caller's mesh of the same axes, or
declared beside it (an export's `@mesh` of other axes than the caller's keeps its name and the
caller's becomes `@mesh_0`, as JAX's modules print them).

    >>> from jxkernel import export
    >>> def f(x): return jnp.sin(x)
    >>> x = np.ones(3, np.float32)
    >>> exp = export.export(jax.jit(f))(x)
    >>> text = jax.jit(lambda x: exp.call(x)).lower(x).as_text()
    >>> re.findall(r"func\\.func private @(\\w+)", text)
    ['call_exported_f']
"""
from __future__ import annotations

import re

from ..xla import stablehlo as hlo
from ..xla.effect_tokens import TOKEN
from ..xla.lowering import PLATFORM_INDEX_TYPE
from ..xla.portable import refine_shapes

# a function's symbol, bare or quoted (`@"<lambda>"`)
_FUNC = re.compile(r'func\.func (?:public |private )?@("(?:[^"\\]|\\.)*"|[\w.$]+)\(')
# a mesh declaration: its name and its axes (JAX's carry an attribute dict after them)
_MESH = re.compile(r"^[ \t]*sdy\.mesh @([\w.$]+) = (<.*?>)(.*)\n?", re.M)


class InlinedModule:
    """An exported module's functions, renamed, placed among a caller module's functions
    (it quacks like `stablehlo.Function` for `Module.text` and `Block.call`)."""

    def __init__(self, module: hlo.Module, exported, text=None, out_avals=None):
        body = _module_body(text or exported._plain_text())
        renames = _merged_names(module, _FUNC.findall(body), f"call_exported_{exported.fun_name}")
        self.name = renames["main"]
        renames.update(_declared_meshes(module, body))
        body = _MESH.sub("", body)
        # its main's own result types (a module JAX serialized may return `tensor<4x?xf32>`
        # where the Exported says f32[4,2]); else the tokens of its ordered effects first
        # (export/_effects.py), then its results'
        self.result_types = (None if out_avals else _main_result_types(body)) or \
            [TOKEN] * len(exported.ordered_effects) + \
            [hlo.aval_type(a) for a in out_avals or exported.out_avals]
        if renames:
            pattern = re.compile(r"@(" + "|".join(map(re.escape, renames)) + r")(?![\w.$])")
            body = pattern.sub(lambda m: "@" + renames[m.group(1)], body)
        self._text = re.sub(r"func\.func (?:public )?@", "func.func private @", body)

    def text(self) -> str:
        return self._text


def _main_result_types(body: str) -> list | None:
    """The result types of the `main` function in `body` (a module's text), their attributes
    dropped; None where its signature is not found."""
    found = re.search(r"^\s*func\.func public @main\(.*\) -> (.*) \{$", body, re.M)
    if found is None:
        return None
    text = found.group(1)
    if text.startswith("("):
        text = text[1:-1]
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text + ","):
        if ch in "<({[":
            depth += 1
        elif ch in ">)}]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    return [re.sub(r"\s*\{.*\}$", "", part) for part in parts if part]


def _merged_names(module: hlo.Module, names: list, main_name: str) -> dict:
    """{callee's symbol: its symbol in the caller}: `main` becomes `main_name`, another keeps
    its name unless the caller has it; a clash takes `_0`, `_1`, ... (its own count, a name
    neither module has), as JAX merges an exported module (`call_exported_f`, `inner_0`)."""
    renames, used = {}, set()
    for name in names:
        if name != "main" and not module.has_name(name):
            continue
        base = main_name if name == "main" else hlo.symbol_name(name)
        new, i = hlo.symbol_ref(base), 0
        while new in names or module.has_name(new) or new in used:
            new, i = hlo.symbol_ref(f"{base}_{i}"), i + 1
        renames[name] = new
        used.add(new)
    module.take_names([renames.get(name, name) for name in names])
    return renames


def _declared_meshes(module: hlo.Module, body: str) -> dict:
    """{callee's mesh name: the caller's}: a mesh of the same axes the caller declares, else
    one declared now (module-level symbols: two of one name would clash)."""
    renames = {}
    for name, axes, attrs in _MESH.findall(body):
        found = next((line.split()[1][1:] for line in module.symbols
                      if line.startswith("sdy.mesh @") and
                      line.split(" = ", 1)[1].split(" {")[0] == axes), None)
        if found is None:
            found = _fresh_mesh_name(module, name)
            module.symbols.append(f"sdy.mesh @{found} = {axes}{attrs}")
        if found != name and _takes_callers_name(module, name):
            # JAX declares the caller's mesh after the exported module is merged, so the
            # export keeps `@mesh` (printed first) and the caller's takes MLIR's rename,
            # `@mesh_0`: swapped as the module is printed (every reference is consistent now)
            module.take_names([name])
            module.final_renames.update({found: name, name: module.unique_name(name)})
            line = next(line for line in module.symbols if line.startswith(f"sdy.mesh @{found} "))
            module.symbols.remove(line)
            module.symbols.insert(0, line)
        renames[name] = found
    return renames


def _takes_callers_name(module: hlo.Module, name: str) -> bool:
    """Whether an exported mesh called `name` takes that name from the caller's mesh of other
    axes (the first export to clash with it does; one whose name the caller lacks keeps it)."""
    return not module.final_renames and any(
        line.startswith(f"sdy.mesh @{name} ") for line in module.symbols)


def _fresh_mesh_name(module: hlo.Module, base: str) -> str:
    taken = {line.split()[1][1:] for line in module.symbols if line.startswith("sdy.mesh @")}
    name, i = base, 0
    while name in taken:
        i += 1
        name = f"{base}_{i}"
    return name


def _module_body(text: str) -> str:
    """The lines between `module ... {` and its closing `}`."""
    lines = text.strip().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("module"))
    end = max(i for i, line in enumerate(lines) if line.rstrip() == "}")
    return "\n".join(lines[start + 1:end])


def inlined_main(module_ctx, exported) -> InlinedModule:
    """The exported module inlined once per caller module (cached in its functions table)."""
    key = ("exported", id(exported))
    found = module_ctx.functions.get(key)
    if found is None:
        found = module_ctx.functions[key] = (exported, InlinedModule(module_ctx.module, exported))
        module_ctx.module.functions.append(found[1])
    return found[1]


def refined_main(ctx, exported) -> InlinedModule:
    """A shape-polymorphic export specialized to this call's static shapes (jaxlib's shape
    refinement), inlined once per caller module and shapes."""
    module_ctx = ctx.module_ctx
    key = ("exported", id(exported), tuple(ctx.avals_in))
    found = module_ctx.functions.get(key)
    if found is None:
        text = _refined_text(exported, ctx.avals_in, ctx.avals_out)
        inlined = InlinedModule(module_ctx.module, exported, text, ctx.avals_out)
        found = module_ctx.functions[key] = (exported, inlined)
        module_ctx.module.functions.append(inlined)
    return found[1]


def _refined_text(exported, avals_in, avals_out) -> str:
    """A module whose static-typed `main` calls the exported one, refined to static shapes."""
    module = hlo.Module(f"jit_{exported.fun_name}")
    poly = InlinedModule(module, exported)
    module.functions.append(poly)
    # the platform index (see _export._callee_platform_index) and the tokens are passed through
    n_index = 1 if len(exported.platforms) > 1 else 0
    n_pass = n_index + (n_tok := len(exported.ordered_effects))
    main = module.function("main", [PLATFORM_INDEX_TYPE] * n_index + [TOKEN] * n_tok +
                           [hlo.aval_type(a) for a in avals_in])
    args = [main.body.op1("stablehlo.convert", [arg], hlo.aval_type(want))
            for arg, want in zip(main.args[n_pass:], exported.in_avals)]
    outs = main.body.call(poly, [*main.args[:n_pass], *args])
    main.set_results(outs[:n_tok] + [main.body.op1("stablehlo.convert", [out], hlo.aval_type(a))
                                     for out, a in zip(outs[n_tok:], avals_out)])
    return refine_shapes(module.text())


def symbolic_call(ctx, exported, args) -> list:
    """The results of calling shape-polymorphic `exported` from a module over symbolic
    shapes: its `main` inlined as exported (once per caller module), the arguments converted
    to its types (`tensor<3x4x?xf32>` to its `tensor<3x?x?xf32>`) and its results to the
    caller's, as JAX's call; the caller's module is refined as a whole when it is called."""
    main = inlined_main(ctx.module_ctx, exported)
    n_index = len(args) - len(exported.module_kept_var_idx)  # (platform index, tokens: passed)
    wanted = [exported.in_avals[i] for i in exported.module_kept_var_idx]
    args = [*args[:n_index], *(_converted(ctx, arg, got, want) for arg, got, want in zip(
        args[n_index:], [ctx.avals_in[i] for i in exported.module_kept_var_idx], wanted))]
    outs = ctx.block.call(main, args, ctx.loc)
    n_tok = len(exported.ordered_effects)
    return outs[:n_tok] + [_converted(ctx, out, got, want) for out, got, want in
                           zip(outs[n_tok:], exported.out_avals, ctx.avals_out)]


def _converted(ctx, value, got, want):
    """`value` (of type `got`) as type `want` (`stablehlo.convert`, JAX's cast between
    shapes of different static knowledge), or itself where the types are one."""
    have, need = hlo.aval_type(got), hlo.aval_type(want)
    return value if have == need else ctx.block.op1("stablehlo.convert", [value], need,
                                                     loc=ctx.loc)
