"""A notebook cell as a function: which names it reads (inputs) and assigns (outputs).

    >>> info = analyze("y = lax.sin(x) * n\\nz = y + 1\\nz")
    >>> info.reads, info.outputs, info.has_last_expr
    (['lax', 'x', 'n'], ['y', 'z'], True)

`reads` are the names read before the cell writes them (in the order they are
first read); the caller keeps those found in the user namespace as inputs.
Writes inside `if`/`for`/`while`/`try` blocks may not happen, so they do not
hide a later read: `if c: y = 1` then `z = y` still reads `y` (unless both
branches of the `if` write it).

`build` turns the cell into `def cell(<inputs>): <body>; return locals()`, the
last expression kept as the local `__jx_last__`, compiled under the cell's own
filename so that tracebacks and the jaxpr's source lines point at cell lines.
"""
from __future__ import annotations

import ast
import dataclasses
import types

import numpy as np

from ..tree_util import leaves_within, register_pytree_node

LAST = "__jx_last__"

@dataclasses.dataclass
class CellInfo:
    source: str
    tree: ast.Module
    reads: list            # names read before a definite write, first-read order
    outputs: list          # names assigned anywhere at cell level, first-write order
    has_last_expr: bool
    prints: bool           # does the cell call print()? (it runs only while tracing)
    positions: dict        # name -> [(line, col, end_col)] of every occurrence at cell level


class _Reads(ast.NodeVisitor):
    """Walks one scope in execution order, recording reads before definite writes.

    A write inside a block (an `if` branch, a loop body, a `try`) counts for the rest
    of that block only: after it, the block may not have run."""

    def __init__(self, bound=()):
        self.definite = set(bound)     # written on every path to here
        self.reads: list = []
        self.writes: list = []
        self.positions: dict = {}
        self.prints = False

    # ---------------------------------------------------------------- names
    def read(self, name):
        if name not in self.definite and name not in self.reads:
            self.reads.append(name)

    def write(self, name):
        if name not in self.writes:
            self.writes.append(name)
        self.definite.add(name)

    def visit_Name(self, node):
        self.positions.setdefault(node.id, []).append(
            (node.lineno, node.col_offset, node.end_col_offset))
        (self.read if isinstance(node.ctx, ast.Load) else self.write)(node.id)

    # ---------------------------------------------------------------- order of evaluation
    def visit_Assign(self, node):
        self.visit(node.value)
        for t in node.targets:
            self.visit(t)

    def visit_AugAssign(self, node):
        if isinstance(node.target, ast.Name):
            self.read(node.target.id)          # `x += 1` reads x first
        self.visit(node.value)
        self.visit(node.target)

    def visit_AnnAssign(self, node):           # annotations of locals are never evaluated
        if node.value is not None:
            self.visit(node.value)
            self.visit(node.target)

    def visit_NamedExpr(self, node):
        self.visit(node.value)
        self.visit(node.target)

    def visit_Call(self, node):
        if isinstance(node.func, ast.Name) and node.func.id == "print":
            self.prints = True
        self.generic_visit(node)

    def _block(self, *nodes):
        """Visit a block that may not run: its writes are forgotten at its end."""
        saved = set(self.definite)
        for n in nodes:
            if n is not None:
                self.visit(n)
        self.definite = saved

    def visit_For(self, node):
        self.visit(node.iter)
        self._block(node.target, *node.body)
        self._block(*node.orelse)

    visit_AsyncFor = visit_For

    def visit_While(self, node):
        self.visit(node.test)
        self._block(*node.body)
        self._block(*node.orelse)

    def visit_If(self, node):
        """A name both branches write is written either way (`if c: y = a` / `else: y = b`)."""
        self.visit(node.test)
        saved = set(self.definite)
        for n in node.body:
            self.visit(n)
        after_body, self.definite = self.definite, set(saved)
        for n in node.orelse:
            self.visit(n)
        self.definite &= after_body

    def visit_Try(self, node):
        self._block(*node.body, *node.orelse)
        for handler in node.handlers:
            self._block(handler)
        self._block(*node.finalbody)

    visit_TryStar = visit_Try

    def visit_ExceptHandler(self, node):
        if node.type is not None:
            self.visit(node.type)
        if node.name:
            self.write(node.name)
        for n in node.body:
            self.visit(n)

    def visit_Match(self, node):
        self.visit(node.subject)
        for case in node.cases:
            self._block(case)

    def visit_Import(self, node):
        for alias in node.names:
            self.write(alias.asname or alias.name.split(".")[0])

    visit_ImportFrom = visit_Import

    # ---------------------------------------------------------------- nested scopes
    def _nested(self, args, body_nodes):
        """Names a nested scope reads from outside it (its free variables) are reads here."""
        bound = _arg_names(args) if args is not None else set()
        inner = _Reads(bound)
        for n in body_nodes:
            inner.visit(n)
        self._merge(inner, bound | set(inner.writes))

    def visit_FunctionDef(self, node):
        for d in node.decorator_list + node.args.defaults + \
                [d for d in node.args.kw_defaults if d is not None]:
            self.visit(d)
        self._nested(node.args, node.body)
        self.write(node.name)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        for d in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            self.visit(d)
        self._nested(node.args, [node.body])

    def visit_ClassDef(self, node):
        for d in node.decorator_list + node.bases + [k.value for k in node.keywords]:
            self.visit(d)
        self._nested(None, node.body)
        self.write(node.name)

    def _comprehension(self, node, elts):
        first, *rest = node.generators
        self.visit(first.iter)                 # evaluated in the enclosing scope
        inner = _Reads()
        inner.visit(first.target)
        for cond in first.ifs:
            inner.visit(cond)
        for gen in rest:
            inner.visit(gen.iter)
            inner.visit(gen.target)
            for cond in gen.ifs:
                inner.visit(cond)
        for e in elts:
            inner.visit(e)
        self._merge(inner, set(inner.writes))

    def _merge(self, inner, local):
        for name in inner.reads:
            if name not in local:
                self.read(name)
        for name, where in inner.positions.items():
            if name not in local:
                self.positions.setdefault(name, []).extend(where)
        self.prints |= inner.prints

    def visit_ListComp(self, node):
        self._comprehension(node, [node.elt])

    visit_SetComp = visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node):
        self._comprehension(node, [node.key, node.value])


