"""How a function's source uses one of its arguments, for advice that must work when applied:
an array made static is advised to become its Python value where the function needs one
(an `if`, a shape, a loop count) and to stay traced where it calls the array's methods; a
card that cannot tell says both, each with its condition.

Read from the source with `ast` (linecache holds a notebook cell's lines): nothing is run.

    >>> def signed(x, flag):
    ...     return x if flag else -x
    >>> uses(signed, "flag").python, uses(signed, "flag").array
    (('an `if`',), False)

An argument passed on to a call that is not jnp's, np's, lax's or a numeric builtin's
(`MLP(dim, nlayers, rngs)`, a layer's or a helper's) is used where this cannot read: `passed`
names those calls, and no advice says "only computes with it" then (Flax's key_concepts:
`init_state(dim, nlayers)` builds `nnx.Linear(dim, dim)` layers `range(nlayers)` times).
"""
from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap

from .source_edits import replaced

# calls whose arguments are sizes or shapes (jnp's and lax's), and keywords that are
_SHAPE_CALLS = {"zeros", "ones", "full", "empty", "arange", "linspace", "eye", "identity",
                "reshape", "broadcast_to", "tile", "iota", "broadcast", "range", "split",
                "one_hot", "dynamic_slice"}
_SHAPE_KEYWORDS = {"shape", "size", "num", "length", "axis", "num_classes", "k", "n"}
_PYTHON_CALLS = {"bool": "bool()", "int": "int()", "float": "float()", "len": "len()"}
# builtins that compute with a number (an argument passed to them is no unknown use)
_NUMERIC_BUILTINS = {"abs", "min", "max", "sum", "round", "pow", "divmod", "print", "repr",
                     "str", "format", "isinstance", "type", "id", "hash"}


@dataclasses.dataclass(frozen=True)
class Uses:
    """`python`: where the argument must be a Python value (an `if`, a shape, ...), in
    source order without repeats; `array`: whether its array methods or attributes are used
    (`n.sum()`, `n.shape`), which a tuple or a Python number has not; `found`: whether the
    source was read (False: nothing is known); `passed`: the calls it is passed on to whose
    use of it is not read (`MLP(...)`, in source order, without repeats)."""
    python: tuple = ()
    array: bool = False
    found: bool = True
    passed: tuple = ()

    @property
    def only_computes(self) -> bool:
        """Whether the source was read and says it is only computed with: no Python value
        needed, and passed on to no call whose use is unread."""
        return self.found and not self.python and not self.passed


UNKNOWN = Uses(found=False)


def uses(fun, name: str) -> Uses:
    """How `fun`'s source uses its argument `name`, or a name it closes over (a closure's
    free variable, read the same way); UNKNOWN where the source is not found."""
    node = _function_node(fun)
    closed = getattr(getattr(fun, "__code__", None), "co_freevars", ())
    if node is None or name not in _parameters(node) and name not in closed:
        return UNKNOWN
    found, array, passed = [], False, []
    body = node.body if isinstance(node.body, list) else [node.body]
    for statement in body:
        calls = {id(k): c for c in ast.walk(statement) if isinstance(c, ast.Call)
                 for k in c.keywords}
        for parent in ast.walk(statement):
            for child in ast.iter_child_nodes(parent):
                if isinstance(child, ast.Name) and child.id == name:
                    reason = _python_use(parent, child)
                    if reason:
                        found.append(((child.lineno, child.col_offset), reason))
                    array = array or (isinstance(parent, ast.Attribute) and parent.value is child)
                    call = parent if isinstance(parent, ast.Call) and child is not parent.func \
                        else calls.get(id(parent))
                    if not reason and call is not None and _unread_call(call.func):
                        passed.append(((child.lineno, child.col_offset),
                                       f"{ast.unparse(call.func)}(...)"))
    python, onward = [], []
    for _, reason in sorted(found):
        if reason not in python:
            python.append(reason)
    for _, callee in sorted(passed):
        if callee not in onward:
            onward.append(callee)
    return Uses(tuple(python), array, passed=tuple(onward))


def _unread_call(func) -> bool:
    """Whether a call of `func` uses its arguments where this module cannot read: not jnp's,
    np's, lax's (_library_call) nor a numeric builtin's.

        >>> [_unread_call(ast.parse(c).body[0].value.func) for c in ("MLP(d)", "jnp.ones(d)")]
        [True, False]
    """
    return not _library_call(func) and not (isinstance(func, ast.Name) and
                                            func.id in _NUMERIC_BUILTINS | set(_PYTHON_CALLS))


