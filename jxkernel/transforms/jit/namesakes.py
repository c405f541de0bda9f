"""The jit objects of functions JAX jits but jxkernel keeps plain for eager speed.

In JAX `jnp.sin`, `jnp.dot`, `nn.sigmoid` or `lax.dynamic_index_in_dim` are jit objects, so
`export.export(jnp.dot)`, `jnp.sin.lower(x)` and `jnp.sort.eval_shape(x)` work. Here they
stay plain functions (no jit dispatch per eager call) and carry that jit as `as_jit`, with
its `lower`, `trace` and `eval_shape`, set where each is defined:

    >>> @jax_jitted(static_argnames=("axis",))
    ... def total(a, axis=None):
    ...     return jnp.sum(a, axis)
    >>> total(jnp.ones((2, 3)), axis=0)              # the plain function, called
    Array([2., 2., 2.], dtype=float32)
    >>> total.eval_shape(jnp.ones((2, 3)), axis=0)   # through its jit, as JAX's
    ShapeDtypeStruct(shape=(3,), dtype=float32)

Functions JAX leaves plain (`jnp.sum`, `nn.relu`) go without; tests/numpy/test_jitted_names.py
holds JAX's list. Here, not in numpy/, so that lax's functions can take it too.
"""
from __future__ import annotations

import functools
import inspect
import sys
import types

from ...core.avals import ShapeDtypeStruct
from ...core.errors import shapes_only_error
from ...tree_util import keystr, tree_flatten_with_path
from .function import jit
from .args import leaf_aval
from ...core.traceback_util import (filter_as_jaxs_c_call, filter_before_raising,
                                     filter_raised, register_boundary)


class NamesakeJit:
    """The jit JAX's namesake of `fun` is, made on first use: some 240 functions carry one,
    and making them all at `import jxkernel` cost it milliseconds for what few programs use.
    Reads as the jit it stands for (`.lower`, `.__name__`, `._static_argnames`, a call)."""
    # (not the jit's own attribute names, which __getattr__ hands on: `_static_argnames`)
    __slots__ = ("_made_of", "_made")

    def __init__(self, fun, static_argnames, inline, jitted=None):
        self._made_of, self._made = (fun, static_argnames, inline), jitted

    @property
    def jitted(self):
        if self._made is None:
            fun, static_argnames, inline = self._made_of
            self._made = jit(fun, static_argnames=static_argnames, inline=inline)
        return self._made

    def __call__(self, *args, **kwargs):
        return self.jitted(*args, **kwargs)

    def lower(self, *args, **kwargs):
        return self.jitted.lower(*args, **kwargs)

    def trace(self, *args, **kwargs):
        return self.jitted.trace(*args, **kwargs)

    def eval_shape(self, *args, **kwargs):
        return self.jitted.eval_shape(*args, **kwargs)

    def __getattr__(self, name):          # the rest of the jit's attributes
        return getattr(self.jitted, name)


def jax_jitted(fun=None, *, static_argnames=None, inline=None):
    """Give `fun` the jit JAX's namesake is (`as_jit`, `lower`, `trace`, `eval_shape`), with
    JAX's static arguments and inline flag. A jnp_jit function (numpy/util.py) lends its own
    jit when given no arguments. What JAX's jit checks before its function runs is checked
    too: a static argument must be hashable (`with_hashed_statics`: the one wrapper on the
    call path), and an argument that is no array gets the jit's error, not the function's
    (`jit_argument_error`, on the error path only). Else `fun` is returned itself."""
    if fun is None:
        return functools.partial(jax_jitted, static_argnames=static_argnames, inline=inline)
    jitted = getattr(fun, "jitted", None)      # jnp_jit's, when no arguments override it
    if static_argnames is not None or inline is not None:
        jitted = None
    namesake = NamesakeJit(fun, static_argnames or (), bool(inline), jitted)
    _register_running(fun, namesake)    # (a jnp_jit's plain calls too: cumsum of a string)
    if static_argnames and getattr(fun, "jitted", None) is None:   # (a jit's checks them)
        fun = with_hashed_statics(fun, namesake)
    fun.as_jit = namesake    # (api_util.NAMESAKE_ATTRS: never copied onto wrappers of fun)
    fun.lower, fun.trace, fun.eval_shape = namesake.lower, namesake.trace, namesake.eval_shape
    return fun


