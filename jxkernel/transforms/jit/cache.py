"""What a jitted function's caches hold, shared by every jit of the same function and
options (so that `jit(f)(x)` written in a loop hits what an earlier `jit(f)` compiled, as in
JAX): per signature an `Entry` (the executable, its consts on device, the output structure,
its hits) and, for the call path's cheapest way in, a `LastHit`.

    >>> f = lambda x: x
    >>> fun_state(f) is fun_state(f)
    True
"""
from __future__ import annotations

import copy
import inspect
import operator
import sys
import weakref

from ...core import compile_record
from ...core.config import config
from ...core.ir import ClosedJaxpr
from ...core.lru import CONSTANTS, LRU, SIGNATURES, Bounded
from ...core.monitoring import test_event
from ...core.source_info import function_source_info
from ...core.staging import convert_constvars_to_invars, is_ref
from ...core.watches import NEVER, watch_of
from ...tree_util import default_registry
from ...xla import fastpath
from ...xla.memory import forget_executables
from ...xla.scalars import scalar_kinds
from .args import static_key

class FunState:
    """What every jit of one function shares: its signature and source line, read once, and
    per set of jit options the caches (compiled, fast path, traces, history), so that
    `jit(f)(x)` written in a loop hits what an earlier `jit(f)` compiled, as in JAX."""
    __slots__ = ("signature", "source", "caches")

    def __init__(self, fun):
        try:
            self.signature = inspect.signature(fun)
        except (TypeError, ValueError):
            self.signature = None
        self.source = function_source_info(fun)
        self.caches: dict = {}        # jit options -> (cache, fast, traces, history, last)

    def caches_for(self, options) -> tuple:
        found = self.caches.get(options)
        if found is None:
            found = self.caches[options] = fresh_caches()
        return found

    def __del__(self):
        # The function is gone (its last jit with it): an Entry and its LastHits and twin refer
        # to each other, so unlinked here what it closed over goes now, not at the next gc (as
        # in JAX, whose caches hold the function weakly: JAX's test_jit_reference_dropping)
        for compiled, *_ in self.caches.values():
            for entry in compiled.values():
                if isinstance(entry, Entry):        # (sharded.py's stand-ins hold no cycle)
                    entry.unlink()


def fresh_caches() -> tuple:
    """Empty caches for a jit: (compiled, fast, traces, history, last). Bounded
    (core/lru.SIGNATURES, and CONSTANTS bytes of constants on device); the fast path's dict
    drops its oldest instead, so its lookup stays a dict's (what it dropped is found again in
    the LRU)."""
    fast, last = Bounded(SIGNATURES), {}
    compiled = LRU(SIGNATURES, weigh=_constant_bytes, max_weight=CONSTANTS,
                   on_evict=lambda _, entry: _forget(entry, fast, last))
    return compiled, fast, LRU(SIGNATURES), History(), last


class History(list):
    """What each compile of a function was specialised on (the explainer's): a list the
    compile log counts a function's compiles by, so one it can hold weakly, as a key by
    identity (two functions' histories are two keys, whatever they hold)."""
    __slots__ = ("__weakref__",)
    __hash__ = object.__hash__
    __eq__ = object.__eq__


def _constant_bytes(entry) -> int:
    return sum(getattr(c, "nbytes", 0) for c in getattr(entry, "consts", ()))


def _forget(entry, fast, last) -> None:
    """An entry the compiled cache dropped leaves the fast path too, so that its executable
    and its constants on device are freed (not kept until the fast path's own bound), now:
    its LastHits and twin point back at it, a cycle only the next gc would free (unlinked)."""
    for key, found in list(fast.items()):
        if found is entry or getattr(found, "entry", None) is entry:   # (sharded.py's)
            fast.pop(key, None)
    for key, recent in list(last.items()):   # (LAST_HIT, static keys, keyword names)
        if not recent.drop(entry):
            last.pop(key, None)
    if isinstance(entry, Entry):            # (sharded.py's stand-ins hold no cycle)
        entry.unlink()


FUN_STATES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # fun -> FunState


