"""The types of an `if`'s two branches, read abstractly, for the lax.cond a card offers in its
place: lax.cond needs both branches of one type where jnp.where promotes them (JAX 0.10.2:
"cond branches must have equal output types" for control-flow.md's `3. * x ** 2` and `-4 * x`
of an int x), so a branch of another dtype is cast to jnp.where's."""
from __future__ import annotations

import ast
import re

import numpy as np

from ...core.avals import ShapeDtypeStruct
from ...core.dtypes import result_type
from ...core.trace import Tracer
from ...transforms.make_jaxpr import eval_shape

# where the branches' types cannot be read (a call of the user's), the caveat stays
_ONE_BRANCH = ("# or, to run only one branch (both must give the same dtype and shape: "
               "cast one with .astype where they differ):")
_ONE_BRANCH_CAST = ("# or, to run only one branch (both must give one dtype: {which} ({other}) "
                    "cast to jnp.where's {dtype}):")


_SAFE_CALLS = re.compile(r"^(jnp|np|lax|jax\.numpy|jax\.lax)\.[\w.]+$")


def _branch_types(a: str, b: str, frame):
    """The types of a branch pair `a`, `b` (expressions of the user's `if`) as the traced
    values in `frame` give them: (a's, b's, jnp.where's), each (shape, dtype), or None where
    they cannot be read without running the user's code (a call of theirs, a name not
    found). Only operators, constants, names and calls of jnp/np/lax are evaluated, and
    abstractly (eval_shape: shapes and dtypes, no values)."""
    if frame is None:
        return None
    try:
        trees = [ast.parse(text, mode="eval") for text in (a, b)]
    except SyntaxError:
        return None
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and not _SAFE_CALLS.match(ast.unparse(node.func)):
                return None
            if isinstance(node, (ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield)):
                return None
    # the user's own names (their `jnp` is jxkernel's numpy under the alias: read, not
    # imported, as views sit below numpy and lax)
    names = {**frame.f_globals, **frame.f_locals}
    read = {n.id for tree in trees for n in ast.walk(tree) if isinstance(n, ast.Name)}
    traced = {k: names[k] for k in read if isinstance(names.get(k), Tracer)}
    if not traced or any(k not in names for k in read):
        return None
    fixed = {k: names[k] for k in read if k not in traced}

    def both(**values):
        scope = {**fixed, **values}
        return tuple(eval(compile(t, "<branch>", "eval"), {"__builtins__": {}}, scope)
                     for t in trees)
    try:
        out = eval_shape(both, **{k: ShapeDtypeStruct(v.aval.shape, v.aval.dtype,
                                                      weak_type=v.aval.weak_type)
                                  for k, v in traced.items()})
        joined, _ = result_type(*out)        # jnp.where's dtype: JAX's promotion of the two
    except Exception:          # noqa: BLE001  (not readable: the pattern's caveat stays)
        return None
    return tuple((tuple(o.shape), np.dtype(o.dtype).name) for o in out) + \
        (((), np.dtype(joined).name),)


def _cond_of(test: str, a: str, b: str, frame) -> tuple:
    """(the lax.cond line, the comment over it) for `if test: a else b`: lax.cond needs both
    branches of one type (JAX 0.10.2: "cond branches must have equal output types") where
    jnp.where promotes them, so a branch of another dtype is cast to jnp.where's (`3.0 * x ** 2`
    and `-4 * x` of an int x: the second `.astype(jnp.float32)`); branches of other shapes
    give no lax.cond line (None)."""
    types = _branch_types(a, b, frame)
    if types is None:
        return f"lax.cond({test}, lambda: {a}, lambda: {b})", _ONE_BRANCH
    (sa, da), (sb, db), (_, dw) = types
    if sa != sb:
        return None, None
    if da == db:
        return f"lax.cond({test}, lambda: {a}, lambda: {b})", _ONE_BRANCH

    def cast(text, dtype):
        return text if dtype == dw else f"({text}).astype(jnp.{dw})"
    return (f"lax.cond({test}, lambda: {cast(a, da)}, lambda: {cast(b, db)})",
            _ONE_BRANCH_CAST.format(dtype=dw, which=b if da == dw else a,
                                    other=db if da == dw else da))