def with_hashed_statics(fun, namesake):
    """`fun`, refusing an unhashable static argument (a list, an array) in JAX's words, as the
    jit JAX's namesake is does (`jnp.resize(x, [3, 2])`, `jnp.nanmax(x, axis=[0])`): the
    static arguments given are hashed, and the jit's argument split runs only to raise.

    >>> f = with_hashed_statics(lambda x, n=1: x * n, NamesakeJit(lambda x, n=1: x * n,
    ...                                                         ("n",), False))
    >>> f(2, n=3)
    6
    """
    static_names = frozenset(namesake._made_of[1])
    at = tuple(i for i, (name, p) in enumerate(inspect.signature(fun).parameters.items())
               if name in static_names and p.kind is not p.KEYWORD_ONLY)

    @functools.wraps(fun)
    def call(*args, **kwargs):
        try:                            # (hashed here, as jit's cache key would hash them)
            for i in at:
                if i < len(args):
                    hash(args[i])
            for name in kwargs:
                if name in static_names:
                    hash(kwargs[name])
        except TypeError:
            try:
                namesake.jitted._split(args, kwargs)   # JAX's error (args.Arguments.split)
            except ValueError as e:      # raised as by JAX's C++ jit call: no frames, no note
                filter_as_jaxs_c_call(e)
                raise
        try:            # a traceback boundary, as the jit JAX's namesake is (past the statics'
            return fun(*args, **kwargs)     # hashing: JAX's C++ call raises that, no note)
        except Exception as e:
            filter_raised(e)
            raise
    register_boundary(call.__code__)
    return call


# the code each function JAX jits runs (a wrapper's innermost): {code: [(fun, namesake)]},
# read where one's argument check fails, to find which function is running (code shared by
# many, as jnp's unary functions' is, is told apart by name)
_RUNNING: dict = {}


def _register_running(fun, namesake) -> None:
    code = getattr(inspect.unwrap(fun), "__code__", None)
    if code is not None:
        _RUNNING.setdefault(code, []).append((fun, namesake))


# the code of the running functions whose arguments JAX checks before its jit traces them
# (a ufunc object's __call__ checks, then calls the jitted function; jnp.where)
_CHECKED_FIRST: set = set()


def checked_first(fun):
    """Mark `fun`, a function running as a jit of JAX's, as one whose arguments JAX checks
    before its jit traces them: a token is named as itself there, not as jit's tracer.
    Returns `fun`."""
    _CHECKED_FIRST.add(inspect.unwrap(fun).__code__)
    return fun


def runs_jitted(fun, static_argnames=(), checks_first=True):
    """Mark `fun` as a function JAX runs under a jit of its own without making it a public
    jit object (the function jnp.add's ufunc object calls; `checks_first=False`: the
    ufunc's methods, jits whose own check reads traced arguments): an argument that is no
    array gets the jit's error (`jit_argument_error`). Returns `fun`."""
    _register_running(fun, NamesakeJit(fun, tuple(static_argnames), True))
    return checked_first(fun) if checks_first else fun


def traced_before_checked(fun_name: str, frame) -> bool:
    """Whether the arguments a check names (`fun_name`'s, from `frame` outwards) reached it
    through JAX's jit, which traced them first: a token arrives as jit's tracer there."""
    running = running_function(fun_name, frame)
    return running is not None and running[2].f_code not in _CHECKED_FIRST


def running_as(fun, name: str, static_argnames=()):
    """Mark the plain `fun` as running under the private jit JAX's namesake calls (`jnp.sum`
    calls its jit `_reduce_sum`, `jnp.mean` `_mean`): an argument that is no array gets that
    jit's error, naming the function `name` (`jit_argument_error`). Returns `fun`'s code under
    that name (a jit of it is named as JAX's: "Compiling jit(_reduce_sum)").

        >>> def total(a, axis=None):
        ...     return jnp.sum(a, axis)
        >>> named = running_as(total, "_total", ("axis",))
        >>> named.__name__, named.__code__ is total.__code__
        ('_total', True)
    """
    # the same code object: the frame found running is `fun`'s, the message names `name`
    named = types.FunctionType(fun.__code__, fun.__globals__, name, fun.__defaults__,
                               fun.__closure__)
    named.__kwdefaults__, named.__qualname__ = fun.__kwdefaults__, name
    named.__module__, named.__doc__ = fun.__module__, fun.__doc__
    _register_running(named, NamesakeJit(named, tuple(static_argnames), True))
    return named


