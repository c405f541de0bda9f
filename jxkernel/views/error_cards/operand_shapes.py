"""Cards for operands whose shapes do not fit together: elementwise operands that do not
broadcast (`X - X.mean(axis=1)`), a matrix product whose inner sizes differ (`x @ x`); a reshape
to another size is `reshapes.py`'s.
Every fix is offered only where the shapes say it works: its result shape is computed here by
NumPy's rules and shown."""
from __future__ import annotations

import ast
import re

import numpy as np

from ...core.source_info import installed_package
from .card import ErrorCard
from .frame_names import _named_value
from .grad import returns_to_grad
from .reading import _user_frame, traceback_frames
from .rewrites import _called, _parse_line, _pattern, _replaced, _whole_statement

# jnp's message (ranks may differ) and lax's (equal ranks, the primitive named)
_JNP_BROADCAST = re.compile(r"^Incompatible shapes for broadcasting: shapes=(\[.*\])$")
_LAX_BROADCAST = re.compile(r"^(\w+) got incompatible shapes for broadcasting: (.*)\.$")
_REDUCTIONS = {"sum", "mean", "max", "min", "prod", "std", "var", "any", "all", "median",
               "nansum", "nanmean", "nanmax", "nanmin", "argmax", "argmin", "logsumexp"}
_DOCS = "https://numpy.org/doc/stable/user/basics.broadcasting.html"


def _named_shapes(e) -> list | None:
    """Every shape a broadcasting error names, scalars' too, in operand order, or None."""
    if not isinstance(e, (TypeError, ValueError)) or not str(e).strip():
        return None
    first = str(e).splitlines()[0]
    found = _JNP_BROADCAST.match(first) or _LAX_BROADCAST.match(first)
    if found is None:
        return None
    try:
        text = found.group(1) if found.re is _JNP_BROADCAST else f"[{found.group(2)}]"
        return [tuple(s) for s in ast.literal_eval(text)]
    except (ValueError, SyntaxError, TypeError):
        return None


def _operand_shapes(e):
    """The two non-scalar shapes a broadcasting error names, in operand order, or None; of
    three operands (jnp.where's), the two distinct shapes among them."""
    shapes = [s for s in _named_shapes(e) or () if s]
    if len(shapes) == 3:
        shapes = list(dict.fromkeys(shapes))
    return shapes if len(shapes) == 2 else None


def _is_broadcast_error(e) -> bool:
    return _operand_shapes(e) is not None


def _broadcast(a, b):
    """NumPy's broadcast of two shapes, or None where they do not broadcast."""
    try:
        return tuple(np.broadcast_shapes(a, b))
    except ValueError:
        return None


def _conflict(a, b) -> tuple:
    """(axis counted from the right, size in a, size in b) of the first pair, from the right,
    that is neither equal nor 1."""
    for k in range(1, min(len(a), len(b)) + 1):
        if a[-k] != b[-k] and 1 not in (a[-k], b[-k]):
            return -k, a[-k], b[-k]
    return 0, None, None


def _binop(tree):
    """The one arithmetic operation (`a - b`) in the user's line, or None (none, or several:
    which one failed is not known)."""
    found = [n for n in ast.walk(tree) if isinstance(n, ast.BinOp)] if tree is not None else []
    return found[0] if len(found) == 1 and not isinstance(found[0].op, ast.MatMult) else None


