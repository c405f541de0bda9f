"""Where a jit made anew at every pass can be made once (kind "fresh_jit"; its Change and the
text of each fix are fresh_functions.py's): the learner's own lines, read from the source, and
what a fix written in them says, only where the rewrite keeps every result: a line moved above
its loop unchanged, a jit made once and the call given what a partial, a default or a bound
method carried, a nested `@jax.jit` def moved out, an object whose `__init__` jits its method
made once. Each gives None where it cannot be done, and views/recompile_explainer.py then gives
the fix in words or as a pattern.
"""
from __future__ import annotations

import ast
import functools
import inspect
import linecache
import re
import textwrap
import types

from ..source import cell_name
from ..source_edits import replaced


def hoistable_line(fun):
    """(line number, text) of the one line of the learner's that made the lambda `fun` and
    jitted it, where moving it above its loop changes no result: a lambda without defaults
    or free variables whose globals are modules, functions or classes; else None.

        >>> hoistable_line(lambda v: v) is None       # (no jit on this line)
        True
    """
    if not _reads_nothing_changing(fun) or \
            set(fun.__code__.co_names) & _rebound(fun.__code__.co_filename):
        return None             # (`for fn in fs: jax.jit(lambda v: fn(v))`: fn changes)
    code = fun.__code__
    text = linecache.getline(code.co_filename, code.co_firstlineno).strip()
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)]
    jits = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and
            ast.unparse(n.func).split(".")[-1] == "jit"]
    if len(lambdas) != 1 or len(jits) != 1 or not isinstance(tree.body[0], ast.Assign) or \
            tree.body[0].value is not jits[0]:
        # (a call of the new jit on the line, `x = jax.jit(lambda v: ...)(x)`: moved above
        # the loop it would run once, not at every pass; hoistable_call writes that one)
        return None
    return code.co_firstlineno, text


def partial_at_the_call(part, site):
    """The fill of _PARTIAL_AT_CALL_FIX for `part`, a functools.partial jitted anew and called
    at `site` (the learner's line): the call with the partial's function jitted once and
    given what the partial bound (`y = loss_jit(x, beta=beta)`), the line made the partial's
    jit (the call's own, `jax.jit(partial(loss, beta=b))(x)`, or the line above it binding
    the name called, `f = jax.jit(partial(loss, beta=b))`); None where these cannot be read
    (a jit with options, a call with *args or **kwargs, the name bound elsewhere)."""
    if site is None:
        return None
    read = _line_and_tree(site)
    if read is None:
        return None
    text, tree = read
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and
             _jit_of_partial(n.func) is not None or isinstance(n, ast.Call) and
             isinstance(n.func, ast.Name)]
    for call in calls:
        if any(isinstance(a, ast.Starred) for a in call.args) or \
                any(k.arg is None for k in call.keywords):
            continue
        inner, made, dropped = _jit_of_partial(call.func), site.line, ""
        if inner is None:               # f(x): f bound on a line above, by `f = jax.jit(...)`
            found = _bound_above(site, call.func.id)
            if found is None:
                continue
            inner, made = found
            dropped = f"; line {made} deleted"
        func = inner.args[0]
        if not isinstance(func, ast.Name) or func.id != getattr(part.func, "__name__", None):
            continue
        args = [ast.unparse(a) for a in inner.args[1:] + call.args]
        args += [f"{k.arg}={ast.unparse(k.value)}" for k in inner.keywords + call.keywords]
        body = text.strip()
        new_call = f"{func.id}_jit({', '.join(args)})"
        line = replaced(body, [(call, new_call)])
        # (JAX 101's `jax.jit(partial(unjitted_loop_body))(i)` binds nothing to pass)
        then = ("pass what the partial bound in the call (traced: one program for all its "
                "values; static if it must be)" if inner.args[1:] or inner.keywords else
                "call that (this partial binds nothing)")
        return {"func": func.id, "call": line, "line": site.line, "made": made,
                "dropped": dropped, "then": then}
    return None


