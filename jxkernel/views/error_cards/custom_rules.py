"""The cards for custom derivative rules written against their contract: a custom_vjp's bwd
returning a bare value, or another number of cotangents than the function has arguments
(JAX's message gives only two PyTreeDefs), its fwd returning the output alone, a custom_jvp's
rule returning the tangent alone or written with one parameter per value, and a checkpoint
policy misspelled or given by name (JAX's message names a SimpleNamespace, or says a 'str' is
not callable)."""
from __future__ import annotations

import ast
import difflib
import inspect
import linecache
import os
import textwrap

from ...core.avals import get_aval
from ...tree_util import tree_structure
from ..source import cell_name
from .card import ErrorCard

_DOCS_VJP = ("https://docs.jax.dev/en/latest/notebooks/Custom_derivative_rules_for_Python_code"
             ".html#use-jax-custom-vjp-to-define-custom-reverse-mode-only-rules")
_DOCS_POLICY = ("https://docs.jax.dev/en/latest/gradient-checkpointing.html"
                "#list-of-policies")


def _is_bwd_structure(e) -> bool:
    # vjp_rules._bwd_structure_error attaches the custom_vjp and what its bwd returned
    return isinstance(e, TypeError) and hasattr(e, "custom_vjp") and hasattr(e, "bwd_output")


def _bwd_structure_card(exc, where, called_from) -> ErrorCard:
    custom, out, in_tree = exc.custom_vjp, exc.bwd_output, exc.primal_in_tree
    name = getattr(custom.fun, "__name__", "the function")
    bwd = getattr(custom.bwd, "__name__", "bwd")
    names = _argument_names(custom, len(in_tree.children()))
    n = len(names)
    args = ", ".join(names)
    if not isinstance(out, (tuple, list)):
        got = f"a bare value ({_type_of(out)}), not a tuple"
    elif len(out) != n:
        got = f"a {type(out).__name__} of {len(out)}"
    else:
        i = next(i for i, (ct, sub) in enumerate(zip(out, in_tree.children()))
                 if ct is not None and tree_structure(ct) != sub)
        got = (f"for {names[i]} a value of structure {tree_structure(out[i])}, where "
               f"{names[i]} has structure {in_tree.children()[i]}")
    at = _defined_at(custom.bwd)
    return ErrorCard(
        "custom-vjp-bwd", f"The bwd rule of {name} must return one cotangent per argument",
        why=(f"{name} takes 1 argument ({args}), so {bwd}{at} must return a tuple of one "
             f"entry, the cotangent for {args} (of its structure, shape and dtype); it "
             f"returned {got}." if n == 1 else
             f"{name} takes {n} arguments ({args}), so {bwd}{at} must return a tuple of {n}, a "
             f"cotangent for each in that order (each of its argument's structure, shape and "
             f"dtype); it returned {got}."),
        fix=(f"Return a tuple with one entry per argument of {name}, even for one argument "
             f"((ct,), not ct). None stands for zeros: an argument that gets no gradient."),
        rewrite=_return_rewrite(custom.bwd, out, names),
        docs=_DOCS_VJP)


def _type_of(value) -> str:
    """'f32[]' for an array or a number, else its class's name ('dict')."""
    try:
        return get_aval(value).str_short(True)
    except TypeError:
        return type(value).__name__


