"""The note under a cell whose code drew random numbers with a key it had drawn with before: a
JAX key is a value, not a generator that moves on, so the second draw gets the same random bits
(the same numbers, for the same call), and JAX says nothing (jax_debug_key_reuse is off).

    key = jax.random.key(0)
    a = jax.random.normal(key, (3,))
    b = jax.random.normal(key, (3,))   # ⚠ key reused (at In[4]:3): normal drew with the key
    #                                      that normal used at In[4]:2, so the same numbers again

What counts is one key object given to two random functions that consume it (a sampler,
`split`: random/keys.py's `consumed_keys`, whose list follows key_reuse.py's signatures) from
the user's lines, eagerly, in one cell or across cells; a key taken from an array by a static
index or a for loop counts as the array's key at that index (random/taken_keys.py), so
`normal(keys[0])` twice, each `keys[0]` a new object, is one key drawn twice, and keys[0]
and keys[1] are two keys. Under grad or vmap without jit the user's Python runs at the call
too: one key (a concrete one, or vmap's tracer of the batch) given to two draws in a function
is a reuse, its fix a split written into the function; keys[0] taken twice from vmap's
tracer of keys is one key too, its fix keys[1] written into the function. Two keys made from
one seed are two keys (reproducible numbers, on purpose); fold_in makes a new key and leaves
its key unused. A
draw that jax_debug_key_reuse refused (KeyReuseError, as JAX raises it for a typed key
consumed with the checker on) drew nothing: its error tells it, and no note (random/keys.py's
`refused_draw` takes it back).

Inside a function of the user's that jit traces in the cell, a key consumed twice in its jaxpr
(key_reuse.py's `reuses`: the checker's rules, raw keys followed through random_wrap) is told
at the two equations' lines, the random function named from the user's call that traced it
(random/keys.py's `traced_draws`): a key used in each branch of a cond is used once; a loop's
body consuming a key it does not split or fold_in again reuses it on every iteration; a key
taken from an array twice (keys[0] twice, two for loops over one array: each a slice of it)
and drawn with each time is one key drawn twice (key_reuse.py's `_Views`), told with the
eager words and fixes (keys[1] written into the function), and keys[0] taken only for
fold_in twice is no reuse (JAX's checker, on, raises at the second slice all the same).
"""
from __future__ import annotations

import ast
import linecache
import os
import re
import weakref

from ...core import compile_record, told_bugs
from ...core.compile_record import EAGER, USER
from ...core.source_info import PACKAGE_DIR
from ...core.trace import Tracer
from ...random import key_reuse, keys, taken_keys
from ...xla import array as _xla_array
from ...xla.array import KEY_DATA
from ...views.source import cell_name, is_user_file
from ..display import Note, source_label
from .key_advice import advice, taken_advice, taken_checker, traced_advice, tree_map_advice
from .key_sites import where_reused

RANDOM_NUMBERS = "https://docs.jax.dev/en/latest/random-numbers.html"
# jax.tree.map's home: the function it calls once per leaf, drawing with one key, reuses it
_TREE_UTIL = os.path.join(PACKAGE_DIR, "tree_util") + os.sep


_INSTALLED: list = []        # the watches of the shells with the extension loaded