def _jit_of_partial(node):
    """The partial(...) call of `node` where it is `jax.jit(functools.partial(g, ...))` (jit
    given nothing else), else None."""
    if not (isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] == "jit" and
            len(node.args) == 1 and not node.keywords):
        return None
    inner = node.args[0]
    if isinstance(inner, ast.Call) and ast.unparse(inner.func).split(".")[-1] == "partial" \
            and inner.args and not any(isinstance(a, ast.Starred) for a in inner.args) and \
            all(k.arg is not None for k in inner.keywords):
        return inner
    return None


def _bound_above(site, name):
    """(the partial call, its line number) of `name = jax.jit(functools.partial(...))` on the
    line just above `site`'s at the same indentation, else None."""
    node = _assignment_above(site)[1]
    if node is None or node.targets[0].id != name:
        return None
    inner = _jit_of_partial(node.value)
    return None if inner is None else (inner, site.line - 1)


def method_at_the_call(method, site):
    """The fill of _METHOD_AT_CALL_FIX (or, "new": True, of _METHOD_NEW_OBJECT_FIX) for the
    bound method `method` jitted and called at `site` (`y = jax.jit(m.apply)(x)`), m a
    plain name; new where the loop around the line binds m (made anew at each pass); None
    where the line cannot be read so."""
    if site is None:
        return None
    read = _line_and_tree(site)
    if read is None:
        return None
    text, tree = read
    name = getattr(getattr(method, "__func__", None), "__name__", None)
    for call in ast.walk(tree):
        jit = call.func if isinstance(call, ast.Call) else None
        if not (isinstance(jit, ast.Call) and ast.unparse(jit.func).split(".")[-1] == "jit"
                and len(jit.args) == 1 and not jit.keywords and
                isinstance(jit.args[0], ast.Attribute) and jit.args[0].attr == name and
                isinstance(jit.args[0].value, ast.Name)):
            continue
        obj = jit.args[0].value.id
        body = text.strip()
        fill = {"obj": obj, "method": name, "line": site.line,
                "call": replaced(body, [(call.func, f"{name}_jit")])}
        new = _bound_in_loop(site, obj)
        return None if new is None else {**fill, "new": new}
    return None


def _bound_in_loop(site, name) -> bool | None:
    """Whether the loop around `site`'s line (the nearest `for`/`while` above, less
    indented) binds `name`: its target, or an assignment to it in its body above the line;
    None where no loop is seen around it (a function called again: no loop to move out of)."""
    lines = [linecache.getline(site.file, n) for n in range(1, site.line + 1)]
    indent = len(lines[-1]) - len(lines[-1].lstrip())
    for n in range(len(lines) - 2, -1, -1):
        line = lines[n]
        if line.strip() and len(line) - len(line.lstrip()) < indent and \
                line.lstrip().startswith(("for ", "while ")):
            head = line.strip()
            if head.startswith("for ") and re.search(rf"\b{name}\b", head.split(" in ")[0]):
                return True
            return any(re.match(rf"\s*{name}\s*=[^=]", body) for body in lines[n + 1:-1])
        if line.strip() and len(line) - len(line.lstrip()) < indent and \
                line.lstrip().startswith(("def ", "class ", "async def ")):
            return None
    return None


def _reads_nothing_changing(fun, lambda_only=True) -> bool:
    """Whether `fun` is a lambda (or, not `lambda_only`, a def) without defaults or free
    variables whose globals are modules, functions or classes: made once, it computes what
    each one made anew did."""
    code = getattr(fun, "__code__", None)
    if code is None or lambda_only and getattr(fun, "__name__", "") != "<lambda>" or \
            code.co_freevars or \
            getattr(fun, "__defaults__", None) or getattr(fun, "__kwdefaults__", None):
        return False
    scope = getattr(fun, "__globals__", {})
    for name in code.co_names:          # (attributes too: jnp.sin's `sin`, not a global)
        value = scope.get(name)
        if name in scope and not isinstance(value, (types.ModuleType, types.FunctionType,
                                                    types.BuiltinFunctionType, type)) and \
                not callable(value):
            return False
    return True