def clear_jit(jitted) -> None:
    """JAX's `f.clear_cache()`: the jit's caches emptied (compiled, fast path, last hits,
    traces, history), and its executables dropped from the by-text cache too, so that they
    are freed (JAX's test_jit_cache_clear counts the client's live executables)."""
    forget_executables(_xla_programs(jitted._cache.values()))
    for cache in (jitted._cache, jitted._fast, jitted._last, jitted._traces, jitted._history):
        cache.clear()
    jitted._looked_up = None          # (stages.looked_up's: found again, logged again)
    # JAX evicts the function's traces from its one tracing cache, whichever jit of it made
    # them: a jit of it with other options then misses as "never seen function" too (their
    # programs stay theirs)
    try:
        state = FUN_STATES.get(jitted._fun)
    except TypeError:                 # not weakly referenceable, or unhashable: no siblings
        state = None
    for _, _, _, history, _ in list(state.caches.values()) if state is not None else ():
        history.clear()
    compile_record.forget_traces(jitted._fun)


def _xla_programs(entries) -> list:
    """The jaxlib executables of these cache entries, which the by-text cache may hold. The
    NumPy backend's run their jaxpr and have none (its `loaded` raises NotImplementedError),
    nor does anything compiled there reach the by-text cache."""
    programs = []
    for entry in entries:
        try:
            programs.append(entry.exe.loaded)
        except (AttributeError, NotImplementedError):
            pass
    return programs


def check_traceable(jitted) -> None:
    """Before `jitted` traces its function: JAX's errors for a function its trace cache cannot
    hold weakly (a callable with __slots__: jit of it builds, a call raises) and for a trace
    under `jax.no_tracing`; counts the trace."""
    weakref.ref(jitted._fun)     # TypeError: cannot create weak reference to '...' object
    if config.jax_no_tracing:
        where = f" at {jitted._source_text()}" if jitted._source else ""
        raise RuntimeError(f"re-tracing function {jitted._name}{where} for `jit`, but "
                           f"'no_tracing' is set")
    test_event("trace_to_jaxpr")     # a miss of the tracing cache (JAX's event, jtu counts it)


def fun_state(fun) -> FunState:
    """The shared state of `fun`'s jits; a function that cannot be held weakly or hashed gets
    a state of its own (its jits share nothing).

    >>> f = lambda x: x
    >>> fun_state(f) is fun_state(f)
    True
    """
    try:
        found = FUN_STATES.get(fun)
        if found is None:
            found = FUN_STATES[fun] = FunState(fun)
        return found
    except TypeError:           # not weakly referenceable, or unhashable
        return FunState(fun)


class LastHit:
    """A jit's last fast-path hit: the argument types and placement (the first buffer's
    sharding) it had, the config it ran under (config._generation: any change since, and
    the hit is not reused), and the entry it ran."""
    __slots__ = ("avals", "where", "generation", "entry", "unflatten", "native", "kinds")

    def __init__(self, avals, where, entry, kinds=None, order=None, tree=None):
        # (None for a donating program, or arguments that are containers (`tree`, their
        # structure): jit's Python check, of positional Arrays, never matches; its C Hit alone
        # runs it, marking what it donates, flattening the containers)
        self.avals = None if getattr(entry, "donated", False) or tree is not None else \
            list(avals)            # (sharded.py's stand-in for an Entry: never donating)
        self.where, self.entry = where, entry
        self.kinds = kinds         # None: Arrays alone; else array.scalar_kinds of the leaves
        self.generation = config._generation
        out = entry.out_tree           # one array out (most functions): no unflatten call
        self.unflatten = _first if out.num_nodes == 1 and out.num_leaves == 1 else out.unflatten
        # the same check and call compiled (xla/fastpath.py), or None: the Python path
        self.native = fastpath.jit_hit(avals, where, self.generation, entry.exe,
                                       self.unflatten, entry, kinds,
                                       entry.const_bufs, order, tree,
                                       default_registry.flatten) if avals else None


_first = operator.itemgetter(0)
RECENT = 8          # the LastHits a `_last` key holds: the signatures C tries in turn