class KeyReuseWatch:
    """The keys the user's eager draws consumed, over the cells, and the note of a cell that
    drew with one of them again (told once per line: `told`, (file, line) of the reuse; a cell
    edited and run again is another file). Installed when the extension loads, which starts the
    library's record (random/keys.py's `consumed_keys`); `uninstall` stops it.

        >>> watch = KeyReuseWatch(); watch.install()     # doctest: +SKIP
        >>> watch.cell_finished()       # after a cell drawing twice  # doctest: +SKIP
        ⚠ key reused (at In[4]:3): normal drew with the key that normal used at In[4]:2, ...
    """
    def __init__(self):
        # id(key) -> (weak reference to the key, the function that consumed it, its line);
        # an entry goes when its key does, so a new key at its id is not taken for it
        self.consumed: dict = {}
        self.told: set = set()
        # the user's jitted functions traced and compiled in the cell, each (name, "file:line"
        # where defined, its jaxpr, 1 for an eager loop's or cond's program of one equation
        # else 0) from the compile record's events, read at the cell's end
        # where a draw of the user's was traced; kept only while a cell runs (`in_cell`), so
        # compiles outside cells (a test's, a comm's) hold no program here
        self.traced: list = []
        # the cell's reuses found so far (cell_finished's list), and the keys that are grad's
        # or vmap's tracers drawn with: alive while their trace ran (held here, so their ids
        # are theirs), never reused by a later trace
        self.reused: list = []
        self.tracers: dict = {}
        # keys told reused in an earlier cell (id -> weak reference), and this cell's: a split
        # of one in a later cell is what that note asked for, not told again (random-numbers:
        # normal(key) twice, then the page's split loop over key)
        self.told_keys: dict = {}
        self.reused_keys: list = []
        self.in_cell = False
        self._unsubscribe = None

    def install(self) -> None:
        """Start hearing compiles and the library's record of draws: at the extension's load
        (not at __init__: a State made apart, as a test's or a docstring's, watches nothing,
        and would have left the record on after every unload)."""
        if self in _INSTALLED:
            return
        _INSTALLED.append(self)
        self._unsubscribe = compile_record.subscribe(self._compiled)
        if keys.consumed_keys is None:
            keys.consumed_keys = _Draws()
            taken_keys.watch_tracers(True)
            _xla_array.let_go_before_listing.append(_read_draws)

    def uninstall(self) -> None:
        """Stop it; the record stops with the last watch installed (one per shell loaded)."""
        if self not in _INSTALLED:
            return
        _INSTALLED.remove(self)
        self._unsubscribe()
        self._unsubscribe = None
        if not _INSTALLED:
            keys.consumed_keys = None
            _xla_array.let_go_before_listing.remove(_read_draws)
            keys.traced_draws.clear()
            KEY_DATA.clear()
            taken_keys.watch_tracers(False)

    def _compiled(self, event) -> None:
        # a jit of the user's traced anew (a miss; a cache hit is no event), with its trace;
        # or a loop, a cond run outside jit (an eager program of one equation, the user's
        # functions inside, the equation itself at no line: the path read from inside it)
        if not self.in_cell or event.jaxpr is None:
            return
        if event.origin == USER and event.miss and event.inlined_into is None:
            self.traced.append((event.function, event.source, event.jaxpr, 0))
        elif event.origin == EAGER:
            self.traced.append((event.function, None, event.jaxpr, 1))

    def cell_started(self) -> None:
        if keys.consumed_keys is not None:
            keys.consumed_keys.clear()      # (draws between cells: a magic's, a comm's)
            keys.consumed_keys.read = self._read
        self.traced.clear()
        self.reused.clear()
        self.reused_keys.clear()
        self.tracers.clear()
        taken_keys.forget_tracers()
        self.in_cell = True

    def cell_finished(self, error=None) -> Note | None:
        """The note of the cell that just ran (`error`: the exception it raised, or None),
        or None: no key of the user's drawn with twice, or only at lines told of before."""
        _take_back_raised(error)
        self._read()
        self.in_cell = False
        reused = self._traced_reuses() + self.reused
        self.reused, self.tracers = [], {}
        for key in self.reused_keys:
            self.told_keys[id(key)] = weakref.ref(key, self._forget_told(id(key)))
        self.reused_keys = []
        taken_keys.forget_tracers()         # (vmap's, read: their function has returned)
        if not reused:
            return None
        first_name, name, (first_site, site), typed, kind, *taken = reused[0]
        return _note(first_name, first_site, name, site, typed, len(reused) - 1, kind, *taken)

    def _read(self) -> None:
        """Take the eager draws recorded so far (random/keys.py's `consumed_keys`: at the
        cell's end, and each time it fills), and what they reused."""
        drawn = list(keys.consumed_keys or ())
        if keys.consumed_keys is not None:
            keys.consumed_keys.clear()
        if not self.in_cell:            # (draws between cells: a magic's, a comm's)
            return
        # tracers are held strongly (not all take weak references): those of this read and
        # the last one only, so a loop of grad steps holds no more than 128
        earlier, tracers = self.tracers, {}
        self.tracers = tracers
        users: dict = {}

        def mine(file) -> bool:     # (is_user_file once per file: a loop's draws share one)
            if file not in users:
                users[file] = is_user_file(file)
            return users[file]
        for key, name, calls in drawn:
            if calls is None or not mine(calls[0][0]):     # a library's draws
                continue
            # a key taken from an array (keys[0], a for loop's k; vmap's tracers too) is held
            # as the array's key at its index, whichever object was taken for it: `keys[0]`
            # twice is one key
            taken, traced = taken_keys.taken(key), isinstance(key, Tracer)
            held = tracers if traced and taken is None else self.consumed
            ident = key if taken is None else taken.key
            first = held.get(id(ident)) or (earlier.get(id(key)) if held is tracers else None)
            if first is None or first[0]() is not ident:
                # (the key object itself too, by a weak reference: the same object drawn with
                # twice is told as any key is, two taken for one key as taken ones; a tracer,
                # which takes none, held until its array's keys go, at the cell's end)
                held[id(ident)] = ((lambda key=key: key), name, calls) if held is tracers else \
                    (weakref.ref(ident, self._forget(id(ident))), name, calls,
                     (lambda key=key: key) if traced else weakref.ref(key),
                     taken and taken.how)
                continue
            sites = where_reused(first[1], first[2], name, calls)
            if name == "split" and held is self.consumed and self._told_before(ident):
                # (the numbers drawn before were told; following that note, this key would
                # be a fresh one here, and splitting it is the way on)
                continue
            if sites is not None and (sites[1].file, sites[1].line) not in self.told:
                self.told.add((sites[1].file, sites[1].line))
                mapped = first[2] == calls and str(calls[-1]).startswith(_TREE_UTIL)
                other = taken is not None and first[3]() is not key
                kind = "tree_map" if mapped else "taken" if other else None
                # (under vmap the function runs once per call: its lines can be rewritten)
                if held is self.consumed:
                    self.reused_keys.append(ident)
                self.reused.append((first[1], name, sites, keys.is_typed_key(key), kind,
                                    (first[4], taken, traced) if other else None))

    def _traced_reuses(self) -> list:
        """The reuses inside the jaxprs the cell's jits traced, as cell_finished's list
        (`traced`: "loop" for a loop's body, "jit" otherwise): where a draw of the user's has
        been traced (in this cell, or in an earlier one: a jitted function called inside),
        each jaxpr once."""
        traced, self.traced = self.traced, []
        if not keys.traced_draws:
            return []
        found, seen = [], set()
        for function, source, closed, outside in traced:
            if id(closed) in seen:
                continue
            seen.add(id(closed))
            try:
                reused = key_reuse.reuses(closed.jaxpr)
            except Exception as e:  # noqa: BLE001  a bug of ours: told, never the cell's failure
                _check_failed(function, source, e)
                continue
            for first, again, loop, typed, taken in reused:
                first, again = _traced_calls(first[outside:]), _traced_calls(again[outside:])
                if first is None or again is None:      # a library's draws, not the user's
                    continue
                sites = where_reused(first[0], first[1], again[0], again[1])
                if sites is not None and (sites[1].file, sites[1].line) not in self.told:
                    self.told.add((sites[1].file, sites[1].line))
                    # one key of an array taken twice (keys[0], a for loop's k): its advice
                    found.append((first[0], again[0], sites, typed, "loop" if loop else "jit",
                                  *([] if taken is None else [(taken.first_how, taken_keys.
                                                               in_jaxpr(taken), True)])))
        return found

    def _told_before(self, key) -> bool:
        """Whether `key` was told reused in an earlier cell (the same object: an id reused by
        a new key is not it)."""
        ref = self.told_keys.get(id(key))
        return ref is not None and ref() is key

    def _forget_told(self, ident):
        told = self.told_keys

        def forget(ref):
            if told.get(ident) is ref:
                del told[ident]
        return forget

    def _forget(self, ident):
        consumed = self.consumed

        def forget(ref):
            if consumed.get(ident, (None,))[0] is ref:
                del consumed[ident]
        return forget