def hoistable_call(fun, site, wrapped=None):
    """The fill of _HOIST_CALL_FIX where the jit of `fun` was made and called at `site`'s line
    (`jax.jit(lambda v: ...)(x)`, `jax.jit(jax.grad(loss))(w)`), inside a loop or a
    function, and what it jits reads nothing that changes: a lambda (_reads_nothing_changing)
    or, `wrapped` the function a wrapper wraps, an expression of names of modules, functions
    and classes; neither rebound anywhere in the file (`for fn in fs:` would change them).
    Else None."""
    found = _jit_at(site, fun, wrapped)
    if found is None:
        return None
    body, call, jit = found
    if not isinstance(call, ast.Call) or call.func is not jit:
        return None                     # (made on the line, called elsewhere: not this one)
    around = _block_around(site)
    if around is None:
        return None
    loop = around.startswith(("for ", "while "))
    where = "above the loop that runs it" if loop else f"above `{around}`, outside it"
    lam = isinstance(jit.args[0], ast.Lambda)
    return {"line": site.line, "code": ast.get_source_segment(body, jit.args[0]),
            "what": "the lambda" if lam else "the function it jits",
            "jitted": "lambda_jit" if lam else f"{getattr(wrapped, '__name__', 'f')}_jit",
            "runs": "a pass of the loop" if loop else "a call of the function", "where": where,
            "call": replaced(body, [(jit, "lambda_jit" if lam else
                                     f"{getattr(wrapped, '__name__', 'f')}_jit")])}


# `-n 3 -r 2 stmt`: IPython's %timeit options before the statement (-n, -r, -p take a value)
_TIMEIT_ARGS = re.compile(r"((?:-[nrp]\s*\S+\s+|-[tcqo]\s+)*)(\S.*)")


def _timeit_args(text: str) -> str | None:
    """What follows `%timeit` on a cell's line, as typed or as IPython's transformed code
    holds it (`get_ipython().run_line_magic('timeit', '-n 3 x + 1')`, linecache's text)."""
    text = text.strip()
    if text.startswith("%timeit "):
        return text[len("%timeit "):]
    try:
        call = ast.parse(text).body[0].value
    except (SyntaxError, IndexError, AttributeError):
        return None
    if isinstance(call, ast.Call) and getattr(call.func, "attr", None) == "run_line_magic" and \
            len(call.args) == 2 and all(isinstance(a, ast.Constant) for a in call.args) and \
            call.args[0].value == "timeit":
        return call.args[1].value
    return None


def timeit_call(fun, site):
    """The fill of _TIMEIT_HOIST_FIX where `site` is the learner's `%timeit` line and its
    statement makes and calls the one jit of the lambda `fun`, which reads nothing that
    changes (`%timeit jax.jit(lambda v: v + 1)(x)`): the options, the lambda's code and the
    statement calling `lambda_jit` instead. Else None.

        >>> timeit_call(lambda v: v, None) is None
        True
    """
    if site is None or not _reads_nothing_changing(fun):
        return None
    args = _timeit_args(linecache.getline(site.file, site.line))
    found = None if args is None else _TIMEIT_ARGS.fullmatch(args.strip())
    if found is None:
        return None
    options, statement = found.groups()
    try:
        tree = ast.parse(statement)
    except SyntaxError:
        return None
    jits = [n for n in ast.walk(tree) if _is_jit_of_one(n)]
    lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)]
    if len(jits) != 1 or len(lambdas) != 1 or jits[0].args[0] is not lambdas[0] or \
            not any(isinstance(n, ast.Call) and n.func is jits[0] for n in ast.walk(tree)) or \
            set(fun.__code__.co_names) & _rebound(site.file):
        return None
    jit = jits[0]
    return {"options": options, "code": ast.get_source_segment(statement, jit.args[0]),
            "call": replaced(statement, [(jit, "lambda_jit")])}


def hoistable_wrapper_line(fun, site, wrapped):
    """(line number, text) of `name = jax.jit(wrapper(func))` on the line above `site`'s,
    which calls `name`, in a loop, what it jits reading nothing that changes (as
    hoistable_call's); else None."""
    if site is None or wrapped is None:
        return None
    text, node = _assignment_above(site)
    around = _block_around(site)
    if node is None or around is None or not around.startswith(("for ", "while ")):
        return None
    if not (_is_jit_of_one(node.value) and
            re.search(rf"\b{node.targets[0].id}\(", text) and
            _reads_nothing_rebound(node.value.args[0], wrapped, site.file)):
        return None
    return site.line - 1, linecache.getline(site.file, site.line - 1).strip()


