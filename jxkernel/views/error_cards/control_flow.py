"""Cards for structured control flow: lax.cond/switch branches returning different types, a
scan/while_loop/fori_loop carry that changes type, grad of a while_loop (or of a fori_loop
with traced bounds); a scan body's (carry, y). A body or branch written to take other
arguments than the loop passes it: body_arguments.py; branches off in several places (several
branches, leaves, or dtype and shape): branches.py; a condition or index per element given
to cond or switch: element_choices.py."""
from __future__ import annotations

import ast
import re

from ...core import dtypes
from .card import ErrorCard
from .carries import _in_learners_terms, _loop_body_name, _structure_back
from .returns import (_branch_back, _carry_back, _cast, _init_as, _lambda_branches_cast,
                      _lambda_branches_wrapped, _lambda_carry_back, _widened)
from .rewrites import _called, _first_call, _parse_line, _pattern, _replaced


# ------------------------------------------------------------------ cond/switch branch types
# JAX's text (lax.cond's _check_branch): "The output of true_fun [at path P] has type T0 but the
# corresponding output of false_fun has type T1, so the dtypes do not match."
_BRANCH_NAMES = re.compile(r"^(.+?) is (.+?)(?: at \S+)?$", re.M)
# (a bullet for each leaf where several differ: "  * the output of ...;")
_BRANCH_TYPES = re.compile(r"[Tt]he output of (.+?)(?: at path (\S+))? has type (\S+) but the "
                           r"corresponding output of (.+?) has type (\S+), so the "
                           r"(shapes|dtypes) do not match")


# every leaf JAX names, whatever its reason: dtypes, shapes, manual axes, or none (sharding)
_BRANCH_LEAF = re.compile(r"^(?:  \* )?[Tt]he output of .+? has type \S+ but the corresponding "
                          r"output of .+? has type \S+?(, so .*)?[.;]$", re.M)


def _is_branch_types(e) -> bool:
    """Branches off in dtype or shape only: a leaf off in sharding or in the manual axes it
    varies over too has no cast or reshape that fixes it (the card cast the dtype leaf alone,
    and the program raised again at the sharded one)."""
    text = str(e)
    if not (isinstance(e, TypeError) and _BRANCH_TYPES.search(text) is not None and
            re.match(r"(cond|switch) branches must have equal output types", text)):
        return False
    return all(so and "manual axis" not in so for so in _BRANCH_LEAF.findall(text))