class Recent:
    """The LastHits of one key of a jit's `_last` (LAST_HIT, a static key, keyword names),
    newest first, at most RECENT: `native` is their Hits, which core/_fastpath.c tries in
    turn, so that f(a) and f(i), f(x=a) and f(x=i) or g(x, n=3) and g(i, n=3) called in turn
    each hit in C (JAX's C++ cache holds every signature); jit's Python path checks `newest`.
    A LastHit made under another config (a stale `generation`) leaves when one is put, and
    past RECENT the oldest put leaves.

        >>> Recent().newest is None
        True
    """
    __slots__ = ("newest", "hits", "native")

    def __init__(self):
        self.newest, self.hits, self.native = None, (), ()

    def put(self, hit) -> None:
        """`hit` is the newest; where it is held already (a call on the Python path, or one
        its Hit does not take), nothing else changes."""
        if hit is self.newest:
            return
        self.newest = hit
        if hit in self.hits:                 # (a LastHit is equal to itself alone)
            return
        now = config._generation
        kept = [held for held in self.hits if held.generation is now][:RECENT - 1]
        self._hold((hit, *kept))

    def drop(self, entry) -> bool:
        """Forget the LastHits of `entry` (the compiled cache dropped it, or its twin's);
        whether any LastHit is left."""
        self._hold(tuple(hit for hit in self.hits if hit.entry is not entry and
                         getattr(hit.entry, "entry", None) is not entry))
        if self.newest not in self.hits:
            self.newest = self.hits[0] if self.hits else None
        return bool(self.hits)

    def _hold(self, hits) -> None:
        self.hits = hits
        self.native = tuple(hit.native for hit in hits if hit.native is not None)


NO_HITS = Recent()      # (a key with no Recent yet: its `newest` is None)


def remember(last: dict, key, hit) -> None:
    """Put `hit` in the jit's `_last` under `key`, beside the signatures held there."""
    recent = last.get(key)
    if recent is None:
        recent = last[key] = Recent()
    recent.put(hit)


# the key of the Recent LastHits in a jit's `_last` dict for calls with no static argument; a
# call with some has its own there under args.static_key (so that f(x, True) and
# f(x, False) in turn each hit in C)
LAST_HIT = sys.intern("last hit")   # (core/_fastpath.c interns it too: one object)
# the end of a `_traces` key for a trace made where no named axis is bound and no check_vma
# body types the values: such a trace also serves a top-level call, and the other way round
NOWHERE = ((), None)
# what the mesh path (primitive.over_mesh, sharded.call_jitted) answers for a call that
# jit runs on one device instead (not None: a function may return None)
ON_ONE_DEVICE = object()


def each_a_leaf(treedef, n) -> bool:
    """Whether the n arguments flattened to `treedef` are each a leaf (so the last-hit check,
    which sees only the arguments, sees the whole input structure): a tuple node and n leaf
    nodes (a container, None included, adds a node beyond its leaves)."""
    return treedef.num_nodes == n + 1 == treedef.num_leaves + 1


def compiled_trace(cache, signature):
    """(ClosedJaxpr, out_tree) a top-level call traced for `signature` (a `_cache` key's first
    four parts), if any: as in JAX, `grad(jit(f))` does not trace f again where `jit(f)(x)`
    already did. Found as a dict finds a key, by hash then equality, as JAX's tracing cache:
    two dataclass nodes of classes of one name (a class cell run again) are equal treedefs in
    jaxlib 0.10.2 but hash apart, so the new class is traced anew (returned as itself)."""
    wanted = hash(signature)
    for key, entry in cache.items():
        if key[:4] == signature and hash(key[:4]) == wanted:
            return entry.jaxpr, entry.out_tree
    return None


def own_trace(cache, signature):
    """trace_lookup's (jaxpr, consts, out_tree, ClosedJaxpr) of the trace a program in `cache`
    was compiled from at `signature`, for a compile of it elsewhere (another device, other
    arguments committed), or None: as JAX's tracing cache, whose key holds neither, the
    function is not traced again (its log: no miss; "Compiling jit(f)" for another
    committedness, "Finished XLA compilation" alone for another device)."""
    found = compiled_trace(cache, signature)
    return None if found is None else (found[0], None, found[1], found[0])


# the parts of jit's options tuple (Jitted.__init__) that decide what a trace is:
# (static_argnums, static_argnames), and whether the jit is over a mesh
_STATICS, _SHARDED = slice(0, 2), 6      # (in the options jit.py keys its caches by)


