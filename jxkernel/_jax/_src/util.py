"""jxkernel._src.util, as jax._src.util for what tutorials use of it: `map` and `zip` that
insist on equal lengths, small list helpers, and `cache`, the memoizing decorator JAX's tests
use.

    >>> safe_map(lambda a, b: a + b, [1, 2], [3, 4])
    [4, 6]
    >>> safe_zip([1, 2], "ab")
    [(1, 'a'), (2, 'b')]
"""
import builtins
import functools
import itertools

from ...core import lru
from ...core.config import config

# JAX's private spelling of `jax.clear_caches`: forget every cached trace and executable
from ...api.runtime_state import clear_caches as clear_all_caches  # noqa: F401


def safe_map(f, *args) -> list:
    """`list(map(f, *args))`, raising ValueError if the sequences differ in length."""
    if not args:
        raise TypeError("safe_map requires at least 2 arguments")
    args = [list(a) for a in args]
    for i, a in enumerate(args[1:], start=2):
        if len(a) != len(args[0]):
            relation = "shorter" if len(a) < len(args[0]) else "longer"
            raise ValueError(f"safe_map() argument {i} is {relation} than argument 1")
    return list(builtins.map(f, *args))


def foreach(f, *args) -> None:
    """`f` called on each tuple of the equal-length `args`, for its effect (safe_map's length
    check; JAX's util.foreach).

        >>> seen = []
        >>> foreach(lambda a, b: seen.append(a + b), [1, 2], [10, 20]); seen
        [11, 22]
    """
    safe_map(f, *args)


def safe_zip(*args) -> list:
    """`list(zip(*args))`, raising ValueError if the sequences differ in length."""
    if not args:
        raise TypeError("safe_zip requires at least 1 argument")
    args = [list(a) for a in args]
    lengths = tuple(len(a) for a in args)
    for i, n in enumerate(lengths[1:], start=1):
        if n != lengths[0]:
            raise ValueError(f"safe_zip() argument {i} has length {n} but argument 0 has length "
                             f"{lengths[0]}. All lengths: {lengths}")
    return list(builtins.zip(*args))


def unzip2(pairs) -> tuple:
    """([a0, a1, ...], [b0, b1, ...]) as tuples, from [(a0, b0), (a1, b1), ...].

    >>> unzip2([(1, "a"), (2, "b")])
    ((1, 2), ('a', 'b'))
    """
    firsts, seconds = [], []
    for a, b in pairs:
        firsts.append(a)
        seconds.append(b)
    return tuple(firsts), tuple(seconds)


def unzip3(triples) -> tuple:
    """([a0, a1, ...], [b0, b1, ...], [c0, c1, ...]) as tuples, from [(a0, b0, c0), ...].

    >>> unzip3([(1, "a", True), (2, "b", False)])
    ((1, 2), ('a', 'b'), (True, False))
    """
    firsts, seconds, thirds = [], [], []
    for a, b, c in triples:
        firsts.append(a)
        seconds.append(b)
        thirds.append(c)
    return tuple(firsts), tuple(seconds), tuple(thirds)


def split_list(items, sizes) -> list:
    """`items` cut into pieces of the given `sizes`, the rest last.

    >>> split_list([1, 2, 3, 4], [1, 2])
    [[1], [2, 3], [4]]
    """
    items = list(items)
    bounds = [0, *itertools.accumulate(sizes)]
    return [items[a:b] for a, b in builtins.zip(bounds, bounds[1:])] + [items[bounds[-1]:]]


def partition_list(mask, items) -> tuple:
    """`items` split by the booleans `mask`: (those at False, those at True).

    >>> partition_list([True, False, True], "abc")
    (['b'], ['a', 'c'])
    """
    mask, items = list(mask), list(items)
    if len(mask) != len(items):
        raise ValueError(f"partition_list: {len(mask)} flags for {len(items)} items")
    return ([x for b, x in builtins.zip(mask, items) if not b],
            [x for b, x in builtins.zip(mask, items) if b])


def merge_lists(mask, falses, trues) -> list:
    """partition_list undone: one list taking `trues` where `mask` is True, `falses` elsewhere.

    >>> merge_lists([True, False, True], ["b"], ["a", "c"])
    ['a', 'b', 'c']
    """
    mask, falses, trues = list(mask), list(falses), list(trues)
    if sum(map(bool, mask)) != len(trues) or len(mask) - len(trues) != len(falses):
        raise ValueError(f"merge_lists: {len(falses)} and {len(trues)} items for a mask of "
                         f"{len(mask)} with {sum(map(bool, mask))} set")
    ts, fs = iter(trues), iter(falses)
    return [next(ts) if b else next(fs) for b in mask]


def tuple_update(t: tuple, idx: int, val) -> tuple:
    """`t` with item `idx` replaced by `val`.

    >>> tuple_update((1, 2, 3), 1, 9)
    (1, 9, 3)
    """
    assert 0 <= idx < len(t), (idx, len(t))
    return t[:idx] + (val,) + t[idx + 1:]


def subvals(items, replace) -> tuple:
    """`items` as a tuple with the (index, value) pairs of `replace` put in.

    >>> subvals((1, 2, 3), [(0, 9), (2, 8)])
    (9, 2, 8)
    """
    items = list(items)
    for i, v in replace:
        items[i] = v
    return tuple(items)


def curry(f):
    """`f` taking its arguments in two calls (JAX's `util.curry`, a decorator its tests use).

    >>> curry(lambda x, y, z: x * y + z)(2)(3, 4)
    10
    """
    return functools.partial(functools.partial, f)



def cache(max_size: int = 4096, trace_context_in_key: bool = True):
    """A decorator remembering `f`'s result per (hashable) arguments, the `max_size` most
    recently used (JAX's `util.cache`); with `trace_context_in_key`, also per the options a
    trace depends on (x64 and the others jit keys on). `jax.clear_caches()` empties it.

    >>> calls = []
    >>> @cache()
    ... def double(x):
    ...     calls.append(x)
    ...     return 2 * x
    >>> double(3), double(3), calls
    (6, 6, [3])
    """
    def wrap(f):
        memo = lru.LRU(max_size)

        @functools.wraps(f)
        def cached(*args, **kwargs):
            key = (config._trace_state if trace_context_in_key else None, args,
                   tuple(sorted(kwargs.items())))
            found = memo.get(key, memo)
            if found is memo:
                found = memo[key] = f(*args, **kwargs)
            return found

        cached.cache_clear = memo.clear
        return cached
    return wrap