def _branch_card(exc, where, called_from) -> ErrorCard:
    text = str(exc)
    api = text.split()[0]
    first, path, type0, other, type1, mismatch = _BRANCH_TYPES.search(text).groups()
    funs = dict(_BRANCH_NAMES.findall(text.split("\n\n")[1]))
    other_fun = funs.get(other, other)
    at = f" at path {path}" if path else ""
    if mismatch == "dtypes":
        # cast toward the type both promote to (an int branch to the float one's, not back)
        dtype = str(dtypes.promote_types(type0.split("[")[0], type1.split("[")[0]))
        cast = [(n, funs.get(n, n)) for n, t in ((first, type0), (other, type1))
                if t.split("[")[0] != dtype]
        line = _lambda_branches_cast(where, [n for n, _ in cast], dtype) if not path else None
        rewrite = line or "\n".join(
            f"# in {n} ({f}), return {dtype}:\n" + _branch_back(
                exc, f, lambda v: f"jnp.asarray({v}, jnp.{dtype})",
                f"return result.astype(jnp.{dtype})")
            for n, f in cast)
        # the words say what the rewrite does: jnp.asarray where it wraps a branch's own
        # return (a Python number, which has no .astype), .astype where it is the pattern
        named = " and ".join(n for n, _ in cast)
        if f"result.astype(jnp.{dtype})" in rewrite:
            fix = f"Return {dtype}{at} from every branch: .astype(jnp.{dtype}) in {named}."
        else:
            fix = (f"Return {dtype}{at} from every branch: jnp.asarray(..., jnp.{dtype}) "
                   f"around what {named} returns.")
        both = "promotes both to one dtype"
    else:
        fix = f"Make {other} return{at} the shape {first} returns, {_shape_of(type0)}."
        back = _branch_shape_return(type0, type1)
        # a lambda of the line: the line back with its body so shaped (learner6)
        line = _lambda_branches_wrapped(where, {other: back[len("return "):].split("    #")[0]}) \
            if back.startswith("return ") and not path else None
        if line and "jnp.pad(" in back:     # (what the pad adds is a value of the rewrite's)
            line += f"    # {other}'s result padded with zeros: a value of yours to choose"
        rewrite = line or f"# in {other} ({other_fun}), return the shape {first} returns:\n" + \
            (_branch_back(exc, other_fun, lambda v: re.sub(
                r"\bresult\b", v, back[len("return "):].split("    #")[0], count=1), back)
             if back.startswith("return ") and not path else back)
        both = "broadcasts them"
    if api == "cond" and (mismatch == "dtypes" or _broadcasts(type1, type0)):
        rewrite += (f"\n# or, if computing both branches is fine, jnp.where {both}: "
                    f"jnp.where(pred, true_value, false_value)")
    return ErrorCard(
        "branch-types", f"{api}: the branches return different types",
        why=(f"{api} traces every branch into one program and picks one when it runs, so each "
             f"must return the same structure, shapes and dtypes: {first} returns {type0}{at}, "
             f"{other} {type1}."),
        fix=fix, rewrite=rewrite,
        origin={"api": api, "branches": [[first, funs.get(first, first), type0],
                                         [other, other_fun, type1]],
                "path": path, "mismatch": mismatch},
        docs=f"https://docs.jax.dev/en/latest/_autosummary/jax.lax.{api}.html")


def _broadcasts(type_from, type_to) -> bool:
    """Whether an array of type_from's shape broadcasts to type_to's ('f32[1]' to 'f32[2]')."""
    a, b = _dims(type_from), _dims(type_to)
    return len(a) <= len(b) and all(x in (1, y) for x, y in zip(reversed(a), reversed(b)))


def _branch_shape_return(want, got) -> str:
    """Code giving a branch's result the shape `want`, one that works from `got`: broadcast
    (a size-1 or missing axis), pad with zeros (shorter) or slice (longer) along one axis."""
    shape = _shape_of(want)
    if _broadcasts(got, want):
        return f"return jnp.broadcast_to(result, {shape})"
    a, b = _dims(got), _dims(want)
    differ = [i for i, (x, y) in enumerate(zip(a, b)) if x != y] if len(a) == len(b) else []
    if len(differ) == 1:
        i = differ[0]
        if a[i] < b[i]:
            pads = [(0, b[i] - a[i]) if j == i else (0, 0) for j in range(len(a))]
            return f"return jnp.pad(result, {pads})    # zeros after"
        index = ", ".join([":"] * i + [f":{b[i]}"])
        return f"return result[{index}]"
    return f"# (compute it so that its shape is {shape})"


# ------------------------------------------------------------------ loop carry
# JAX's texts (lax/_cf_bodies.check_carry): the leaf named by the body's parameter and its path
# ("component c['x']"), by its path alone, or the whole carry ("c", or nothing)
_CARRY_LEAF = r"[Tt]he input carry(?: component (\w+)(\S*)| at path (\S+)| (\w+))?"
_CARRY_TYPES = re.compile(_CARRY_LEAF + r" has type (\S+) but the corresponding output carry "
                          r"component has type (\S+), so the (shapes|dtypes) do not match")
_CARRY_TREES = re.compile(_CARRY_LEAF + r" is an? (.+?) but the corresponding component of the "
                          r"carry output is an? (.+?), so |the input tree structure is:\n(.+)\n"
                          r"the output tree structure is:\n(.+)\n")