def _broadcast_card(exc, where, called_from) -> ErrorCard:
    a, b = _operand_shapes(exc)
    axis, size_a, size_b = _conflict(a, b)
    why = ("Elementwise operations line shapes up from the right; each pair of sizes must be "
           "equal, or one of them 1 (which stretches). ")
    if axis:
        why += (f"Here {a} and {b} meet at axis {axis} (counted from the right) with sizes "
                f"{size_a} and {size_b}.")
    # (a statement of several lines read whole: its first line alone does not parse)
    tree = _parse_line(_whole_statement(where))
    shapes, call = _named_shapes(exc), _where_call(tree)
    library = _library_below(exc)
    if len(shapes) == 3 and call is not None:   # jnp.where(c, x, y): no one operation to rewrite
        fix, rewrite = _where_fix(shapes, call)
    elif library is not None and _binop(tree) is None:
        # the operation is the library's, inside its function: the learner's line has none to
        # reshape (optax's loss given labels of another shape ran, after an expand_dims, as
        # another loss); which argument is off is the library's documentation's to say
        fix = (f"The elementwise operation is {library}'s, inside the function this line "
               f"calls: its arguments' shapes must be as {library}'s documentation says "
               f"(reshaping one until it broadcasts may compute something else).")
        rewrite = f"# {a} and {b} met inside {library}: print each argument's .shape"
    else:
        fix, rewrite = _broadcast_fix(a, b, tree, _user_frame(exc))
    return ErrorCard(
        "broadcast-shapes", f"Shapes {a} and {b} do not broadcast", why=why, fix=fix,
        rewrite=rewrite, docs=_DOCS)


def _library_below(exc) -> str | None:
    """The installed library (optax) whose own code raised `exc`, below the learner's line;
    None where the operation was jxkernel's own or the learner's."""
    frames = traceback_frames(exc)
    inner = _user_frame(exc)
    below = frames[frames.index(inner) + 1:] if inner in frames else []
    return next((p for p in (installed_package(f.f_code.co_filename) for f in below) if p),
                None)


def _where_call(tree):
    """The one `jnp.where(condition, x, y)` on the user's line, or None."""
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and len(n.args) == 3 and
             ast.unparse(n.func) in ("jnp.where", "np.where", "where", "jax.numpy.where")] \
        if tree is not None else []
    return calls[0] if len(calls) == 1 else None


def _where_fix(shapes, call) -> tuple:
    """(what to do, the shapes by argument) for jnp.where's three operands that do not
    broadcast together: which one is off is the user's to say (a condition of one shape, a
    fill of another), so no rewrite is guessed."""
    listed = ", ".join(f"{ast.unparse(arg)} {shape}" for arg, shape in zip(call.args, shapes))
    return (f"jnp.where(condition, x, y) broadcasts its three arguments to one shape, as "
            f"elementwise operations do: here {listed}. Give the one you did not mean a "
            f"shape that broadcasts with the others (a scalar fill, 0., broadcasts with "
            f"any).", f"# jnp.where's arguments: {listed}")


def _broadcast_fix(a, b, tree, frame) -> tuple:
    """(what to do, the user's line rewritten or the pattern) for shapes `a` and `b`."""
    op = _binop(tree)
    short_first = len(a) < len(b)
    long_shape, short_shape = (b, a) if short_first else (a, b)
    axis = _removed_axis(long_shape, short_shape)
    if axis is not None:                  # (3,) against (3, 4): the short one lost axis 1
        fixed = short_shape[:axis] + (1,) + short_shape[axis:]
        words = (f"{short_shape} lines up with the last axes of {long_shape}; it matches "
                 f"{long_shape} without its axis {axis}. Give it that axis back, of size 1: "
                 f"jnp.expand_dims(v, {axis}) has shape {fixed}, which broadcasts to "
                 f"{_broadcast(long_shape, fixed)}. If it came from a reduction over axis "
                 f"{axis}, keepdims=True keeps the axis.")
        return words, _expand_rewrite(tree, op, short_first, axis, fixed, long_shape, frame)
    if len(a) == len(b) == 1:             # two vectors of different sizes
        carried = _carry_met(tree, op, a, b)
        if carried is not None:           # an outer sum would change the carry's shape
            return carried
        words = (f"Two vectors of sizes {a[0]} and {b[0]}: if you meant every pair (an outer "
                 f"sum or product), a[:, None] and b make a {(a[0], b[0])} result; otherwise "
                 f"the arrays are not the ones you meant.")
        if op is None:
            return words, _pattern(f"y = a[:, None] + b    # {(a[0], b[0])}: every pair")
        op.left = ast.Subscript(op.left, ast.Tuple([ast.Slice(), ast.Constant(None)]))
        return words, f"{ast.unparse(tree)}    # {(a[0], b[0])}: every pair (outer)"
    if len(a) == len(b) == 2 and a == b[::-1]:
        words = (f"{a} and {b} are each other's transpose: b.T has shape {a}. For the matrix "
                 f"product instead, a @ b gives {(a[0], b[1])}.")
        if op is None:
            return words, _pattern("y = a * b.T    # the same shape as a")
        op.right = ast.Attribute(op.right, "T")
        return words, f"{ast.unparse(tree)}    # the second transposed: {a}"
    return (f"Make the sizes at axis {_conflict(a, b)[0]} agree (or one of them 1): check "
            f"which arrays this line combines, and reshape or index one of them.",
            f"# {a} and {b}: print each operand's .shape to find the one you did not expect")


