"""A Change (one difference between two signatures of a jitted function, with its fix), the
Signature it compares, and how a Change reads: a line of ours, or JAX's words for it.

    >>> str(Change("x", "shape", "f32[3]", "f32[4]"))
    'x: shape f32[3] -> f32[4]'
"""
from __future__ import annotations

import dataclasses
import functools
import re

from ...core.mesh import get_mesh, on_context_mesh
from ...core.sharding_types import axis_types_text


@dataclasses.dataclass(frozen=True)
class Change:
    """One difference between a new signature and the nearest earlier one, with its fix.

        >>> str(Change("params['w']", "shape", "f32[3]", "f32[4]"))
        "params['w']: shape f32[3] -> f32[4]"
    """
    path: str            # "x", "params['w']", "n" (static), "jax_enable_x64", "w (closed over)"
    kind: str            # one of KINDS
    old: str
    new: str
    fix: str = ""        # what to do, in a sentence
    snippet: str = ""    # the fix as code

    def __str__(self):
        # the kinds that are not a part of the signature are said in words alone: "fresh_jit"
        # is a key of this module's, not a word a learner can look up (a new jit object in a
        # loop read "(jit object): fresh_jit jit(f) compiled for ... -> a new jit object")
        word = kind_word(self.kind)
        return f"{self.path}: {word + ' ' if word else ''}{self.old} -> {self.new}"

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


# A new kind is named in more places than this (docs/contributing.md, "Adding a
# recompile-note cause"): ChangeKind in views/protocol.schema.json (a test holds the two
# equal) and so the extension's TypeScript, and JAX's heading for it in
# recompile_explainer._JAX_HEADING. A new cause of a kind here needs none of them.
KINDS = ("shape", "dtype", "weak_type", "static", "traced", "structure", "constant", "config",
         "fresh_jit", "fresh_body", "traced_for", "committed")
_UNNAMED_KINDS = ("fresh_jit", "fresh_body", "traced_for", "committed")


def kind_word(kind: str) -> str:
    """A change's kind as a view shows it: "shape", "static", ... ("" for the kinds said in
    words alone, whose keys are this module's, not a learner's).

        >>> kind_word("shape"), kind_word("fresh_jit")
        ('shape', '')
    """
    return "" if kind in _UNNAMED_KINDS else kind


@dataclasses.dataclass(frozen=True)
class Signature:
    """What a compiled program was specialised on, as explain_changes compares it: named
    avals (path, ShapedArray), the pytree structure, static (name, value) pairs, the config
    (name, value) pairs, the closed-over constants (name, value), None if unknown, and the
    names of the statics passed by keyword (f(x, n=2) and f(x, 2) are two cache keys, as in
    JAX), and where each static was passed: its position, None by keyword (JAX's tree of the
    inputs holds it there); and the learner's line that called for it, where known."""
    named: tuple
    treedef: object = None
    statics: tuple = ()
    config: tuple = ()
    consts: tuple | None = None
    by_keyword: tuple = ()
    static_at: tuple = ()
    # the learner's line that called for it (a SourceInfo): a weak type's fix rewrites the
    # number at that call (input_types.at_the_calls); never part of what is compared
    site: object = dataclasses.field(default=None, compare=False)
    # each positional argument's name, for one with no leaves to name it (None, then ())
    arg_names: tuple = dataclasses.field(default=(), compare=False)
    # the paths of the leaves given as Python numbers (a weak one: a number, or an array made
    # from one, as jnp.array(1.0), at_the_calls says which); never compared
    numbers: frozenset = dataclasses.field(default=frozenset(), compare=False)

    @functools.cached_property
    def node_types(self) -> tuple:
        """The type of each node of its treedef, depth first ("leaf" for a leaf): what two
        equal treedefs may still differ in (jaxlib compares two registered dataclasses' nodes
        by their meta fields alone), read once per signature. () where it has no treedef."""
        return () if self.treedef is None else tuple(_node_types(self.treedef))

    @functools.cached_property
    def leaf_parents(self) -> dict:
        """{leaf path: the type of the node holding it (list, dict, a registered class)},
        read once per signature: the explainer asks it of each changed leaf, and a walk of
        the whole tree per leaf was quadratic in the leaves. {} where it cannot be told (no
        treedef, or a leaf count that does not match the names: a body's carry named
        otherwise)."""
        if self.treedef is None:
            return {}
        parents = _leaf_parents(self.treedef)
        names = [path for path, _ in self.named]
        if len(parents) != len(names):
            return {}
        out = {}
        for path, parent in zip(names, parents):
            out.setdefault(path, parent)        # (a path named twice: its first leaf's)
        return out