def _carry_card(exc, where, called_from) -> ErrorCard:
    text = str(exc)
    loop = text.split()[0] if text.split()[0] in ("scan", "while_loop", "fori_loop") else "loop"
    body = _loop_body_name(where) or "body"
    if len(_CARRY_TYPES.findall(text)) > 1:
        return _several_carry_card(text, where, loop, body)
    types, trees = _CARRY_TYPES.search(text), _CARRY_TREES.search(text)
    whole = None                   # the body's own name for the carry, where it is one value
    if types:
        _, sub_path, path, whole, came, went, mismatch = types.groups()
        path = sub_path or path or None
    elif trees:
        _, sub_path, path, _, came, went, tree_in, tree_out = trees.groups()
        path, mismatch = sub_path or path or None, "structure"
        came, went = (came, went) if came else (tree_in, tree_out)
    else:
        came, went, path, mismatch = "?", "?", None, "structure"
    loop, path, came, went = _in_learners_terms(where, loop, path, came, went, mismatch)
    leaf = f"carry{path or ''}"
    ys = ", y" if loop == "scan" else ""        # (a while_loop's body returns the carry alone)

    def carry_back(make):        # the body's own return (a def's), else its lambda on the line
        return _carry_back(exc, body, loop, path, make) or \
            _lambda_carry_back(where, loop, path, make)
    if mismatch == "dtypes":
        dtype_in, dtype_out = came.split("[")[0], went.split("[")[0]
        back = carry_back(lambda n: _cast(n, dtype_in)) or _pattern(
            f"return new_carry.astype(jnp.{dtype_in}){ys}" if path is None else
            f"value = value.astype(jnp.{dtype_in})   # the value {body} returns as {leaf}")
        start = _init_as(where, loop, dtype_out, path)
        back_said = f"in {body}, give {leaf} back with the type it came in as"
        if _widened(dtype_in, dtype_out):
            # an int start of a float sum (`jnp.int32(0)`, then `c + 0.5`): the float carry
            # is the one meant; cast back to int, each step's fraction is dropped (JAX 0.10.2:
            # 0, not 1.5, for three steps of `c + 0.5`)
            made = start or f"# jnp.asarray(init, jnp.{dtype_out}) as the loop's start"
            rewrite = (f"# start {leaf} as {body} returns it, {dtype_out}: the values it "
                       f"computes, kept whole\n{made}\n# or, to keep {leaf} {dtype_in} "
                       f"({body}'s {dtype_out} cut back each step), {back_said}:\n{back}")
        else:
            rewrite = (f"# {back_said}:\n{back}\n# or start it with the type {body} returns" +
                       (f" ({dtype_out}):\n{start}" if start else
                        f", e.g. jnp.asarray(init, jnp.{dtype_out})"))
    elif mismatch == "shapes":
        rewrite = _carry_shape_rewrite(body, leaf, came, went, loop, ys, whole or "carry",
                                       carry_back)
        if "cannot grow" not in rewrite:     # (a growing carry outgrows any start shape)
            rewrite += (f"\n# or start it with the shape {body} returns (the start's value "
                        f"yours to choose): jnp.zeros({_shape_of(went)}, "
                        f"jnp.{went.split('[')[0]})")
    else:
        rewrite = _structure_back(exc, body, loop, leaf, came, went)
    appended = _appending_fori(where) if (came, went) == ("a list", "None") else None
    if appended is not None:
        return _append_card(appended, body)
    return ErrorCard(
        "loop-carry", f"{loop}: the carry changes type in the loop",
        why=(f"{loop} compiles {body} once for every iteration, so the carry must leave it "
             f"with the type it came in with: {leaf} came in as {came} and left as {went}."),
        fix=f"Make {body} return a carry of the same structure, shapes and dtypes as it takes.",
        rewrite=rewrite,
        origin={"loop": loop, "body": body, "path": path, "input_type": came,
                "output_type": went, "mismatch": mismatch},
        docs=f"https://docs.jax.dev/en/latest/_autosummary/jax.lax.{loop}.html"
        if loop != "loop" else None)