def _is_jit_of_one(node) -> bool:
    """Whether `node` is `jax.jit(E)`: jit given one argument and nothing else."""
    return isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] == "jit" and \
        len(node.args) == 1 and not node.keywords and \
        not isinstance(node.args[0], ast.Starred)


def _jit_at(site, fun, wrapped):
    """(the stripped line, the call node around the jit, the jit node) of the one
    `jax.jit(E)` at `site`'s line whose E reads nothing that changes; else None."""
    if site is None:
        return None
    read = _line_and_tree(site)
    if read is None:
        return None
    text, tree = read
    jits = [n for n in ast.walk(tree) if _is_jit_of_one(n)]
    lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)]
    if len(jits) != 1:
        return None
    jit = jits[0]
    if isinstance(jit.args[0], ast.Lambda):
        if wrapped is not None or len(lambdas) != 1 or not _reads_nothing_changing(fun) or \
                fun.__code__.co_firstlineno != site.line or \
                set(fun.__code__.co_names) & _rebound(site.file):
            return None
    elif wrapped is None or lambdas or \
            not _reads_nothing_rebound(jit.args[0], wrapped, site.file):
        return None
    parents = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.func is jit]
    return text.strip(), parents[0] if parents else None, jit


def _reads_nothing_rebound(node, wrapped, file) -> bool:
    """Whether the expression `node` (what a jit is given: `jax.grad(loss)`) names only
    modules, functions and classes of `wrapped`'s globals, none rebound in `file`."""
    scope = getattr(wrapped, "__globals__", {})
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    return bool(names) and not names & _rebound(file) and all(
        isinstance(scope.get(name), (types.ModuleType, types.FunctionType,
                                     types.BuiltinFunctionType, type)) for name in names)


def _rebound(file) -> frozenset:
    """The names assigned anywhere in `file` (a loop's target, `fn = ...`): a function or
    module read under one of them may change between runs. Everything where the file cannot
    be read (no name is then told unchanging)."""
    return _names_stored("".join(linecache.getlines(file)))