def _leaf_parents(treedef) -> list:
    """The type of the node holding each leaf of `treedef`, in the leaves' order."""
    out, stack = [], [(treedef, None)]
    while stack:
        node, parent = stack.pop()
        data = node.node_data()
        if data is None:
            out.append(parent)
        else:
            stack.extend((child, data[0]) for child in reversed(node.children()))
    return out


def _node_types(treedef):
    stack = [treedef]
    while stack:
        node = stack.pop()
        data = node.node_data()
        yield "leaf" if data is None else data[0]
        stack.extend(reversed(node.children()))


# The jit options that make another program (kind "config"), and Jitted's attributes of them
_JIT_OPTIONS = (("donate_argnums", "_donate_argnums"), ("donate_argnames", "_donate_argnames"),
                ("inline", "_inline"), ("keep_unused", "_keep_unused"),
                ("compiler_options", "_compiler_options"))


_ROOT = re.compile(r"^(args\[\d+\]|[^\[.]+)")


def _root(path: str) -> str:
    """The argument a leaf path belongs to: "params['w']" -> "params"."""
    found = _ROOT.match(path)
    return found.group(1) if found else path


def _aval_text(aval) -> str:
    return aval.str_short(True) + (" (weak)" if aval.weak_type else "")


def jax_line(change: Change) -> str | None:
    """The change as JAX 0.10.2's `jax_explain_cache_misses` words it
    (partial_eval.diff_types, diff_tracing_ctx), or None for a kind JAX words otherwise.

        >>> jax_line(Change("y", "dtype", "f32[]", "i32[]"))
        '* at y, now i32[] and before f32[]'
        >>> jax_line(Change("x", "weak_type", "f32[]", "f32[] (weak)"))
        '* at x, now f32[]{weak_type=True} and before f32[]{weak_type=False}'
        >>> jax_line(Change("x", "shape", "f32[3]", "f32[]"))      # another rank
        '* at x, now f32[]({}) and before f32[3]({})'
    """
    if change.kind == "config" and change.path.endswith(" (user context)"):
        # JAX names every jax.make_user_context slot "user_context", its values unquoted
        return (f"* user_context differs: now {_unquoted(change.new)} and before "
                f"{_unquoted(change.old)}")
    if change.kind == "config":
        return f"* {change.path} differs: now {change.new} and before {change.old}"
    if change.kind not in ("shape", "dtype", "weak_type"):
        return None
    now, was = (t.removesuffix(" (weak)") for t in (change.new, change.old))
    weak_now, weak_was = (t.endswith(" (weak)") for t in (change.new, change.old))
    if _splits(now) != _splits(was):
        # the types' shardings differ (another rank: their specs' lengths; or another axis
        # splits a dimension): JAX then writes each type with its mesh's axes by type,
        # "({Explicit: ('x',)})" under set_mesh's, "({})" under none
        axes = axis_types_text(get_mesh() if on_context_mesh() else None)
        now, was = f"{now}({axes})", f"{was}({axes})"
    if weak_now != weak_was:            # JAX adds the flags only where the weak type differs
        now, was = f"{now}{{weak_type={weak_now}}}", f"{was}{{weak_type={weak_was}}}"
    return f"* at {change.path}, now {now} and before {was}"


def _splits(text: str) -> tuple | None:
    """The mesh axes splitting each dimension of a type's text, as its sharding's spec has
    them ("f32[8@x,3]" -> ("x", ""), "f32[4@(x,y)]" -> ("(x,y)",), "key<fry>[]" -> ()),
    None for a text of no shape."""
    found = re.match(r"[^\[]+\[([^\]]*)\]", text)
    if found is None:
        return None
    dims = re.split(r",(?![^(]*\))", found.group(1)) if found.group(1) else []
    return tuple(dim.partition("@")[2] for dim in dims)


def _unquoted(text: str) -> str:
    """A repr'd string's text ("'a'" -> "a"), as JAX prints a context's value; else as is."""
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"" else text


def explanation_text(changes, indent: str = "  ", jax_words: bool = False,
                     fixes: bool = True) -> str:
    """The changes as lines of text, each with its fix and code (without, where not `fixes`);
    with `jax_words`, each change JAX's line says is said in JAX's words (the
    `jax_explain_cache_misses` log).

        >>> print(explanation_text([Change("x", "shape", "f32[3]", "f32[4]", "Pad.", "x = ...")]))
          x: shape f32[3] -> f32[4]
            fix: Pad.
              x = ...
    """
    lines = []
    for c in changes:
        lines.append(f"{indent}{(jax_words and jax_line(c)) or c}")
        if not fixes:
            continue
        if c.fix:
            lines.append(f"{indent}  fix: {c.fix}")
        lines += [f"{indent}    {code}" for code in c.snippet.splitlines()]
    return "\n".join(lines)