def _read_draws() -> None:
    """Read the draws recorded so far (`_Draws.read`) before the live arrays are listed: the
    record holds their keys until read, and `jax.live_arrays()` listed a key the cell had
    deleted (`del k` after `split(k)`) where JAX's lists none."""
    if keys.consumed_keys:
        keys.consumed_keys.read()


def _take_back_raised(error) -> None:
    """Take back the newest draw where the random function that recorded it raised `error`
    after taking its key (`split(key, 2.0)`: the key checked, then the count refused): the
    call returned nothing, so the note must not tell it as a draw (as `keys.refused_draw`
    does for the key-reuse checker's error). That draw is the newest, still unread (`_Draws`
    reads before adding), and the traceback passes through its call: the user's frame at the
    same instruction, with the error raised further in."""
    drawn = keys.consumed_keys
    calls = drawn[-1][2] if error is not None and drawn else None
    if not calls:
        return
    code, offset = calls[0][3], calls[0][4]
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code is code and tb.tb_lasti == offset and tb.tb_next is not None:
            del drawn[-1]
            return
        tb = tb.tb_next


class _Draws(list):
    """random/keys.py's record of eager draws while a notebook watches: read (`read`, the
    watch's) before it would hold 64, so that a cell drawing in a long loop holds no more keys
    than that alive, and a reuse before the loop is still seen. Read before a draw is added,
    not after: the newest draw stays unread until the random function returns, so that one
    the key-reuse checker refuses (raising KeyReuseError) is taken back (keys.refused_draw)."""
    LIMIT = 64

    def __init__(self):
        super().__init__()
        self.read = self.clear          # (no cell yet: the draws are no one's)

    def append(self, draw) -> None:
        if len(self) >= self.LIMIT - 1:
            self.read()
        super().append(draw)


