"""Honest timings of asynchronous work: `%timeit` that waits for the results.

A jitted call returns as soon as the work is queued (async dispatch), so timing
the call alone measures Python, not the device. Every timed iteration here
ends by blocking on what the statement produced: the value of its last
expression and every name it assigns (any pytree of Arrays). The statement is
rewritten, then handed to IPython's own `%timeit`, so all its options and its
`TimeitResult` stay as they are.

    >>> blocking_source("y = f(x)")
    "y = f(x)\\n__jx_block_names__(locals(), ('y',))"
"""
from __future__ import annotations

import ast
import html
import time

from ..tree_util import tree_leaves
from .cell import analyze

BLOCK, BLOCK_NAMES = "__jx_block__", "__jx_block_names__"


waited = 0      # how many results block() has waited for (%timeit asks: did it wait at all?)


def block(tree):
    """Wait for every Array in `tree` (any pytree); returns `tree`."""
    global waited
    for leaf in tree_leaves(tree):
        wait = getattr(leaf, "block_until_ready", None)
        if wait is not None:
            wait()
            waited += 1
    return tree


def block_names(namespace: dict, names: tuple) -> None:
    """Wait for the Arrays held by `names` (those bound; a branch may not have run)."""
    block([namespace[n] for n in names if n in namespace])


def _call(name, *args) -> ast.Expr:
    return ast.Expr(ast.Call(ast.Name(name, ast.Load()), list(args), []))


def _blocking_body(source: str, keep_value: str | None = None):
    """The statements of `source`, then a block on its last value and assigned names.

    With `keep_value`, the last expression's value is assigned to that name instead of
    blocked on (the dispatch timer blocks later, outside its timed window)."""
    tree = ast.parse(source)
    body = tree.body
    if not body:
        return None
    names = tuple(analyze(source).outputs)
    tail = []
    if isinstance(body[-1], ast.Expr):
        value = body[-1].value
        if keep_value:
            body[-1] = ast.Assign([ast.Name(keep_value, ast.Store())], value)
            names += (keep_value,)
        else:
            body[-1] = _call(BLOCK, value)
    if names:
        tail.append(_call(BLOCK_NAMES, ast.Call(ast.Name("locals", ast.Load()), [], []),
                          ast.Constant(names)))
    return body, tail


def blocking_source(source: str) -> str:
    """`source` rewritten to block on what it produces, as Python text."""
    parts = _blocking_body(source)
    if not parts:
        return source
    body, tail = parts
    return ast.unparse(ast.fix_missing_locations(ast.Module(body + tail, type_ignores=[])))


def install(namespace: dict, hidden: dict | None = None) -> None:
    """Put the two helpers where the rewritten statements look for them."""
    for name, fn in ((BLOCK, block), (BLOCK_NAMES, block_names)):
        namespace[name] = fn
        if hidden is not None:
            hidden[name] = fn


def uninstall(namespace: dict, hidden: dict | None = None) -> None:
    for name in (BLOCK, BLOCK_NAMES):
        for ns in (namespace, hidden if hidden is not None else {}):
            if ns.get(name) in (block, block_names):
                del ns[name]


_TEMPLATE = """
def __jx_dispatch__(_n, _timer):
    pass
    _total = 0.0
    for _i in range(_n):
        _t0 = _timer()
        pass
        _total += _timer() - _t0
        pass
    return _total
"""


def dispatch_timer(setup: str, stmt: str, globals_: dict, filename: str = "<jx-dispatch>"):
    """A function (n, timer) -> seconds spent *dispatching* `stmt` n times: each iteration
    times only until the statement returns, then blocks on its results untimed (so work
    never piles up in the queue)."""
    fn = ast.parse(_TEMPLATE).body[0]
    loop = fn.body[2]
    parts = _blocking_body(stmt, keep_value="__jx_out__")
    body, tail = parts if parts else ([], [])
    loop.body[3:4] = tail or [ast.Pass()]
    loop.body[1:2] = body or [ast.Pass()]
    fn.body[0:1] = ast.parse(setup).body or [ast.Pass()]
    module = ast.fix_missing_locations(ast.Module([fn], type_ignores=[]))
    scope: dict = {}
    exec(compile(module, filename, "exec"), globals_, scope)
    return scope["__jx_dispatch__"]


def measure(inner, number: int, repeat: int, timer=time.perf_counter) -> list:
    return [inner(number, timer) for _ in range(repeat)]


# ------------------------------------------------------------------ %timeit --phases
class PhaseChart:
    """The phases' samples as a plotly box chart (one box per phase, milliseconds, log
    scale): plotly's MIME type where the plotly extension renders it, its HTML otherwise
    (that needs plotly.js from its CDN; the table beside it needs no JavaScript).

        >>> from jxkernel.views.timing import profile
        >>> PhaseChart(profile(jnp.sin, jnp.ones(3), runs=1, compiles=1)).figure.data[0].name
        'trace'
    """

    def __init__(self, profile):
        import plotly.graph_objects as go  # imported here: its first import is slow
        self.profile = profile
        self.figure = go.Figure([go.Box(x=[s * 1e3 for s in p.samples], name=p.name,
                                        boxpoints="all", orientation="h")
                                 for p in profile.phases if p.samples])
        self.figure.update_layout(height=80 + 40 * len(self.figure.data), showlegend=False,
                                  margin={"l": 10, "r": 10, "t": 30, "b": 10},
                                  title={"text": html.escape(f"{profile.title()} (ms)"),
                                         "font": {"size": 12}},
                                  xaxis={"type": "log", "title": "milliseconds"},
                                  yaxis={"autorange": "reversed"})

    def __repr__(self):
        return f"<phase chart of {self.profile.function}: {len(self.figure.data)} phases>"

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"application/vnd.plotly.v1+json": self.figure.to_plotly_json(),
                "text/html": self.figure.to_html(full_html=False, include_plotlyjs="cdn"),
                "text/plain": repr(self)}


def phase_chart(profile):
    """A PhaseChart of `profile`, or None when plotly is not installed (the table says all)."""
    try:
        return PhaseChart(profile)
    except ImportError:
        return None