def _carry_met(tree, op, a, b):
    """(words, rewrite) where `op` is in the body of a lax.scan lambda on the line and adds the
    carry (its first parameter) to a vector of another size: the carry keeps one shape from
    step to step, so an outer sum, (n, m), is refused by scan next. The rewrite starts the
    carry with the other's size where it is written `jnp.zeros(n)` (or ones); else None."""
    scan = next((n for n in ast.walk(tree) if isinstance(n, ast.Call) and
                 _called(n) == "scan" and len(n.args) >= 2 and
                 isinstance(n.args[0], ast.Lambda) and n.args[0].args.args and op is not None
                 and any(m is op for m in ast.walk(n.args[0].body))), None) \
        if tree is not None else None
    if scan is None:
        return None
    carry = scan.args[0].args.args[0].arg
    sides = [isinstance(s, ast.Name) and s.id == carry for s in (op.left, op.right)]
    if sides.count(True) != 1:
        return None
    carry_size, other = (a[0], b[0]) if sides[0] else (b[0], a[0])
    words = (f"In lax.scan's body the carry, {carry}, keeps one shape from step to step: it "
             f"is ({carry_size},) and meets a ({other},) each step, so an outer sum (every "
             f"pair, ({carry_size}, {other})) would change it, and scan refuses that next. The "
             f"two sizes must agree: start the carry with the size of the slices each step "
             f"meets it with.")
    init = scan.args[1]
    if isinstance(init, ast.Call) and _called(init) in ("zeros", "ones") and init.args and \
            isinstance(init.args[0], ast.Constant) and init.args[0].value == carry_size:
        new = ast.Call(init.func, [ast.Constant(other)] + init.args[1:], init.keywords)
        return words, (f"{_replaced(tree, init, new)}    # the carry of the slices' size: "
                       f"({other},)")
    return words, f"# {carry} starts ({carry_size},); each step meets ({other},): start it so"


def _removed_axis(long_shape, short_shape):
    """The axis whose removal from `long_shape` leaves `short_shape` (one rank fewer, the
    broadcast failing), or None."""
    if len(long_shape) != len(short_shape) + 1:
        return None
    for axis in range(len(long_shape)):
        if long_shape[:axis] + long_shape[axis + 1:] == short_shape:
            return axis
    return None


def _expand_rewrite(tree, op, short_first, axis, fixed, long_shape, frame) -> str:
    """keepdims=True on each reduction over `axis` of an array of the long shape (`X -
    X.mean(axis=1)`; its shape read from the user's frame, or it is the other operand
    itself), else the short operand with its axis back (jnp.expand_dims), else the pattern."""
    other = None
    if op is not None:
        other = ast.unparse(op.right if short_first else op.left)
    reductions = [n for n in ast.walk(tree) if _reduces(n, axis, long_shape, other, frame)] \
        if tree is not None else []
    for node in reductions:
        node.keywords.append(ast.keyword("keepdims", ast.Constant(True)))
    if reductions:
        return f"{ast.unparse(tree)}    # keepdims: {fixed}, which broadcasts"
    if op is None:
        return _pattern(f"v = jnp.expand_dims(v, {axis})    # {fixed}: broadcasts with "
                        f"{long_shape}")
    expanded = ast.parse(f"jnp.expand_dims(_v, {axis})", mode="eval").body
    if short_first:
        expanded.args[0], op.left = op.left, expanded
    else:
        expanded.args[0], op.right = op.right, expanded
    return f"{ast.unparse(tree)}    # {fixed}: broadcasts with {long_shape}"