def _python_use(parent, name_node) -> str | None:
    """Why `parent` needs the name it holds to be a Python value, or None."""
    if isinstance(parent, (ast.If, ast.IfExp, ast.While, ast.Assert)) and \
            parent.test is name_node:
        return _statement_word(parent)
    if isinstance(parent, ast.BoolOp) or \
            isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
        return "`and`/`or`/`not`"
    if isinstance(parent, ast.Compare) and _in_test(parent):
        return _in_test(parent)
    if isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is name_node:
        return "a `for` loop"
    if isinstance(parent, ast.Call):
        called = _called_name(parent.func)
        if called in _PYTHON_CALLS and name_node in parent.args:
            return _PYTHON_CALLS[called]
        if called in _SHAPE_CALLS and name_node in parent.args:
            return "a shape or a size" if called != "range" else "a loop count (`range`)"
    if isinstance(parent, ast.keyword) and parent.arg in _SHAPE_KEYWORDS:
        return "a shape or a size"
    if isinstance(parent, ast.Slice):
        return "a slice's bounds"
    if isinstance(parent, (ast.Tuple, ast.List)) and getattr(parent, "_shape", False):
        return "a shape or a size"
    return None


def _statement_word(node) -> str:
    """The test's statement, as a card names it: "a `while`" (`while i < n:` said "an `if`"),
    "an `assert`", else "an `if`"."""
    return {ast.While: "a `while`", ast.Assert: "an `assert`"}.get(type(node), "an `if`")


def _in_test(compare) -> str | None:
    """The statement whose test a comparison is ("an `if`", "a `while`": marked by
    _mark_tests), or None."""
    return getattr(compare, "_test", None)


def _called_name(func) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _parameters(node) -> list:
    a = node.args
    return [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]


