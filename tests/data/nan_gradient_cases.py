"""Gradients that hold NaN where the function's value is finite, for the note under a cell
that computes one (jxkernel/notebook/notes/nan_notes.py): run by
reference/make_nan_gradient_reference.py (JAX 0.10.2, into nan_gradient_reference.json) and
by tests/notebook/test_nan_notes.py.

Per case: the function's source (it defines `f`, its NaN-making line numbered from 1), the
input (an expression of jnp), the line of `f` the note names, and the line the note writes in
its place (None: it explains in words). The reference holds f's value and gradient, whether
jax_debug_nans raises for the gradient (and its error's first line), and the fixed function's
gradient.

    >>> CASES["where_sqrt"][2:]
    (2, 'return jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.)')
"""
import ast

import numpy as np

CASES = {
    # jnp.where's untaken branch: sqrt's derivative at 0 is infinite, times a zero cotangent
    "where_sqrt": ("def f(x):\n    return jnp.where(x > 0, jnp.sqrt(x), 0.)\n", "0.",
                   2, "return jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.)"),
    "where_log_sum": (
        "def f(x):\n    return jnp.sum(jnp.where(x > 0, jnp.log(x), 0.))\n",
        "jnp.array([1., 0., 2.])", 2,
        "return jnp.sum(jnp.where(x > 0, jnp.log(jnp.where(x > 0, x, 1.0)), 0.))"),
    # sqrt of a negative: NaN in the branch, its derivative NaN too
    "where_sqrt_negative": ("def f(x):\n    y = jnp.where(x >= 0, jnp.sqrt(x), 0.)\n"
                            "    return y * 2\n", "-1.", 2,
                            "y = jnp.where(x >= 0, jnp.sqrt(jnp.where(x >= 0, x, 1.0)), 0.)"),
    # the unsafe function in the branch taken when the condition is False
    "where_false_branch": ("def f(x):\n    return jnp.where(x <= 0, 0., 2 * jnp.sqrt(x))\n",
                           "0.", 2,
                           "return jnp.where(x <= 0, 0., 2 * jnp.sqrt(jnp.where(x <= 0, 1.0, "
                           "x)))"),
    "where_divide": ("def f(x):\n    return jnp.where(x != 0, 1. / x, 0.)\n", "0.", 2,
                     "return jnp.where(x != 0, 1. / jnp.where(x != 0, x, 1.0), 0.)"),
    "where_arcsin": ("def f(x):\n    return jnp.where(jnp.abs(x) < 1, jnp.arcsin(x), 0.)\n",
                     "1.", 2,
                     "return jnp.where(jnp.abs(x) < 1, jnp.arcsin(jnp.where(jnp.abs(x) < 1, x, "
                     "0.0)), 0.)"),
    # arccosh at 1, the edge of its domain: its derivative is infinite there; the safe value
    # inside the domain, 2.0 (1.0, the value the others take, is that edge)
    "where_arccosh": ("def f(x):\n    return jnp.where(x > 1, jnp.arccosh(x), 0.)\n", "1.", 2,
                      "return jnp.where(x > 1, jnp.arccosh(jnp.where(x > 1, x, 2.0)), 0.)"),
    # the where's condition over two lines: the rewrite is the whole statement, the inner
    # where's condition on one line
    "where_condition_over_lines": (
        "def f(x):\n    return jnp.where((x > 0) &\n                     (x < 2), jnp.log(x), "
        "0.)\n", "0.", 3,
        "return jnp.where((x > 0) &\n                 (x < 2), jnp.log(jnp.where((x > 0) & "
        "(x < 2), x, 1.0)), 0.)"),
    # no where: a norm at zero has no derivative (x / |x|): told in words
    "norm_at_zero": ("def f(x):\n    return jnp.linalg.norm(x)\n", "jnp.zeros(2)", 2, None),
    # a norm at zero again, on another line of another cell: jnp.linalg.norm's body, traced
    # once, named the first cell's line (tests/notebook/test_nan_notes.py runs it after
    # norm_at_zero)
    "norm_in_another_cell": ("def f(x):\n    y = 2 * x\n    return jnp.linalg.norm(y)\n",
                             "jnp.zeros(2)", 3, None),
    # a division by a norm under a where (a vector made a unit vector): a where around the
    # norm leaves its own derivative at 0 (0 / 0) in the gradient (REJECTED): told in words
    "where_divide_by_norm": (
        "def f(x):\n    return jnp.sum(jnp.where(jnp.linalg.norm(x) > 0, x / jnp.linalg.norm(x), "
        "0.))\n", "jnp.zeros(2)", 2, None),
    # the unsafe value made on one line, selected on another: told in words
    "where_apart": ("def f(x):\n    s = jnp.sqrt(x)\n    return jnp.where(x > 0, s, 0.)\n",
                    "0.", 2, None),
    # (last: recorded after the others, as JAX's debug_nans run of one case can change what it
    # raises for a later one; where_apart's "mul" did not raise after these)
    # the where in a loop's or a cond's body, on a line of its own: the stepper goes into the
    # iteration or branch that made the NaN (views/loop_bodies.py) to name that line
    "where_in_scan_body": (
        "def f(xs):\n    def body(c, x):\n        return c + jnp.where(x > 0, jnp.sqrt(x), 0.), "
        "None\n    return jax.lax.scan(body, 0., xs)[0]\n", "jnp.array([1., 0., 2.])", 3,
        "return c + jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.), None"),
    "where_in_cond_branch": (
        "def f(x):\n    def positive(x):\n        return jnp.where(x > 0, jnp.log(x), 0.)\n"
        "    return jax.lax.cond(x < 5, positive, lambda x: x, x)\n", "0.", 3,
        "return jnp.where(x > 0, jnp.log(jnp.where(x > 0, x, 1.0)), 0.)"),
    "where_in_fori_body": (
        "def f(x):\n    def body(i, s):\n        return s + jnp.where(x > i, jnp.sqrt(x - i), "
        "0.)\n    return jax.lax.fori_loop(0, 3, body, 0.)\n", "1.", 3,
        "return s + jnp.where(x > i, jnp.sqrt(jnp.where(x > i, x - i, 1.0)), 0.)"),
}