def _reduces(node, axis, long_shape, other, frame) -> bool:
    """Whether `node` reduces an array of `long_shape` over `axis` without keepdims:
    `X.mean(axis=1)` or `jnp.mean(X, axis=1)`, X a name whose value has that shape in the
    user's frame, or the source text of the operation's other operand."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute) or \
            node.func.attr not in _REDUCTIONS:
        return False
    keywords = {k.arg: k.value for k in node.keywords}
    if "keepdims" in keywords:
        return False
    if not node.args:                                            # X.mean(axis=1)
        array, given = node.func.value, keywords.get("axis")
    else:                                                        # jnp.mean(X, axis=1)
        array = node.args[0]
        given = keywords.get("axis", node.args[1] if len(node.args) > 1 else None)
    if not (ast.unparse(array) == other or _shape_in(frame, array) == long_shape):
        return False
    try:
        value = ast.literal_eval(given) if given is not None else None
    except ValueError:
        return False
    return isinstance(value, int) and not isinstance(value, bool) and \
        value % len(long_shape) == axis


def _shape_in(frame, node):
    """The shape of the value a name has in the user's frame (an attribute read, no code of
    the user's run), or None."""
    if frame is None or not isinstance(node, ast.Name):
        return None
    value = _named_value(frame, node.id)
    shape = getattr(value, "shape", None)
    return tuple(shape) if isinstance(shape, tuple) else None


# ------------------------------------------------------------------ matrix products
_MATMUL_SITES = {"jnp.dot", "jnp.matmul", "jax.numpy.dot", "jax.numpy.matmul"}


def _is_matmul_shapes(e) -> bool:
    shapes = getattr(e, "operand_shapes", None)   # the core's dot_general attaches them
    return isinstance(e, TypeError) and shapes is not None and \
        all(1 <= len(s) <= 2 for s in shapes)


def _product(a, b):
    """The shape of a @ b for 1-D or 2-D shapes, or None where the inner sizes differ."""
    inner_a, inner_b = a[-1], (b[0] if len(b) == 1 else b[-2])
    if inner_a != inner_b:
        return None
    return a[:-1] + b[:-2] + b[-1:] if len(b) == 2 else a[:-1]


def _matmul_options(a, b) -> list:
    """(how, its result's shape) for each rewrite of a @ b whose inner sizes agree: b
    transposed, a transposed, the operands swapped."""
    options = []
    if len(b) == 2 and _product(a, b[::-1]) is not None:
        options.append(("b.T", _product(a, b[::-1])))
    if len(a) == 2 and _product(a[::-1], b) is not None:
        options.append(("a.T", _product(a[::-1], b)))
    if _product(b, a) is not None:
        options.append(("swap", _product(b, a)))
    # (out, in) weights times a batch of rows, W @ xs: the rows times W.T, (batch, out)
    if len(a) == 2 and len(b) == 2 and _product(b, a[::-1]) is not None:
        options.append(("b @ a.T", _product(b, a[::-1])))
    return options


def _fitting_first(options, tree, site, frame) -> list:
    """`options` with those whose result broadcasts with the array the line adds to (or
    multiplies by...) the product first: `W @ x + b` of a (128, 784) W, a (32, 784) x and a
    (128,) b was rewritten `W @ x.T + b`, (128, 32) + (128,), which raises again; x @ W.T
    fits. The other operand's shape is read from the user's frame (a name's). With it, the
    words to give where none fits (each rewrite, pasted, would raise the broadcast error)."""
    parent = next((n for n in ast.walk(tree) if isinstance(n, ast.BinOp) and
                   not isinstance(n.op, ast.MatMult) and site in (n.left, n.right)), None) \
        if tree is not None and site is not None else None
    other = _shape_in(frame, parent.right if parent.left is site else parent.left) \
        if parent is not None else None
    if other is None:
        return options, None
    fits = [o for o in options if _broadcast(o[1], other) is not None]
    name = ast.unparse(parent.right if parent.left is site else parent.left)
    return fits + [o for o in options if o not in fits], None if fits or not options else \
        f"# no product of these fits {name}'s {other} on this line: print each .shape"