def stage_key(jitted, signature) -> tuple:
    """Where a jit over a mesh keeps the top-level trace at `signature` (treedef, avals,
    statics, trace state) in its traces, for its calls and `.trace`/`.lower` alike: a jit given
    shardings apart from its bind path's traces (which constrain them), any other where the
    bind path finds it too."""
    if jitted._in_shardings is None and jitted._out_shardings is None:
        return signature + NOWHERE
    return ("sharded",) + signature


def top_level_trace(jitted, signature):
    """(ClosedJaxpr, out_tree) a top-level call, `.trace`/`.lower` or make_jaxpr of `jitted`'s
    function (or a sibling jit's) traced for `signature` (a `_cache` key's first four parts),
    or None: as JAX's one tracing cache, which its make_jaxpr (jit(f).trace) shares."""
    found = jitted._traces.get(signature + NOWHERE) or sibling_trace(jitted, signature)
    return (found[3], found[2]) if found is not None else compiled_trace(jitted._cache, signature)


def keep_top_level_trace(jitted, signature, closed, out_tree) -> None:
    """Keep a top-level trace made outside jit (make_jaxpr's) for `jitted`'s calls and stages at
    `signature`, as JAX's make_jaxpr(f)(x) leaves jit(f)(x) nothing to trace. The trace missed
    already (make_jaxpr logged it): a compile made of it tells no miss (primitive.told)."""
    key = signature + NOWHERE
    if key not in jitted._traces:
        jaxpr, consts = convert_constvars_to_invars(closed)
        jitted._traces[key] = (jaxpr, consts, out_tree, closed)


def top_level_signatures(jitted) -> list:
    """The signatures (a `_cache` key's first four parts) `jitted`'s function was traced or
    compiled at top level for, oldest first: what a new trace's miss is explained against."""
    return [key[:4] for key in jitted._traces.keys() if key[4:] == NOWHERE] + \
        [key[:4] for key in jitted._cache.keys()]


def sibling_trace(jitted, signature):
    """(jaxpr, consts, out_tree, ClosedJaxpr) a jit of the same function and static arguments
    but other options (donate_argnums, compiler_options, device: keep_unused and inline
    share a jit's caches, as JAX's jits share its C++ cache) traced
    for `signature` (a `_cache` key's first four parts), or None: as JAX's tracing cache,
    whose key holds none of those, jit(g) and jit(g, donate_argnums=0) trace g once (and
    lower and compile twice)."""
    if jitted._sharded:
        return None
    try:
        state = FUN_STATES.get(jitted._fun)
    except TypeError:                 # not weakly referenceable, or unhashable: no siblings
        return None
    caches = list(state.caches.items()) if state is not None else []
    mine = next((options for options, found in caches if found[0] is jitted._cache), None)
    for options, (compiled, _, traces, _, _) in caches:
        if mine is None or compiled is jitted._cache or \
                options[_STATICS] != mine[_STATICS] or options[_SHARDED]:
            continue                  # (other static arguments, or a jit over a mesh)
        found = traces.get(signature + NOWHERE)
        if found is not None:
            return found
        found = compiled_trace(compiled, signature)
        if found is not None:
            closed, out_tree = found
            return (*convert_constvars_to_invars(closed), out_tree, closed)
    return None