def _check_failed(function, source, error) -> None:
    """Say that the pass over jit(function)'s program raised (a bug of jxkernel's), at the
    line where the learner defined it (`source`, "file:line"), not at one of ours: the cell
    ran as written, only its key note is missing."""
    file, _, line = (source or "").rpartition(":")
    told_bugs.tell(
        f"jxkernel could not check jit({function})'s program for reused keys (its check "
        f"raised {type(error).__name__}: {error}). The cell ran as written; only the key-reuse "
        f"note is missing.", "the cell", error,
        at=(cell_name(file) or os.path.basename(file) or "<unknown>",
            int(line) if line.isdigit() else 0))


def _traced_calls(path):
    """(the random function, the user's frames innermost first as _drawn_at gives them) of an
    equation path the pass found, or None where no user's call of a random function is on
    it. The path is followed inward while its equations are at user's lines that are no
    draw (a cond, a scan, a jitted function of the user's) up to the one a user's call of a
    random function made (not further: a library jit's inner equations keep the lines of
    whichever trace made them first); the frames are each level's source_info and its
    callers (each traced jaxpr's stop at its own function)."""
    levels = []
    for eqn in path:
        info = eqn.source_info
        if info is None or not is_user_file(info.file):
            return None
        chain = []
        while info is not None:
            chain.append((info.file, info.line, info.function, info.code, info.lasti))
            info = info.caller
        levels.append(chain)
        name = keys.traced_draws.get((eqn.source_info.code, eqn.source_info.lasti))
        if name is not None:
            return name, tuple(c for chain in reversed(levels) for c in chain)
    return None