def _matmul_card(exc, where, called_from) -> ErrorCard:
    a, b = exc.operand_shapes
    inner_b = b[0] if len(b) == 1 else b[-2]
    tree = _parse_line(_whole_statement(where))
    site = _matmul_site(tree)
    options = _matmul_options(a, b)
    # two arrays of one shape (n, k), two names: a batch of pairs of vectors, a dot per pair,
    # as JAX's vmap tutorial batches a function (learner6 typed jnp.dot(xs, ws) for it). The
    # same array twice (X @ X) keeps a @ b.T first: its rows with each other
    if len(a) == 2 and a == b and site is not None and \
            ast.unparse(_operands(site)[0]) != ast.unparse(_operands(site)[1]):
        options.insert(0, ("pairs", a[:1]))
    # a vector times a batch of vectors (w and xs): the batch times the vector, xs @ w, is a
    # dot per row (jax.vmap(jnp.dot, in_axes=(0, None))(xs, w)), written plainly first
    swapped = [o for o in options if o[0] == "swap"]
    if len(a) == 1 and len(b) == 2 and swapped:
        options = swapped + [o for o in options if o[0] != "swap"]
    options, misfit = _fitting_first(options, tree, site, _user_frame(exc))
    # the product is what a function jax.grad differentiates returns: it must be one number
    # (`jax.grad(lambda a: jnp.dot(a, a))` of a column: a @ a.T, (3, 3), raised again in grad)
    to_grad = _returned(tree, site) and returns_to_grad(_user_frame(exc))
    summed = False
    if to_grad:
        options, summed = _one_number_first(options, a, b)
    said = {"b.T": "a @ b.T", "a.T": "a.T @ b", "b @ a.T": "b @ a.T",
            "swap": "b @ a (a dot per row of b: jax.vmap(jnp.dot, in_axes=(0, None))(b, a))"
            if len(a) == 1 else "b @ a",
            "pairs": "jax.vmap(jnp.dot)(a, b) (a dot per row pair)",
            "vdot": "jnp.vdot(a, b) (a * b summed over every entry)"}
    fix = ("Check which array is which: a batch of rows times weights is xs @ W, W of shape "
           "(inputs, outputs).")
    if len(a) == 2 and len(b) == 2 and a[0] == b[0] and a[1] != b[1]:
        # (2, 5) and (2, 3), two stacked signals and two stacked kernels: a.T @ b fits, but
        # sums over that first axis, mixing the examples of a batch
        fix += (f" If the first axis (size {a[0]}) is a batch, one example per row (as "
                f"jnp.stack([x, x]) makes), a.T @ b sums over it, mixing the examples: apply "
                f"the per-example function to each row with jax.vmap(f)(a, b) instead; a dot "
                f"per row pair needs rows of one length ({a[1]} and {b[1]} differ).")
    if getattr(exc, "under_vmap", False):
        # jax.vmap's function sees one example: each mapped argument without its in_axes axis
        fix += (" Inside jax.vmap these are one example's shapes, each mapped argument "
                "without the axis in_axes maps: where one is not what you expect, map "
                "another axis (in_axes=(0, None) maps the first argument along its first "
                "axis and passes the second whole).")
    if summed:
        fix += (" The function returns this product to jax.grad, which needs one number: "
                "none of these is one, so the line sums it, as a loss does (or take its "
                ".mean()).")
    elif to_grad:
        fix += (" The function returns this product to jax.grad, which needs one number "
                "(shape ()): that one first.")
    if options:
        fix = ("If you meant one of these, its inner sizes agree: " +
               "; ".join(f"{said[how]} gives {shape}" for how, shape in options) + ". " + fix)
    return ErrorCard(
        "matmul-shapes", f"Matrix product of shapes {a} and {b}: inner sizes {a[-1]} and "
                         f"{inner_b} differ",
        why=(f"a @ b (jnp.dot, jnp.matmul) pairs a's last axis (size {a[-1]}) with b's "
             f"{'only' if len(b) == 1 else 'first'} axis (size {inner_b}): each row of a meets "
             f"each column of b element by element, so the two sizes must be equal."),
        fix=fix, rewrite=misfit or _matmul_rewrite(tree, site, options, summed),
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.numpy.matmul.html")


def _returned(tree, site) -> bool:
    """Whether the product is what the line returns: `return x @ w`, a lambda's body."""
    return site is not None and any(
        isinstance(n, ast.Return) and n.value is site or isinstance(n, ast.Lambda) and
        n.body is site for n in ast.walk(tree))


def _one_number_first(options, a, b) -> tuple:
    """(options, whether the line must sum the product) for a product returned to grad: those
    of shape () first; else, two arrays of one size, jnp.vdot (a * b summed, as `a.T @ a` of
    a column means, but (1, 1) is no number to grad); else the first option, summed."""
    scalar = [o for o in options if o[1] == ()]
    if scalar:
        return scalar + [o for o in options if o[1] != ()], False
    if np.prod(a) == np.prod(b):
        return [("vdot", ())] + options, False
    return options, bool(options)


def _matmul_site(tree):
    """The user's one product on the line (`x @ w`, `jnp.dot(x, w)`), or None."""
    sites = [n for n in ast.walk(tree) if isinstance(n, ast.BinOp) and
             isinstance(n.op, ast.MatMult) or isinstance(n, ast.Call) and
             ast.unparse(n.func) in _MATMUL_SITES and len(n.args) == 2] \
        if tree is not None else []
    return sites[0] if len(sites) == 1 else None


def _operands(site) -> tuple:
    return (site.left, site.right) if isinstance(site, ast.BinOp) else tuple(site.args)


def _replace_node(tree, old, new) -> None:
    """Put `new` where `old` sits in `tree` (a field of its parent, or an entry of one)."""
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if item is old:
                        value[i] = new
                        return


def _matmul_rewrite(tree, site, options, summed=False) -> str:
    """The user's one product rewritten the first way that works (`summed`: and summed, for
    grad), or the pattern."""
    if not options:
        return "# print(a.shape, b.shape): the inner sizes of a @ b must agree"
    how, shape = options[0]
    if site is None:
        return {"b.T": "y = a @ b.T", "a.T": "y = a.T @ b", "swap": "y = b @ a",
                "b @ a.T": "y = b @ a.T", "vdot": "y = jnp.vdot(a, b)",
                "pairs": "y = jax.vmap(jnp.dot)(a, b)"}[how] + f"    # {shape}"
    left, right = _operands(site)
    if how in ("pairs", "vdot"):      # the product becomes the call, in its place
        function = ast.parse("jnp.vdot" if how == "vdot" else "jax.vmap(jnp.dot)",
                             mode="eval").body
        _replace_node(tree, site, ast.Call(function, [left, right], []))
        return f"{ast.unparse(tree)}    # {shape}"
    if how == "b.T":
        right = _transposed(right)
    elif how == "a.T":
        left = _transposed(left)
    elif how == "b @ a.T":
        left, right = right, _transposed(left)
    else:
        left, right = right, left
    if isinstance(site, ast.BinOp):
        site.left, site.right = left, right
    else:
        site.args = [left, right]
    if summed:
        _replace_node(tree, site, ast.Call(ast.Attribute(site, "sum"), [], []))
        return f"{ast.unparse(tree)}    # (), the sum of {shape}: grad needs one number"
    return f"{ast.unparse(tree)}    # {shape}"


def _transposed(node):
    """`node.T`, or the array itself where the learner's operand is transposed already
    (`W.T` -> `W`: it wrote `W.T.T`)."""
    if isinstance(node, ast.Attribute) and node.attr == "T":
        return node.value
    return ast.Attribute(node, "T")