def _argument_names(custom, n: int) -> list:
    """The names of the function's differentiated arguments (those bwd answers), in order."""
    try:
        params = [p.name for p in inspect.signature(custom.fun).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    params = [p for i, p in enumerate(params) if i not in custom.nondiff_argnums]
    return [params[i] if i < len(params) else f"args[{i}]" for i in range(n)]


def _defined_at(fun) -> str:
    """' (In[7], line 8)' where `fun` was defined in a cell, else ''."""
    code = getattr(fun, "__code__", None)
    cell = cell_name(code.co_filename) if code is not None else None
    return f" ({cell}, line {code.co_firstlineno})" if cell else ""


def _return_rewrite(bwd, out, names) -> str:
    """bwd's one return line with a tuple of one entry per argument: `return (cos_x * ct,)`
    for `return cos_x * ct`; missing entries None, said in a comment. Where bwd's return
    cannot be read (a lambda, several returns) or has too many entries, a comment only."""
    n = len(names)
    hint = f"# return ({', '.join('ct_' + a for a in names)}{',' * (n == 1)})  # one per argument"
    expr = _single_return(bwd)
    if expr is None:
        return hint
    if isinstance(out, (tuple, list)) and isinstance(expr, (ast.Tuple, ast.List)) \
            and len(expr.elts) == len(out):
        items = [ast.unparse(e) for e in expr.elts]
    elif not isinstance(out, (tuple, list)):
        items = [ast.unparse(expr)]
    else:
        return hint
    if len(items) > n:
        return hint
    missing = names[len(items):]
    items += ["None"] * len(missing)
    line = f"return ({', '.join(items)}{',' * (n == 1)})"
    if missing:
        whose = "its" if len(missing) == 1 else "their"
        line += f"  # None: no gradient for {', '.join(missing)} (or give {whose} cotangent)"
    return line


def _source_tree(fun):
    """The syntax tree of `fun`'s source, dedented, or None where it has none to read."""
    try:
        return ast.parse(textwrap.dedent(inspect.getsource(fun)))
    except (OSError, TypeError, SyntaxError):
        return None


def _single_return(fun):
    """The expression of `fun`'s only return statement, or None (a lambda, no source, several
    returns)."""
    tree = _source_tree(fun) if getattr(fun, "__name__", "") != "<lambda>" else None
    if tree is None:
        return None
    returns = [node for node in ast.walk(tree) if isinstance(node, ast.Return)]
    return returns[0].value if len(returns) == 1 and returns[0].value is not None else None


def _is_fwd_pair(e) -> bool:
    # vjp_rules._FlatVJPRule marks a fwd that returned no pair
    return isinstance(e, TypeError) and hasattr(e, "custom_vjp_fwd")


def _fwd_pair_card(exc, where, called_from) -> ErrorCard:
    """A custom_vjp's fwd returning the output alone: it must return (output, residuals),
    the residuals what bwd receives first. Where bwd never reads them, None is a residual
    that works; else the card cannot know what bwd expects, and says it in a comment."""
    custom, n = exc.custom_vjp_fwd, exc.fwd_returned
    name = getattr(custom.fun, "__name__", "f")
    fwd, bwd = (getattr(r, "__name__", w) for r, w in ((custom.fwd, "fwd"), (custom.bwd, "bwd")))
    expr = _single_return(custom.fwd)
    res = _first_parameter(custom.bwd)
    unused = res is not None and not _reads(custom.bwd, res)
    rewrite = (f"return {ast.unparse(expr)}, None    # {bwd} reads no residuals" if
               n is None and expr is not None and unused else
               f"# return {ast.unparse(expr) if n is None and expr is not None else 'out'}, "
               f"res    # res: what {bwd} takes as its first argument, {res or 'res'}")
    return ErrorCard(
        "custom-vjp-fwd", f"The fwd rule of {name} must return (output, residuals)",
        why=(f"custom_vjp calls {fwd}{_defined_at(custom.fwd)} with {name}'s arguments and "
             f"takes back two values: {name}'s output, and the residuals {bwd} receives first "
             f"(values the backward pass needs). It returned " +
             ("one value." if n is None else f"a tuple of {n}.")),
        fix=(f"Return the output with what {bwd} needs: return out, (x,) saves the argument x, "
             f"for instance; None where {bwd} needs nothing."),
        rewrite=rewrite, docs=_DOCS_VJP)


def _first_parameter(fun) -> str | None:
    try:
        return next(iter(inspect.signature(fun).parameters), None)
    except (TypeError, ValueError):
        return None


def _reads(fun, name) -> bool:
    """Whether `fun`'s source reads `name` (True where the source cannot be read)."""
    tree = _source_tree(fun)
    return tree is None or any(isinstance(n, ast.Name) and n.id == name and
                               isinstance(n.ctx, ast.Load) for n in ast.walk(tree))


# ------------------------------------------------------------------ custom_jvp rules
_DOCS_JVP = ("https://docs.jax.dev/en/latest/notebooks/Custom_derivative_rules_for_Python_code"
             ".html#use-jax-custom-jvp-to-define-custom-forward-mode-rules")


def _is_jvp_pair(e) -> bool:
    # jvp.py's _FlatJVPRule marks a rule that returned no pair
    return isinstance(e, TypeError) and hasattr(e, "custom_jvp") and hasattr(e, "jvp_returned")


def _jvp_pair_card(exc, where, called_from) -> ErrorCard:
    """A jvp rule returning one value (the tangent alone) or three: JAX's tutorial computes
    the primal output by calling the function itself inside its rule, `f(x, y)`."""
    custom, n = exc.custom_jvp, exc.jvp_returned
    name = getattr(custom.fun, "__name__", "f")
    jvp = getattr(custom.jvp, "__name__", "jvp")
    unpacked = _primal_names(custom.jvp)
    call = f"{name}({', '.join(unpacked) if unpacked else '*primals'})"
    expr = _single_return(custom.jvp)
    rewrite = (f"return {call}, {ast.unparse(expr)}    # {name}'s value, then the tangent"
               if n is None and expr is not None and unpacked else
               f"# return {call}, tangent_out    # {name}'s value at the primals, its tangent")
    return ErrorCard(
        "custom-jvp-pair", f"The jvp rule of {name} must return (primal_out, tangent_out)",
        why=(f"custom_jvp calls {jvp}{_defined_at(custom.jvp)} with (primals, tangents) and "
             f"takes back two values: {name}'s output at the primals, and its tangent. It "
             f"returned " + ("one value." if n is None else f"a tuple of {n}.")),
        fix=(f"Return {name}'s value first: calling {call} inside its own rule computes it, as "
             f"JAX's tutorial does; then the tangent."),
        rewrite=rewrite, docs=_DOCS_JVP)


def _primal_names(rule) -> list | None:
    """The names a jvp rule unpacks its primals into (`x, y = primals`), or None."""
    tree = _source_tree(rule)
    try:
        first = tree.body[0].args.args[0].arg
    except (IndexError, AttributeError):          # (no source, or a lambda's line)
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and \
                node.value.id == first and isinstance(node.targets[0], ast.Tuple) and \
                all(isinstance(t, ast.Name) for t in node.targets[0].elts):
            return [t.id for t in node.targets[0].elts]
    return None


def _is_jvp_signature(e) -> bool:
    return isinstance(e, TypeError) and hasattr(e, "custom_jvp") and \
        not hasattr(e, "jvp_returned")


def _jvp_signature_card(exc, where, called_from) -> ErrorCard:
    """A jvp rule written with one parameter per value (`def f_jvp(x, y, tx, ty)`): custom_jvp
    passes two tuples. Where its parameters are the primals then as many tangents, the card
    writes the def with the two tuples unpacked into the same names."""
    custom = exc.custom_jvp
    name = getattr(custom.fun, "__name__", "f")
    jvp = getattr(custom.jvp, "__name__", "jvp")
    try:
        params = [p.name for p in inspect.signature(custom.jvp).parameters.values()]
        n = len([p for p in inspect.signature(custom.fun).parameters.values()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)])
    except (TypeError, ValueError):
        params, n = [], 0
    n -= len(custom.nondiff_argnums)
    if n and len(params) == 2 * n:
        primals, tangents = params[:n], params[n:]
        one = "," if n == 1 else ""
        rewrite = (f"def {jvp}(primals, tangents):    # in place of def {jvp}"
                   f"({', '.join(params)}):\n"
                   f"    {', '.join(primals)}{one} = primals\n"
                   f"    {', '.join(tangents)}{one} = tangents")
    else:
        rewrite = f"# def {jvp}(primals, tangents): each a tuple, one entry per argument"
    return ErrorCard(
        "custom-jvp-signature", f"A jvp rule takes two tuples: {jvp}(primals, tangents)",
        why=(f"custom_jvp calls {jvp}{_defined_at(custom.jvp)} with two arguments, primals and "
             f"tangents, each a tuple with one entry per argument of {name}; {jvp} takes "
             f"{len(params)} ({', '.join(params)})."),
        fix="Take the two tuples and unpack them in the rule's first lines.",
        rewrite=rewrite, docs=_DOCS_JVP)


