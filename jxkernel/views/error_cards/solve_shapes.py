"""The card for jnp.linalg.solve (and jax.scipy.linalg.solve) given shapes that do not pair:
`solve(a, b)` solves a @ x = b, so a is square, (m, m), and b has m rows. JAX's message is
jnp.vectorize's: "inconsistent size for core dimension 'm': 2 vs 3 on vectorized function with
excluded=frozenset() and signature='(m,m),(m)->(m)'", naming neither argument. The card names
both shapes; where b transposed fits, the rewrite transposes it, and where a is not square but
has b's rows, the least-squares solution (jnp.linalg.lstsq) is offered.

    jnp.linalg.solve(A, B)   # A (3, 3), B (2, 3)  ->  jnp.linalg.solve(A, B.T)

And eigh, eigvalsh or cholesky given a matrix that is not square: they symmetrize it first,
(a + a.T) / 2, so JAX's message is that sum's, "add got incompatible shapes for broadcasting:
(2, 3), (3, 2)" (the broadcast card read it as the learner's own sum and offered b.T). The
card says the matrix must be square and symmetric, and what a rectangular one has instead:
its singular values (jnp.linalg.svd), or the symmetric a.T @ a.
"""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .frame_names import _named_value
from .reading import _user_frame, _user_lines
from .rewrites import _called, _operand, _parse_line, _replaced

_CORE = re.compile(r"^inconsistent size for core dimension '(\w+)': (\d+) vs (\d+) on "
                   r"vectorized function with excluded=.* and signature='(.*)'$")


def _solve_call(tree):
    """The line's `solve(a, b)` call given two arguments by position, or None."""
    for call in ast.walk(tree) if tree is not None else ():
        if _called(call) == "solve" and len(call.args) == 2:
            return call
    return None


def _is_solve_shapes(e) -> bool:
    if not (isinstance(e, ValueError) and _CORE.match(str(e))):
        return False
    where, _ = _user_lines(e)
    return _solve_call(_parse_line(where)) is not None


def _shape(node, frame):
    """The shape of an array the call names (a name in the user's frame), else None: an
    expression is not evaluated again."""
    if isinstance(node, ast.Attribute) and node.attr == "T":
        inner = _shape(node.value, frame)
        return None if inner is None else inner[::-1]
    if not isinstance(node, ast.Name) or frame is None:
        return None
    shape = getattr(_named_value(frame, node.id), "shape", None)
    return shape if isinstance(shape, tuple) else None


