"""The card for JAX's names that older tutorials use and JAX has removed since (JAX 0.10.2's own
words: "module 'jax.ops' has no attribute 'index_update'", "cannot import name 'optimizers'
from 'jax.experimental'"): each with what replaces it, written on the learner's line where the
call shows it.

    jax.ops.index_update(x, 0, 5.0)   ->  x.at[0].set(5.0)
    jax.tree_multimap(f, a, b)        ->  jax.tree.map(f, a, b)
    jax.experimental's stax           ->  jax.example_libraries' stax (the import rewritten)
    jax.xla_computation(f)(x)         ->  jax.jit(f).lower(x).compiler_ir('hlo')
"""
from __future__ import annotations

import ast
import re

from ...tree_util import _REMOVED_IN_0_6 as REMOVED_IN_0_6
from .card import ErrorCard
from .rewrites import _parse_line, _replaced

# (`import jxkernel as jax` names its modules jxkernel's: read as JAX's)
_NO_ATTRIBUTE = re.compile(r"^module '((?:jax|jxkernel)(?:\.\w+)*)' has no attribute '(\w+)'")
_NO_IMPORT = re.compile(r"^cannot import name '(\w+)' from '((?:jax|jxkernel)(?:\.\w+)*)'")
# .at's method for each jax.ops index function
_INDEX_OPS = {"index_update": "set", "index_add": "add", "index_mul": "multiply",
              "index_min": "min", "index_max": "max"}
# (module, name): (what replaces it, why in a few words)
_REPLACED = {
    ("jax", "tree_multimap"): ("jax.tree.map", "tree_map takes several trees"),
    ("jax.tree_util", "tree_multimap"): ("jax.tree_util.tree_map", "tree_map takes several "
                                                                   "trees"),
    **{("jax.ops", name): (f"x.at[idx].{method}(y)", "arrays' .at updates replaced it")
       for name, method in _INDEX_OPS.items()},
    ("jax.random", "shuffle"): ("jax.random.permutation", "permutation(key, x) shuffles x "
                                                          "along its first axis"),
    ("jax.numpy", "DeviceArray"): ("jax.Array", "jax.Array is every array's type"),
    ("jax", "partial"): ("functools.partial", "it was Python's own"),
    ("jax.lax", "tie_in"): ("its second argument", "it does nothing since JAX traces every "
                                                   "operation in order (omnistaging)"),
    ("jax.experimental", "optimizers"): ("jax.example_libraries.optimizers", "it moved"),
    ("jax.experimental", "stax"): ("jax.example_libraries.stax", "it moved"),
    ("jax.interpreters.xla", "DeviceArray"): ("jax.Array", "jax.Array is every array's type"),
    ("jax.random", "KeyArray"): ("jax.Array", "a key array is a jax.Array of a key dtype"),
    ("jax", "xla_computation"): ("jax.jit(f).lower(*args).compiler_ir('hlo')",
                                 "jit's lowering gives the program"),
    ("jax", "abstract_arrays"): ("jax.core", "ShapedArray is jax.core's"),
    ("jax", "linear_util"): ("jax.extend.linear_util", "it moved"),
    # _IN_WORDS: no line to write, what replaces them takes other arguments
    ("jax.experimental", "host_callback"): (
        "jax.debug.callback, jax.pure_callback or jax.experimental.io_callback",
        "JAX's callbacks replaced its id_tap and call"),
    ("jax.lib", "xla_bridge"): ("jax.default_backend() or jax.devices()",
                                "the backend and its devices are asked of jax itself"),
    ("jax.experimental", "maps"): ("jax.shard_map with a Mesh",
                                   "xmap's named axes are a mesh's axes"),
    **{("jax", name): (new, "JAX 0.6.0 removed it") for name, new in REMOVED_IN_0_6.items()},
}


_IN_WORDS = {("jax.experimental", "host_callback"), ("jax.lib", "xla_bridge"),
             ("jax.experimental", "maps")}


def _removed(e) -> tuple | None:
    """(module, name, is an import) of a name JAX has removed, from `e`'s words; None."""
    if isinstance(e, AttributeError):
        found = _NO_ATTRIBUTE.match(str(e))
        key = found and (found.group(1), found.group(2))
        is_import = False
    elif isinstance(e, ImportError):
        found = _NO_IMPORT.match(str(e))
        key = found and (found.group(2), found.group(1))
        is_import = True
    else:
        return None
    if not found:
        return None
    key = (re.sub(r"^jxkernel(?:\.api|\._jax)?", "jax", key[0]), key[1])
    return (*key, is_import) if key in _REPLACED else None


def _is_removed_name(e) -> bool:
    return _removed(e) is not None


def _rewritten(tree, module, name) -> str | None:
    """The learner's line with the removed name replaced, or None where it does not show."""
    new = _REPLACED[module, name][0]
    if (module, name) in _IN_WORDS:
        return None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.ImportFrom) and node.module == module and \
                any(a.name == name for a in node.names):
            home, _, own = new.rpartition(".")
            aliases = [ast.alias(own, a.asname if a.asname or own == name else name)
                       if a.name == name else a for a in node.names]
            return ast.unparse(ast.ImportFrom(home, aliases, 0))
        if isinstance(node, ast.Attribute) and node.attr == name and \
                new in ("jax.Array", "jax.core"):      # a type or a module, not called
            return _replaced(tree, node, new)
        if name == "xla_computation" and isinstance(node, ast.Call) and \
                isinstance(node.func, ast.Call) and len(node.func.args) == 1:
            jitted = f"jax.jit({ast.unparse(node.func.args[0])})"      # f, then f's arguments
            lowered = ast.unparse(ast.Call(ast.Name("lower"), node.args, node.keywords))
            return _replaced(tree, node, f"{jitted}.{lowered}.compiler_ir('hlo')")
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and
                node.func.attr == name):
            continue
        if name in _INDEX_OPS and len(node.args) == 3:
            x, idx, y = (ast.unparse(a) for a in node.args)
            return _replaced(tree, node, f"{x}.at[{idx}].{_INDEX_OPS[name]}({y})")
        if name == "tie_in" and len(node.args) == 2:
            return _replaced(tree, node, node.args[1])
        if name == "partial":
            return "from functools import partial\n" + _replaced(tree, node.func, "partial")
        if "." in new and "(" not in new:
            owner = ast.unparse(node.func.value)        # (the learner's own module name)
            spelled = new if not new.startswith(f"{module}.") else \
                f"{owner}.{new[len(module) + 1:]}"
            if module == "jax" and new.startswith("jax.") and owner != "jax":
                spelled = f"{owner}.{new[4:]}"
            return _replaced(tree, node.func, spelled)
    return None


def _removed_name_card(exc, where, called_from) -> ErrorCard:
    module, name, is_import = _removed(exc)
    new, why = _REPLACED[module, name]
    line = _rewritten(_parse_line(where), module, name)
    rewrite = f"{line}    # {new}: {why}" if line else f"# {module}.{name} is {new} now"
    return ErrorCard(
        "removed-name", f"{module}.{name} is gone from JAX: {new} replaces it",
        why=(f"Code written for older JAX (tutorials, blog posts, answers from before) "
             f"{'imports' if is_import else 'uses'} {module}.{name}, which JAX has removed: "
             f"{why}."),
        fix=f"Write {new} in its place.", rewrite=rewrite,
        docs="https://docs.jax.dev/en/latest/changelog.html")