# ------------------------------------------------------------------ checkpoint policies
def _is_policy_misspelled(e) -> bool:
    # Python's AttributeError keeps the object asked (3.10+): the namespace of policies (the
    # views sit below api/remat.py, which defines it, so it is known by what it holds)
    obj = getattr(e, "obj", None)
    return isinstance(e, AttributeError) and type(obj).__name__ == "SimpleNamespace" and \
        all(callable(getattr(obj, n, None)) for n in _ALWAYS)


_ALWAYS = ("everything_saveable", "nothing_saveable", "dots_saveable")


def _policy_misspelled_card(exc, where, called_from) -> ErrorCard:
    wrong, names = exc.name, sorted(vars(exc.obj))
    close = _closest(wrong, names)
    return ErrorCard(
        "checkpoint-policy", f"jax.checkpoint_policies has no policy {wrong}",
        why=("jax.checkpoint_policies holds these policies: " + ", ".join(names) +
             "."),
        fix=(f"Use one of them{f': {close} is the nearest to {wrong}' if close else ''}."),
        rewrite=f"policy=jax.checkpoint_policies.{close or 'dots_saveable'}",
        docs=_DOCS_POLICY)


def _closest(wrong: str, names: list) -> str | None:
    """The policy whose name shares most words with `wrong` (a reordering,
    dots_saveable_with_no_batch_dims for dots_with_no_batch_dims_saveable), else the nearest
    spelling."""
    words = set(wrong.split("_"))
    names = [n for n in names if not n.startswith("_")]
    scored = sorted(names, key=lambda n: (-len(words & set(n.split("_"))),
                                          -difflib.SequenceMatcher(None, wrong, n).ratio()))
    best = scored[0] if scored else None
    return best if best and (words & set(best.split("_"))) else None