def _note(first_name, first_site, name, site, typed, more, kind=None, taken=None) -> Note:
    """`kind`: None for eager draws, "tree_map" for a function jax.tree.map called once per
    leaf, "taken" for eager draws with two objects taken for one key of an array (`taken`:
    how the first was taken, the second's taken_keys.Taken, and whether they were taken in a
    function run once per call: vmap's tracers), "jit" for two draws in a function jit traced
    (`taken` too where each drew with the key taken anew from an array), "loop" for a loop's
    body in one, consuming the key on every iteration."""
    at, first_at = source_label(site), source_label(first_site)
    same_line = (first_site.file, first_site.line) == (site.file, site.line)
    where = f"at {first_at}" if not same_line else f"at {first_at}, the same line run before" \
        if first_site.code is site.code and first_site.lasti == site.lasti else \
        "earlier on the same line"
    if kind == "loop":
        where = f"at {first_at} on the loop's previous iteration"
    elif kind == "tree_map":
        where = f"at {first_at} for the leaf before"
    what = ("so numbers from the same random bits, not independent ones" if
            name != first_name else "so the same numbers again" if
            _same_arguments(first_site, site) else
            "so the same random bits again (the same numbers, for the same other arguments)")
    others = f" (and {more} more line{'s' if more > 1 else ''})" if more else ""
    title = (f"⚠ key reused (at {at}): {_who(site, name)} drew with the key that "
             f"{_who(first_site, first_name)} used {where}, {what}{others}")
    body = ("A JAX key is a value, not a generator that moves on: every use of one key gives "
            "the same random bits, and JAX says nothing (never reuse a key: " + RANDOM_NUMBERS
            + "). ")
    if kind == "tree_map":
        body += tree_map_advice(linecache.getline(site.file, site.line).strip(), name)
    elif taken is not None:
        body += taken_advice(first_name, first_site, name, site, *taken)
    elif kind is None:
        body += advice(first_name, first_site, name, site, same_line)
    else:
        body += traced_advice(first_name, first_site, name, site, kind)
    if kind in ("jit", "loop"):
        body += _traced_checker(typed)
    elif kind == "taken":
        body += taken_checker(typed, taken[0] == taken[1].how == "index", vmapped=taken[2])
    elif typed:
        body += ("\nTo have JAX check every key: jax.config.update('jax_debug_key_reuse', "
                 "True) before the key is made (at the notebook's top), and a line like this "
                 "one raises KeyReuseError.")
    else:
        body += ("\nJAX's checker, jax.config.update('jax_debug_key_reuse', True), lets this "
                 "key through: it follows typed keys, and a raw key from jax.random.PRNGKey "
                 "is made a new typed one at each call. With jax.random.key(seed) in place of "
                 "jax.random.PRNGKey(seed) and the checker on, a line like this one raises "
                 "KeyReuseError.")
    return Note(title, body=body, kind="info", details=True)


def _same_arguments(first_site, site) -> bool:
    """Whether the two lines' calls (of `callee`, each site's) pass the same arguments after
    the key, written as constants (`(3,)`, `0.5`, `dtype=jnp.float16`): JAX 0.10.2 draws
    the same numbers then; `uniform(key, (3,))` and `uniform(key, (3,), minval=5.0)`, or
    `uniform(key, maxval=scale)` in a loop, draw other numbers from the same bits."""
    texts = set()
    for s in (first_site, site):
        calls = _calls_on(linecache.getline(s.file, s.line), s.callee)
        if not calls:
            return False
        texts.update(calls)
    return len(texts) == 1


def _calls_on(line: str, callee: str) -> list:
    """The arguments after the first (the key) of each call of `callee` on `line`, as one
    text each ('(3,)', ''), or [] where one is not all constants (a name's value may change
    between the two calls) or cannot be read from the line alone."""
    found = []
    for start in (m.end() for m in re.finditer(rf"\b{re.escape(callee)}\(", line)):
        depth, end = 1, start
        while end < len(line) and depth:
            depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(line[end], 0)
            end += 1
        try:
            call = ast.parse(f"f({line[start:end]}", mode="eval").body
        except SyntaxError:
            return []
        rest = call.args[1:] + [k.value for k in call.keywords]
        if depth or not call.args or not all(_constant(a) for a in rest):
            return []
        found.append(ast.dump(ast.Call(ast.Name("f"), call.args[1:], call.keywords)))
    return found


def _constant(node) -> bool:
    """A literal, a tuple of them, or a dtype named through a module (`jnp.float16`)."""
    if isinstance(node, ast.Attribute):
        return isinstance(node.value, ast.Name) and node.value.id in ("jnp", "np", "jax")
    return all(isinstance(n, (ast.Constant, ast.Tuple, ast.List, ast.UnaryOp, ast.USub,
                              ast.UAdd, ast.Load)) for n in ast.walk(node))


def _traced_checker(typed) -> str:
    if typed:
        return ("\nTo have JAX check every key: jax.config.update('jax_debug_key_reuse', True) "
                "(at the notebook's top), and the call that traces this function raises "
                "KeyReuseError.")
    return ("\nJAX's checker, jax.config.update('jax_debug_key_reuse', True), lets this key "
            "through: it follows typed keys, and a raw key from jax.random.PRNGKey is made a "
            "new typed one at each call. With jax.random.key(seed) in place of "
            "jax.random.PRNGKey(seed) and the checker on, the call that traces this function "
            "raises KeyReuseError.")


def _who(site, name) -> str:
    """`normal` for the line that drew; `dropout's normal` for a line calling dropout, which
    drew."""
    return name if site.callee == name else f"{site.shown}'s {name}"