def _mark_tests(tree) -> None:
    """Comparisons used as an if/while/IfExp test (`if n > 0:`) need Python values too; and
    the tuples passed to a shape call (`jnp.zeros((n, 3))`) hold sizes."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.IfExp, ast.While, ast.Assert)):
            for inner in ast.walk(node.test):
                if isinstance(inner, ast.Compare):      # (an IfExp inside: its own, after)
                    inner._test = _statement_word(node)
        if isinstance(node, ast.Call) and _called_name(node.func) in _SHAPE_CALLS:
            for arg in node.args:
                if isinstance(arg, (ast.Tuple, ast.List)):
                    arg._shape = True
        if isinstance(node, ast.keyword) and node.arg in _SHAPE_KEYWORDS and \
                isinstance(node.value, (ast.Tuple, ast.List)):
            node.value._shape = True


def _function_node(fun):
    """The FunctionDef or Lambda of `fun` in its source, or None."""
    fun = inspect.unwrap(getattr(fun, "__wrapped__", fun))
    code = getattr(fun, "__code__", None)
    if code is None:
        return None
    try:
        lines, start = inspect.getsourcelines(fun)
    except (OSError, TypeError):
        return None
    tree = _parse("".join(lines))
    if tree is None:
        return None
    _mark_tests(tree)
    wanted = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    kind = ast.Lambda if code.co_name == "<lambda>" else ast.FunctionDef
    found = [node for node in ast.walk(tree) if isinstance(node, kind) and
             (kind is ast.Lambda or node.name == code.co_name) and
             tuple(_parameters(node))[:len(wanted)] == wanted]
    return found[0] if len(found) == 1 else None


def jit_decorated_def(fun) -> str | None:
    """The `def` line of `fun` where its source jits it with a decorator (`@jax.jit`,
    `@functools.partial(jax.jit, ...)`), else None: a fix that re-jits such a function is
    written as its decorator, since the name is bound to the jitted function already.

        >>> import functools, jxkernel as jax
        >>> @functools.partial(jax.jit, static_argnames="n")
        ... def power(x, n=2):
        ...     return x ** n
        >>> jit_decorated_def(power)
        'def power(x, n=2):'
    """
    node = _function_node(fun)
    if not isinstance(node, ast.FunctionDef) or \
            not any("jit" in ast.unparse(d) for d in node.decorator_list):
        return None
    return f"def {node.name}({ast.unparse(node.args)}):"


def jitted_lambda_line(fun) -> str | None:
    """The start of the line jitting lambda `fun` in its source, `name = jax.jit(lambda ...`
    with the learner's options but the static ones (`, donate_argnums=0`), where a line binds
    a name to a jit of it; else None: a fix re-jitting it writes that line, not a generic
    `f = jax.jit(f)` (no `f` is defined in the learner's program).

        >>> import jxkernel as jax
        >>> step = jax.jit(lambda w, lr: w - lr * w, static_argnums=1, donate_argnums=0)
        >>> jitted_lambda_line(step._fun)
        'step = jax.jit(lambda w, lr: w - lr * w, donate_argnums=0'
    """
    node = _function_node(fun)
    if not isinstance(node, ast.Lambda):
        return None
    try:
        lines, _ = inspect.getsourcelines(fun)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):
        return None
    for statement in tree.body:
        call = getattr(statement, "value", None)
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and \
                isinstance(statement.targets[0], ast.Name) and isinstance(call, ast.Call) and \
                ast.unparse(call.func).split(".")[-1] == "jit" and len(call.args) == 1 and \
                isinstance(call.args[0], ast.Lambda) and \
                ast.dump(call.args[0]) == ast.dump(node):
            kept = [f", {ast.unparse(k)}" for k in call.keywords
                    if k.arg not in ("static_argnums", "static_argnames")]
            return (f"{statement.targets[0].id} = {ast.unparse(call.func)}("
                    f"{ast.unparse(call.args[0])}{''.join(kept)}")
    return None


def _parse(text: str):
    """The source's tree. A lambda's lines may be a fragment of a longer statement
    (`fs = [lambda x: x,` ...): then each `lambda` on them, cut before the closing brackets
    and commas that belong to the statement around it."""
    text = textwrap.dedent(text)
    try:
        return ast.parse(text)
    except SyntaxError:
        pass
    start = text.find("lambda")
    while start >= 0:
        fragment = text[start:].rstrip()
        for _ in range(12):
            try:
                return ast.parse(f"(\n{fragment}\n)")
            except SyntaxError:
                if not fragment or fragment[-1] not in ",)]}":
                    break
                fragment = fragment[:-1].rstrip()
        start = text.find("lambda", start + 1)
    return None


# ------------------------------------------------------------------ a call's argument
_ARRAY_MAKERS = {"array", "asarray"}       # jnp.array(True), np.asarray([2, 3]), ...
_LIBRARIES = {"jnp", "np", "numpy", "lax", "jax", "math", "random"}


def argument_expression(code: str, name: str, position) -> str | None:
    """The text of the argument `name` (at `position`, None: by keyword) in the one call on
    the line `code` that passes it, or None where none or several do. Calls of jnp/np/lax
    functions are not the jitted function's.

        >>> argument_expression("g(jnp.ones(2), jnp.array(True))", "flag", 1)
        'jnp.array(True)'
    """
    node = _argument_node(_parse(code.strip()), name, position)
    return ast.unparse(node) if node is not None else None


def _argument_node(tree, name, position):
    """The node of the argument (see argument_expression) in `tree`, or None."""
    found = []
    for call in ast.walk(tree) if tree is not None else ():
        if not isinstance(call, ast.Call) or _library_call(call.func):
            continue
        if position is None:
            found += [k.value for k in call.keywords if k.arg == name]
        elif len(call.args) > position and \
                not any(isinstance(a, ast.Starred) for a in call.args[:position + 1]):
            found.append(call.args[position])
    return found[0] if len(found) == 1 else None


def with_argument(code: str, name: str, position, text: str) -> str | None:
    """The line `code` with the argument `argument_expression` finds written as `text`, or
    None where it finds none (only a line that parses whole: its columns are the line's).

        >>> with_argument("g(x, jnp.array(True))", "flag", 1, "True")
        'g(x, True)'
    """
    try:
        node = _argument_node(ast.parse(code.strip()), name, position)
    except SyntaxError:
        return None
    if node is None or node.lineno != node.end_lineno:
        return None
    return replaced(code.strip(), [(node, text)])


def _library_call(func) -> bool:
    """`jnp.zeros`, `np.array`, `jax.jit` (its arguments are the function and options)."""
    while isinstance(func, ast.Attribute):
        func = func.value
    return isinstance(func, ast.Name) and func.id in _LIBRARIES


def python_value(expression: str, ndim: int, value_of) -> str:
    """Code for the hashable Python value of the array `expression` makes: its literal where
    it is `jnp.array(<literal>)`, else `value_of(expression, ndim)` (jit.args.python_value_of:
    `.item()`, `tuple(....tolist())`).

        >>> python_value("flag", 0, lambda e, n: e + ".item()")
        'flag.item()'
    """
    literal = literal_of(expression)
    if literal is not None:
        return literal
    node = _expression_node(expression)
    simple = isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript))
    return value_of(expression if simple else f"({expression})", ndim)


def literal_of(expression: str) -> str | None:
    """The literal an array is made of, `jnp.array([2, 3])` -> '(2, 3)' (a list as a tuple,
    hashable), or None where `expression` is no `array`/`asarray` call of one.

        >>> literal_of("jnp.array([2, 3])"), literal_of("flag")
        ('(2, 3)', None)
    """
    node = _expression_node(expression)
    if not (isinstance(node, ast.Call) and _called_name(node.func) in _ARRAY_MAKERS and
            len(node.args) == 1 and not node.keywords):
        return None
    try:
        literal = ast.literal_eval(node.args[0])
    except ValueError:
        return None
    return None if literal is None else repr(_tuples(literal))


def _expression_node(expression: str):
    tree = _parse(expression)
    return tree.body[0].value if tree is not None and len(tree.body) == 1 and \
        isinstance(tree.body[0], ast.Expr) else None


def _tuples(value):
    return tuple(map(_tuples, value)) if isinstance(value, list) else value


# ------------------------------------------------------------------ a value that may be None
# how a value is combined where it is not None, by the operator or jnp function: an array in
# place of None keeps the result only if it means "nothing" for that use (ones to multiply
# or divide by, True to select with, zeros to add)
_OPERATOR_USES = {ast.Mult: "factor", ast.Add: "term", ast.BitAnd: "condition"}
_CALL_USES = {"multiply": "factor", "add": "term", "logical_and": "condition"}
# jnp.where(mask, x, y), lax.select(mask, x, y): the first argument selects
_SELECTING_CALLS = {"where", "select"}


def field_uses(fun, path: str) -> tuple | None:
    """How `fun`'s source combines the value at `path` (an argument, `mask`, or a field or
    entry of one, `b.mask`, `d['mask']`, also once named, `m = d['mask']`), read where it is
    not tested against None: the kinds, sorted, of "factor" (multiplied by), "divisor",
    "condition" (jnp.where's first argument, `&`) and "term" (added; subtracted from
    something); () where it is not read; None where it is only tested against None (an
    array takes the other branch), used otherwise (passed on, a method called, subtracted
    from), or the source is not read.

        >>> def total(b):
        ...     return b.x.sum() if b.mask is None else (b.x * b.mask[:, None]).sum()
        >>> field_uses(total, "b.mask"), field_uses(total, "b.x")
        (('factor',), None)
    """
    node = _function_node(fun)
    try:
        wanted = ast.dump(ast.parse(path, mode="eval").body)
    except SyntaxError:
        return None
    if node is None or _root_name(ast.parse(path, mode="eval").body) not in _parameters(node):
        return None
    parents = {id(c): p for p in ast.walk(node) for c in ast.iter_child_nodes(p)}
    aliases = {a.targets[0].id for a in ast.walk(node) if isinstance(a, ast.Assign) and
               len(a.targets) == 1 and isinstance(a.targets[0], ast.Name) and
               ast.dump(a.value) == wanted}
    found = set()
    for read in ast.walk(node):
        if ast.dump(read) != wanted and not (isinstance(read, ast.Name) and
                                              read.id in aliases and
                                              isinstance(read.ctx, ast.Load)):
            continue
        parent = parents.get(id(read))
        if isinstance(parent, ast.Assign) and parent.value is read and \
                len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
            continue                                    # (its alias, `m = d['mask']`)
        kind = _combined_as(read, parents)
        if kind is None:
            return None
        found.add(kind)
    if found == {"tested"}:     # only tested: an array in place of None takes the other branch
        return None
    found.discard("tested")
    return tuple(sorted(found))


def _combined_as(read, parents) -> str | None:
    """The kind of use (field_uses') of the expression `read`, indexed or not (`m[:, None]`),
    or "tested" (`m is None`), or None for any other use."""
    parent = parents.get(id(read))
    while isinstance(parent, ast.Subscript) and parent.value is read:
        read, parent = parent, parents.get(id(parent))
    if isinstance(parent, ast.Compare) and all(isinstance(o, (ast.Is, ast.IsNot))
                                               for o in parent.ops) and \
            all(isinstance(c, ast.Constant) and c.value is None
                for c in [parent.left, *parent.comparators] if c is not read):
        return "tested"
    if isinstance(parent, (ast.BinOp, ast.AugAssign)):
        right = parent.right if isinstance(parent, ast.BinOp) else parent.value
        if isinstance(parent.op, (ast.Div, ast.FloorDiv)):
            return "divisor" if right is read else None
        if isinstance(parent.op, ast.Sub):
            return "term" if right is read else None
        return _OPERATOR_USES.get(type(parent.op))
    if isinstance(parent, ast.Call) and read in parent.args and _library_call(parent.func):
        called = _called_name(parent.func)
        if called in _SELECTING_CALLS:
            return "condition" if parent.args[0] is read else None
        if called in ("divide", "true_divide"):
            return "divisor" if parent.args[1:2] == [read] else None
        if called == "subtract":
            return "term" if parent.args[1:2] == [read] else None
        return _CALL_USES.get(called)
    return None


def _root_name(node) -> str | None:
    """The name an attribute or subscript chain starts from (`d['a'].b`: d)."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None