def running_function(fun_name: str, frame, depth: int = 8):
    """(fun, its NamesakeJit, its frame) of the function JAX jits running among `depth`
    frames from `frame` outwards (`fun_name` tells apart those sharing code), or None: where
    JAX's jit would have traced the arguments before the function's own check ran."""
    for _ in range(depth):
        if frame is None:
            return None
        found = _RUNNING.get(frame.f_code)
        if found:
            fun, namesake = next((f for f in found if f[0].__name__ == fun_name), found[0])
            return fun, namesake, frame
        frame = frame.f_back
    return None


def jit_argument_error(fun_name: str, depth: int = 8):
    """JAX's jit error for an argument that is no array (a string, an object) given to a
    function JAX jits, whose jit refuses it before the function runs: called where jnp's
    argument check fails (numpy/util.py's check_arraylike). The running function is found
    among the `depth` calling frames; the first leaf of its dynamic arguments that no jit
    takes is named by its path, as JAX's. None where no such function runs, or no leaf of its
    arguments is refused by jit (a list of numbers: the function's own check is JAX's too).

    >>> jnp.dot(jnp.ones(2), "a")      # doctest: +ELLIPSIS
    Traceback (most recent call last):
    TypeError: Error interpreting argument to <function dot at ...> as an abstract array. ...
    """
    running = running_function(fun_name, sys._getframe(1), depth)
    if running is None:
        return None
    fun, namesake, frame = running
    static_names = set(namesake._made_of[1])
    values = frame.f_locals
    for name in inspect.signature(fun).parameters:
        if name in static_names or name not in values:
            continue
        for path, leaf in tree_flatten_with_path(values[name])[0]:
            if isinstance(leaf, ShapeDtypeStruct):  # traced by JAX's jit; no data to run on
                return shapes_only_error(name + keystr(path), leaf)
            try:
                leaf_aval(leaf, lambda: name + keystr(path), fun)
            except TypeError as e:
                if getattr(e, "value", None) is leaf:     # args.not_an_array's
                    # (raised as from JAX's jit: filtered as under its boundary)
                    filter_before_raising(e, frame)
                    return e
            except Exception:    # (a big int's OverflowError: the function's own check says)
                pass
    return None


def jax_alias(fun, name: str, *, static_argnames=(), inline=False):
    """`fun` under another of JAX's names for it, which JAX makes a jit object of its own
    (`jnp.abs` beside `jnp.absolute`, `jnp.acos` beside `jnp.arccos`): a copy of `fun`'s code
    named `name` (so as fast eagerly), with a jit of its own, so that `export(jnp.abs)` names
    `abs` as JAX's does.

        >>> def total(a):
        ...     return jnp.sum(a)
        >>> plus = jax_alias(total, "plus")
        >>> plus.__code__.co_code == total.__code__.co_code, plus.as_jit.__name__
        (True, 'plus')
    """
    # the same bytecode under the alias's name: a code object of its own, so that a call's
    # frame says which name was called (jit_argument_error names `abs`, not `absolute`)
    code = fun.__code__.replace(co_name=name, co_qualname=name)
    copy = types.FunctionType(code, fun.__globals__, name, fun.__defaults__, fun.__closure__)
    copy.__kwdefaults__, copy.__doc__ = fun.__kwdefaults__, f"Alias of `{fun.__name__}`."
    copy.__qualname__, copy.__module__ = name, fun.__module__
    if hasattr(fun, "__wrapped__"):            # a jnp_jit wrapper: jit reads this signature
        copy.__wrapped__ = fun.__wrapped__
    if "__signature__" in vars(fun):           # (jnp.acos's is `(x, /)`, as arccos's)
        copy.__signature__ = fun.__signature__
    if hasattr(fun, "jitted"):                 # (its calls run that jit, as fun's do)
        copy.jitted = fun.jitted
    return jax_jitted(copy, static_argnames=static_argnames, inline=inline)