def _is_policy_string(e) -> bool:
    # remat_saved._saved marks the TypeError of calling a string policy
    return isinstance(e, TypeError) and isinstance(getattr(e, "policy", None), str) and \
        hasattr(e, "policies")


def _policy_string_card(exc, where, called_from) -> ErrorCard:
    name, names = exc.policy, exc.policies
    known = name in names
    policy = f"jax.checkpoint_policies.{name if known else 'dots_saveable'}"
    given = _given_line(exc.policy_given_at)
    rewrite = f"policy={policy}"
    if given is not None:
        quoted = next((q for q in (f"'{name}'", f'"{name}"') if q in given[1]), None)
        if quoted is not None:
            rewrite = given[1].replace(quoted, policy)
    return ErrorCard(
        "checkpoint-policy", "A checkpoint policy was given as a string",
        why=(f"policy= takes a function that decides per operation what to save; "
             f"'{name}' is its name" + (f", given at {given[0]}" if given else "") +
             ". JAX calls the policy only while differentiating, so the error comes then."),
        fix=("Pass the policy itself, from jax.checkpoint_policies" +
             ("." if known else f"; it has no '{name}': " + ", ".join(names) + ".")),
        rewrite=rewrite,
        docs=_DOCS_POLICY)


def _given_line(at):
    """('In[6], line 1', that line's text) for a (file, line) of the user's, or None."""
    if at is None:
        return None
    file, line = at
    text = linecache.getline(file, line).strip()
    place = f"{cell_name(file) or os.path.basename(file)}, line {line}"
    return (place, text) if text else None