# rewrites the note must not write, as their gradient holds NaN still: the line of the case
# as a where around the unsafe operand would write it (run() records their gradients)
REJECTED = {
    "where_divide_by_norm": "return jnp.sum(jnp.where(jnp.linalg.norm(x) > 0, x / jnp.where("
                            "jnp.linalg.norm(x) > 0, jnp.linalg.norm(x), 1.0), 0.))",
}


def fixed(name: str, fix: str | None = None) -> str:
    """The case's function with the statement at the named line replaced by the note's fix
    (its lines, indented as the statement's first)."""
    source, _, line, written = CASES[name]
    return with_statement_replaced(source, line, written if fix is None else fix)


def with_statement_replaced(source: str, line: int, fix: str) -> str:
    """`source` with the statement at `line` (the innermost one, not a def) replaced by
    `fix`'s lines, indented as the statement's first."""
    statement = max((s for s in ast.walk(ast.parse(source)) if isinstance(s, ast.stmt) and
                     not isinstance(s, ast.FunctionDef) and s.lineno <= line <= s.end_lineno),
                    key=lambda s: s.lineno)
    lines = source.splitlines()
    first = lines[statement.lineno - 1]
    indent = first[:len(first) - len(first.lstrip())]
    lines[statement.lineno - 1:statement.end_lineno] = [indent + x for x in fix.splitlines()]
    return "\n".join(lines) + "\n"


def _f(jax, source):
    names = {"jax": jax, "jnp": jax.numpy}
    exec(source, names)
    return names["f"]


def _listed(x):
    return np.asarray(x).tolist()


def run(jax) -> dict:
    out = {}
    for name, (source, given, _, fix) in CASES.items():
        f, x = _f(jax, source), eval(given, {"jnp": jax.numpy})
        value, grad = jax.value_and_grad(f)(x)
        case = {"value": _listed(value), "grad": _listed(grad)}
        jax.config.update("jax_debug_nans", True)
        try:
            jax.grad(f)(x)
            case["debug_nans"] = None
        except FloatingPointError as e:
            case["debug_nans"] = str(e).splitlines()[0]
        finally:
            jax.config.update("jax_debug_nans", False)
        if fix is not None:
            case["fixed_grad"] = _listed(jax.grad(_f(jax, fixed(name)))(x))
        if name in REJECTED:
            case["rejected_grad"] = _listed(jax.grad(_f(jax, fixed(name, REJECTED[name])))(x))
        out[name] = case
    return out