def _solve_shapes_card(exc, where, called_from) -> ErrorCard:
    tree = _parse_line(where)
    call, frame = _solve_call(tree), _user_frame(exc)
    a, b = call.args
    a_code, b_code = ast.unparse(a), ast.unparse(b)
    a_shape, b_shape = _shape(a, frame), _shape(b, frame)
    name = ast.unparse(call.func)
    shapes = ("" if a_shape is None or b_shape is None else
              f" Here {a_code} has shape {a_shape} and {b_code} {b_shape}.")
    rewrite = f"# {name}(a, b): a of shape (m, m), b of shape (m,) or (m, k)"
    if a_shape is not None and b_shape is not None and len(a_shape) == 2:
        m = a_shape[0]
        if a_shape[0] != a_shape[1]:
            if b_shape[:1] == (m,):
                module = ast.unparse(call.func.value) if isinstance(call.func, ast.Attribute) \
                    and "scipy" not in ast.unparse(call.func) else "jax.numpy.linalg"
                lstsq = f"{module}.lstsq({a_code}, {b_code})[0]"
                rewrite = f"{_replaced(tree, call, lstsq)}    # least squares: a is not square"
        elif len(b_shape) == 2 and b_shape[1] == m:
            fitted = ast.unparse(b.value) if isinstance(b, ast.Attribute) and b.attr == "T" \
                else f"{_operand(b)}.T"
            new = ast.Call(call.func, [a, ast.parse(fitted, mode="eval").body], call.keywords)
            rewrite = f"{_replaced(tree, call, new)}    # b with its {m} rows first"
    square = (f" {a_code} is not square, so no one solution: jnp.linalg.lstsq(a, b) gives "
              f"the least-squares one." if a_shape is not None and len(a_shape) == 2 and
              a_shape[0] != a_shape[1] else "")
    return ErrorCard(
        "solve-shapes", f"{name}({a_code}, {b_code}): the shapes do not pair",
        why=(f"{name}(a, b) solves a @ x = b: a is square, (m, m), and b has m rows (shape "
             f"(m,) for one right-hand side, (m, k) for k of them). JAX's message names "
             f"jnp.vectorize's signature, whose m is that size." + shapes + square),
        fix=("Give b as many rows as a has (b.T where its right-hand sides are rows), and a "
             "square a; print both shapes to see which is off."),
        rewrite=rewrite,
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.numpy.linalg.solve.html")


# ------------------------------------------------------------ a symmetric matrix not square
_ADD = re.compile(r"^add got incompatible shapes for broadcasting: \((\d+), (\d+)\), "
                  r"\((\d+), (\d+)\)\.$")
_SYMMETRIC = ("eigh", "eigvalsh", "cholesky")


def _symmetric_call(e):
    """(the line's tree, its eigh/eigvalsh/cholesky call, the matrix's shape) where `e` is the
    sum of a matrix and its transpose that those functions make first; None otherwise."""
    found = isinstance(e, TypeError) and _ADD.match(str(e))
    if not found or (found.group(1), found.group(2)) != (found.group(4), found.group(3)):
        return None
    where, _ = _user_lines(e)
    tree = _parse_line(where)
    call = next((n for n in ast.walk(tree) if _called(n) in _SYMMETRIC and n.args), None) \
        if tree is not None else None
    return None if call is None else (tree, call, (int(found.group(1)), int(found.group(2))))


def _is_square_matrix(e) -> bool:
    return _symmetric_call(e) is not None or _square_call(e) is not None


# inv, det, slogdet, eig and eigvals given a matrix that is not square (JAX 0.10.2's words)
_NOT_SQUARE = re.compile(r"^(?:Argument to (inv|_det\(\)|slogdet\(\)) must have shape "
                         r"\[\.\.\., n, n\], got \((\d+), (\d+)\)\.?|The input to (eig) must "
                         r"be a square matrix\. Got shape \((\d+), (\d+)\)\.)$")
_SQUARE_ONLY = ("inv", "det", "slogdet", "eig", "eigvals")


def _square_call(e):
    """(the line's tree, its inv/det/slogdet/eig/eigvals call, the matrix's shape) where `e`
    is JAX's refusal of a matrix that is not square; None otherwise."""
    found = isinstance(e, ValueError) and _NOT_SQUARE.match(str(e))
    if not found:
        return None
    m, n = (int(g) for g in found.groups()[1:3] if g) if found.group(1) else \
        (int(g) for g in found.groups()[4:6])
    where, _ = _user_lines(e)
    tree = _parse_line(where)
    call = next((c for c in ast.walk(tree) if _called(c) in _SQUARE_ONLY and c.args), None) \
        if tree is not None else None
    return None if call is None else (tree, call, (m, n))


def _square_matrix_card(exc, where, called_from) -> ErrorCard:
    if _symmetric_call(exc) is None:
        return _square_only_card(*_square_call(exc))
    tree, call, (m, n) = _symmetric_call(exc)
    name, a = _called(call), ast.unparse(call.args[0])
    gram = (f"{_operand(call.args[0])}.T @ {_operand(call.args[0])}" if m > n else
            f"{_operand(call.args[0])} @ {_operand(call.args[0])}.T")
    size = min(m, n)
    if name == "cholesky":
        rewrite = (f"# {a}: ({m}, {n}), not square; cholesky factors a symmetric positive "
                   f"definite matrix, such as {gram} ({size}, {size}) where the rows or "
                   f"columns of {a} are independent")
        instead = (f" A symmetric matrix made from it: {gram}, ({size}, {size}), positive "
                   f"definite where its {'columns' if m > n else 'rows'} are independent.")
    else:
        new = ast.Call(call.func, [ast.parse(gram, mode="eval").body] + call.args[1:],
                       call.keywords)
        rewrite = (f"{_replaced(tree, call, new)}    # ({size}, {size}), symmetric: its "
                   f"eigenvalues are {a}'s singular values squared\n"
                   f"# or {a}'s singular values themselves: jnp.linalg.svd({a}, "
                   f"compute_uv=False)")
        instead = (f" A rectangular matrix has singular values instead: jnp.linalg.svd({a}); "
                   f"{gram}, ({size}, {size}), is symmetric, and its eigenvalues are their "
                   f"squares.")
    return ErrorCard(
        "square-matrix", f"{name} takes a square, symmetric matrix: {a} has shape ({m}, {n})",
        why=(f"{name} reads a symmetric (Hermitian) matrix, and symmetrizes it first, "
             f"(a + a.T) / 2: JAX's message is that sum's, ({m}, {n}) and its transpose "
             f"({n}, {m}) do not add. A matrix of {m} rows and {n} columns is not square, so "
             + ("it has no Cholesky factor." if name == "cholesky" else
                "it has no eigenvalues of its own.")),
        fix=f"Give {name} a square symmetric matrix." + instead,
        rewrite=rewrite,
        docs=f"https://docs.jax.dev/en/latest/_autosummary/jax.numpy.linalg.{name}.html")


def _square_only_card(tree, call, shape) -> ErrorCard:
    """inv of a rectangular matrix: its pseudo-inverse, pinv (the least-squares inverse);
    eig and eigvals: its singular values, svd; det and slogdet: none (words and its rank)."""
    (m, n), name, a = shape, _called(call), ast.unparse(call.args[0])
    module = ast.unparse(call.func.value) if isinstance(call.func, ast.Attribute) else "jnp.linalg"
    if name == "inv":
        new = f"{module}.pinv({a})"
        rewrite = (f"{_replaced(tree, call, new)}    # ({n}, {m}): the pseudo-inverse, "
                   f"the least-squares inverse")
        instead = (f" Its pseudo-inverse, jnp.linalg.pinv({a}) of shape ({n}, {m}), solves "
                   f"least-squares problems (x = pinv(a) @ b minimizes |a @ x - b|).")
    elif name in ("eig", "eigvals"):
        new = f"{module}.svd({a}, compute_uv=False)"
        rewrite = (f"{_replaced(tree, call, new)}    # {min(m, n)} singular values, where a "
                   f"rectangular matrix has no eigenvalues")
        instead = (f" A rectangular matrix has singular values instead: jnp.linalg.svd({a}, "
                   f"compute_uv=False).")
    else:
        rewrite = (f"# {a}: ({m}, {n}), not square: no determinant; its rank, "
                   f"jnp.linalg.matrix_rank({a}), says how many independent rows it has")
        instead = f" Its rank, jnp.linalg.matrix_rank({a}), is what says how degenerate it is."
    shown = name
    return ErrorCard(
        "square-matrix", f"{shown} takes a square matrix: {a} has shape ({m}, {n})",
        why=(f"{shown} is defined for square matrices, (n, n), only (a map of a space onto "
             f"itself); {a} has {m} rows and {n} columns."),
        fix=f"Give {shown} a square matrix." + instead,
        rewrite=rewrite,
        docs=f"https://docs.jax.dev/en/latest/_autosummary/jax.numpy.linalg.{name}.html")