def _appending_fori(where):
    """(the line's tree, the fori_loop call, its bounds, the appended value) where the line is
    `lax.fori_loop(lower, upper, lambda i, c: c.append(v), [])` with int bounds; else None."""
    tree = _parse_line(where)
    call = _first_call(tree, {"fori_loop": 2}) if tree is not None else None
    if call is None or len(call.args) != 4 or call.keywords:
        return None
    lower, upper, body, init = call.args
    bounds = [n.value if isinstance(n, ast.Constant) and type(n.value) is int else None
              for n in (lower, upper)]
    fn = body.body if isinstance(body, ast.Lambda) and len(body.args.args) == 2 else None
    if None in bounds or not isinstance(init, ast.List) or init.elts or \
            not (isinstance(fn, ast.Call) and isinstance(fn.func, ast.Attribute) and
                 fn.func.attr == "append" and len(fn.args) == 1 and
                 ast.unparse(fn.func.value) == body.args.args[1].arg):
        return None
    return tree, call, bounds, body.args.args[0].arg, body.args.args[1].arg, fn.args[0]


def _append_card(appended, body) -> ErrorCard:
    """A list grown by append in a fori_loop's body: the body is traced once, so its carry
    cannot grow; an array with a slot per step, each filled in, is what it meant."""
    tree, call, (lower, upper), i, c, value = appended
    slot = i if lower == 0 else f"{i} - {lower}"
    new_body = f"lambda {i}, {c}: {c}.at[{slot}].set({ast.unparse(value)})"
    line = _replaced(tree, call.args[2], new_body)
    tree2 = ast.parse(line)
    call2 = _first_call(tree2, {"fori_loop": 2})
    line = _replaced(tree2, call2.args[3], f"jnp.zeros({upper - lower})")
    return ErrorCard(
        "loop-carry", "fori_loop: a list cannot grow in a loop JAX compiles",
        why=(f"fori_loop traces {body} once for every iteration, so its carry keeps one "
             f"structure and shape; list.append returns None (and would grow the list, "
             f"which a traced loop cannot)."),
        fix=(f"Make room for every step first, an array of {upper - lower} slots, and fill "
             f"slot {slot} at each step with .at[].set; lax.scan returns a value per step "
             f"stacked, as its ys, where each step computes one."),
        rewrite=f"{line}    # one slot per step, filled in",
        origin={"loop": "fori_loop", "body": body, "path": None, "input_type": "a list",
                "output_type": "None", "mismatch": "structure"},
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.lax.fori_loop.html")


def _several_carry_card(text, where, loop, body) -> ErrorCard:
    """Several leaves of the carry off (JAX's bullet for each): the card cast the first alone,
    and its code, pasted, raised again at the next. Every leaf is named; where each is a
    number made wider (an int start of a float sum) and the start a tuple written on the
    line, the code starts each leaf as the body returns it, else words alone."""
    leaves = []
    for found in _CARRY_TYPES.finditer(text):
        _, sub_path, path, _, came, went, mismatch = found.groups()
        called, path, came, went = _in_learners_terms(where, loop, sub_path or path or None,
                                                      came, went, mismatch)
        leaves.append((path, came, went, mismatch))
    listed = "; ".join(f"carry{p or ''}: {c} and {w}" for p, c, w, _ in leaves)
    line = where.get("code") if where else None
    for path, came, went, mismatch in leaves:
        if line is None or mismatch != "dtypes" or not path or \
                not _widened(came.split("[")[0], went.split("[")[0]):
            line = None
            break
        line = _init_as({"code": line}, called, went.split("[")[0], path)
    rewrite = (f"# start every leaf as {body} returns it: the values it computes, kept whole\n"
               f"{line}") if line else \
        f"# in {body}, return every leaf of the carry as it came in: {listed}"
    return ErrorCard(
        "loop-carry", f"{called}: the carry changes type in the loop",
        why=(f"{called} compiles {body} once for every iteration, so the carry must leave it "
             f"with the type it came in with; {len(leaves)} leaves do not: {listed}."),
        fix=(f"Make {body} return every leaf JAX names as it came in, or start each as {body} "
             f"returns it ({listed}): casting one alone raises again at the next."),
        rewrite=rewrite,
        origin={"loop": called, "body": body, "path": leaves[0][0],
                "input_type": leaves[0][1], "output_type": leaves[0][2],
                "mismatch": leaves[0][3]},
        docs=f"https://docs.jax.dev/en/latest/_autosummary/jax.lax.{called}.html"
        if called != "loop" else None)


def _carry_shape_rewrite(body, leaf, came, went, loop, ys, carry, back=None) -> str:
    """Code keeping the carry's shape: broadcast back a value that lost dimensions; a carry
    that grows (jnp.append in the body) cannot: the values go out as scan's ys, or into a
    buffer made at its final size (`new_carry.sum()` was advised, whose shape is ())."""
    dims_in, dims_out = _dims(came), _dims(went)
    head = f"# in {body}, keep {leaf} at shape {_shape_of(came)}, as it came in:\n"
    if len(dims_out) < len(dims_in):
        # (every element then holds the value it lost its axes to: what the loop computes
        # changes, as starting it at the new shape changes its start; the learner chooses)
        head = (f"# in {body}, keep {leaf} at shape {_shape_of(came)}, as it came in (each "
                f"element then the value it computes: the results change):\n")
        shape = _shape_of(came)
        made = back(lambda n: f"jnp.broadcast_to({ast.unparse(n)}, {shape})") if back else None
        return head + (made or _pattern(f"return jnp.broadcast_to(new_carry, {shape}){ys}"))
    if len(dims_out) == len(dims_in) and all(o >= i for i, o in zip(dims_in, dims_out)):
        if loop == "scan":     # (`carry`: the body's own name for it, else a NameError)
            return (f"# a carry cannot grow: give each new value out as scan's ys (stacked "
                    f"for you)\nreturn {carry}, x    # x: the value it appended")
        return ("# a carry cannot grow: make the buffer at its final size and write into "
                "it\nbuffer = buffer.at[i].set(value)")
    return head + f"# (compute {leaf} so that its shape stays {_shape_of(came)})"


def _dims(type_text) -> list:
    return [int(d) for d in type_text.partition("[")[2].rstrip("]").split(",")
            if d.strip().isdigit()]


def _shape_of(type_text) -> str:
    dims = type_text.partition("[")[2].rstrip("]")
    parts = [d for d in dims.split(",") if d]
    return f"({', '.join(parts)}{',' if len(parts) == 1 else ''})"


def _is_carry_error(e) -> bool:
    return isinstance(e, TypeError) and "carry input and carry output must have" in str(e)


# ------------------------------------------------------------------ grad of a while_loop
_WHILE_GRAD = "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop"


def _is_while_grad(e) -> bool:
    return isinstance(e, ValueError) and str(e).startswith(_WHILE_GRAD)


def _while_grad_card(exc, where, called_from) -> ErrorCard:
    rewrite = next(filter(None, (_forward_rewrite(w) for w in (where, called_from))), None)
    if rewrite is None:     # (the grad made elsewhere: `g = jax.grad(f)` above, `g(2.0)` here)
        rewrite = _pattern("g = jax.jacfwd(f)(x)    # forward mode: the gradient "
                           "jax.grad(f)(x) would give\n# or, for a fori_loop: Python int "
                           "bounds (static under jit), so it runs as a lax.scan")
    return ErrorCard(
        "while-grad", "grad of a loop whose number of steps is known only when it runs",
        why=("jax.grad runs the program backwards, from the output, so it must keep what every "
             "step of a loop computed. A lax.while_loop's number of steps (a lax.fori_loop's "
             "too, when its bounds are traced) is known only as it runs, so there is no fixed "
             "set of steps to keep."),
        fix=("Forward mode follows the loop as it runs: jax.jacfwd(f) gives the same gradient "
             "for a function with one number out, one pass per input element (cheap for a "
             "few). For a fori_loop, give it bounds that are Python ints (under jit, mark the "
             "argument they come from static: static_argnums), and it runs as a lax.scan, "
             "which jax.grad differentiates; a loop of a fixed number of steps written as "
             "lax.scan is too."),
        rewrite=rewrite,
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.lax.while_loop.html")


def _forward_rewrite(where) -> str | None:
    """The user's line with its jax.grad(f) as jax.jacfwd(f) (same arguments: argnums and
    has_aux mean the same there) and value_and_grad(f)(args) as (f(args), jacfwd(f)(args));
    None where the line has neither."""
    tree = _parse_line(where)
    for node in ast.walk(tree) if tree is not None else ():
        if not isinstance(node, ast.Call):
            continue
        name = _called(node)
        if name == "grad":
            forward = ast.parse(ast.unparse(node.func)[:-len("grad")] + "jacfwd", mode="eval")
            return (f"{_replaced(tree, node.func, forward.body)}    # forward mode: the "
                    f"same gradient")
        applied = isinstance(node.func, ast.Call) and not node.func.keywords and \
            len(node.func.args) == 1 and \
            ast.unparse(node.func.func).split(".")[-1] == "value_and_grad"
        if applied:
            head = ast.unparse(node.func.func)[:-len("value_and_grad")]
            f, args = ast.unparse(node.func.args[0]), ", ".join(
                ast.unparse(a) for a in [*node.args, *node.keywords])
            return (f"{_replaced(tree, node, f'({f}({args}), {head}jacfwd({f})({args}))')}"
                    f"    # the value, and the gradient by forward mode")
    return None


# ------------------------------------------------------------------ a scan body's pair
_NOT_A_PAIR = re.compile(r"^scan body output must be a pair, got (.+)\.$", re.S)


def _is_scan_output(e) -> bool:
    return isinstance(e, TypeError) and _NOT_A_PAIR.match(str(e)) is not None


def _scan_output_card(exc, where, called_from) -> ErrorCard:
    got = _NOT_A_PAIR.match(str(exc)).group(1)
    return ErrorCard(
        "scan-output", "A scan body returned something other than (carry, y)",
        why=(f"lax.scan's body returns two things each step: the carry for the next step and "
             f"y, the step's output (stacked over the steps); this one returned {got}."),
        fix=("Return a pair: (new_carry, None) when only the final carry matters, (new_carry, "
             "new_carry) to also keep every step's value, or (new_carry, (a, b)) to keep "
             "several outputs per step (y may be any tree)."),
        rewrite=_scan_output_rewrite(where),
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.lax.scan.html")


def _scan_output_rewrite(where) -> str:
    """The user's scan with its lambda body made a pair: `(b, None)`, then `(b, b)`; a
    triple `(a, b, c)` as `(a, (b, c))`; a template for a named body."""
    tree = _parse_line(where)
    call = _first_call(tree, {"scan"}, 1)
    body = call.args[0] if call is not None else None
    if isinstance(body, ast.Lambda):
        out = body.body
        if isinstance(out, (ast.Tuple, ast.List)) and len(out.elts) > 2:
            rest = ast.Tuple(out.elts[1:], ast.Load())
            pair = ast.Tuple([out.elts[0], rest], ast.Load())
            return f"{_replaced(tree, out, pair)}    # y: the other outputs, as one tuple"
        if not isinstance(out, (ast.Tuple, ast.List)):
            text = ast.unparse(out)
            return (f"{_replaced(tree, out, f'({text}, None)')}    # the final carry only\n"
                    f"{_replaced(tree, out, f'({text}, {text})')}    # and each step's value")
    return _pattern("def step(carry, x):\n    new_carry = ...\n    return new_carry, None    "
                    "# or (new_carry, y): y is stacked over the steps")