class Entry:
    """A compiled signature: the executable, consts on device (Arrays), the output
    structure, how often the cache has hit it, and its LastHit (made on its first fast-path
    hit, anew if the placement object or the config changed; False if its calls' dynamic
    arguments are not positional leaves alone), and c_last_hit's, by keyword names."""
    __slots__ = ("exe", "consts", "const_bufs", "out_tree", "jaxpr", "text", "donated", "hits",
                 "last_hit", "scalar_hit", "twin", "refs", "c_hits", "watch", "look_at",
                 "schedule", "__weakref__")

    def __init__(self, exe, consts, out_tree, jaxpr, text, donated):
        self.exe, self.consts, self.out_tree = exe, consts, out_tree
        # Refs among the consts (transforms/jit/refs.py): each call passes their values and
        # writes them back, so such an entry is never on a fast path
        self.refs = any(map(is_ref, consts))
        # what a hit passes before the arguments
        self.const_bufs = [] if self.refs else [c._buf for c in consts]
        self.jaxpr, self.text, self.donated = jaxpr, text, donated
        self.hits = 0
        self.last_hit = None
        self.scalar_hit = None     # the same for calls with Python scalars (f(x, 2.0))
        self.c_hits = {}           # c_last_hit's, by keyword names: (key, LastHit) or None
        self.twin = None
        # what watches the program for the notebook (core/watches.py: a gradient taken
        # inside, the indices it reads), or None; while `watch.on`, the calls looked at leave
        # the fast paths (at `hits` >= `look_at`, by its `schedule`) and are given to
        # `watch.called` (function.py's _call); not a program loaded from bytes
        # (serialize_executable.py: its jaxpr a signature alone)
        self.watch = watch_of(jaxpr, exe.user_jit) if type(jaxpr) is ClosedJaxpr else None
        self.look_at, self.schedule = NEVER, None

    def unlink(self) -> None:
        """Drop the LastHits and the twin, which point back at this entry (a cycle)."""
        for entry in (self, self.twin):
            if entry is not None:
                entry.last_hit = entry.scalar_hit = None
                entry.c_hits = {}
        self.twin = None

    def committed(self, committed: bool) -> Entry:
        """This entry for calls whose results are committed or not (xla/placement.call_placement):
        itself, or its twin running the same program (made once, never compiled again)."""
        if committed == self.exe.committed or self.exe.with_committed(committed) is self.exe:
            return self
        if self.twin is None:
            self.twin = TwinEntry(self, committed)
        return self.twin


class TwinEntry(Entry):
    """An Entry's program for the other kind of call (results committed or not): its own
    executable twin, fast-path hits and hit count (Jitted.cache_hits adds it to `entry`'s:
    a property forwarding them would run Python on the compiled path's every hit)."""
    __slots__ = ("entry",)

    def __init__(self, entry, committed):
        super().__init__(entry.exe.with_committed(committed), entry.consts, entry.out_tree,
                         entry.jaxpr, entry.text, entry.donated)
        self.entry = entry            # (also what _forget looks for: it leaves with entry)
        self.watch = entry.watch      # (the same program: watched once)


def last_hit_for(entry, avals, where, kinds, treedef, n):
    """`entry`'s LastHit for a call of these avals, placement and kinds (None: Arrays alone;
    calls with Python scalars keep theirs in `entry.scalar_hit`), made anew if they or the
    config changed; False for a call with no dynamic argument. The n dynamic arguments
    flatten to `treedef`: a tree other than one leaf each (a dict of arrays) is the Hit's to
    check. `entry` is an Entry, or sharded.py's stand-in for one (Arrays alone)."""
    hit = entry.last_hit if kinds is None else entry.scalar_hit
    if hit is False or hit is not None and hit.where is where and hit.kinds == kinds \
            and hit.generation is config._generation:
        return hit
    hit = n and LastHit(avals, where, entry, kinds,
                        tree=None if each_a_leaf(treedef, n) else treedef) or False
    if kinds is None:
        entry.last_hit = hit
    else:
        entry.scalar_hit = hit
    return hit


def c_last_hit(jitted, entry, statics, avals, where, args, kwargs, leaves) -> None:
    """A LastHit for core/_fastpath.c alone, where jit's Python fast path takes none: for a
    call that gives arrays by keyword (f(x, y=b), g(x, y=b, n=3) with n static) or runs a
    donating program (`leaves`: its dynamic arguments flat, as jit flattens them). Put in the
    jit's `_last` under the call's static key where it passes a static argument, else under
    its keyword names in call order, else under LAST_HIT (`_c_hit`). Made once per entry and
    keyword names (what decides the key, its order and tree), anew if the placement, the
    Python scalars among the leaves or the config changed. Two signatures under one key
    (h(x, 2, y=a), h(i, 2, y=b)) are both held there (`Recent`): called in turn, each hits."""
    if not fastpath.native:
        return
    names, kinds = tuple(kwargs), scalar_kinds(leaves)
    kinds = kinds if any(kinds) else None
    made = entry.c_hits.get(names, False)
    if made is False or made and (made[1].where is not where or made[1].kinds != kinds or
                                  made[1].generation is not config._generation):
        made = entry.c_hits[names] = _c_hit(jitted, entry, statics, avals, where, args,
                                             kwargs, kinds)
    if made and made[1].native is not None:    # (None: a donated Python scalar, say)
        remember(jitted._last, made[0], made[1])