def _arg_names(args: ast.arguments) -> set:
    every = args.posonlyargs + args.args + args.kwonlyargs + \
        [a for a in (args.vararg, args.kwarg) if a is not None]
    return {a.arg for a in every}


def analyze(source: str) -> CellInfo:
    """Parse a cell (already transformed to plain Python) and find its inputs and outputs."""
    tree = ast.parse(source)
    walker = _Reads()
    for stmt in tree.body:
        walker.visit(stmt)
    has_last = bool(tree.body) and isinstance(tree.body[-1], ast.Expr)
    return CellInfo(source, tree, walker.reads, walker.writes, has_last, walker.prints,
                    walker.positions)


def build(info: CellInfo, params: list, name: str, filename: str, globals_: dict):
    """The cell as `def name(*params): ...; return locals()`, its globals the user namespace."""
    body = [ast.fix_missing_locations(s) for s in ast.parse(info.source).body]   # a fresh copy
    if info.has_last_expr:
        last = body[-1]
        body[-1] = ast.copy_location(
            ast.Assign([ast.copy_location(ast.Name(LAST, ast.Store()), last)], last.value), last)
    end = body[-1].end_lineno if body else 1
    ret = ast.Return(ast.Call(ast.Name("locals", ast.Load()), [], []))
    ast.copy_location(ret, body[-1] if body else ast.Pass(lineno=1, col_offset=0))
    ret.lineno = ret.end_lineno = end
    args = ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    fn = ast.FunctionDef(name, args, body + [ret], [], lineno=1, col_offset=0)
    module = ast.fix_missing_locations(ast.Module([fn], type_ignores=[]))
    code = compile(module, filename, "exec")
    scope: dict = {}
    exec(code, globals_, scope)
    return scope[name]


# ------------------------------------------------------------------ values: traced or static
TRACED, STATIC, GLOBAL = "traced", "static", "global"


def is_array_like(x) -> bool:
    """Would jax.jit trace this leaf? Arrays, NumPy data and Python numbers."""
    return isinstance(x, (bool, int, float, complex, np.ndarray, np.generic)) or \
        hasattr(x, "aval")        # an Array or a tracer


def classify(value, forced_static: bool) -> str:
    """traced, static or global (modules: looked up, never arguments)."""
    if isinstance(value, types.ModuleType):
        return GLOBAL
    if forced_static:
        return STATIC
    if is_array_like(value):    # the common input, without flattening it
        return TRACED
    leaves = leaves_within(value)
    if leaves is None:          # an object whose flattening fails (or too deep) is no pytree
        return STATIC
    if callable(value) and not leaves:
        return STATIC           # functions (and jitted functions): part of the cache key
    return TRACED if all(is_array_like(x) for x in leaves) else STATIC


class Static:
    """A non-array output of a cell, carried in the output's tree structure (so a cached
    call returns it without tracing again), compared by identity."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


register_pytree_node(Static, lambda s: ((), s), lambda s, _: s)