@functools.lru_cache(maxsize=32)
def _names_stored(text: str) -> frozenset:
    """_rebound's names of a file's `text`, parsed once per text: every compile of a jit made
    anew asks (one per pass of a loop), and parsing and walking a file of 1,000 lines took
    0.07-0.18 s each time (a fifth of tests/core/test_numpy_eval.py's CPU)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return _EVERY_NAME
    return frozenset(n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and
                     isinstance(n.ctx, (ast.Store, ast.Del)))


class _Every(set):
    """Every name (a file that cannot be read)."""
    def __and__(self, other):
        return set(other)

    def __rand__(self, other):
        return set(other)


_EVERY_NAME = _Every()


def _block_around(site) -> str | None:
    """The head of the nearest loop or def around `site`'s line (`for i in range(3):`,
    `def step(x):`), stripped; None at the top level."""
    text = linecache.getline(site.file, site.line)
    indent = len(text) - len(text.lstrip())
    for n in range(site.line - 1, 0, -1):
        line = linecache.getline(site.file, n)
        if line.strip() and len(line) - len(line.lstrip()) < indent:
            head = line.strip()
            if head.startswith(("for ", "while ", "def ", "async def ")):
                return head
            indent = len(line) - len(line.lstrip())
    return None


def movable_nested_def(fun):
    """The fill of _NESTED_DEF_FIX where `fun` is a def jitted by its decorator inside
    another function and reads nothing that changes (no free variables, no defaults, its
    globals modules, functions or classes, none rebound in the file); else None."""
    code = getattr(fun, "__code__", None)
    qualname = getattr(fun, "__qualname__", "")
    if code is None or fun.__name__ == "<lambda>" or \
            not qualname.endswith(f"<locals>.{fun.__name__}") or \
            not _reads_nothing_changing(fun, lambda_only=False) or \
            set(code.co_names) & _rebound(code.co_filename):
        return None
    try:
        lines, first = inspect.getsourcelines(fun)
    except (OSError, TypeError):
        return None
    source = textwrap.dedent("".join(lines)).rstrip("\n")
    if not source.startswith("@") or "jit" not in source.splitlines()[0]:
        return None
    last = first + len(lines) - 1
    indent = len(lines[0]) - len(lines[0].lstrip())
    outer = qualname.split(".<locals>.")[-2].split(".")[-1]
    head = None
    for n in range(first - 1, 0, -1):
        line = linecache.getline(code.co_filename, n)
        if line.strip() and len(line) - len(line.lstrip()) < indent:
            head = line.strip()
            break
    if head is None or not head.startswith(("def ", "async def ")):
        return None
    note = (f"    # lines {first}-{last}: moved out of {outer}, above `{head}`, "
            "unchanged")
    code_lines = source.splitlines()
    return {"name": fun.__name__, "outer": outer, "first": first, "last": last,
            "outer_head": head, "code": "\n".join([code_lines[0] + note] + code_lines[1:])}


def defaults_at_the_call(fun, site):
    """The fill of _DEFAULTS_AT_CALL_FIX for the lambda `fun` with defaults (`lambda v, k=k:
    v * k`), jitted at `site`'s line or bound on the line above it (`f = jax.jit(...)`) and
    called at `site`'s line with its other arguments by position, in a loop; its body
    reading nothing else that changes. None where that cannot be read so."""
    code = getattr(fun, "__code__", None)
    if site is None or code is None or fun.__name__ != "<lambda>" or code.co_freevars or \
            getattr(fun, "__kwdefaults__", None) or not getattr(fun, "__defaults__", None):
        return None
    around = _block_around(site)
    if around is None or not around.startswith(("for ", "while ")):
        return None
    made = code.co_firstlineno
    if made not in (site.line, site.line - 1):
        return None
    made_text = linecache.getline(site.file, made)
    call_text = linecache.getline(site.file, site.line)
    try:
        made_tree = ast.parse(made_text.strip())
        call_tree = made_tree if made == site.line else ast.parse(call_text.strip())
    except SyntaxError:
        return None
    lambdas = [n for n in ast.walk(made_tree) if isinstance(n, ast.Lambda)]
    jits = [n for n in ast.walk(made_tree) if _is_jit_of_one(n) and n.args[0] in lambdas]
    if len(lambdas) != 1 or len(jits) != 1:
        return None
    lam, jit = lambdas[0], jits[0]
    args = lam.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or \
            len(args.defaults) != len(fun.__defaults__):
        return None
    names = [a.arg for a in args.args]
    defaulted = names[len(names) - len(args.defaults):]
    if set(code.co_names) & _rebound(site.file) - set(defaulted):
        return None
    body = made_text.strip()
    bare = ast.Lambda(args=ast.arguments(posonlyargs=[], args=args.args, vararg=None,
                                         kwonlyargs=[], kw_defaults=[], kwarg=None,
                                         defaults=[]), body=lam.body)
    passed = [ast.unparse(d) for d in args.defaults]
    if made == site.line:               # jax.jit(lambda v, k=k: ...)(x) on one line
        calls = [n for n in ast.walk(call_tree) if isinstance(n, ast.Call) and n.func is jit]
        if len(calls) != 1 or calls[0].keywords or \
                len(calls[0].args) != len(names) - len(defaulted):
            return None
        call = calls[0]
        jitted = f"f_jit = jax.jit({ast.unparse(bare)})"
        new_call = f"f_jit({', '.join([ast.unparse(a) for a in call.args] + passed)})"
        return {"names": ", ".join(defaulted), "made": made, "line": site.line,
                "jitted": jitted, "dropped": "",
                "call": replaced(body, [(call, new_call)])}
    node = made_tree.body[0] if len(made_tree.body) == 1 else None
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and
            isinstance(node.targets[0], ast.Name) and node.value is jit):
        return None
    name = node.targets[0].id
    calls = [n for n in ast.walk(call_tree) if isinstance(n, ast.Call) and
             isinstance(n.func, ast.Name) and n.func.id == name]
    if len(calls) != 1 or calls[0].keywords or \
            len(calls[0].args) != len(names) - len(defaulted):
        return None
    call, text = calls[0], call_text.strip()
    new_call = f"{name}({', '.join([ast.unparse(a) for a in call.args] + passed)})"
    return {"names": ", ".join(defaulted), "made": made, "line": site.line,
            "jitted": f"{name} = jax.jit({ast.unparse(bare)})",
            "dropped": f"; line {made} deleted",
            "call": replaced(text, [(call, new_call)])}


def made_in_the_loop(obj, site):
    """(line number, text) of `name = Cls(...)` in the loop around `site`'s line, above it,
    where `site`'s line calls `name.something(...)` and `obj` is a Cls, its arguments
    naming nothing the file rebinds (`Trainer(lr)`, lr a loop's: not moved); else None."""
    if site is None:
        return None
    around = _block_around(site)
    if around is None or not around.startswith(("for ", "while ")):
        return None
    text = linecache.getline(site.file, site.line)
    indent = len(text) - len(text.lstrip())
    cls = type(obj).__name__
    for n in range(site.line - 1, 0, -1):
        line = linecache.getline(site.file, n)
        if not line.strip():
            continue
        if len(line) - len(line.lstrip()) < indent:
            return None                 # the loop's head: not made in it
        try:
            tree = ast.parse(line.strip())
        except SyntaxError:
            continue
        node = tree.body[0] if len(tree.body) == 1 else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call) and \
                ast.unparse(node.value.func).split(".")[-1] == cls and \
                re.search(rf"\b{node.targets[0].id}\.\w+\(", text):
            read = {m.id for a in node.value.args + [k.value for k in node.value.keywords]
                    for m in ast.walk(a) if isinstance(m, ast.Name)}
            return None if read & _rebound(site.file) else (n, line.strip())
    return None


