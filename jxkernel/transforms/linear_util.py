"""jax.extend.linear_util (jxkernel.extend.linear_util gives its names): a function wrapped
with the transformations applied to it on the way to tracing (flattening its arguments, say), and
`Store`s in which those transformations leave what they learn while it runs (the output's
treedef).

    >>> f = wrap_init(lambda x, y: x + y)
    >>> f.call_wrapped(1, 2)
    3
    >>> g = f.wrap(lambda fun, *args: fun(*args) * 10)
    >>> g.call_wrapped(1, 2)
    30
"""
from __future__ import annotations

import functools

from .api_util import fun_name

_EMPTY = object()


class StoreException(Exception):
    """A Store read before anything was stored, or stored into twice."""


class Store:
    """A value a transformation stores once, as the wrapped function runs."""
    __slots__ = ("_val",)

    def __init__(self):
        self._val = _EMPTY

    def store(self, val):
        if self._val is not _EMPTY:
            raise StoreException("Store occupied: the wrapped function ran twice")
        self._val = val

    def reset(self):
        self._val = _EMPTY

    @property
    def val(self):
        if self._val is _EMPTY:
            raise StoreException("Store empty: the wrapped function has not run yet")
        return self._val

    def __nonzero__(self):
        return self._val is not _EMPTY

    __bool__ = __nonzero__


class EqualStore(Store):
    """A Store that accepts the same value stored again (a function traced twice)."""
    __slots__ = ()

    def store(self, val):
        if self._val is not _EMPTY and self._val != val:
            raise StoreException(f"Store occupied with {self._val!r}, not {val!r}")
        self._val = val


class WrappedFun:
    """`f` with keyword `params`, wrapped by `transforms` (outermost last): each transform is
    `t(fun, *args, **kwargs)` that calls `fun` (the function inside it) as it likes."""
    __slots__ = ("f", "transforms", "params", "debug_info", "in_type")

    def __init__(self, f, transforms=(), params=(), debug_info=None, in_type=None):
        self.f, self.transforms, self.params = f, tuple(transforms), tuple(params)
        self.debug_info, self.in_type = debug_info, in_type

    @property
    def __name__(self):
        return fun_name(self.f)

    def wrap(self, transform) -> "WrappedFun":
        """This function, with `transform(fun, *args, **kwargs)` around it."""
        return WrappedFun(self.f, self.transforms + (transform,), self.params, self.debug_info,
                          self.in_type)

    def call_wrapped(self, *args, **kwargs):
        fun = functools.partial(self.f, **dict(self.params)) if self.params else self.f
        for transform in self.transforms:
            fun = functools.partial(transform, fun)
        return fun(*args, **kwargs)

    def __call__(self, *args, **kwargs):
        return self.call_wrapped(*args, **kwargs)

    def __repr__(self):
        return f"Wrapped function {self.__name__} with {len(self.transforms)} transformation(s)"

    def __eq__(self, other):
        return (type(other) is WrappedFun and self.f == other.f
                and self.transforms == other.transforms and self.params == other.params)

    def __hash__(self):
        return hash((self.f, self.transforms, self.params))


def wrap_init(f, params=None, *, debug_info=None) -> WrappedFun:
    """`f` as a WrappedFun with no transformations yet (`params`: keyword arguments)."""
    return WrappedFun(f, (), tuple(sorted((params or {}).items())), debug_info)


def transformation_with_aux2(gen, fun: WrappedFun, *gen_static_args):
    """(fun wrapped by `gen(f, store, *gen_static_args, *args)`, the Store `gen` fills)."""
    store = Store()
    wrapped = fun.wrap(lambda f, *args, **kwargs: gen(f, store, *gen_static_args, *args,
                                                      **kwargs))
    return wrapped, (lambda: store.val)


def _curried(f):
    """JAX's `curry`: `f(a)` is `partial(f, a)`, so `@transformation def gen...` then
    `gen(fun, *static_args)` wraps `fun`."""
    return functools.partial(functools.partial, f)


@_curried
def transformation2(gen, fun: WrappedFun, *gen_static_args) -> WrappedFun:
    """`fun` wrapped by `gen(f, *gen_static_args, *args, **kwargs)`, which calls the
    function inside it, `f`, as it likes (JAX's)."""
    return fun.wrap(lambda f, *args, **kwargs: gen(f, *gen_static_args, *args, **kwargs))


@_curried
def transformation(gen, fun: WrappedFun, *gen_static_args) -> WrappedFun:
    """JAX's older generator form: `gen(*gen_static_args, *args, **kwargs)` yields the
    arguments for the function inside, `(args, kwargs)`, is sent its result and yields the
    wrapped function's result.

        >>> @transformation
        ... def scaled(k, *args):
        ...     out = yield args, {}
        ...     yield out * k
        >>> scaled(wrap_init(lambda x: x + 1), 10).call_wrapped(2)
        30
    """
    def gen2(f, *args, **kwargs):
        gen_inst = gen(*args, **kwargs)
        args_, kwargs_ = next(gen_inst)
        return gen_inst.send(f(*args_, **kwargs_))
    return transformation2(gen2, fun, *gen_static_args)()


@_curried
def transformation_with_aux(gen, fun: WrappedFun, *gen_static_args):
    """JAX's older generator form with an auxiliary output: as `transformation`, with `gen`
    yielding `(result, aux)` at the end; gives (the wrapped function, a thunk of aux)."""
    def gen2(f, store, *args, **kwargs):
        gen_inst = gen(*args, **kwargs)
        args_, kwargs_ = next(gen_inst)
        ans, aux = gen_inst.send(f(*args_, **kwargs_))
        store.store(aux)
        return ans
    return transformation_with_aux2(gen2, fun, *gen_static_args)


def merge_linear_aux(aux1, aux2):
    """The value of whichever of two aux getters has one (one of two paths ran)."""
    try:
        out1 = aux1()
    except StoreException:
        return False, aux2()
    return True, out1


def cache(call):
    """`call(fun, *args)` memoized on the WrappedFun and the (hashable) arguments."""
    memo = {}

    @functools.wraps(call)
    def memoized(fun, *args):
        key = (fun, args)
        if key not in memo:
            memo[key] = call(fun, *args)
        return memo[key]
    memoized.cache_clear = memo.clear
    return memoized