def _c_hit(jitted, entry, statics, avals, where, args, kwargs, kinds):
    """(its `_last` key, a LastHit) for c_last_hit, or None (too many arguments). The key: the
    call's static key built from the static names (args.static_key: what the C builds)
    where it passes a static argument, else its keyword names, else LAST_HIT. The LastHit's Hit
    (None where the program has none) takes the dynamic arguments in flat order: the
    positional ones, then the dynamic keywords' values sorted by name (as a dict flattens, so
    f(x=a, y=b) and f(y=b, x=a) share the entry, as in JAX), which `order` picks from what the
    C gathers (those positional arguments, then those keywords' values in call order);
    containers among them are flattened in that order, which gives the leaves in the order
    jit's own flatten does.

        >>> sorted(range(2), key=["y", "x"].__getitem__)   # f(y=b, x=a): stack (b, a)
        [1, 0]
    """
    at, static_names, names = jitted._static_at, jitted._static_argnames, tuple(kwargs)
    dynamic = [k for k in names if k not in static_names]
    stack = [a for i, a in enumerate(args) if i not in at] + [kwargs[k] for k in dynamic]
    p, n = len(stack) - len(dynamic), len(stack)
    if not 0 < n <= len(args) + len(names) <= 32:
        return None
    order = (*range(p), *sorted(range(p, n), key=lambda i: dynamic[i - p])) if dynamic else None
    tree = default_registry.flatten(tuple(stack[i] for i in order) if order else stack)[1]
    hit = LastHit(avals, where, entry, kinds, order, None if each_a_leaf(tree, n) else tree)
    return static_key(args, kwargs, at, static_names) if statics else names or LAST_HIT, hit


# A jit's state, for copy.copy and pickling: JAX's keys (its PjitFunction's __getstate__:
# what libraries read, "function_name" above all) and the jit's own attributes, the fields of
# its C base (core/_fastpath.c's JitFunction) among them, which jit_setstate puts back.
_JAX_KEYS = ("version", "function_name", "fun", "static_argnums", "static_argnames")
_BASE_FIELDS = ("_last", "_static_at", "_static_argnames")


def jit_cache_hits(jitted) -> int:
    """How many calls found their compiled program in this function's cache (its method
    `cache_hits`)."""
    return sum(e.hits + (e.twin.hits if e.twin else 0) for e in jitted._cache.values())


def jit_cache_size(jitted) -> int:
    """How many programs its cache holds (its method `_cache_size`: JAX's name, read by
    libraries' cache tests)."""
    return len(jitted._cache)


def jit_getstate(jitted) -> dict:
    """`jit(f).__getstate__()`, JAX's keys first.

    >>> jit_getstate(jax.jit(abs))["function_name"]
    'abs'
    """
    own = {**{k: v for k, v in vars(jitted).items() if k != "_looked_up"},   # (looked_up's:
           **{k: getattr(jitted, k, None) for k in _BASE_FIELDS}}            # the object's own)
    return {"version": 1, "function_name": jitted._name, "fun": jitted._fun,
            "static_argnums": sorted(jitted._static_argnums),
            "static_argnames": sorted(jitted._static_argnames), **own}


def jit_deepcopy(jitted, memo):
    """`copy.deepcopy(jit(f))`: as JAX's, a jit of the same function and options whose cache
    starts empty (JAX deep-copies its PjitFunction's cache; the function itself is shared, as
    deepcopy shares any function). A copy.copy shares the caches.

    >>> f = jax.jit(abs); _ = f(1.0)
    >>> copy.deepcopy(f)._cache_size(), f._cache_size()
    (0, 1)
    """
    twin = copy.copy(jitted)
    twin._cache, twin._fast, twin._traces, twin._history, twin._last = fresh_caches()
    return twin


def jit_setstate(jitted, state) -> None:
    """A copy's state put back: its own attributes (JAX's keys are read from them)."""
    for name, value in state.items():
        if name not in _JAX_KEYS:
            object.__setattr__(jitted, name, value)