def _line_and_tree(site):
    """(the learner's line at `site`, stripped, and its ast), or None where the line does not
    parse alone (one line of a statement written over several)."""
    text = linecache.getline(site.file, site.line).strip()
    try:
        return text, ast.parse(text)
    except SyntaxError:
        return None


def _assignment_above(site):
    """(the learner's line at `site`, the one `name = ...` statement on the line just above it
    at the same indentation, or None there)."""
    text = linecache.getline(site.file, site.line)
    above = linecache.getline(site.file, site.line - 1)
    if not above.strip() or len(above) - len(above.lstrip()) != len(text) - len(text.lstrip()):
        return text, None
    try:
        tree = ast.parse(above.strip())
    except SyntaxError:
        return text, None
    node = tree.body[0] if len(tree.body) == 1 else None
    single = isinstance(node, ast.Assign) and len(node.targets) == 1 and \
        isinstance(node.targets[0], ast.Name)
    return text, node if single else None


def made_by_a_cell(site, holds, called: str | None = None):
    """Where a cell, not a loop, made anew the object the call at `site` uses: `site` a line
    at a notebook cell's top level (no loop or def around it) calling `name.{called}(...)`
    (`model.step(x)`), or `name(...)` where `called` is None, `holds(name)` true (the name
    holds the object whose jit compiled); the fill of fresh_functions' _INIT_METHOD_CELL_FIX:
    the name, the latest cell's top-level `name = ...` line (`made`, its text `line`), the
    call line (`call`, `at`). None where the call is in a loop or a function, or no cell's
    line binds the name."""
    if site is None or cell_name(site.file) is None or _block_around(site) is not None:
        return None
    text = linecache.getline(site.file, site.line).strip()
    calls = re.finditer(rf"(?<![\w.])([A-Za-z_]\w*)\.{called}\(" if called else
                        r"(?<![\w.])([A-Za-z_]\w*)\(", text)
    name = next((m.group(1) for m in calls if holds(m.group(1))), None)
    made = None if name is None else _latest_binding(name)
    if made is None:
        return None
    return dict(name=name, made=made[0], line=made[1], call=text,
                at=f"{cell_name(site.file)}:{site.line}")


def _latest_binding(name: str):
    """(`In[5]:1`, the line) of the top-level `name = ...` line of the latest notebook cell
    (by its number) that has one, or None: the cells' code is in linecache."""
    best = None
    for file, entry in list(linecache.cache.items()):
        label = cell_name(file)
        number = re.fullmatch(r"In\[(\d+)\]", label or "")
        if number is None or len(entry) < 3:
            continue
        for k, line in enumerate(entry[2], 1):
            if re.match(rf"{re.escape(name)} = \S", line) and \
                    (best is None or int(number.group(1)) >= best[0]):
                best = (int(number.group(1)), f"{label}:{k}", line.strip())
    return None if best is None else best[1:]
