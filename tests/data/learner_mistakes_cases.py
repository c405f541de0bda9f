"""What JAX says for learners' mistakes whose advice or message jxkernel's notebook layer
words itself (tests/notebook/test_learner_mistakes.py compares): `run(jax)` gives, per case,
the exception's class and its first line (None where the call works), or a fact about a
warning. Where a card or message advises a fix, a case runs the fix as advised, so the test
can check that the advice works under JAX too. The reference (learner_mistakes_reference.json)
is real JAX 0.10.2's, written by reference/make_learner_mistakes_reference.py."""
import functools
import json
import re
import warnings

import numpy as np

from learner_cells import said  # tests/data


def _said_lines(fn, lines):
    """said() with the message's first `lines` lines."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001  the error is the answer
        return {"error": type(e).__name__, "lines": str(e).splitlines()[:lines]}
    return None


def _argument_named(fn):
    """The argument a tracer error says the value depends on (JAX: "depends on the value of
    the argument v.", jxkernel: "depends on the argument v, which is traced")."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001  the error is the answer
        found = re.search(r"depends on (?:the value of )?the argument (.+?)(?:\.$|, which)",
                          str(e), re.M)
        return found.group(1) if found else None
    return None


def _said_here(fn, lines):
    """_said_lines with this file's folder dropped (the recording's checkout is not the
    tests')."""
    found = _said_lines(fn, lines)
    if found is not None:
        here = __file__.rsplit("/", 1)[0] + "/"
        found["lines"] = [line.replace(here, "") for line in found["lines"]]
    return found


_SAVED = []                             # where the leaks below keep their tracers
_KEPT = None


def _said_leak(fn, lines=None):
    """_said_here with every line up to JAX's advice (the creation-time frames included) and
    object ids as N (`<list 1403...>`: not the same two runs)."""
    found = _said_here(fn, lines or 40)
    if found is not None:
        found["lines"] = [re.sub(r"\b\d{8,}\b", "N", line) for line in found["lines"]]
    return found


def _leaks(jax):
    """Leaked tracers' messages with where each value was made: a global set inside jit, a
    helper's value kept, a scan body's value kept, and jax.checking_leaks' report for jit
    and vmap (the first tracer it lists)."""
    jnp = jax.numpy

    def keep_global(x):                 # a tracer stored in a global
        global _KEPT
        y = x * 2
        _KEPT = y
        return x

    def helper(x):                      # made in a helper the traced function calls
        y = jnp.sin(x)
        _SAVED.append(y)
        return y

    def step(c, x):                     # a scan body's value kept outside
        z = c + x
        _SAVED.append(z)
        return z, x

    def save(x):
        y = x * 3
        _SAVED.append(y)
        return x

    jax.jit(keep_global)(1.0)
    jax.jit(lambda x: helper(x) * 2)(1.0)
    jax.lax.scan(step, 0.0, jnp.ones(2))
    found = {"leaked_global_from_jit": _said_leak(lambda: _KEPT + 1),
             "leaked_from_helper_in_jit": _said_leak(lambda: _SAVED[0] + 1),
             "leaked_from_scan_body": _said_leak(lambda: _SAVED[1] + 1)}
    _SAVED.clear()
    with jax.checking_leaks():
        found["leaked_checked_jit"] = _said_leak(lambda: jax.jit(save)(1.0), 6)
        _SAVED.clear()
        found["leaked_checked_vmap"] = _said_leak(lambda: jax.vmap(save)(jnp.ones(2)), 6)
        _SAVED.clear()
    # a vmapped value in Python's `if` and in int(): JAX names the line that made the tracer
    found["if_under_vmap"] = _said_leak(
        lambda: jax.vmap(lambda v: v if v > 0 else -v)(jnp.ones(2)), 3)
    found["int_under_vmap"] = _said_leak(lambda: jax.vmap(lambda v: int(v))(jnp.ones(2)), 4)
    return found


def _gotchas(jax):
    """Mistakes of JAX's "Common gotchas", "jit" and "Control flow" pages, and each card's
    fix as advised (None: it works; an error: the advice must say when it does not)."""
    jnp, lax = jax.numpy, jax.lax

    def nansum(x):                      # the gotchas' nansum: a mask named `mask`
        mask = ~jnp.isnan(x)
        x_without_nans = x[mask]
        return x_without_nans.sum()

    def nansum_where(x):                # the card's line, in place of `x[mask]`
        mask = ~jnp.isnan(x)
        x_without_nans = jnp.where(mask, x, 0)
        return x_without_nans.sum()

    def positive_small(x):              # the control-flow guide's `and` of tracers
        return (x > 0) and (x < 3)

    def weighted(x, d):                 # a dict as a static argument
        return x * d["a"]

    def scaled(x, n):                   # an array as a static argument
        return x * n

    def operand_address(fn):            # an object's address: not the same two runs
        found = said(fn)
        if found is not None:
            found["first_line"] = re.sub(r" at 0x[0-9a-f]+", "", found["first_line"])
        return found

    x = jnp.array([1, 2, jnp.nan, 3, 4])
    return {
        # Python's `and` of a many-element array, even without jit (JAX's words, as NumPy's)
        "truth_value_of_array": said(lambda: bool(jnp.array([-1, 2, 5]) > 0)),
        "truth_value_of_empty": said(lambda: bool(jnp.ones((0,)))),
        # an iterator as an operand (the gotchas' `lax.cond(True, ..., iter_operand)`)
        "iterator_as_operand": operand_address(
            lambda: lax.cond(True, lambda it: 1, lambda it: 0, iter(range(3)))),
        "hash_of_tracer": said(lambda: jax.jit(lambda v: {v: 1})(1.0)),
        "typeof_of_str": said(lambda: jax.typeof("text")),     # (a str: its type unquoted)
        # a traced size in lax.dynamic_slice: JAX's shape error, with jit's lines
        "dynamic_slice_traced_size": _said_here(lambda: jax.jit(
            lambda v, n: lax.dynamic_slice(v, (0,), (n,)))(jnp.arange(5), 3), 3),
        "nansum_masked": said(lambda: jax.jit(nansum)(x)),
        "nansum_where": said(lambda: jax.jit(nansum_where)(x)),
        # `if x < 3: return 3. * x ** 2 else: return -4 * x` of an int x: jnp.where promotes
        # the branches, lax.cond needs them of one type (the card says so)
        "if_int_where": said(lambda: jax.jit(
            lambda x: jnp.where(x < 3, 3.0 * x ** 2, -4 * x))(2)),
        "if_int_cond": said(lambda: jax.jit(
            lambda x: lax.cond(x < 3, lambda: 3.0 * x ** 2, lambda: -4 * x))(2)),
        "and_of_tracers": said(lambda: jax.jit(positive_small)(2)),
        "and_logical_and": said(lambda: jax.jit(
            lambda x: jnp.logical_and(x > 0, x < 3))(2)),
        "static_dict": said(lambda: jax.jit(weighted, static_argnums=1)(1.0, {"a": 2})),
        "static_dict_traced": said(lambda: jax.jit(weighted)(1.0, {"a": 2})),
        # the dict as a tuple of pairs: indexed by key it fails, read back as a dict it works
        "static_dict_pairs": said(lambda: jax.jit(weighted, static_argnums=1)(
            1.0, (("a", 2),))),
        "static_dict_pairs_as_dict": said(lambda: jax.jit(
            lambda x, d: weighted(x, dict(d)), static_argnums=1)(1.0, (("a", 2),))),
        # JAX prints the value with str(): NumPy's `[0 1 2]`, not `array([0, 1, 2])`
        "static_numpy_array": said(lambda: jax.jit(scaled, static_argnums=1)(
            1.0, np.arange(3))),
        "static_array_traced": said(lambda: jax.jit(scaled)(1.0, jnp.arange(3))),
        # a Python loop on a traced bound, as the cards write it: fori_loop takes traced
        # bounds, while_loop a traced condition
        "range_as_fori_loop": int(jax.jit(
            lambda n: lax.fori_loop(0, n, lambda i, total: total + i, 0))(5)),
        "while_as_while_loop": int(jax.jit(
            lambda x, n: x + lax.while_loop(lambda i: i < n, lambda i: i + 1, 0))(10, 20)),
        # a lambda made static where the line jits it (JAX names a lambda's parameters)
        "lambda_static_in_place": said(lambda: jax.jit(
            lambda v: v if v > 0 else -v, static_argnames=("v",))(1.0)),
        "lambda_float_static": float(jax.jit(lambda v: float(v), static_argnames=("v",))(1.0)),
        # a slice of a traced bound (the gotchas: a slice's size can't depend on a value),
        # and the card's fixes, each run: masked, a dynamic slice, the bound static
        "slice_traced_stop": said(lambda: jax.jit(lambda v, n: v[:n])(jnp.arange(5), 3)),
        "slice_traced_window": said(lambda: jax.jit(
            lambda v, i: v[i:i + 2])(jnp.arange(5), 1)),
        "slice_masked": jax.jit(lambda v, n: jnp.where(jnp.arange(v.shape[0]) < n, v, 0))(
            jnp.arange(5), 3).tolist(),
        "slice_dynamic": jax.jit(lambda v, i: lax.dynamic_slice_in_dim(v, i, 2))(
            jnp.arange(5), 1).tolist(),
        "slice_static": jax.jit(lambda v, n: v[:n], static_argnames=("n",))(
            jnp.arange(5), 3).tolist(),
        # a shape tuple holding an array: static, it is not hashable (the card offers none)
        "static_shape_array_inside": said(lambda: jax.jit(
            lambda v, s: v.reshape(s), static_argnames=("s",))(jnp.arange(6), (jnp.array(2), 3))),
        "static_array_as_shape_tuple": said(lambda: jax.jit(
            lambda x, s: jnp.zeros(s) + x, static_argnums=1)(
                1.0, tuple(np.array([2, 3]).tolist()))),
    }


# the card's registration for the gotchas page's CustomClass (tests/notebook compares the
# card with it): its numbers traced, its bool static, rebuilt by its constructor
METHOD_PYTREE_FIX = """def _flatten(obj):        # traced fields, then static ones
    return (obj.x,), (obj.mul,)

def _unflatten(static, traced):
    (x,), (mul,) = traced, static
    return CustomClass(x=x, mul=mul)

jax.tree_util.register_pytree_node(CustomClass, _flatten, _unflatten)   # keep @jax.jit"""


def _jitted_method(jax):
    """The gotchas page's `@jax.jit` on a method: self is no array; registered as a pytree
    (the card's code) it works and a changed field recompiles; self made static and changed,
    JAX keeps the old compile (the page's broken Strategy 2)."""
    def make(decorate):
        class CustomClass:
            def __init__(self, x, mul):
                self.x = x
                self.mul = mul

            @decorate
            def calc(self, y):
                if self.mul:
                    return self.x * y
                return y
        return CustomClass

    traced = make(jax.jit)
    traced_said = said(lambda: traced(2, True).calc(3))
    if traced_said is not None:          # the function's address: not the same two runs
        traced_said["first_line"] = re.sub(r" at 0x[0-9a-f]+", "", traced_said["first_line"])
    registered = make(jax.jit)
    exec(METHOD_PYTREE_FIX, {"jax": jax, "CustomClass": registered})
    c = registered(2, True)
    first = int(c.calc(3))
    c.mul = False
    static = make(jax.jit(static_argnums=0))
    s = static(2, True)
    stale = int(s.calc(3))
    s.mul = False
    return {"method_self_traced": traced_said,
            "method_as_pytree": [first, int(c.calc(3))],
            "method_self_static_changed": [stale, int(s.calc(3))]}


def _first_errors(jax):
    """The errors a learner meets first, and each fix as advised (None: it works)."""
    jnp = jax.numpy
    leaked = []

    def leak(x):                        # a traced value kept in a list
        y = x * 2
        leaked.append(y)
        return x

    def keep(x):                        # the fix: return it
        y = x * 2
        return x, y

    def set_first(x):                   # in-place assignment
        x[0] = 1.0
        return x

    def key_twice(k):                   # one key used twice
        return jax.random.normal(k) + jax.random.normal(k)

    def key_split(k):                   # the fix: split it
        k1, k2 = jax.random.split(k)
        return jax.random.normal(k1) + jax.random.normal(k2)

    jax.jit(leak)(1.0)
    jax.grad(lambda x: leak(x) * 1.0)(1.0)
    jax.vmap(leak)(jnp.ones(2))
    found = {
        "boolean_index": said(lambda: jax.jit(lambda x: x[x > 0])(jnp.arange(3.0) - 1)),
        # the fixes the message advises: jnp.where, or jnp.nonzero with size=
        "boolean_index_where": said(
            lambda: jax.jit(lambda x: jnp.where(x > 0, x, 0.0))(jnp.arange(3.0) - 1)),
        "boolean_index_nonzero_size": said(lambda: jax.jit(
            lambda x: x[jnp.nonzero(x > 0, size=3, fill_value=0)])(jnp.arange(3.0) - 1)),
        "setitem": said(lambda: set_first(jnp.zeros(3))),
        "setitem_under_jit": said(lambda: jax.jit(set_first)(jnp.zeros(3))),
        "setitem_at_set": said(lambda: jnp.zeros(3).at[0].set(1.0)),
        "leaked_from_jit": _said_here(lambda: leaked[0] + 1, 3),
        "leaked_from_grad": _said_here(lambda: leaked[1] + 1, 2),
        "leaked_from_vmap": _said_here(lambda: jax.jit(lambda v: v + leaked[2])(1.0), 2),
        "leaked_returned": said(lambda: jax.jit(keep)(1.0)),
        "numpy_array_of_tracers": said(
            lambda: jax.jit(lambda x, y: np.array([x, y]))(1.0, 2.0)),
        "jnp_array_of_tracers": said(lambda: jax.jit(lambda x, y: jnp.array([x, y]))(1.0, 2.0)),
        "zeros_of_traced_n": said(lambda: jax.jit(lambda n: jnp.zeros(n))(3)),
        "zeros_of_static_n": said(lambda: jax.jit(lambda n: jnp.zeros(n), static_argnums=0)(3)),
        "int_of_tracer": _said_here(lambda: jax.jit(lambda x: int(x))(1.0), 3),
        # the line naming the function traced and the arguments the value depends on
        "if_on_tracer": _said_here(lambda: jax.jit(lambda x: x if x > 0 else -x)(1.0), 2),
        "if_on_two_arguments": _said_here(
            lambda: jax.jit(lambda x, y: x if x + y > 0 else y)(1.0, 2.0), 2),
        "range_of_traced_n": _said_here(lambda: jax.jit(lambda n: sum(range(n)))(3), 2),
        "numpy_of_tracer": _said_here(lambda: jax.jit(lambda x: np.sin(x))(1.0), 2),
        # a key used twice: the same numbers, silently; an error with jax_debug_key_reuse
        "key_reused_same_numbers": bool(jax.random.normal(jax.random.key(0)) ==
                                        jax.random.normal(jax.random.key(0))),
    }
    jax.config.update("jax_debug_key_reuse", True)
    try:
        found["key_reused_checked"] = said(lambda: jax.jit(key_twice)(jax.random.key(1)))
        found["key_split"] = said(lambda: jax.jit(key_split)(jax.random.key(1)))
    finally:
        jax.config.update("jax_debug_key_reuse", False)
    return found


def _static_object_programs(jax) -> int:
    names = {}
    exec(BOX, names)
    f = jax.jit(lambda c: c.a + c.b, static_argnames=("c",))
    f(names["Box"]("w", 1.0, 2.0))
    f(names["Box"]("w", 1.0, 2.0))
    return f._cache_size()


def _jitted_counter(jax) -> dict:
    """JAX's stateful-computations tutorial: a jitted method that sets self.n returns what its
    trace computed on every call, and self.n stays as the trace left it; the state passed in
    and returned counts (learner6: the method note's claims)."""
    class Counter:
        def __init__(self):
            self.n = 0

        def count(self):
            self.n += 1
            return self.n

    class CounterV2:
        def count(self, n):
            return n + 1, n + 1
    counter = Counter()
    fast = jax.jit(counter.count)
    values = [int(fast()) for _ in range(3)]
    fast2, state, counted = jax.jit(CounterV2().count), 0, []
    for _ in range(3):
        value, state = fast2(state)
        counted.append(int(value))
    return {"values": values, "n_after": counter.n, "state_passed": counted}


def _numpy_draw_in_jit(jax) -> dict:
    """np.random inside a jitted function: its number drawn at the trace, the same on every
    call; jax.random with a key passed in draws anew (learner6: the draw note's claims)."""
    import numpy as np
    np.random.seed(0)

    def noisy(x):
        return x + np.random.normal()

    def noisy_key(x, key):
        return x + jax.random.normal(key)
    f, g = jax.jit(noisy), jax.jit(noisy_key)
    key = jax.random.key(0)
    k1, k2 = jax.random.split(key)
    return {"same_twice": bool(f(1.0) == f(1.0)), "keys_differ": bool(g(1.0, k1) != g(1.0, k2))}


def run(jax):
    jnp = jax.numpy

    def typo(x):                        # an attribute a tracer has not
        return x.foo

    def zeros(x, shape):                # a list as a static argument, used as a shape
        return jnp.zeros(shape) + x

    def item(x):                        # .item() of a traced argument
        return x.item()

    def count(n):                       # range() of a traced argument, under @jax.jit
        total = 0
        for i in range(n):
            total += i
        return total

    decorated = jax.jit(count)          # what `@jax.jit` above `def count` makes

    def branch(v, w=None):              # `if` on a traced value, under make_jaxpr/eval_shape
        return v if v > 0 else -v

    def branch_tree(p, q):
        return q if p["a"] > 0 else -q

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        jnp.array([1.0], dtype=jnp.float64)     # float64 asked for, x64 off: a warning
    with warnings.catch_warnings(record=True) as drawn:
        warnings.simplefilter("always")         # the same, of a random draw (the gotchas')
        jax.random.uniform(jax.random.key(0), (2,), dtype=jnp.float64)
    return {
        "attribute_of_tracer": said(lambda: jax.jit(typo)(1.0)),
        # such an object marked static instead: hashed by identity, so an equal new one
        # compiles again (two programs for two calls)
        "static_object_programs": _static_object_programs(jax),
        "jitted_method_setting_self": _jitted_counter(jax),
        "numpy_draw_in_jit": _numpy_draw_in_jit(jax),
        # `for i in range(n): total += i` under jit with n traced: the card's fori_loop line,
        # in place of the whole loop (learner6)
        # grad of a dict written on the line with an int leaf: the int written as a float
        # (learner6)
        "grad_of_dict_with_int_leaf": said(lambda: jax.grad(lambda p: p['w'] * p['n'])(
            {'w': 2.0, 'n': 3})),
        "grad_of_dict_with_int_leaf_as_float": {k: float(v) for k, v in jax.grad(
            lambda p: p['w'] * p['n'])({'w': 2.0, 'n': 3.0}).items()},
        "range_loop_as_fori_loop": int(jax.jit(lambda n: jax.lax.fori_loop(
            0, n, lambda i, total: total + i, 0))(10)),
        # jacfwd, jacrev and hessian of ints (JAX's autodiff tutorial, learner6): hessian says
        # jacfwd's words; the card's float input gives each its Jacobian
        **{f"{name}_of_int_array": said(lambda f=f: f(lambda v: v ** 3)(jnp.array([1, 2])))
           for name, f in [("jacfwd", jax.jacfwd), ("jacrev", jax.jacrev),
                           ("hessian", jax.hessian)]},
        **{f"{name}_of_int_array_as_float": f(lambda v: v ** 3)(
            jnp.asarray(jnp.array([1, 2]), jnp.float32)).tolist()
           for name, f in [("jacfwd", jax.jacfwd), ("jacrev", jax.jacrev),
                           ("hessian", jax.hessian)]},
        # the in_axes card's None for rows of the batch's size (its rewrite before learner6):
        # the second batch passed whole, and dot raises
        "vmap_in_axes_none_for_rows": said(lambda: jax.vmap(jnp.dot, in_axes=(0, None))(
            jnp.ones((2, 3)), jnp.ones((2, 3)))),
        "static_list": said(lambda: jax.jit(zeros, static_argnums=1)(1.0, [2, 3])),
        # the advice: a tuple instead works; a traced shape does not
        "static_list_as_tuple": said(lambda: jax.jit(zeros, static_argnums=1)(1.0, (2, 3))),
        "static_list_traced": said(lambda: jax.jit(zeros)(1.0, jnp.asarray([2, 3]))),
        "item_of_tracer": said(lambda: jax.jit(item)(1.0)),
        "item_of_tracer_lines": _said_lines(lambda: jax.jit(item)(1.0), 2),
        # "make x static" for .item(): x is then a Python float, which has no .item()
        "item_made_static": said(lambda: jax.jit(item, static_argnames=("x",))(1.0)),
        "item_dropped": said(lambda: jax.jit(lambda x: x)(1.0)),
        "range_of_tracer": said(lambda: decorated(5)),
        # static advice for a decorated function: wrapping the jit object again leaves its own
        # jit tracing n (the same error); the decorator itself must take static_argnames
        "range_rejitted_static": said(lambda: jax.jit(decorated, static_argnames=("n",))(5)),
        "range_decorator_static": said(
            lambda: functools.partial(jax.jit, static_argnames=("n",))(count)(5)),
        # a traced size in x.reshape: JAX's shape TypeError, not __index__'s
        "reshape_traced_size": said(lambda: jax.jit(lambda x, n: x.reshape(n, -1))(
            jnp.arange(6.0), 2)),
        # jnp.nonzero without size=: the count (int32[]) is what is not concrete
        "nonzero_without_size": said(lambda: jax.jit(lambda x: jnp.nonzero(x))(jnp.arange(3))),
        # a seed where a key goes
        "seed_as_key": said(lambda: jax.random.normal(0)),
        "scalar_array_as_key": said(lambda: jax.random.normal(jnp.array(0))),
        # the card's fix: the seed made a key in place
        "seed_made_key": said(lambda: jax.random.normal(jax.random.key(0), (2,))),
        "scalar_array_made_key": said(lambda: jax.random.normal(jax.random.key(jnp.array(0)))),
        # a raw key unpacked into its two uint32 words, one given as a key; the card's fix
        # (split) works; a key made of a word is key(0) for both words of PRNGKey(0)
        "raw_key_word_as_key": said(lambda: jax.random.normal(
            tuple(jax.random.PRNGKey(0))[0], (2,))),
        "raw_key_split_as_advised": said(lambda: jax.random.normal(
            jax.random.split(jax.random.PRNGKey(0))[0], (2,))),
        "raw_key_words": [int(w) for w in jax.random.PRNGKey(0)],
        # the first word is 0 whatever the seed (below 2**32): key(k1) ignores the seed
        "raw_key_words_of_seeds": [[int(w) for w in jax.random.PRNGKey(s)]
                                   for s in (7, 2**31, 2**32 - 1)],
        # .tolist() of a traced array: JAX's second line names the method
        "tolist_of_tracer": _said_lines(lambda: jax.jit(lambda x: x.tolist())(jnp.ones(2)), 2),
        # a string dtype, named as the user wrote it
        "astype_str": said(lambda: jnp.ones(3).astype("str")),
        # make_jaxpr and eval_shape name the argument by the function's parameters
        "make_jaxpr_argument": _argument_named(lambda: jax.make_jaxpr(branch)(1.0)),
        "make_jaxpr_leaf": _argument_named(lambda: jax.make_jaxpr(branch_tree)({"a": 1.0}, 2.0)),
        "make_jaxpr_star_args": _argument_named(
            lambda: jax.make_jaxpr(lambda *a: branch(a[0]))(1.0)),
        "eval_shape_argument": _argument_named(lambda: jax.eval_shape(branch, 1.0)),
        # the float64 warning names the line that asked for it (stacklevel reaches the caller)
        "float64_warning": {"category": caught[0].category.__name__,
                            "at_caller": caught[0].filename == __file__,
                            "first_line": str(caught[0].message).splitlines()[0]},
        "random_float64_warning": {"category": drawn[0].category.__name__,
                                   "at_caller": drawn[0].filename == __file__,
                                   "first_line": str(drawn[0].message).splitlines()[0]},
        # a list where an array goes: JAX's one line (jxkernel's advice on the next)
        "sum_of_list": said(lambda: jnp.sum([1, 2, 3])),
        **_first_errors(jax),
        **_leaks(jax),
        **_gotchas(jax),
        **_jitted_method(jax),
        **_conversions_under_grad(jax),
        **_sized_results(jax),
        **_grad_outputs(jax),
        **_grad_output_fixes(jax),
        **_scalar_conversions(jax),
        **_operand_shapes(jax),
        **_not_arrays(jax),
        **_vmap_ranks(jax),
        **_prints_under_jit(jax),
        **_branch_types(jax),
        **_card_rewrites(jax),
        **_random_mistakes(jax),
        # jnp.stack of arrays of two shapes, of two ranks: JAX's words name them
        "stack_of_two_shapes": said(lambda: jnp.stack([jnp.ones(2), jnp.ones(3)])),
        "stack_of_two_ranks": said(lambda: jnp.stack([jnp.ones(2), jnp.ones((2, 1))])),
        # a traced size in a random sampler's shape: JAX's shape TypeError, with jit's lines
        "random_normal_traced_shape": _said_here(lambda: jax.jit(
            lambda k, n: jax.random.normal(k, (n,)))(jax.random.key(0), 3), 3),
        "generator_draw_in_jit": _generator_draw_in_jit(jax),
        **_format_specs(jax),
        # a transpose inside vmap counting the batch's axis (the axis-bounds card, no axis
        # argument to rewrite: one example's axes said)
        "transpose_inside_vmap": said(lambda: jax.vmap(lambda a: a.transpose(1, 0))(
            jnp.ones((8, 6)))),
        **{f"dim_keyword {call}": said(lambda call=call: eval(call, {
            "jax": jax, "jnp": jnp, "x": jnp.arange(6.0).reshape(2, 3)})) for call in DIM_KEYWORDS},
    }


def _conversions_under_grad(jax):
    """Python conversions of a value grad or jvp traces, whose value is known while tracing
    (the primal): JAX lets bool(), int() and .item() read it (`if x < 3` under grad works) and
    refuses float(), complex(), tolist() and NumPy's conversion, which would cut the
    derivative silently (grad of `float(w) ** 2` would be 0)."""
    jnp = jax.numpy

    def branch(x):
        return 3.0 * x ** 2 if x < 3 else -4.0 * x
    return {
        "grad_of_if_on_value": said(lambda: jax.grad(branch)(2.0)),
        "grad_of_int": said(lambda: jax.grad(lambda w: w * int(w))(1.0)),
        "grad_of_item": said(lambda: jax.grad(lambda w: w * w.item())(2.0)),
        "grad_of_float": _said_lines(lambda: jax.grad(lambda w: float(w) ** 2)(1.0), 2),
        "grad_of_complex": said(lambda: jax.grad(lambda w: complex(w).real * w)(2.0)),
        "grad_of_tolist": _said_lines(lambda: jax.grad(lambda w: w * w.tolist())(2.0), 2),
        "grad_of_np_asarray": said(lambda: jax.grad(lambda w: w * np.asarray(w))(2.0)),
        "jvp_of_float": said(lambda: jax.jvp(lambda w: float(w) * w, (2.0,), (1.0,))),
        "linearize_of_float": said(lambda: jax.linearize(lambda w: float(w) * w, 2.0)),
        "jacfwd_of_float": said(lambda: jax.jacfwd(lambda w: float(w) * w)(2.0)),
        # grad(f)(3): JAX's TypeError; the card's 3.0 gives the slope
        "grad_of_int_literal": said(lambda: jax.grad(lambda x: x ** 2)(3)),
        "grad_of_float_literal": float(jax.grad(lambda x: x ** 2)(3.0)),
        # grad(loss)(jnp.arange(3)), the int array made by an expression: the card's
        # jnp.asarray(..., jnp.float32) around it gives the gradient
        "grad_of_int_array": said(lambda: jax.grad(lambda w: jnp.sum(w ** 2))(jnp.arange(3))),
        "grad_of_int_array_as_float": jax.grad(lambda w: jnp.sum(w ** 2))(
            jnp.asarray(jnp.arange(3), jnp.float32)).tolist(),
        # `if v > 0: n += 1` in a loop under jit: TracerBoolConversionError; the card's
        # `n = jnp.where(v > 0, n + 1, n)` counts (learner5)
        "count_with_if_in_jit": said(lambda: jax.jit(_count_if)(jnp.arange(-2.0, 3.0))),
        "count_with_where_in_jit": int(jax.jit(_count_where(jnp))(jnp.arange(-2.0, 3.0))),
        # the fix for float(w): keep it an array (w itself, or w.astype(float))
        "grad_of_astype": said(lambda: jax.grad(lambda w: w.astype(jnp.float32) ** 2)(1.0)),
    }


def _count_if(x):
    n = 0
    for v in x:
        if v > 0:
            n += 1
    return n


def _count_where(jnp):
    def count(x):
        n = 0
        for v in x:
            n = jnp.where(v > 0, n + 1, n)
        return n
    return count


def _sized_results(jax):
    """Calls whose result has as many elements as the data says (a one-argument jnp.where,
    jnp.nonzero, jnp.unique) under jit: JAX's error, and the card's fix (size= the data's
    size) run as advised."""
    jnp = jax.numpy
    x = jnp.arange(-2, 3)
    return {
        "where_one_argument": said(lambda: jax.jit(lambda x: jnp.where(x > 0))(x)),
        "where_one_argument_value": [np.asarray(a).tolist() for a in jax.jit(
            lambda x: jnp.where(x > 0, size=x.size, fill_value=-1))(x)],
        "unique_traced": said(lambda: jax.jit(lambda x: jnp.unique(x))(x)),
        "unique_sized_value": np.asarray(jax.jit(lambda x: jnp.unique(x, size=x.size))(
            x % 2)).tolist(),
        "nonzero_method": said(lambda: jax.jit(lambda m: m.nonzero())(x > 0)),
        "nonzero_method_sized_value": [np.asarray(a).tolist() for a in jax.jit(
            lambda m: m.nonzero(size=m.size, fill_value=-1))(x > 0)],
        # the padded indices read back: -1 reads the last element (x = [0., 1., 2.]: [1, 2,
        # -1] sums 5., not the nonzero elements' 3.), masked as the card says: 3.
        # the count of distinct values the card writes beside unique's size= (its length is
        # the slots', x.size): [0, 1, 0, 1, 0] has 2
        "unique_count_traced": int(jax.jit(lambda v: (jnp.diff(jnp.sort(v.ravel())) != 0)
                                           .sum() + 1)(x % 2)),
        # a traced slice's mean: masked whole, the zeros outside count (0.25); with where=
        # over the slice alone, as the card writes it, the slice's own mean (0.5)
        "traced_slice_mean_eager": float(jnp.arange(4.0)[:2].mean()),
        "traced_slice_mean_masked": float(jax.jit(lambda v, n: jnp.where(
            jnp.arange(v.shape[0]) < n, v, 0).mean())(jnp.arange(4.0), 2)),
        "traced_slice_mean_where": float(jax.jit(lambda v, n: v.mean(
            where=jnp.arange(v.shape[0]) < n))(jnp.arange(4.0), 2)),
        "nonzero_padded_read": float(jax.jit(lambda v: v[jnp.nonzero(
            v, size=v.size, fill_value=-1)[0]].sum())(jnp.arange(3.0))),
        "nonzero_padded_masked": float(jax.jit(lambda v: (lambda idx: jnp.where(
            idx >= 0, v[idx], 0).sum())(jnp.nonzero(v, size=v.size, fill_value=-1)[0]))(
                jnp.arange(3.0))),
    }


def _grad_outputs(jax):
    """grad of a function returning a tuple, a list or None, and has_aux=True with one
    output: JAX's TypeErrors (the first words; the values' reprs are each library's)."""
    def first_words(fn, n):
        found = said(fn)
        return found and {"error": found["error"], "start": found["first_line"][:n]}
    return {
        "grad_of_tuple_output": first_words(lambda: jax.grad(lambda x: (x ** 2, 1.0))(2.0), 67),
        "grad_of_none_output": said(lambda: jax.grad(lambda x: None)(2.0)),
        "grad_has_aux_one_output": first_words(
            lambda: jax.grad(lambda x: x ** 2, has_aux=True)(2.0), 69),
        "vjp_has_aux_three_outputs": first_words(
            lambda: jax.vjp(lambda x: (x, x, x), 2.0, has_aux=True), 69),
    }


def _grad_output_fixes(jax):
    """grad of a function whose output is not one number, and each fix the grad-output card
    advises, as advised: the Jacobian (jacrev), the sum's gradient, vmap of grad for an
    elementwise function, has_aux for a (loss, extra) pair (and for a longer tuple once f
    returns loss, (extra1, extra2)), the loss entry of a dict."""
    jnp = jax.numpy
    x = jnp.arange(3.0)

    def square(x):
        return x ** 2

    def pair(x):
        return x.sum(), x

    def entries(x):
        return {"loss": (x ** 2).sum(), "y": x}

    def listed(tree):                   # as JSON keeps it: tuples as lists
        return json.loads(json.dumps(jax.tree_util.tree_map(lambda a: np.asarray(a).tolist(),
                                                            tree)))
    return {
        "grad_of_vector_output": said(lambda: jax.grad(square)(x)),
        "value_and_grad_of_vector_output": said(lambda: jax.value_and_grad(square)(x)),
        "grad_of_triple_output": said(
            lambda: jax.grad(lambda x: (x.sum(), x, 1.0))(x))["first_line"][:67],
        "grad_of_dict_output": said(lambda: jax.grad(entries)(x))["first_line"][:67],
        "fix_jacrev": listed(jax.jacrev(square)(x)),
        "fix_grad_of_sum": listed(jax.grad(lambda *args: square(*args).sum())(x)),
        "fix_value_and_grad_of_sum": listed(
            jax.value_and_grad(lambda *args: square(*args).sum())(x)),
        "fix_vmap_grad": listed(jax.vmap(jax.grad(square))(x)),
        # a lambda's body summed in place (learner6)
        "fix_grad_of_lambda_sum": listed(jax.grad(lambda v: (v ** 2).sum())(x)),
        "fix_has_aux": listed(jax.grad(pair, has_aux=True)(x)),
        "fix_value_and_grad_has_aux": listed(jax.value_and_grad(pair, has_aux=True)(x)),
        "fix_has_aux_of_a_triple": listed(
            jax.grad(lambda x: (x.sum(), (x, 1.0)), has_aux=True)(x)),
        "fix_dict_entry": listed(jax.grad(lambda *args: entries(*args)["loss"])(x)),
    }


def _scalar_conversions(jax):
    """int()/float()/complex() of an array with dimensions (JAX refuses even one element),
    eager and under jit, and the scalar-conversion card's fixes as advised."""
    jnp = jax.numpy
    return {
        "float_of_one_element": said(lambda: float(jnp.array([1.5]))),
        "int_of_vector": said(lambda: int(jnp.array([1, 2]))),
        "complex_of_matrix": said(lambda: complex(jnp.ones((2, 2)))),
        "float_of_vector_in_jit": said(lambda: jax.jit(lambda x: float(x) * 2)(jnp.ones(2))),
        "fix_item": float(jnp.array([1.5]).item()),
        "fix_tolist": jnp.array([1, 2]).tolist(),
        "fix_sum": int(jnp.array([1, 2]).sum()),
        "fix_first": int(jnp.array([1, 2])[0]),
        "fix_astype_in_jit": np.asarray(
            jax.jit(lambda x: x.astype(float) * 2)(jnp.ones(2))).tolist(),
    }


# (mistake, fix) source lines over X (3, 4), m its row means, W (3, 5): the broadcast-shapes
# and matmul-shapes cards' rewrites of each mistake (tests/notebook/test_learner_mistakes.py)
OPERAND_SHAPES = {
    "center_rows": ("X - X.mean(axis=1)", "X - X.mean(axis=1, keepdims=True)"),
    "center_rows_jnp_mean": ("X - jnp.mean(X, axis=1)", "X - jnp.mean(X, axis=1, keepdims=True)"),
    "divide_by_row_means": ("X / m", "X / jnp.expand_dims(m, 1)"),
    "standardize_rows": ("(X - X.mean(axis=1)) / X.std(axis=1)",
                         "(X - X.mean(axis=1, keepdims=True)) / X.std(axis=1, keepdims=True)"),
    "vectors_of_two_sizes": ("jnp.ones(3) + jnp.ones(4)", "jnp.ones(3)[:, None] + jnp.ones(4)"),
    "transposed_operands": ("jnp.ones((2, 3)) * jnp.ones((3, 2))",
                            "jnp.ones((2, 3)) * jnp.ones((3, 2)).T"),
    "under_jit": ("jax.jit(lambda a, b: a / b)(X, jnp.ones(3))",
                  "jax.jit(lambda a, b: a / jnp.expand_dims(b, 1))(X, jnp.ones(3))"),
    "matmul_same_shapes": ("X @ X", "X @ X.T"),
    "matmul_vector": ("jnp.dot(X, jnp.ones(3))", "jnp.dot(X.T, jnp.ones(3))"),
    "matmul_weights": ("X @ W", "X.T @ W"),
    # two batches of vectors, one dot per pair (JAX's vmap tutorial batches by hand), and a
    # vector times a batch of vectors (learner7)
    "matmul_batched_pairs": ("jnp.dot(P, Q)", "jax.vmap(jnp.dot)(P, Q)"),
    "matmul_vector_times_batch": ("jnp.dot(v, P)", "jnp.dot(P, v)"),
}


# (mistake, the matmul-shapes card's fix) for a product a function returns to jax.grad: the
# fix must be one number (a @ a.T of a column, (3, 3), was refused by grad next), jnp.vdot where
# both arrays have one size, else the product that fits, summed. C a column (3, 1); the arrays
# above otherwise. The card's line is the fix's last line but for the `_y = ` call
MATMUL_TO_GRAD = {
    "column_dot_itself": ("_y = jax.grad(lambda a: jnp.dot(a, a))(C)",
                          "_y = jax.grad(lambda a: jnp.vdot(a, a))(C)"),
    "value_and_grad_of_a_pair": ("_y = jax.value_and_grad(lambda a, b: a @ b)(P, Q)",
                                 "_y = jax.value_and_grad(lambda a, b: jnp.vdot(a, b))(P, Q)"),
    "returned_by_the_loss": ("def loss(w, x):\n    return x @ w\n_y = jax.grad(loss)(v, X)",
                             "def loss(w, x):\n    return (x.T @ w).sum()\n"
                             "_y = jax.grad(loss)(v, X)"),
}


def _operand_shapes(jax):
    """Each OPERAND_SHAPES mistake's error under JAX, and its fix's result shape."""
    jnp = jax.numpy
    names = {"jax": jax, "jnp": jnp, "X": jnp.ones((3, 4)), "W": jnp.ones((3, 5)),
             "P": jnp.arange(6.0).reshape(2, 3), "Q": jnp.arange(6.0, 12.0).reshape(2, 3),
             "v": jnp.arange(3.0)}
    names["m"] = names["X"].mean(axis=1)
    found = {}
    for case, (mistake, fix) in OPERAND_SHAPES.items():
        found[f"shapes_{case}"] = said(lambda: eval(mistake, dict(names)))
        found[f"shapes_{case}_fixed"] = list(eval(fix, dict(names)).shape)
    found["shapes_matmul_vector_swapped"] = list(jnp.dot(jnp.ones(3), names["X"]).shape)
    # the values the two rewrites give (exact: small integers in float32), and the learner6
    # line (two stacked signals, two stacked kernels), whose a.T @ b mixes the batch
    P, Q, v = names["P"], names["Q"], names["v"]
    found["shapes_matmul_batched_pairs_values"] = jax.vmap(jnp.dot)(P, Q).tolist()
    found["shapes_matmul_vector_times_batch_values"] = jnp.dot(P, v).tolist()
    found["shapes_matmul_vector_times_batch_vmap"] = \
        jax.vmap(jnp.dot, in_axes=(0, None))(P, v).tolist()
    xs = jnp.stack([jnp.arange(5), jnp.arange(5)])
    ws = jnp.stack([jnp.array([2., 3., 4.])] * 2)
    found["shapes_stacked_signals"] = said(lambda: jnp.dot(xs, ws))
    # x @ w inside jax.vmap, x mapped along the (8, 3) array's axis 1: one example's x is
    # (8,), and mapped along axis 0, (3,), which fits w (3, 2)
    product = lambda x, w: x @ w  # noqa: E731
    found["shapes_matmul_under_vmap"] = said(
        lambda: jax.vmap(product, in_axes=(1, None))(jnp.ones((8, 3)), jnp.ones((3, 2))))
    found["shapes_matmul_under_vmap_fixed"] = list(
        jax.vmap(product, in_axes=(0, None))(jnp.ones((8, 3)), jnp.ones((3, 2))).shape)
    names["C"] = jnp.arange(3.0).reshape(3, 1)
    for case, (mistake, fix) in MATMUL_TO_GRAD.items():
        found[f"to_grad_{case}"] = said(lambda: exec(mistake, dict(names)))
        scope = dict(names)
        exec(fix, scope)
        found[f"to_grad_{case}_fixed"] = json.loads(json.dumps(jax.tree_util.tree_map(
            lambda a: np.asarray(a).tolist(), scope["_y"])))      # (a tuple as JSON's list)
    # a + b inside jax.vmap, a mapped (8, 3), b an unmapped (4,): one example's (3,) and (4,)
    found["shapes_add_under_vmap"] = said(
        lambda: jax.vmap(lambda a, b: a + b, in_axes=(0, None))(jnp.ones((8, 3)),
                                                                 jnp.ones(4)))
    found["shapes_sub_both_mapped"] = said(
        lambda: jax.vmap(lambda a, b: a - b)(jnp.ones((8, 3)), jnp.ones((8, 4))))
    # jnp.where's three arguments, a fill of another length; and the fill a scalar
    x = jnp.arange(3.0) - 1
    found["shapes_where_fill"] = said(lambda: jnp.where(x > 0, x, jnp.ones(4)))
    found["shapes_where_fill_scalar"] = jnp.where(x > 0, x, 1.0).tolist()
    return found


# (cells before, the mistake, the not-an-array card's rewrite of it, the call after the rewrite)
# over x = jnp.ones(2): a string or a function passed where jit traces
NOT_ARRAYS = {
    "string_argument": ("", "y = jax.jit(act)(x, 'double')",
                        "y = jax.jit(act, static_argnames=('name',))(x, 'double')", ""),
    "string_keyword": ("", "y = jax.jit(act)(x, name='double')",
                       "y = jax.jit(act, static_argnames=('name',))(x, name='double')", ""),
    "function_argument": ("", "y = jax.jit(apply)(neg, x)",
                          "y = jax.jit(apply, static_argnames=('fn',))(neg, x)", ""),
    "jit_bound_to_a_name": ("g = jax.jit(act)", "y = g(x, 'double')",
                            "g = jax.jit(act, static_argnames=('name',))", "y = g(x, 'double')"),
    "decorated_elsewhere": ("@jax.jit\ndef dec(x, name):\n    return x * 2",
                            "y = dec(x, 'double')",
                            "dec = jax.jit(dec.__wrapped__, static_argnames=('name',))",
                            "y = dec(x, 'double')"),
    "lambda": ("", "y = jax.jit(lambda x, name: x * 2)(x, 'double')",
               "y = jax.jit(lambda x, name: x * 2, static_argnames=('name',))(x, 'double')",
               ""),
}


def _unplaced(text):
    """A function's repr without its address and enclosing functions (`<function
    f.<locals>.act at 0x7f..>` as `<function act>`): the test's cell defines them at top level."""
    return re.sub(r"<function (?:[\w<>]+\.<locals>\.)*([\w<>]+) at 0x[0-9a-f]+>",
                  r"<function \1>", text)


def _not_arrays(jax):
    """Each NOT_ARRAYS mistake's error under JAX (the function's address dropped) and the
    value its rewrite gives (exact: 2.0 or -1.0 twice)."""
    jnp = jax.numpy

    def act(x, name):
        return x * 2 if name == "double" else x

    def apply(fn, x):
        return fn(x)

    def neg(v):
        return -v
    found = {}
    for case, (before, mistake, fix, after) in NOT_ARRAYS.items():
        names = {"jax": jax, "jnp": jnp, "x": jnp.ones(2), "act": act, "apply": apply,
                 "neg": neg}
        exec(before, names)
        got = said(lambda: exec(mistake, names))
        got["first_line"] = _unplaced(got["first_line"])
        found[f"not_array_{case}"] = got
        exec(fix + "\n" + after, names)
        found[f"not_array_{case}_fixed"] = np.asarray(names["y"]).tolist()
    return found


# (mistake, the vmap-rank card's rewrite) over xs (5, 3) and scale(x, s) = x * s
VMAP_RANKS = {
    "scalar_mapped": ("jax.vmap(scale)(xs, 2.0)",
                      "jax.vmap(scale, in_axes=(0, None))(xs, 2.0)"),
    "axis_past_the_end": ("jax.vmap(scale, in_axes=(0, 1))(xs, jnp.ones(5))",
                          "jax.vmap(scale, in_axes=(0, 0))(xs, jnp.ones(5))"),
    "only_mapped_argument": ("jax.vmap(scale, in_axes=(2, None))(xs, 2.0)",
                             "jax.vmap(scale, in_axes=(0, None))(xs, 2.0)"),
}


def _vmap_ranks(jax):
    """Each VMAP_RANKS mistake's error under JAX, its fix's result shape, and vmap refusing
    in_axes all None (why the card never offers it for a scalar mapped alone)."""
    jnp = jax.numpy

    def scale(x, s):
        return x * s
    names = {"jax": jax, "jnp": jnp, "xs": jnp.ones((5, 3)), "scale": scale}
    found = {}
    for case, (mistake, fix) in VMAP_RANKS.items():
        found[f"vmap_rank_{case}"] = said(lambda: eval(mistake, dict(names)))
        found[f"vmap_rank_{case}_fixed"] = list(eval(fix, dict(names)).shape)
    found["vmap_rank_scalar_alone"] = said(lambda: jax.vmap(lambda x: x * 2)(1.0))
    found["vmap_all_none"] = said(lambda: jax.vmap(lambda x: x * 2, in_axes=None)(1.0))
    return found


def _generator_draw_in_jit(jax) -> dict:
    """A NumPy Generator's (np.random.default_rng) or Python's random.Random's draw inside a
    jitted function: drawn at the trace, the same number on every call, as np.random's."""
    import random
    import numpy as np
    rng, py = np.random.default_rng(0), random.Random(0)

    def noisy(x):
        return x + rng.normal()

    def noisy_py(x):
        return x + py.random()
    f, g = jax.jit(noisy), jax.jit(noisy_py)
    return {"generator_same_twice": bool(f(1.0) == f(1.0)),
            "random_instance_same_twice": bool(g(1.0) == g(1.0))}


# A draw of NumPy's or Python's inside a jitted function (the trace-draw note): (what makes the
# generator, "" for a module; the draw as the learner wrote it; the note's jax.random call with
# a key passed in, which draws anew per key)
DRAW_NOTES = {
    "np_normal": ("", "np.random.normal()", "jax.random.normal(key)"),
    "np_randn": ("", "np.random.randn(2, 3)", "jax.random.normal(key, (2, 3))"),
    "np_normal_loc_size": ("", "np.random.normal(1.0, 2.0, size=(3,))",
                           "1.0 + 2.0 * jax.random.normal(key, (3,))"),
    "np_uniform": ("", "np.random.uniform(-1.0, 1.0, 4)",
                   "jax.random.uniform(key, (4,), minval=-1.0, maxval=1.0)"),
    "np_randint": ("", "np.random.randint(0, 10, size=(2, 2))",
                   "jax.random.randint(key, (2, 2), 0, 10)"),
    "np_choice_list": ("", "np.random.choice([1.0, 2.0, 3.0], 2)",
                       "jax.random.choice(key, jnp.asarray([1.0, 2.0, 3.0]), (2,))"),
    "gen_integers": ("np.random.default_rng(0)", "rng.integers(1, 7, size=3)",
                     "jax.random.randint(key, (3,), 1, 7)"),
    "gen_integers_endpoint": ("np.random.default_rng(0)",
                              "rng.integers(1, 6, size=3, endpoint=True)",
                              "jax.random.randint(key, (3,), 1, 7)"),
    "gen_random": ("np.random.default_rng(0)", "rng.random((2,))", "jax.random.uniform(key, (2,))"),
    "gen_permutation": ("np.random.default_rng(0)", "rng.permutation(4)",
                        "jax.random.permutation(key, 4)"),
    "py_random": ("", "random.random()", "jax.random.uniform(key)"),
    "py_gauss": ("", "random.gauss(0.0, 0.5)", "0.0 + 0.5 * jax.random.normal(key)"),
    "py_randint": ("", "random.randint(1, 6)", "jax.random.randint(key, (), 1, 7)"),
    "py_uniform": ("", "random.uniform(2.0, 3.0)",
                   "jax.random.uniform(key, minval=2.0, maxval=3.0)"),
    "py_choice": ("", "random.choice([0.25, 0.5])",
                  "jax.random.choice(key, jnp.asarray([0.25, 0.5]))"),
}


def draw_stats(values) -> dict:
    """What a draw's claims rest on, alike for NumPy's and JAX's: one draw's shape and kind of
    dtype, and over 2000 draws the values an integer draw takes, or a float draw's mean and
    standard deviation (3 decimals)."""
    values = np.asarray(values)
    one = values[0]
    stats = {"shape": list(np.shape(one)), "kind": one.dtype.kind if one.dtype.kind != "u"
             else "i"}
    if stats["kind"] == "i":
        stats["values"] = sorted({int(v) for v in values.ravel()})
    else:
        stats["mean"], stats["std"] = round(float(values.mean()), 3), round(float(values.std()), 3)
    return stats


def draw_fixes(jax) -> dict:
    """DRAW_NOTES under JAX: the learner's draw jitted gives one number on two calls; the
    note's jax.random call, jitted with the key passed in, draws anew per key: its first
    draw (key 0), and its stats over 2000 keys beside NumPy's (or Python's) own draw's.
    Recorded apart from `run` (the reference script adds it): the test compares jxkernel's
    first draw alone, and 2000 draws of each case under jxkernel would cost it 10 s."""
    import random
    names = {"np": np, "random": random, "jax": jax, "jnp": jax.numpy}
    found = {}
    for case, (made, draw, fix) in DRAW_NOTES.items():
        random.seed(0)
        np.random.seed(0)
        scope = dict(names, rng=eval(made, names) if made else None)
        baked = jax.jit(eval(f"lambda: {draw}", scope))
        drawn = jax.jit(eval(f"lambda key: {fix}", scope))
        keys = jax.random.split(jax.random.key(0), 2000)
        theirs = [eval(draw, scope) for _ in range(2000)]
        found[f"draw_{case}"] = {
            "same_twice": bool(np.array_equal(baked(), baked())),
            "first": np.asarray(drawn(jax.random.key(0))).tolist(),
            "stats": draw_stats(jax.vmap(drawn)(keys)),
            "their_stats": draw_stats(theirs)}
    found["draw_shuffled_indices"] = _shuffled_indices(jax)
    return found


SHUFFLED = """def batch(x):
    idx = np.arange(4)
    np.random.shuffle(idx)
    return x[idx]
"""


def _shuffled_indices(jax) -> dict:
    """np.random.shuffle of an index array inside a jitted function (a batch's order): one
    order, baked in; the note's `idx = jax.random.permutation(key, idx)` takes one per key."""
    scope = {"np": np, "jax": jax}
    exec(SHUFFLED, scope)
    baked, x = jax.jit(scope["batch"]), np.arange(4.0) * 10
    fixed = SHUFFLED.replace("def batch(x):", "def batch(x, key):").replace(
        "np.random.shuffle(idx)", "idx = jax.random.permutation(key, idx)")
    exec(fixed, scope)
    orders = {tuple(np.asarray(jax.jit(scope["batch"])(x, jax.random.key(k))).tolist())
              for k in range(20)}
    return {"same_twice": bool(np.array_equal(baked(x), baked(x))), "orders": len(orders)}


def _format_specs(jax):
    """A format spec on an Array: a scalar's value takes it ("1.50"), an array's raises
    NumPy's TypeError, eagerly and in jax.debug.print's callback (JAX 0.10.2: its
    JaxRuntimeError, whose class this records not, only that the call raised)."""
    import contextlib
    import io
    jnp = jax.numpy

    def debug_printed(fn, x):
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                jax.block_until_ready(fn(x))
                jax.effects_barrier()
        except Exception:  # noqa: BLE001  whether it raised is the answer
            return "raised"
        return out.getvalue().splitlines()

    def spec_printed(v):
        jax.debug.print("v = {:.2f}", v)
        return v
    return {"format_spec_of_scalar": f"{jnp.float32(1.5):.2f}",
            "format_of_vector": f"{jnp.ones(2)}",
            "format_spec_of_vector": said(lambda: f"{jnp.ones(2):.2f}"),
            "debug_print_spec_of_scalar": debug_printed(jax.jit(spec_printed), 1.5),
            "debug_print_spec_of_vector": debug_printed(jax.jit(spec_printed), jnp.ones(2))}


def _prints_under_jit(jax):
    """How often print and jax.debug.print run for two calls of a jitted function with the
    same types, and what print shows: the print note's claims (notebook/notes/print_notes.py)."""
    import contextlib
    import io
    jnp = jax.numpy

    def lines(fn):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            fn(1.0)
            fn(2.0)
            jax.effects_barrier()
        return out.getvalue().splitlines()

    def with_print(x):
        print("x is", x)
        return x + 1

    def with_debug_print(x):
        jax.debug.print("x is {}", x)
        return x + 1
    def with_fstring(x):                # learner6: the values formatted by Python, at the trace
        jax.debug.print(f"x is {x}")
        return x + 1

    def with_fstring_fixed(x):          # the note's rewrite of that line
        jax.debug.print('x is {x}', x=x)
        return x + 1
    # a print in a loss under grad or vmap: inside a jit (a training step) it runs at the
    # jit's trace alone, as a JitTracer's print does; eager grad prints on every call. The
    # note's jax.debug.print in place of the print prints each call's value.
    def loss_printing(w):
        print("w is", w)
        return w * w

    def loss_debug_printing(w):
        jax.debug.print("w is {}", w)
        return w * w

    def row_printing(r):
        print("r is", r)
        return r * 2

    # text Python makes at the trace: "x is %s" % x, "x is " + str(x), "...".format(x),
    # whether printed or given to jax.debug.print, shows the tracer (the earlier fix passed
    # that text to debug.print: the tracer on each call); the note's rewrites pass the values
    def with_percent(x):
        print("x is %s" % x)
        return x + 1

    def with_str_concat(x):
        print("x is " + str(x))
        return x + 1

    def with_percent_earlier_fix(x):
        jax.debug.print('{}', 'x is %s' % x)
        return x + 1

    def with_debug_percent(x):
        jax.debug.print("x is %s" % x)
        return x + 1

    def with_debug_format(x):
        jax.debug.print("x is {}".format(x))
        return x + 1

    def with_repr_concat_fixed(x):      # the note's rewrite of print("x is " + repr(x) + "!")
        jax.debug.print('x is {!r}!', x)
        return x + 1
    return {"print_percent_in_jit_lines": lines(jax.jit(with_percent)),
            "print_str_concat_in_jit_lines": lines(jax.jit(with_str_concat)),
            "print_percent_earlier_fix_lines": lines(jax.jit(with_percent_earlier_fix)),
            "debug_print_percent_in_jit_lines": lines(jax.jit(with_debug_percent)),
            "debug_print_format_in_jit_lines": lines(jax.jit(with_debug_format)),
            "debug_print_repr_concat_fixed_lines": lines(jax.jit(with_repr_concat_fixed)),
            "print_in_jit_lines": lines(jax.jit(with_print)),
            "print_under_grad_in_jit_lines": lines(jax.jit(jax.grad(loss_printing))),
            "debug_print_under_grad_in_jit_lines":
                lines(jax.jit(jax.grad(loss_debug_printing))),
            "print_under_vmap_in_jit_lines":
                lines(jax.jit(lambda x: jax.vmap(row_printing)(jnp.ones(2) * x))),
            "print_under_grad_lines": lines(jax.grad(loss_printing)),
            "debug_print_in_jit_lines": lines(jax.jit(with_debug_print)),
            "debug_print_fstring_in_jit_lines": lines(jax.jit(with_fstring)),
            "debug_print_fstring_fixed_lines": lines(jax.jit(with_fstring_fixed))}


def _branch_types(jax):
    """lax.cond/switch branches returning different dtypes or shapes: JAX's TypeError, and the
    card's fixes run as advised (a cast toward the promoted dtype, a broadcast, a pad, a slice,
    jnp.where), each giving the branches one type."""
    jnp, lax = jax.numpy, jax.lax
    x = jnp.ones((3, 2))

    def typed(y):
        return [str(y.dtype), list(y.shape)]
    return {
        "cond_branch_dtypes": said(lambda: lax.cond(True, lambda v: v.astype(jnp.int32),
                                                     lambda v: v, x)),
        "cond_branch_dtypes_cast": typed(lax.cond(
            True, lambda v: v.astype(jnp.int32).astype(jnp.float32), lambda v: v, x)),
        "cond_branch_where_promotes": typed(jnp.where(True, x.astype(jnp.int32), x)),
        "cond_branch_shapes": said(lambda: lax.cond(True, lambda v: v, lambda v: v[:1], x)),
        "cond_branch_shapes_broadcast": typed(lax.cond(
            False, lambda v: v, lambda v: jnp.broadcast_to(v[:1], (3, 2)), x)),
        "cond_branch_shapes_pad": typed(lax.cond(
            False, lambda v: v, lambda v: jnp.pad(v[:2], [(0, 1), (0, 0)]), x)),
        "cond_branch_shapes_slice": typed(lax.cond(
            False, lambda v: v[:2], lambda v: v[:3][:2], x)),
        "switch_branch_dtypes": said(lambda: lax.switch(1, [lambda v: v, lambda v: v * 1.0],
                                                         jnp.ones(2, jnp.int32))),
    }


# The names the cases below use (a cell the notebook test runs first, and each side here)
CARD_SETUP = """import math
x = jnp.arange(1.0, 4.0)
m = jnp.arange(6.0)
M = jnp.arange(6.0).reshape(2, 3)
def grow(a):
    return lax.while_loop(lambda c: c < 10.0, lambda c: c * a, a)
def power(a, n):
    return lax.fori_loop(0, n, lambda i, c: c * a, 1.0)
def double(v):
    return v * 2
def negate(v):
    return -v
def twice(c):
    return c * 2
def below_ten(c):
    return c < 10
params = {"w": jnp.ones(2), "b": jnp.zeros(())}
def loss_fn(p):
    return (p["w"] ** 2).sum() + p["b"]
vg = jax.value_and_grad(loss_fn)(params)
shp = [2, 3]
def fill(v, shape):
    return jnp.zeros(shape) + v
ga = jax.grad(lambda p: (loss_fn(p), 1.0), has_aux=True)(params)"""

# (mistake, fix): the while-grad, cond-predicate, lax-dtypes, reshape-size, float-index,
# integer-power, axis-bounds, scan-lengths, ragged-array, list-argument, while-per-element,
# float-shape, slice-indices, scan-output, fori-bounds, concatenate-ranks, boolean-index
# (a masked .at[] update), list-operand, list-index, truth-value, bool-conversion and
# concretization (Python's max/min, math's functions; a shape's tuple static) and
# random-arguments cards' rewrite of
# each mistake's line
# (tests/notebook/test_learner_mistakes.py checks the card gives it, runs it, and compares its
# value with JAX's)
CARD_REWRITES = {
    "grad_of_while_loop": ("jax.grad(grow)(2.0)", "jax.jacfwd(grow)(2.0)"),
    "grad_of_fori_loop_traced_bounds": ("jax.jit(jax.grad(power))(2.0, 3)",
                                        "jax.jit(jax.jacfwd(power))(2.0, 3)"),
    "value_and_grad_of_while_loop": ("jax.value_and_grad(grow)(2.0)",
                                     "(grow(2.0), jax.jacfwd(grow)(2.0))"),
    "cond_per_element": ("lax.cond(x > 2, lambda v: v * 2, lambda v: -v, x)",
                         "jnp.where(x > 2, x * 2, -x)"),
    "cond_per_element_constants": ("lax.cond(x > 2, lambda: 1.0, lambda: 0.0)",
                                   "jnp.where(x > 2, 1.0, 0.0)"),
    # branches returning pairs (stop 129: jnp.where of the two tuples, which raised): a
    # jnp.where per part
    "cond_per_element_pairs": ("lax.cond(x > 2, lambda v: (v, -v), lambda v: (-v, v), x)",
                               "(jnp.where(x > 2, x, -x), jnp.where(x > 2, -x, x))"),
    "cond_per_element_named": ("lax.cond(x > 2, double, negate, x)",
                               "jnp.where(x > 2, double(x), negate(x))"),
    "lax_add_two_dtypes": ("lax.add(x, jnp.arange(3))", "jnp.add(x, jnp.arange(3))"),
    "lax_mul_two_dtypes": ("jax.lax.mul(jnp.arange(3), x)", "jnp.multiply(jnp.arange(3), x)"),
    # jnp.append along an axis of a number or a row (its concatenate's ranks): values given
    # the array's dimensions
    "concatenate_append_number": ("jnp.append(M, 1.0, axis=0)",
                                  "jnp.append(M, jnp.full((1, 3), 1.0), axis=0)"),
    "concatenate_append_row": ("jnp.append(M, x, axis=0)",
                               "jnp.append(M, jnp.expand_dims(x, 0), axis=0)"),
    # lax.clamp's three dtypes (jnp.clip promotes, x first), lax.select's scalar case
    # (jnp.where broadcasts)
    "lax_clamp_dtypes": ("lax.clamp(0.0, M, 3)", "jnp.clip(M, 0.0, 3)"),
    "laxselect_scalar_case": ("lax.select(M > 2, M, 0.0)", "jnp.where(M > 2, M, 0.0)"),
    "reshape_method": ("m.reshape(4, 3)", "m.reshape(-1, 3)"),
    "reshape_function": ("jnp.reshape(m, (3, 4))", "jnp.reshape(m, (3, -1))"),
    "float_index_division": ("x[len(x) / 2]", "x[len(x) // 2]"),
    "float_index_number": ("x[1.0]", "x[1]"),
    "float_index_traced_division": ("jax.jit(lambda v, i: v[i / 2])(x, 2)",
                                    "jax.jit(lambda v, i: v[i // 2])(x, 2)"),
    "float_index_traced": ("jax.jit(lambda v, i: v[i])(x, 1.0)",
                           "jax.jit(lambda v, i: v[i.astype(int)])(x, 1.0)"),
    "integer_negative_power": ("jnp.arange(3) ** -1", "jnp.arange(3).astype(float) ** -1"),
    # the missing entry is 0 where that argument's axis 0 has the batch's size (learner6:
    # in_axes=(0,) for two batches of rows; None passed the second whole, and dot raised)
    "vmap_in_axes_short": ("jax.vmap(jnp.multiply, in_axes=(0,))(x, x)",
                           "jax.vmap(jnp.multiply, in_axes=(0, 0))(x, x)"),
    "vmap_in_axes_short_rows": ("jax.vmap(jnp.dot, in_axes=(0,))(M, M)",
                                "jax.vmap(jnp.dot, in_axes=(0, 0))(M, M)"),
    "vmap_in_axes_short_shared": ("jax.vmap(jnp.multiply, in_axes=(0,))(x, M)",
                                  "jax.vmap(jnp.multiply, in_axes=(0, None))(x, M)"),
    # every entry given None (stop 129): padded with None, vmap raised "at least one non-None
    # value in in_axes", pasted; the argument added with an axis 0 is mapped
    "vmap_in_axes_short_all_none": ("jax.vmap(jnp.dot, in_axes=(None,))(x, M)",
                                    "jax.vmap(jnp.dot, in_axes=(None, 0))(x, M)"),
    # lax.cond's branches written as lambdas on the line, one returning an int (learner6):
    # the lambda's body cast (the card's `return result.astype(...)` fits no lambda)
    "branch_types_lambda": ("lax.cond(True, lambda v: v, lambda v: 0, 1.5)",
                            "lax.cond(True, lambda v: v, lambda v: jnp.asarray(0, "
                            "jnp.float32), 1.5)"),
    "branch_types_true_lambda": ("lax.cond(False, lambda v: 1, lambda v: v * 2.0, 1.5)",
                                 "lax.cond(False, lambda v: jnp.asarray(1, jnp.float32), "
                                 "lambda v: v * 2.0, 1.5)"),
    "vmap_in_axes_long": ("jax.vmap(jnp.multiply, in_axes=(0, 0, 0))(x, x)",
                          "jax.vmap(jnp.multiply, in_axes=(0, 0))(x, x)"),
    "body_fori_lambda": ("lax.fori_loop(0, 3, lambda c: c * 2, 1.0)",
                         "lax.fori_loop(0, 3, lambda i, c: c * 2, 1.0)"),
    "body_scan_lambda": ("lax.scan(lambda c: (c + 1, c), 0.0, x)",
                         "lax.scan(lambda c, x: (c + 1, c), 0.0, x)"),
    "body_map_lambda": ("lax.map(lambda: 1.0, x)", "lax.map(lambda x: 1.0, x)"),
    # the body given by keyword; branches taking nothing given an operand (each takes `_`);
    # branches of one parameter given no operand (the learner's own x passed)
    "body_fori_keywords": ("lax.fori_loop(0, 3, body_fun=lambda c: c * 2, init_val=1.0)",
                           "lax.fori_loop(0, 3, body_fun=lambda i, c: c * 2, init_val=1.0)"),
    "body_cond_no_parameters": ("lax.cond(True, lambda: 1.0, lambda: 2.0, 3.0)",
                                "lax.cond(True, lambda _: 1.0, lambda _: 2.0, 3.0)"),
    "body_switch_no_parameters": ("lax.switch(1, [lambda: 1.0, lambda: 2.0], 3.0)",
                                  "lax.switch(1, [lambda _: 1.0, lambda _: 2.0], 3.0)"),
    "body_cond_no_operands": ("lax.cond(False, lambda x: x + 1, lambda x: x - 1)",
                              "lax.cond(False, lambda x: x + 1, lambda x: x - 1, x)"),
    "tree_pair_value_and_grad": ("jax.tree_util.tree_map(lambda p, g: p - 0.5 * g, params, vg)",
                                 "jax.tree_util.tree_map(lambda p, g: p - 0.5 * g, params, "
                                 "vg[1])"),
    "tree_pair_has_aux": ("jax.tree.map(lambda p, g: p - 0.5 * g, params, ga)",
                          "jax.tree.map(lambda p, g: p - 0.5 * g, params, ga[0])"),
    "axis_sum_vector": ("x.sum(axis=1)", "x.sum(axis=0)"),
    "axis_counted_from_one": ("M.sum(axis=2)", "M.sum(axis=1)"),
    "axis_positional": ("jnp.max(M, 2)", "jnp.max(M, 1)"),
    "axis_in_a_tuple": ("M.sum(axis=(0, 2))", "M.sum(axis=(0, 1))"),
    # every axis counted from 1: each one less (the last for 2 alone made (1, 1), a duplicate
    # JAX refuses)
    "axis_tuple_counted_from_one": ("M.sum(axis=(1, 2))", "M.sum(axis=(0, 1))"),
    "axis_under_jit": ("jax.jit(lambda v: v.sum(axis=1))(x)",
                       "jax.jit(lambda v: v.sum(axis=0))(x)"),
    "axis_concatenate_vectors": ("jnp.concatenate([x, x], axis=1)", "jnp.stack([x, x], axis=1)"),
    "scan_length_given": ("lax.scan(lambda c, v: (c + v, c), 0.0, x, length=4)",
                          "lax.scan(lambda c, v: (c + v, c), 0.0, x)"),
    "scan_xs_lengths": ("lax.scan(lambda c, ab: (c + ab[0] * ab[1], c), 0.0, (x, m))",
                        "lax.scan(lambda c, ab: (c + ab[0] * ab[1], c), 0.0, (x[:3], m[:3]))"),
    # xs[0] the longer: JAX's message lists the lengths in xs's order ("6, 3"), as the title
    "scan_xs_lengths_longer_first": ("lax.scan(lambda c, ab: (c + ab[0] * ab[1], c), 0.0, (m, x))",
                                     "lax.scan(lambda c, ab: (c + ab[0] * ab[1], c), 0.0, "
                                     "(m[:3], x[:3]))"),
    "scan_map_lengths": ("lax.map(lambda ab: ab[0] * ab[1], [x, m])",
                         "lax.map(lambda ab: ab[0] * ab[1], [x[:3], m[:3]])"),
    "ragged_rows": ("jnp.array([[1, 2], [3]])", "jnp.array([[1, 2], [3, 0]])"),
    "ragged_arrays": ("jnp.array([x, m])", "[jnp.asarray(row) for row in [x, m]]"),
    # entries of several ranks, a vector and numbers (JAX's words are its rows' join, "(1, 3),
    # (1,)"): the numbers put on the end as vectors of one (no card said more)
    "ragged_vector_and_number": ("jnp.array([x, 1])", "jnp.concatenate([x, jnp.array([1])])"),
    "ragged_numbers_around_a_vector": ("jnp.array([0.5, x, 2])",
                                       "jnp.concatenate([jnp.array([0.5]), x, jnp.array([2])])"),
    "list_sum": ("jnp.sum([1, 2, 3])", "jnp.sum(jnp.asarray([1, 2, 3]))"),
    "list_dot": ("jnp.dot([1.0, 2.0], x[:2])", "jnp.dot(jnp.asarray([1.0, 2.0]), x[:2])"),
    "list_under_grad": ("jax.grad(lambda v: jnp.sum(v))([1.0, 2.0])",
                        "jax.grad(lambda v: jnp.sum(jnp.asarray(v)))([1.0, 2.0])"),
    "while_per_element": ("lax.while_loop(lambda c: c < 10, lambda c: c * 2, x)",
                          "lax.while_loop(lambda c: jnp.any(c < 10), "
                          "lambda c: jnp.where(c < 10, c * 2, c), x)"),
    "float_shape_division": ("jnp.zeros(len(x) / 3)", "jnp.zeros(len(x) // 3)"),
    "float_shape_reshape": ("m.reshape(len(m) / 2, 2)", "m.reshape(len(m) // 2, 2)"),
    "float_shape_number": ("jnp.ones((2.0, 3))", "jnp.ones((2, 3))"),
    "float_shape_eye": ("jnp.eye(len(x) / 3)", "jnp.eye(len(x) // 3)"),
    "float_shape_list": ("jnp.reshape(m, [len(m) / 2, 2])", "jnp.reshape(m, [len(m) // 2, 2])"),
    "float_shape_full": ("jnp.full((len(m) / 3,), 1.0 / 4)", "jnp.full((len(m) // 3,), 1.0 / 4)"),
    # a traced bound slicing one axis of a matrix: the whole kept, masked along that axis (the
    # card's line was a template naming start and size, code that raised NameError pasted)
    "traced_slice_last_axis": ("jax.jit(lambda v, n: v[:, :n])(M, 2)",
                               "jax.jit(lambda v, n: jnp.where(jnp.arange(v.shape[1]) < n, v, "
                               "0))(M, 2)"),
    "traced_slice_first_axis": ("jax.jit(lambda v, n: v[n:, :])(M, 1)",
                                "jax.jit(lambda v, n: jnp.where(lax.broadcasted_iota(jnp.int32, "
                                "v.shape, 0) >= n, v, 0))(M, 1)"),
    "slice_indices_numbers": ("lax.dynamic_slice(x, 1, 2)", "lax.dynamic_slice(x, (1,), (2,))"),
    "slice_indices_traced": ("jax.jit(lambda v, j: lax.dynamic_slice(v, j, 2))(x, 1)",
                             "jax.jit(lambda v, j: lax.dynamic_slice(v, (j,), (2,)))(x, 1)"),
    "slice_indices_matrix": ("lax.dynamic_slice(M, (1,), (1,))",
                             "lax.dynamic_slice(M, (1, 0), (1, 3))"),
    "slice_indices_matrix_numbers": ("lax.dynamic_slice(M, 1, 1)",
                                     "lax.dynamic_slice(M, (1, 0), (1, 3))"),
    # the starts a tuple, the sizes one number (JAX 0.10.2: "safe_map() argument 2 is
    # shorter than argument 1"): an axis's size from its start to its end (the whole axis,
    # 3 from 1, would move the start to 0: dynamic_slice clamps)
    "slice_indices_sizes_number": ("lax.dynamic_slice(M, (0, 1), 2)",
                                   "lax.dynamic_slice(M, (0, 1), (2, 2))"),
    "slice_indices_update": ("lax.dynamic_update_slice(x, jnp.zeros(2), 1)",
                             "lax.dynamic_update_slice(x, jnp.zeros(2), (1,))"),
    "scan_output_one_value": ("lax.scan(lambda c, v: c + v, 0.0, x)",
                              "lax.scan(lambda c, v: (c + v, None), 0.0, x)"),
    "scan_output_triple": ("lax.scan(lambda c, v: (c + v, c, v), 0.0, x)",
                           "lax.scan(lambda c, v: (c + v, (c, v)), 0.0, x)"),
    "while_per_element_named": ("lax.while_loop(below_ten, twice, x)",
                                "jax.vmap(lambda c: lax.while_loop(below_ten, twice, c))(x)"),
    "fori_bounds_division": ("lax.fori_loop(0, len(m) / 2, lambda i, c: c + i / 2, 0.0)",
                             "lax.fori_loop(0, len(m) // 2, lambda i, c: c + i / 2, 0.0)"),
    "fori_bounds_lower_number": ("lax.fori_loop(0.0, 5, lambda i, c: c + i, 0)",
                                 "lax.fori_loop(0, 5, lambda i, c: c + i, 0)"),
    "fori_bounds_upper_number": ("lax.fori_loop(1, 4.0, lambda i, c: c * i, 1.0)",
                                 "lax.fori_loop(1, 4, lambda i, c: c * i, 1.0)"),
    "fori_bounds_traced": ("jax.jit(lambda k: lax.fori_loop(0, k / 2, lambda i, c: c * 2, 1.0))(4)",
                           "jax.jit(lambda k: lax.fori_loop(0, k // 2, lambda i, c: c * 2, 1.0))"
                           "(4)"),
    "concatenate_row": ("jnp.concatenate([x, M])", "jnp.concatenate([x[None], M])"),
    "concatenate_row_last": ("jnp.concatenate((M, x + 1))", "jnp.concatenate((M, (x + 1)[None]))"),
    "concatenate_column": ("jnp.concatenate([M, x[:2]], axis=1)",
                           "jnp.concatenate([M, x[:2][:, None]], axis=1)"),
    "concatenate_hstack": ("jnp.hstack([M, x[:2]])", "jnp.hstack([M, x[:2][:, None]])"),
    "concatenate_lax": ("lax.concatenate([x, M], 0)", "lax.concatenate([x[None], M], 0)"),
    "concatenate_stack": ("jnp.stack([x, M])", "jnp.vstack([x, M])"),
    "concatenate_hstack_row": ("jnp.hstack([x, M])", "jnp.vstack([x, M])"),
    "concatenate_under_jit": ("jax.jit(lambda a, b: jnp.concatenate([a, b]))(x, M)",
                              "jax.jit(lambda a, b: jnp.concatenate([a[None], b]))(x, M)"),
    # an .at[] update picked by a boolean mask, under jit: jnp.where of the update and x
    "mask_at_set": ("jax.jit(lambda v: v.at[v > 2].set(0.0))(x)",
                    "jax.jit(lambda v: jnp.where(v > 2, 0.0, v))(x)"),
    # the value picked by the same mask (stop 129: kept, the boolean index raised again)
    "mask_at_set_masked_value": ("jax.jit(lambda v: v.at[v > 1].set(v[v > 1] * 2))(x)",
                                 "jax.jit(lambda v: jnp.where(v > 1, v * 2, v))(x)"),
    "mask_at_add": ("jax.jit(lambda v: v.at[v > 1].add(10.0))(x)",
                    "jax.jit(lambda v: jnp.where(v > 1, v + 10.0, v))(x)"),
    "mask_at_min": ("jax.jit(lambda v, w: v.at[w < 2].min(w))(x, x - 1)",
                    "jax.jit(lambda v, w: jnp.where(w < 2, jnp.minimum(v, w), v))(x, x - 1)"),
    # a list operand of an array's operator (NumPy makes it an array; JAX's operators decline)
    "list_operand_right": ("x + [1.0, 2.0, 3.0]", "x + jnp.asarray([1.0, 2.0, 3.0])"),
    "list_operand_left": ("[1.0, 2.0] * x[:2]", "jnp.asarray([1.0, 2.0]) * x[:2]"),
    "list_operand_tuple": ("x + (1, 2, 3)", "x + jnp.asarray((1, 2, 3))"),
    # a list as an index: an index array (JAX's "arr[array(seq)]"), or, for a list of lists,
    # one index per axis (JAX's "arr[tuple(seq)]")
    "list_index_vector": ("x[[0, 2]]", "x[jnp.array([0, 2])]"),
    # a list made on the line (stop 129: the card wrote `y = x[jnp.array(seq)]`, NameError)
    "list_index_made": ("x[list(range(2))]", "x[jnp.array(list(range(2)))]"),
    "list_index_rows": ("M[[1, 0]]", "M[jnp.array([1, 0])]"),
    "list_index_at": ("x.at[[0, 2]].set(0.0)", "x.at[jnp.array([0, 2])].set(0.0)"),
    "list_index_nested": ("M[[[0, 1], [1, 2]]]", "M[[0, 1], [1, 2]]"),
    "list_index_under_jit": ("jax.jit(lambda v: v[[0, 2]])(x)",
                             "jax.jit(lambda v: v[jnp.array([0, 2])])(x)"),
    # Python's max/min and math's functions of traced values: jnp's, which trace
    "python_max": ("jax.jit(lambda v: max(v, 0.0))(-1.0)",
                   "jax.jit(lambda v: jnp.maximum(v, 0.0))(-1.0)"),
    "python_min_of_array": ("jax.jit(lambda v: min(v))(x)", "jax.jit(lambda v: jnp.min(v))(x)"),
    "python_math_exp": ("jax.jit(lambda v: math.exp(v))(0.0)",
                        "jax.jit(lambda v: jnp.exp(v))(0.0)"),
    "python_math_under_grad": ("jax.grad(lambda v: math.sqrt(v))(4.0)",
                               "jax.grad(lambda v: jnp.sqrt(v))(4.0)"),
    # float() of a vector in an f-string with a spec (stop 129: `f'{x.tolist():.2f}'`, which
    # raised "unsupported format string passed to list.__format__"): the values, no spec
    # Python's max(a, b) habit: jnp.max's second argument is an axis (stop 129: the axis card
    # said the 0-D array has none)
    "max_of_two_numbers": ("jnp.max(3, 4)", "jnp.maximum(3, 4)"),
    "min_of_two_arrays": ("jnp.min(x, M[1])", "jnp.minimum(x, M[1])"),
    "max_of_an_array_and_a_float": ("jnp.max(x, 2.5)", "jnp.maximum(x, 2.5)"),
    "scalar_fstring_spec": ("f'{float(x):.2f}'", "f'{x.tolist()}'"),
    "scalar_math_vector": ("jax.jit(lambda v: math.floor(v / 2))(x)",
                           "jax.jit(lambda v: jnp.floor(v / 2))(x)"),
    # several booleans where Python needs one (NumPy's ValueError, traced or not)
    "truth_max_vector": ("jax.jit(lambda v: max(v, 0.0))(x - 2)",
                         "jax.jit(lambda v: jnp.maximum(v, 0.0))(x - 2)"),
    "truth_if_vector": ("x * 2 if x > 2 else -x", "jnp.where(x > 2, x * 2, -x)"),
    "truth_and_vector": ("(x > 1) and (x < 3)", "jnp.logical_and(x > 1, x < 3)"),
    # a shape passed to a jitted function: its numbers traced; the tuple made static (a list
    # passed as its tuple: static arguments must be hashable)
    "static_shape_tuple": ("jax.jit(lambda v, s: v.reshape(s))(m, (2, 3))",
                           "jax.jit(lambda v, s: v.reshape(s), static_argnames=('s',))(m, (2, 3))"),
    "static_shape_list": ("jax.jit(lambda v, s: jnp.zeros(s) + v)(1.0, [2, 3])",
                          "jax.jit(lambda v, s: jnp.zeros(s) + v, static_argnames=('s',))"
                          "(1.0, (2, 3))"),
    "static_shape_named_list": ("jax.jit(fill)(1.0, shp)",
                                "jax.jit(fill, static_argnames=('shape',))(1.0, tuple(shp))"),
    # jax.random called with NumPy's arguments: randint's shape and bounds, size= (integers
    # here; the float draws are RANDOM_REWRITES)
    "random_randint_bounds": ("jax.random.randint(jax.random.key(0), 0, 10)",
                              "jax.random.randint(jax.random.key(0), (), 0, 10)"),
    "random_randint_high": ("jax.random.randint(jax.random.key(0), (3,), 10)",
                            "jax.random.randint(jax.random.key(0), (3,), 0, 10)"),
    "random_randint_keywords": ("jax.random.randint(jax.random.key(0), minval=0, maxval=10)",
                                "jax.random.randint(jax.random.key(0), shape=(), minval=0, "
                                "maxval=10)"),
    "random_randint_size": ("jax.random.randint(jax.random.key(1), size=4, low=0, high=10)",
                            "jax.random.randint(jax.random.key(1), shape=(4,), minval=0, "
                            "maxval=10)"),
    # NumPy's bounds by position and size= (stop 129: size= made shape=, and the 0 by position
    # took the shape too: "multiple values for argument 'shape'"): the bounds by keyword
    # NumPy's order, randint(key, low, high, size) (stop 129: its size bound as JAX's maxval,
    # a TracerArrayConversionError the array-conversion card told as NumPy called on a value)
    "random_randint_numpy_order": ("jax.random.randint(jax.random.key(0), 0, 10, (3,))",
                                   "jax.random.randint(jax.random.key(0), (3,), 0, 10)"),
    "random_randint_bounds_and_size": ("jax.random.randint(jax.random.key(0), 0, 10, size=5)",
                                       "jax.random.randint(jax.random.key(0), shape=(5,), "
                                       "minval=0, maxval=10)"),
    "random_choice_size": ("jax.random.choice(jax.random.key(0), 5, size=2, replace=False)",
                           "jax.random.choice(jax.random.key(0), 5, shape=(2,), replace=False)"),
}

# the same for draws of floats, whose values are compared within a few ulps
RANDOM_REWRITES = {
    "random_normal_size": ("jax.random.normal(jax.random.key(0), size=3)",
                           "jax.random.normal(jax.random.key(0), shape=(3,))"),
    "random_uniform_low_high": ("jax.random.uniform(jax.random.key(0), size=(2,), low=1.0, "
                                "high=2.0)",
                                "jax.random.uniform(jax.random.key(0), shape=(2,), minval=1.0, "
                                "maxval=2.0)"),
    "random_normal_loc_scale": ("jax.random.normal(jax.random.key(0), (2,), loc=1.0, scale=2.0)",
                                "1.0 + 2.0 * jax.random.normal(jax.random.key(0), (2,))"),
    # NumPy's bounds (loc and scale) by position after the shape, where JAX takes the dtype:
    # NumPy's "Cannot interpret '-1.0' as a data type" (the torch-habit card read it as
    # PyTorch's x.view(3)), or Python's count of normal's arguments
    "random_uniform_bounds_by_position": ("jax.random.uniform(jax.random.key(0), (3,), -1.0, "
                                          "1.0)",
                                          "jax.random.uniform(jax.random.key(0), (3,), "
                                          "minval=-1.0, maxval=1.0)"),
    "random_uniform_int_bounds_and_dtype": ("jax.random.uniform(jax.random.key(0), (2,), 0, 10, "
                                            "jnp.float16)",
                                            "jax.random.uniform(jax.random.key(0), (2,), "
                                            "minval=0, maxval=10, dtype=jnp.float16)"),
    "random_uniform_bounds_and_size": ("jax.random.uniform(jax.random.key(0), 1.0, 2.0, "
                                       "size=(2,))",
                                       "jax.random.uniform(jax.random.key(0), shape=(2,), "
                                       "minval=1.0, maxval=2.0)"),
    # a shape by position and size= both (it read the shape as normal's loc: `(2,) + ...`)
    "random_normal_shape_and_size": ("jax.random.normal(jax.random.key(0), (2,), size=2)",
                                     "jax.random.normal(jax.random.key(0), (2,))"),
    "random_normal_loc_scale_by_position": ("jax.random.normal(jax.random.key(0), (2,), 1.0, "
                                            "2.0)",
                                            "1.0 + 2.0 * jax.random.normal(jax.random.key(0), "
                                            "(2,))"),
}

# (mistake statement, the program the card's rewrite makes of it): a rewrite of more than one
# line (a def, while_loop's functions), or of a statement, run whole; each binds _y
BOX = ("class Box:\n    def __init__(self, name, a, b):\n        self.name = name\n"
       "        self.a = a\n        self.b = b\n")

CARD_PROGRAMS = {
    "body_fori_named": ("_y = lax.fori_loop(0, 3, twice, 1.0)",
                        "def twice(i, c):\n    return c * 2\n"
                        "_y = lax.fori_loop(0, 3, twice, 1.0)"),
    "body_while_lambdas": ("_y = lax.while_loop(lambda i, c: i < 3, lambda i, c: (i + 1, c * 2), "
                           "(0, 1.0))",
                           "def cond_fun(state):\n    i, c = state\n    return i < 3\n"
                           "def body_fun(state):\n    i, c = state\n    return (i + 1, c * 2)\n"
                           "_y = lax.while_loop(cond_fun, body_fun, (0, 1.0))"),
    # a lambda bound to a name (the card rewrites the line that makes it), a call written
    # over two lines (rewritten as one)
    "body_fori_lambda_named": ("step = lambda c: c * 2\n_y = lax.fori_loop(0, 3, step, 1.0)",
                               "step = lambda i, c: c * 2\n"
                               "_y = lax.fori_loop(0, 3, step, 1.0)"),
    "body_scan_lines": ("_y = lax.scan(lambda c: (c + 1, c),\n             0.0, x)",
                        "_y = lax.scan(lambda c, x: (c + 1, c), 0.0, x)"),
    # a while_loop body taking nothing: a function of the value, `_` (not `def body_fun(state):
    # \n     = state`, which did not parse)
    "body_while_no_parameter": ("_y = lax.while_loop(lambda c: c < 3.0, lambda: 4.0, 0.0)",
                                "def cond_fun(c):\n    return c < 3.0\ndef body_fun(_):\n"
                                "    return 4.0\n_y = lax.while_loop(cond_fun, body_fun, 0.0)"),
    # a body taking fori_loop's (i, c) over while_loop's one value (stop 129: `i, c = state`
    # unpacked 1.0, "iteration over a 0-d array"): the one parameter the body reads
    "body_while_index_and_value": ("_y = lax.while_loop(lambda c: c < 10, lambda i, c: c * 2, "
                                   "1.0)",
                                   "def cond_fun(c):\n    return c < 10\ndef body_fun(c):\n"
                                   "    return c * 2\n_y = lax.while_loop(cond_fun, body_fun, "
                                   "1.0)"),
    "at_assigned": ("_y = jnp.zeros(3)\n_y.at[0] = 1.0", "_y = jnp.zeros(3)\n"
                    "_y = _y.at[0].set(1.0)"),
    # an object of the learner's class holding numbers, into jit (the pytree tutorial's
    # MyContainer, learner6): registered, its fields traced (static: one compile per object)
    "object_registered": (BOX + "_y = jax.jit(lambda c: c.a + c.b)(Box('w', 1.0, 2.0))",
                          BOX + "jax.tree_util.register_dataclass(Box, data_fields=['a', 'b'], "
                          "meta_fields=['name'])\n"
                          "_y = jax.jit(lambda c: c.a + c.b)(Box('w', 1.0, 2.0))"),
    # a NumPy view of a JAX array written (NumPy's "read-only" ValueError, JAX's too): the
    # view copied first (np.asarray's, and jax.device_get's written by a ufunc's out=)
    "readonly_asarray": ("import numpy as np\n_y = np.asarray(x)\n_y[0] = 5.0",
                         "import numpy as np\n_y = np.asarray(x)\n_y = _y.copy()\n_y[0] = 5.0"),
    "readonly_device_get": ("import numpy as np\n_y = jax.device_get(x)\n"
                            "np.multiply(_y, 2, out=_y)",
                            "import numpy as np\n_y = jax.device_get(x)\n_y = _y.copy()\n"
                            "np.multiply(_y, 2, out=_y)"),
}

# sizes given a float where the float-shape card has no case: JAX's class and words for each
# (its canonicalize_shape with the call's context, or Python's own int error for linspace)
FLOAT_SIZES = {
    "broadcast_to": "jnp.broadcast_to(x, (2, len(x) / 1))",
    "reshape_tuple": "jnp.reshape(m, (2, len(m) / 2))",
    "reshape_list": "jnp.reshape(m, [2, len(m) / 2])",
    "reshape_lone_size": "m.reshape(len(m) / 1)",
    "broadcast_to_list": "jnp.broadcast_to(x, [2, len(x) / 1])",
    "broadcast_to_lone_size": "jnp.broadcast_to(x, len(x) / 1)",
    "eye_columns": "jnp.eye(3, 2.0)",
    "linspace_num": "jnp.linspace(0.0, 1.0, len(x) / 1)",
    "geomspace_num": "jnp.geomspace(1.0, 2.0, 1.5)",
    "random_shape": "jax.random.normal(jax.random.key(0), (len(x) / 1,))",
}

# the other fixes the cards' words offer, run as written
CARD_OTHER_FIXES = {
    "cond_all": "lax.cond(jnp.all(x > 2), lambda v: v * 2, lambda v: -v, x)",
    "cond_all_constants": "lax.cond(jnp.all(x > 2), lambda: 1.0, lambda: 0.0)",
    "fori_loop_static_bounds": "jax.jit(jax.grad(power), static_argnums=1)(2.0, 3)",
    "lax_add_cast": "lax.add(x, jnp.arange(3).astype(x.dtype))",
    "integer_power_reciprocal": "1 / jnp.arange(3)",
    "ragged_mask": "jnp.array([[True, True], [True, False]])",
    "axis_last": "M.sum(axis=-1)",
    "scan_output_each_step": "lax.scan(lambda c, v: (c + v, c + v), 0.0, x)",
    "concatenate_vstack": "jnp.vstack([x, M])",
    "concatenate_column_stack": "jnp.column_stack([M, x[:2]])",
    "list_index_nested_array": "M[jnp.array([[0, 1], [1, 2]])]",
    # under jit the message names the tracer's class (DynamicJaxprTracer, jxkernel's too):
    # the mistake's class and the rewrite's value are compared
    "list_operand_under_jit": "jax.jit(lambda v: v * jnp.asarray([1.0, 2.0, 3.0]))(x)",
    "truth_all": "jnp.all(x > 2)",
}

# mistakes whose card lists what it knows and guesses no code: JAX's class and words for each
# (a bound that is no whole number, a traced float bound, ranks 1 and 3, a stack along axis 1)
CARD_WORDS = {
    "fori_bounds_fraction": "lax.fori_loop(0, 2.5, lambda i, c: c * 2, 1.0)",
    "fori_bounds_traced_float": "jax.jit(lambda k: lax.fori_loop(0, k, lambda i, c: c * 2, 1.0))"
                                "(4.0)",
    "concatenate_ranks_1_and_3": "jnp.concatenate([x, jnp.ones((2, 2, 3))])",
    "concatenate_stack_axis_1": "jnp.stack([x, M], axis=1)",
    # JAX checks the axis against the first array: a vector and a matrix along axis 1 is no
    # case for jnp.stack (which fails on them too), so the card lists the shapes
    "axis_concatenate_vector_and_matrix": "jnp.concatenate([x, M], axis=1)",
}

# a list of sizes passed to a jit made on an earlier line (stop 129: the card gave the generic
# "a size? take it from a shape", where the one-line jax.jit(fill)(1.0, shp) got
# static_argnames): (the cell, the card's first two lines, the jit made again and the call
# with the tuple), recorded as CARD_PROGRAMS are
STATIC_JIT_ABOVE = {
    "static_shape_list_jit_above": ("fz = jax.jit(fill)\n_y = fz(1.0, shp)",
                                    "fz = jax.jit(fill, static_argnames=('shape',))\n"
                                    "_y = fz(1.0, tuple(shp))"),
}

# mistakes whose card shows a pattern (comments) with a part only the learner can choose: (the
# mistake, the pattern with that part filled in, whose value JAX's run records). randint's
# upper bound left out after a low of 0 (no NumPy reading: NumPy's randint(high) has no high
# of 0): the call with `maxval` in its place
CARD_PATTERNS = {
    "random_randint_low_only": ("jax.random.randint(jax.random.key(0), (3,), 0)",
                                "jax.random.randint(jax.random.key(0), (3,), 0, 10)"),
}

# a jnp function's own fix in JAX's message, on its second line (jnp.repeat's
# total_repeat_length=, bincount's length=), under the card's generic words (stop 129: the
# card showed the first line alone and said "a size? take it from a shape")
JAX_ADVICE = {
    "repeat_traced": "jax.jit(lambda v, r: jnp.repeat(v, r))(x[:2], jnp.array([1, 2]))",
    "bincount_traced": "jax.jit(lambda v: jnp.bincount(v))(jnp.array([0, 1, 1]))",
}

# a Python int past int32 (x64 off) given to jnp: JAX parses the arguments of its jitted jnp
# functions (ufuncs, operators, where, clip) as a jitted computation's and names the
# parameter ("whose argument path is y"); jnp.array and .at[] convert it themselves
PYTHON_INT_OVERFLOW = {
    "multiply_left": "2**40 * x", "subtract": "x - 2**40", "add": "jnp.add(x, 2**40)",
    "maximum": "jnp.maximum(x, 2**40)", "where": "jnp.where(x > 0, x, 2**40)",
    "divide": "x / 2**40", "clip": "jnp.clip(x, 0, 2**40)", "equal": "x == 2**40",
    "minimum_left": "jnp.minimum(2**40, x)", "negative": "x * -2**40",
    "int_array": "jnp.ones(3, int) * 2**31", "array": "jnp.array(2**40)",
    "at_set": "x.at[0].set(2**40)", "jitted": "jax.jit(lambda a, b: a * b)(x, 2**40)",
}


# fori_loop's bounds both floats: no error; concrete, each is int()'s (2.5 counts as 2) and the
# loop counts with a Python int, so the index is an int (JAX's fori_loop, its scan path)
FORI_FLOAT_BOUNDS = {
    "whole": "lax.fori_loop(0.0, 5.0, lambda i, c: c + i, 0)",
    "fraction": "lax.fori_loop(0.0, 2.5, lambda i, c: c + i, 0)",
    "arrays": "lax.fori_loop(jnp.float32(0), jnp.float32(3), lambda i, c: c + i, 0)",
}


def _card_rewrites(jax):
    """Each CARD_REWRITES mistake's error under JAX, the value its fix gives, and each of
    CARD_OTHER_FIXES' values (exact: sums and products of small whole numbers, halves, inf)."""
    names = {"jax": jax, "jnp": jax.numpy, "lax": jax.lax}
    exec(CARD_SETUP, names)

    def value_of(result):
        return json.loads(json.dumps(jax.tree_util.tree_map(
            lambda a: np.asarray(a).tolist(), result)))

    def value(code):
        return value_of(eval(code, dict(names)))
    found = {}
    for case, (mistake, fix) in {**CARD_REWRITES, **RANDOM_REWRITES}.items():
        found[f"card_{case}"] = said(lambda: eval(mistake, dict(names)))
        found[f"card_{case}_fixed"] = value(fix)
    for case, code in CARD_OTHER_FIXES.items():
        found[f"card_{case}"] = value(code)
    for case, code in FLOAT_SIZES.items():
        found[f"float_size_{case}"] = said(lambda: eval(code, dict(names)))
    for case, code in CARD_WORDS.items():
        found[f"card_{case}"] = said(lambda: eval(code, dict(names)))
    for case, code in JAX_ADVICE.items():
        found[f"advice_{case}"] = _said_lines(lambda: eval(code, dict(names)), 2)
    for case, (mistake, filled) in CARD_PATTERNS.items():
        found[f"card_{case}"] = said(lambda: eval(mistake, dict(names)))
        found[f"card_{case}_filled"] = value(filled)
    for case, code in PYTHON_INT_OVERFLOW.items():
        found[f"int_overflow_{case}"] = said(lambda: eval(code, dict(names)))
    for case, code in FORI_FLOAT_BOUNDS.items():
        result = eval(code, dict(names))
        found[f"fori_float_bounds_{case}"] = [str(result.dtype), value_of(result)]
    for case, (mistake, program) in {**CARD_PROGRAMS, **STATIC_JIT_ABOVE}.items():
        got = said(lambda: exec(mistake, dict(names)))   # (a lambda's address dropped)
        found[f"card_{case}"] = {**got, "first_line": _unplaced(got["first_line"])} \
            if isinstance(got, dict) and "first_line" in got else got
        ran = dict(names)
        exec(program, ran)
        found[f"card_{case}_fixed"] = value_of(ran["_y"])
    return found


# NumPy's random module asked of jax.numpy (JAX: AttributeError, jax.numpy has no `random`),
# and the numpy-random card's jax.random call for each, with a key from seed 0
NUMPY_RANDOM = {
    "normal_size": ("jnp.random.normal(size=3)", "jax.random.normal(jax.random.key(0), (3,))"),
    "normal_loc_scale": ("jnp.random.normal(1.0, 2.0, (2,))",
                         "1.0 + 2.0 * jax.random.normal(jax.random.key(0), (2,))"),
    "rand": ("jnp.random.rand(2, 3)", "jax.random.uniform(jax.random.key(0), (2, 3))"),
    "uniform": ("jnp.random.uniform(1.0, 2.0, 3)",
                "jax.random.uniform(jax.random.key(0), (3,), minval=1.0, maxval=2.0)"),
    "randint": ("jnp.random.randint(0, 10, size=4)",
                "jax.random.randint(jax.random.key(0), (4,), 0, 10)"),
    "randint_high": ("jnp.random.randint(5)", "jax.random.randint(jax.random.key(0), (), 0, 5)"),
    "choice": ("jnp.random.choice(5, 2, replace=False)",
               "jax.random.choice(jax.random.key(0), 5, (2,), replace=False)"),
    "permutation": ("jnp.random.permutation(5)", "jax.random.permutation(jax.random.key(0), 5)"),
    # JAX's call already, a key first, under NumPy's module: only the module changes (the
    # card wrote `key + (3,) * jax.random.normal(...)`, NumPy's loc and scale, at stop 124)
    "key_given": ("jnp.random.normal(jax.random.key(2), (3,))",
                  "jax.random.normal(jax.random.key(2), (3,))"),
    "key_given_bernoulli": ("jnp.random.bernoulli(jax.random.split(jax.random.key(1))[0], 0.5, "
                            "(4,))", "jax.random.bernoulli(jax.random.split(jax.random.key(1))"
                            "[0], 0.5, (4,))"),
    "seed": ("jax.random.key_data(jnp.random.seed(0))",
             "jax.random.key_data(jax.random.key(0))"),
    # NumPy's legacy names asked of jax.random itself (JAX: AttributeError naming jax.random)
    "jax_randn": ("jax.random.randn(2, 3)", "jax.random.normal(jax.random.key(0), (2, 3))"),
    "jax_rand": ("jax.random.rand(3)", "jax.random.uniform(jax.random.key(0), (3,))"),
    "jax_random": ("jax.random.random(4)", "jax.random.uniform(jax.random.key(0), (4,))"),
    "jax_random_sample": ("jax.random.random_sample((2, 2))",
                          "jax.random.uniform(jax.random.key(0), (2, 2))"),
    "jax_seed": ("jax.random.key_data(jax.random.seed(3))",
                 "jax.random.key_data(jax.random.key(3))"),
}


# split's keys unpacked into another number of names (Python's ValueError, JAX's too, and no
# card): (the line, the split-count card's lines: as many keys as names; all of them, the rest
# as a list, or None), run after `key = jax.random.key(0)`
SPLIT_COUNTS = {
    "three_into_two": ("key, subkey = jax.random.split(key, 3)",
                       "key, subkey = jax.random.split(key)",
                       "key, *subkeys = jax.random.split(key, 3)"),
    "two_into_three": ("a, b, c = jax.random.split(key)", "a, b, c = jax.random.split(key, 3)",
                       None),
    "num_by_keyword": ("k1, k2 = jax.random.split(key, num=4)", "k1, k2 = jax.random.split(key)",
                       "k1, *k2s = jax.random.split(key, num=4)"),
}


def split_count_keys(jax, line) -> list:
    """The key data of the keys `line` binds, after `key = jax.random.key(0)`, in its names'
    order (a list of keys, each)."""
    names = {"jax": jax, "key": jax.random.key(0)}
    exec(line, names)
    bound = [t.strip().lstrip("*") for t in line.split(" = ")[0].split(",")]
    return [np.asarray(jax.random.key_data(jax.numpy.stack(names[n]) if isinstance(
        names[n], list) else names[n])).tolist() for n in bound]


def _random_mistakes(jax):
    """NUMPY_RANDOM's errors and values, and a key unpacked as two (`k1, k2 = key`: JAX's
    TypeError) with the key-unpack card's split: the two keys' data."""
    names = {"jax": jax, "jnp": jax.numpy}
    found = {}
    for case, (mistake, fix) in NUMPY_RANDOM.items():
        found[f"nprandom_{case}"] = said(lambda: eval(mistake, dict(names)))
        found[f"nprandom_{case}_fixed"] = np.asarray(eval(fix, dict(names))).tolist()
    found["key_unpacked"] = said(lambda: exec("k1, k2 = jax.random.key(0)", dict(names)))
    found["key_unpacked_three"] = said(lambda: exec("a, b, c = jax.random.key(1)", dict(names)))
    for case, (line, fix, rest) in SPLIT_COUNTS.items():
        found[f"split_count_{case}"] = said(
            lambda: exec(line, {"jax": jax, "key": jax.random.key(0)}))
        found[f"split_count_{case}_fixed"] = split_count_keys(jax, fix)
        if rest is not None:
            found[f"split_count_{case}_rest"] = split_count_keys(jax, rest)
    k1, k2 = jax.random.split(jax.random.key(0))
    found["key_unpacked_split"] = [np.asarray(jax.random.key_data(k)).tolist() for k in (k1, k2)]
    return found


# PyTorch's names asked of a JAX array or of jax.numpy (a learner's habit): (the line, the
# torch-habit card's rewrite). Run with x = arange(6.0) of shape (2, 3), m = x > 2 and _y = x
# (the in-place methods' target) bound; the fix binds _y.
TORCH_SETUP = ("import numpy as np\nx = jnp.arange(6.0).reshape(2, 3)\nm = x > 2\n"
               "_y = x + 0\na = x + 1\nv = jnp.arange(3.0)\nw = v + 1\n"
               "key = jax.random.key(0)\n")
TORCH_HABITS = {
    "to_cuda": ("_y = x.to('cuda')", "_y = x"),
    "to_dtype": ("_y = x.to(jnp.int32)", "_y = x.astype(jnp.int32)"),
    "cuda": ("_y = x.cuda()", "_y = x"),
    "cpu_numpy": ("_y = x.cpu().numpy()", "_y = np.asarray(x)"),
    "numpy": ("_y = x.numpy()", "_y = np.asarray(x)"),
    "detach": ("_y = x.detach()", "_y = jax.lax.stop_gradient(x)"),
    "unsqueeze": ("_y = x.unsqueeze(0)", "_y = jnp.expand_dims(x, 0)"),
    "permute": ("_y = x.permute(1, 0)", "_y = x.transpose(1, 0)"),
    "size_call": ("_y = x.size()", "_y = x.shape"),
    # dim= given to jax.nn's function: its keyword rewritten, the module kept (the card read
    # jax.nn as the array of a method, `jax.nn.softmax(jax.nn, axis=1)`)
    "nn_softmax_dim": ("_y = jax.nn.softmax(x, dim=1)", "_y = jax.nn.softmax(x, axis=1)"),
    "size_of_axis": ("_y = x.size(1)", "_y = x.shape[1]"),
    "dim": ("_y = x.dim()", "_y = x.ndim"),
    "numel": ("_y = x.numel()", "_y = x.size"),
    "float": ("_y = m.float()", "_y = m.astype(jnp.float32)"),
    "long": ("_y = x.long()", "_y = x.astype(jnp.int32)"),
    "mm": ("_y = x.mm(x.T)", "_y = x @ x.T"),
    "view": ("_y = x.view(3, 2)", "_y = x.reshape(3, 2)"),
    "view_flat": ("_y = x.view(-1)", "_y = x.reshape(-1)"),
    "expand": ("_y = x.expand(4, 2, 3)", "_y = jnp.broadcast_to(x, (4, 2, 3))"),
    # the sizes as one tuple (stop 129: the card wrapped it again, ((4, 2, 3),), which raised)
    "expand_tuple": ("_y = x.expand((4, 2, 3))", "_y = jnp.broadcast_to(x, (4, 2, 3))"),
    "contiguous": ("_y = x.contiguous()", "_y = x"),
    "masked_fill": ("_y = x.masked_fill(x > 2, 0.0)", "_y = jnp.where(x > 2, 0.0, x)"),
    "clamp": ("_y = x.clamp(1.0, 4.0)", "_y = jnp.clip(x, 1.0, 4.0)"),
    "clamp_min": ("_y = x.clamp(min=1.0)", "_y = jnp.clip(x, min=1.0)"),
    "exp": ("_y = x.exp()", "_y = jnp.exp(x)"),
    "sigmoid": ("_y = x.sigmoid()", "_y = jax.nn.sigmoid(x)"),
    "softmax": ("_y = x.softmax(dim=1)", "_y = jax.nn.softmax(x, axis=1)"),
    "sum_dim": ("_y = x.sum(dim=1)", "_y = x.sum(axis=1)"),
    # chained methods (stop 129: after the first became a JAX call, `jax.lax.stop_gradient(x)`,
    # the next were read as a module's functions and kept, raising again); x.pow(2)
    "detach_cpu_numpy": ("_y = x.detach().cpu().numpy()",
                         "_y = np.asarray(jax.lax.stop_gradient(x))"),
    "exp_then_log": ("_y = x.exp().log()", "_y = jnp.log(jnp.exp(x))"),
    "pow_then_sum": ("_y = x.pow(2).sum()", "_y = (x ** 2).sum()"),
    # PyTorch's x.max(dim=1) is a pair, (values, indices): unpacked as written after dim= was
    # renamed, the two names took the two rows' maxima (stop 129); JAX's max, then argmax
    # PyTorch's repeat, a tile (stop 129: the axis card read its 1 as a MATLAB-counted axis
    # and advised axis=0, which repeats each element)
    "repeat_as_tile": ("_y = v.repeat(2, 1)", "_y = jnp.tile(v, (2, 1))"),
    "repeat_as_tile_three": ("_y = x.repeat(2, 1, 1)", "_y = jnp.tile(x, (2, 1, 1))"),
    "max_dim_pair": ("_i, _y = x.max(dim=1)", "_i, _y = (x.max(axis=1), x.argmax(axis=1))"),
    "max_dim_values": ("_y = x.max(dim=1).values", "_y = x.max(axis=1)"),
    "min_dim_indices": ("_y = x.min(dim=0).indices", "_y = x.argmin(axis=0)"),
    "mean_keepdim": ("_y = jnp.mean(x, dim=0, keepdim=True)",
                     "_y = jnp.mean(x, axis=0, keepdims=True)"),
    "cat": ("_y = jnp.cat([x, x], dim=0)", "_y = jnp.concatenate([x, x], axis=0)"),
    # torch.cat's keyword for its sequence (stop 129: kept, jnp.concatenate raised on it)
    "cat_tensors": ("_y = jnp.cat(tensors=[x, x], dim=1)",
                    "_y = jnp.concatenate(arrays=[x, x], axis=1)"),
    "tensor": ("_y = jnp.tensor([1.0, 2.0])", "_y = jnp.array([1.0, 2.0])"),
    "from_numpy": ("_y = jnp.from_numpy(np.ones(3))", "_y = jnp.asarray(np.ones(3))"),
    "add_": ("_y.add_(1.0)", "_y = _y + 1.0"),
    "mul_": ("_y.mul_(x)", "_y = _y * x"),
    "zero_": ("_y.zero_()", "_y = jnp.zeros_like(_y)"),
    "device_call": ("_y = x.device()", "_y = x.device"),
    # a dtype by PyTorch's name, or NumPy 1's alias (np.float, gone since NumPy 1.24), asked
    # of jnp: the card said "look the name up among jnp's functions", with no line
    "jnp_float_dtype": ("_y = jnp.zeros((2,), dtype=jnp.float)",
                        "_y = jnp.zeros((2,), dtype=jnp.float32)"),
    "jnp_long_astype": ("_y = x.astype(jnp.long)", "_y = x.astype(jnp.int32)"),
}
# jax.nn.one_hot given the labels alone (PyTorch's F.one_hot counts the classes): Python's
# TypeError, JAX's words too; the card passes the largest label + 1 where the labels are a
# name holding integers, and a pattern otherwise. (the line, the card's line or None)
ONE_HOT = {
    "labels_named": ("labels = jnp.array([0, 2, 1, 2])\n_y = jax.nn.one_hot(labels)",
                     "labels = jnp.array([0, 2, 1, 2])\n_y = jax.nn.one_hot(labels, 3)"),
    "labels_written": ("_y = jax.nn.one_hot(jnp.array([1, 0]))", None),
}
# PyTorch's dim= (and keepdim=) given to jnp's functions and the array's methods: Python's
# TypeError, naming JAX's function (`sum()`) or its method's (`_sum()`); jxkernel named its
# private jits (`_reduce_sum()`) or none
DIM_KEYWORDS = ["x.sum(dim=1)", "x.mean(dim=1)", "x.max(dim=1)", "x.min(dim=1)", "x.std(dim=1)",
                "x.var(dim=1)", "x.prod(dim=1)", "x.argmax(dim=1)", "x.any(dim=1)",
                "x.cumsum(dim=1)", "x.sum(1, keepdim=True)", "jnp.sum(x, dim=1)",
                "jnp.mean(x, dim=1)", "jnp.max(x, dim=1)", "jnp.argmax(x, dim=1)",
                "jnp.concatenate([x, x], dim=0)", "jnp.stack([x, x], dim=0)",
                "jnp.cumsum(x, dim=1)", "jax.nn.softmax(x, dim=1)", "jnp.squeeze(x, dim=0)",
                "jnp.flip(x, dims=(0,))", "jnp.linalg.norm(x, dim=1)", "jnp.sort(x, dim=1)",
                "jnp.expand_dims(x, dim=0)", "jax.nn.log_softmax(x, dim=-1)",
                "jnp.median(x, dim=1)", "jnp.all(x, dim=1)", "jnp.var(x, dim=1)",
                "jnp.std(x, dim=1, keepdim=True)"]
# NumPy's ways of changing an array in place (the immutable-array card): the line, the new
# array bound to the name
IN_PLACE = {
    "fill": ("_y.fill(0.0)", "_y = jnp.full_like(_y, 0.0)"),
    "put": ("_y.put([0, 4], [9.0, 8.0])",
            "_y = jnp.put(_y, jnp.asarray([0, 4]), jnp.asarray([9.0, 8.0]), inplace=False)"),
    "itemset_flat": ("_y.itemset(4, 1.0)", "_y = jnp.put(_y, 4, 1.0, inplace=False)"),
    "itemset_pair": ("_y.itemset((1, 2), 7.0)", "_y = _y.at[1, 2].set(7.0)"),
    "partition": ("_y.partition(1)", "_y = jnp.partition(_y, 1)"),
    "shape": ("_y.shape = (3, 2)", "_y = _y.reshape((3, 2))"),
    "dtype": ("_y.dtype = jnp.int32", "_y = _y.view(jnp.int32)"),
    "copyto": ("np.copyto(_y, np.zeros(3))",
               "_y = jnp.broadcast_to(jnp.asarray(np.zeros(3), _y.dtype), _y.shape)"),
    "add_at": ("np.add.at(_y, [0, 0], 1.0)", "_y = _y.at[jnp.asarray([0, 0])].add(1.0)"),
    "maximum_at": ("np.maximum.at(_y, (1, 2), 9.0)", "_y = _y.at[1, 2].max(9.0)"),
}
# an item assigned through two subscripts (the immutable-array card): (the cell, the card's
# line, then `_y` read back). A dict's array (`p['w'][1] = 2.0`) was rewritten
# `p = p.at['w'][1].set(2.0)`, and a matrix's item (`z[0][1] = 9.0`) `z = z.at[0][1].set(9.0)`:
# both raise under JAX (a dict has no .at; .at's update takes one index). With TORCH_SETUP
_DICT, _LIST, _MATRIX = "_p = {'w': v + 0}\n", "_p = [{'w': v + 0}]\n", "_z = x + 0\n"
NESTED_ITEMS = {
    "dict_entry": (_DICT + "_p['w'][1] = 2.0",
                   _DICT + "_p['w'] = _p['w'].at[1].set(2.0)\n_y = _p['w']"),
    "list_of_dicts": (_LIST + "_p[0]['w'][2] += 5.0",
                      _LIST + "_p[0]['w'] = _p[0]['w'].at[2].add(5.0)\n_y = _p[0]['w']"),
    "row_then_item": (_MATRIX + "_z[0][1] = 9.0",
                      _MATRIX + "_z = _z.at[0, 1].set(9.0)\n_y = _z"),
    "row_then_item_multiplied": (_MATRIX + "_z[1][2] *= 2.0",
                                 _MATRIX + "_z = _z.at[1, 2].multiply(2.0)\n_y = _z"),
}
# NumPy 1.x's names NumPy 2.0 removed, and jax.numpy with it (the numpy1-name card)
NUMPY1_NAMES = {
    # clip's keywords before NumPy 2.1 (a_min=, a_max=, a=): min= and max=, the array first
    "clip_a_min": ("_y = jnp.clip(x, a_min=1.0)", "_y = jnp.clip(x, min=1.0)"),
    "clip_a_max": ("_y = jnp.clip(x, 1.0, a_max=2.0)", "_y = jnp.clip(x, 1.0, max=2.0)"),
    "clip_method": ("_y = x.clip(a_max=2.0)", "_y = x.clip(max=2.0)"),
    "clip_a": ("_y = jnp.clip(a=x, min=1.0)", "_y = jnp.clip(x, min=1.0)"),
    "in1d": ("_y = jnp.in1d(jnp.arange(4), jnp.array([1, 3]))",
             "_y = jnp.isin(jnp.arange(4), jnp.array([1, 3]))"),
    "product": ("_y = jnp.product(x)", "_y = jnp.prod(x)"),
    "alltrue": ("_y = jnp.alltrue(m)", "_y = jnp.all(m)"),
    "cumproduct": ("_y = jnp.cumproduct(x + 1)", "_y = jnp.cumprod(x + 1)"),
    "nan": ("_y = jnp.full(2, jnp.NaN)", "_y = jnp.full(2, jnp.nan)"),
    "ninf": ("_y = jnp.maximum(x, jnp.NINF)", "_y = jnp.maximum(x, -jnp.inf)"),
    "trapz": ("_y = jnp.trapz(x[0])", "_y = jnp.trapezoid(x[0])"),
    "row_stack": ("_y = jnp.row_stack([x, x])", "_y = jnp.vstack([x, x])"),
}
# the same names under jit, asked of a tracer (JAX's words name the tracer's class)
TORCH_HABITS_TRACED = {
    # .numpy() of a traced value: np.asarray(v) raised TracerArrayConversionError, pasted
    # (stop 129); the JAX array kept
    "numpy": ("_y = jax.jit(lambda v: v.numpy() * 2)(x)", "_y = jax.jit(lambda v: v * 2)(x)"),
    "cpu_numpy": ("_y = jax.jit(lambda v: v.cpu().numpy() + 1)(x)",
                  "_y = jax.jit(lambda v: v + 1)(x)"),
    "unsqueeze": ("_y = jax.jit(lambda v: v.unsqueeze(0))(x)",
                  "_y = jax.jit(lambda v: jnp.expand_dims(v, 0))(x)"),
    "float": ("_y = jax.jit(lambda v: v.float())(m)",
              "_y = jax.jit(lambda v: v.astype(jnp.float32))(m)"),
}


# arrays given one by one to a join that takes one sequence (its next arguments: axis, dtype,
# out), run with TORCH_SETUP: x and a of shape (2, 3), v and w of shape (3,); the
# join-arguments card lists them
JOIN_ARGUMENTS = {
    "stack": ("_y = jnp.stack(x, a)", "_y = jnp.stack([x, a])"),
    "stack_vectors": ("_y = jnp.stack(v, w)", "_y = jnp.stack([v, w])"),
    "stack_three": ("_y = jnp.stack(x, a, x)", "_y = jnp.stack([x, a, x])"),
    "stack_axis": ("_y = jnp.stack(v, w, axis=1)", "_y = jnp.stack([v, w], axis=1)"),
    "concatenate": ("_y = jnp.concatenate(x, a)", "_y = jnp.concatenate([x, a])"),
    "concatenate_vectors": ("_y = jnp.concatenate(v, w)", "_y = jnp.concatenate([v, w])"),
    "concatenate_axis": ("_y = jnp.concatenate(x, a, axis=1)",
                         "_y = jnp.concatenate([x, a], axis=1)"),
    "concatenate_three": ("_y = jnp.concatenate(x, a, x)", "_y = jnp.concatenate([x, a, x])"),
    "vstack": ("_y = jnp.vstack(x, a)", "_y = jnp.vstack([x, a])"),
    "hstack_vectors": ("_y = jnp.hstack(v, w)", "_y = jnp.hstack([v, w])"),
    "dstack": ("_y = jnp.dstack(x, a * 2)", "_y = jnp.dstack([x, a * 2])"),
    "vstack_three": ("_y = jnp.vstack(v, w, v)", "_y = jnp.vstack([v, w, v])"),
    "column_stack": ("_y = jnp.column_stack(v, w)", "_y = jnp.column_stack([v, w])"),
    # lax's, whose dimension has no default (stop 129: the card named jnp.concatenate and
    # left the dimension out; JAX's words, "unhashable type", jxkernel's were NumPy's index's)
    "lax_concatenate": ("_y = jax.lax.concatenate(v, w)", "_y = jax.lax.concatenate([v, w], 0)"),
}


# a shape (or transpose's axes) given number by number, as PyTorch's torch.zeros(3, 4) takes
# it, where JAX's message names the slot the next number landed in (reshape's order, a dtype)
# or counts the arguments: the shape-arguments card writes them as one tuple. With TORCH_SETUP
# (x of shape (2, 3), v of (3,), key). jnp.zeros(3, 4) gets no card: JAX's own message says
# "Did you accidentally write `jax.numpy.zeros(3, 4)` ..." (SHAPE_ARGUMENTS_SAID)
SHAPE_ARGUMENTS = {
    "zeros_three": ("_y = jnp.zeros(2, 3, 4)", "_y = jnp.zeros((2, 3, 4))"),
    "ones_of_a_shape": ("_y = jnp.ones(x.shape[0], 3, 1)", "_y = jnp.ones((x.shape[0], 3, 1))"),
    "empty_three": ("_y = jnp.empty(1, 2, 3).shape", "_y = jnp.empty((1, 2, 3)).shape"),
    "reshape": ("_y = jnp.reshape(v, 3, 1)", "_y = jnp.reshape(v, (3, 1))"),
    "reshape_minus_one": ("_y = jnp.reshape(x, -1, 2)", "_y = jnp.reshape(x, (-1, 2))"),
    "reshape_three": ("_y = jnp.reshape(x, 1, 2, 3)", "_y = jnp.reshape(x, (1, 2, 3))"),
    # the first number alone of another size than the array: reshape's size error comes first
    # (the reshape-size card advised sizes that multiply to 6, (3, 2) among them, as written)
    "reshape_first_of_another_size": ("_y = jnp.reshape(x, 3, 2)", "_y = jnp.reshape(x, (3, 2))"),
    "transpose": ("_y = jnp.transpose(x, 1, 0)", "_y = jnp.transpose(x, (1, 0))"),
    "tile": ("_y = jnp.tile(v, 2, 3)", "_y = jnp.tile(v, (2, 3))"),
    "expand_dims": ("_y = jnp.expand_dims(v, 0, 1)", "_y = jnp.expand_dims(v, (0, 1))"),
    "normal": ("_y = jax.random.normal(key, 3, 4)", "_y = jax.random.normal(key, (3, 4))"),
    "normal_three": ("_y = jax.random.normal(key, 2, 3, 4)",
                     "_y = jax.random.normal(key, (2, 3, 4))"),
    "uniform": ("_y = jax.random.uniform(key, 2, x.shape[1])",
                "_y = jax.random.uniform(key, (2, x.shape[1]))"),
}
SHAPE_ARGUMENTS_SAID = {"zeros_two": "_y = jnp.zeros(3, 4)"}


# an integer array given to an operation of floats alone (lax's logistic under jax.nn.sigmoid
# and silu, lax.exp: "does not accept dtype int32", no card, where relu, gelu, softmax and jnp's
# functions promote): cast. With TORCH_SETUP
FLOATS_ONLY = {
    "sigmoid": ("_y = jax.nn.sigmoid(jnp.array([1, 2]))",
                "_y = jax.nn.sigmoid(jnp.array([1, 2]).astype(jnp.float32))"),
    "silu": ("_y = jax.nn.silu(jnp.arange(3))",
             "_y = jax.nn.silu(jnp.arange(3).astype(jnp.float32))"),
    "lax_exp": ("_i = jnp.arange(3)\n_y = jax.lax.exp(_i)",
                "_i = jnp.arange(3)\n_y = jax.lax.exp(_i.astype(jnp.float32))"),
}


# an option JAX takes by keyword only, given by position as NumPy's or Python's function of the
# same name takes it (jit's static_argnums, one_hot's dtype, pad's constant_values, lax.map's
# batch_size; argmax's keepdims where NumPy's third is out), and Python's map given two
# sequences: Python's count of the arguments (or JAX's refusal of out), and the keyword-option
# card's line. With TORCH_SETUP (x of shape (2, 3), v and w of (3,))
KEYWORD_OPTIONS = {
    "jit_static_argnums": ("_y = jax.jit(lambda u, n: u * n, 1)(x, 2)",
                           "_y = jax.jit(lambda u, n: u * n, static_argnums=1)(x, 2)"),
    "jit_static_argnames": ("_y = jax.jit(lambda u, n: u * n, ('n',))(x, 2)",
                            "_y = jax.jit(lambda u, n: u * n, static_argnames=('n',))(x, 2)"),
    "one_hot_dtype": ("_y = jax.nn.one_hot(jnp.array([0, 2]), 3, jnp.int8)",
                      "_y = jax.nn.one_hot(jnp.array([0, 2]), 3, dtype=jnp.int8)"),
    "one_hot_axis": ("_y = jax.nn.one_hot(jnp.array([0, 2]), 3, 0)",
                     "_y = jax.nn.one_hot(jnp.array([0, 2]), 3, axis=0)"),
    "pad_constant": ("_y = jnp.pad(v, 1, 'constant', 9)",
                     "_y = jnp.pad(v, 1, 'constant', constant_values=9)"),
    "map_batch_size": ("_y = jax.lax.map(lambda r: r * 2, x, 2)",
                       "_y = jax.lax.map(lambda r: r * 2, x, batch_size=2)"),
    "map_sequences": ("_y = jax.lax.map(jnp.multiply, v, w)",
                      "_y = jax.lax.map(lambda args: jnp.multiply(*args), (v, w))"),
    "map_sequences_lambda": ("_y = jax.lax.map(lambda p, q, r: p + q * r, v, w, v)",
                             "_y = jax.lax.map(lambda args: (lambda p, q, r: p + q * r)(*args), "
                             "(v, w, v))"),
    "argmax_keepdims": ("_y = jnp.argmax(x, 1, True)", "_y = jnp.argmax(x, 1, keepdims=True)"),
    "argmin_keepdims": ("_y = jnp.argmin(x, 0, True)", "_y = jnp.argmin(x, 0, keepdims=True)"),
}


# a Python list given where JAX takes an array, at a place the list-argument card found by JAX's
# position, which counts the check's arguments, not the call's (jnp.full's fill_value is its
# position 0: the card wrapped the shape), or by the jnp function named, which is the one inside
# the learner's (jax.nn.softmax's max: the card wrote `jnp.max(jnp.asarray(values))`). Now the
# list the check refused, found on the line. With TORCH_SETUP (v of shape (3,))
LIST_ARGUMENTS = {
    "full_fill_value": ("_y = jnp.full((2,), [1, 2])", "_y = jnp.full((2,), jnp.asarray([1, 2]))"),
    "full_like_keyword": ("_y = jnp.full_like(v, fill_value=[1.0, 2.0, 3.0])",
                          "_y = jnp.full_like(v, fill_value=jnp.asarray([1.0, 2.0, 3.0]))"),
    "softmax": ("_y = jax.nn.softmax([1.0, 2.0])", "_y = jax.nn.softmax(jnp.asarray([1.0, 2.0]))"),
    "relu": ("_y = jax.nn.relu([1.0, -2.0])", "_y = jax.nn.relu(jnp.asarray([1.0, -2.0]))"),
    "logsumexp": ("_y = jax.scipy.special.logsumexp([1.0, 2.0])",
                  "_y = jax.scipy.special.logsumexp(jnp.asarray([1.0, 2.0]))"),
    "dot_both": ("_y = jnp.dot([1.0, 2.0], [3.0, 4.0])",
                 "_y = jnp.dot(jnp.asarray([1.0, 2.0]), jnp.asarray([3.0, 4.0]))"),
}


# vmap's in_axes given a dict for a dict argument with other keys than it has (one left out, one
# too many, a nested one): JAX's "must be a tree prefix" message walking both trees, and the
# in_axes-keys card's line, the dict's one entry standing for all of it. With TORCH_SETUP (x of
# shape (2, 3)); each line binds its params first
_PARAMS = "params = {'w': jnp.ones((3, 2)), 'b': jnp.zeros(2)}\n"
_NESTED = "net = {'dense': {'w': jnp.ones((3, 2)), 'b': jnp.zeros(2)}}\n"
IN_AXES_KEYS = {
    "missing": (_PARAMS + "_y = jax.vmap(lambda p, r: r @ p['w'] + p['b'], "
                "in_axes=({'w': None}, 0))(params, x)",
                _PARAMS + "_y = jax.vmap(lambda p, r: r @ p['w'] + p['b'], "
                "in_axes=(None, 0))(params, x)"),
    "extra": (_PARAMS + "_y = jax.vmap(lambda p, r: r @ p['w'], "
              "in_axes=({'w': None, 'b': None, 'c': None}, 0))(params, x)",
              _PARAMS + "_y = jax.vmap(lambda p, r: r @ p['w'], in_axes=(None, 0))(params, x)"),
    "nested": (_NESTED + "_y = jax.vmap(lambda n, r: r @ n['dense']['w'], "
               "in_axes=({'dense': {'w': None}}, 0))(net, x)",
               _NESTED + "_y = jax.vmap(lambda n, r: r @ n['dense']['w'], "
               "in_axes=({'dense': None}, 0))(net, x)"),
}


# a dict made static (unhashable): (setup, the line, the card's fix: the jit's line with the
# dict traced, then the call). Its tuple of pairs, which the card pasted as code where the line
# jits a lambda or calls a jit made above, fails at the function's `d['a']` (JAX 0.10.2:
# "tuple indices must be integers or slices, not str"): now a comment beside dict(d)
STATIC_DICTS = {
    "lambda": ("", "_y = jax.jit(lambda d: d['a'] + 1, static_argnums=0)({'a': 1})",
               "_y = jax.jit(lambda d: d['a'] + 1)({'a': 1})"),
    "jit_above": ("def scaled(u, cfg):\n    return u * cfg['scale']\n"
                  "scaled_jit = jax.jit(scaled, static_argnums=1)\n",
                  "_y = scaled_jit(v, {'scale': 2.0})",
                  "scaled_jit = jax.jit(scaled)\n_y = scaled_jit(v, {'scale': 2.0})"),
}


# a jax.random function called without its key first (the shape first, the two swapped, None):
# the key-missing card's lines, with TORCH_SETUP's key
MISSING_KEYS = {
    "shape_first": ("_y = jax.random.normal((2, 3))",
                    "key, sub = jax.random.split(key)\n_y = jax.random.normal(sub, (2, 3))"),
    "swapped": ("_y = jax.random.uniform((3,), key)", "_y = jax.random.uniform(key, (3,))"),
    # other words for it (stop 129): randint's shape taken for its key moves its bounds along
    # (maxval missing: the random-arguments card wrote randint((3,), (), 0, 10)); NumPy's
    # parameters first, read as key data (the seed card made a key of p=0.5)
    "randint_shape_first": ("_y = jax.random.randint((3,), 0, 10)",
                            "key, sub = jax.random.split(key)\n"
                            "_y = jax.random.randint(sub, (3,), 0, 10)"),
    # an initializer given the shape alone (stop 129: no card; Python named jxkernel's
    # `_scaled.<locals>.init` where JAX's is `normal.<locals>.init`)
    "initializer_shape_alone": ("_y = jax.nn.initializers.normal()((2, 3))",
                                "key, sub = jax.random.split(key)\n"
                                "_y = jax.nn.initializers.normal()(sub, (2, 3))"),
    "initializer_zeros_shape_alone": ("_y = jax.nn.initializers.zeros((2,))",
                                      "key, sub = jax.random.split(key)\n"
                                      "_y = jax.nn.initializers.zeros(sub, (2,))"),
    "bernoulli_p_first": ("_y = jax.random.bernoulli(0.5, (4,))",
                          "key, sub = jax.random.split(key)\n"
                          "_y = jax.random.bernoulli(sub, 0.5, (4,))"),

    "swapped_randint": ("_y = jax.random.randint((3,), key, 0, 10)",
                        "_y = jax.random.randint(key, (3,), 0, 10)"),
    "list_shape": ("_y = jax.random.uniform([3])",
                   "key, sub = jax.random.split(key)\n_y = jax.random.uniform(sub, [3])"),
    "none": ("_y = jax.random.bernoulli(None, 0.5, (4,))",
             "key, sub = jax.random.split(key)\n_y = jax.random.bernoulli(sub, 0.5, (4,))"),
}


# an .at update given a value of another shape than its selection's (TORCH_SETUP's x (2, 3),
# v (3,)): the update-shape card's line where the value holds as many numbers (None: the
# card writes no line, and says which of x's rows or columns has the value's length)
UPDATE_SHAPES = {
    "column_given_a_row": ("_y = x.at[:, 0].set(v)", None),
    "row_given_a_column": ("_y = x.at[0].set(jnp.ones(2))", None),
    "entry_given_a_row": ("_y = x.at[0, 0].set(v)", None),
    "list_value": ("_y = x.at[1].set([1., 2.])", None),
    "column_vector": ("_y = x.at[:, 0].set(jnp.ones((2, 1)))",
                      "_y = x.at[:, 0].set(jnp.ones((2, 1)).reshape(2))"),
    "row_matrix": ("_y = x.at[0, :].add(jnp.arange(3.0).reshape(3, 1))",
                   "_y = x.at[0, :].add(jnp.arange(3.0).reshape(3, 1).reshape(3))"),
    "transposed": ("_y = x.at[:].set(a.T)", "_y = x.at[:].set(a)"),
    "transposed_expression": ("_y = x.at[:].multiply(a.T * 2)",
                              "_y = x.at[:].multiply((a.T * 2).T)"),
}


# a device named by a string where JAX takes a Device (TORCH_SETUP's x): the device-name
# card's line (the CPU's; a GPU named on a machine without one: tests/notebook's own test)
DEVICE_NAMES = {
    "device_put": ("_y = jax.device_put(x, 'cpu')",
                   "_y = jax.device_put(x, jax.devices('cpu')[0])"),
    "device_keyword": ("_y = jax.device_put(x, device='cpu')",
                       "_y = jax.device_put(x, device=jax.devices('cpu')[0])"),
    "to_device": ("_y = x.to_device('cpu:0')", "_y = x.to_device(jax.devices('cpu')[0])"),
    "jit_device": ("_y = jax.jit(lambda a: a.sum(), device='cpu')(x)",
                   "_y = jax.jit(lambda a: a.sum())(x)"),
    # the jit made on a line above and called below, where JAX raises: no card (the line
    # called shows no device), and jxkernel's words named 'platform' where JAX's name 'client'
    "jit_device_called_later": ("f_dev = jax.jit(lambda a: a.sum(), device='cpu')\n"
                                "_y = f_dev(x)",
                                "f_dev = jax.jit(lambda a: a.sum())\n_y = f_dev(x)"),
}

# a device asked for by an index past jax.devices() (code for several GPUs run on one CPU):
# Python's IndexError in JAX too; the device-index card's first line (the suite's one CPU)
DEVICE_INDICES = {
    "device_put": ("_y = jax.device_put(x, jax.devices()[1])",
                   "_y = jax.device_put(x, jax.devices()[0])"),
    "platform_named": ("_y = jax.devices('cpu')[3].platform",
                       "_y = jax.devices('cpu')[0].platform"),
    "from_the_end": ("_y = jax.local_devices()[-2].id", "_y = jax.local_devices()[0].id"),
}

# a convolution given channels-last arrays where lax reads NCHW and OIHW (images and Flax's
# kernels are NHWC and HWIO), or an image without its batch axis: the conv-layout card's
# line, with dimension_numbers or [None] (values exact: sums of ones)
_CONV = "img = jnp.ones((1, 6, 6, 3))\nw = jnp.ones((4, 3, 3, 3))\nk = jnp.ones((3, 3, 3, 4))\n"
CONV_LAYOUTS = {
    "channels_last": (_CONV + "_y = jax.lax.conv(img, w, (1, 1), 'SAME')",
                      _CONV + "_y = jax.lax.conv_general_dilated(img, w, (1, 1), 'SAME', "
                      "dimension_numbers=('NHWC', 'OIHW', 'NHWC'))"),
    "flax_kernel": (_CONV + "_y = jax.lax.conv_general_dilated(img, k, (1, 1), 'VALID')",
                    _CONV + "_y = jax.lax.conv_general_dilated(img, k, (1, 1), 'VALID', "
                    "dimension_numbers=('NHWC', 'HWIO', 'NHWC'))"),
    "no_batch": (_CONV + "_y = jax.lax.conv(jnp.ones((3, 6, 6)), w, (2, 2), 'VALID')",
                 _CONV + "_y = jax.lax.conv(jnp.ones((3, 6, 6))[None], w, (2, 2), 'VALID')"),
}

# eigh, eigvalsh or cholesky of a matrix that is not square (JAX's message is their
# symmetrizing sum's): the square-matrix card's line, a @ a.T or b.T @ b, whose eigenvalues
# are 2 and 4 (a diagonal matrix: within ulps on any CPU)
_SQUARE = "a = jnp.array([[1.0, 0.0, 1.0], [0.0, 2.0, 0.0]])\nb = a.T\n"
SQUARE_MATRICES = {
    "eigh_wide": (_SQUARE + "_y = jnp.linalg.eigh(a)[0]",
                  _SQUARE + "_y = jnp.linalg.eigh(a @ a.T)[0]"),
    "eigvalsh_tall": (_SQUARE + "_y = jnp.linalg.eigvalsh(b)",
                      _SQUARE + "_y = jnp.linalg.eigvalsh(b.T @ b)"),
    "cholesky": (_SQUARE + "_y = jnp.linalg.cholesky(a)", None),
}
# inv, eigvals, det of a matrix that is not square (JAX's own words say so: "Argument to inv
# must have shape [..., n, n]"), and no card: the pseudo-inverse, the singular values, or (det)
# words and the rank
SQUARE_ONLY = {
    "inv_wide": (_SQUARE + "_y = jnp.linalg.inv(a)", _SQUARE + "_y = jnp.linalg.pinv(a)"),
    "eigvals_wide": (_SQUARE + "_y = jnp.linalg.eigvals(a)",
                     _SQUARE + "_y = jnp.linalg.svd(a, compute_uv=False)"),
    "det_tall": (_SQUARE + "_y = jnp.linalg.det(b)", None),
}

# lax.switch given an index per element (JAX: "Branch index must be scalar"): the
# switch-per-element card's line, a vmap over the index and the operands of its length (one of
# another length passed whole: in_axes None); exact values (small integers)
_SWITCH = "idx = jnp.array([0, 1, 0])\nxs = jnp.arange(3.0)\nw = jnp.ones(5)\n"
SWITCH_PER_ELEMENT = {
    "one_operand": (_SWITCH + "_y = jax.lax.switch(idx, [lambda v: v, lambda v: -v], xs)",
                    _SWITCH + "_y = jax.vmap(lambda i, v: jax.lax.switch(i, [lambda v: v, "
                    "lambda v: -v], v))(idx, xs)"),
    "shared_operand": (_SWITCH + "_y = jax.lax.switch(idx, [lambda v, u: v + u.sum(), "
                       "lambda v, u: -v], xs, w)",
                       _SWITCH + "_y = jax.vmap(lambda i, v0, v1: jax.lax.switch(i, [lambda v, "
                       "u: v + u.sum(), lambda v, u: -v], v0, v1), in_axes=(0, 0, None))(idx, "
                       "xs, w)"),
}

# jax.image.resize given the spatial axes' sizes alone (JAX: "shape must have length equal to
# the number of dimensions of x"): the image-shape card's line, the other axes' sizes kept
# (values exact: a resize of ones)
_IMAGES = ("img = jnp.ones((6, 6, 3))\nchw = jnp.ones((3, 6, 6))\n"
           "batch = jnp.ones((2, 6, 6, 1))\n")
IMAGE_SHAPES = {
    "channels_last": (_IMAGES + "_y = jax.image.resize(img, (4, 4), 'bilinear')",
                      _IMAGES + "_y = jax.image.resize(img, (4, 4, 3), 'bilinear')"),
    "channels_first": (_IMAGES + "_y = jax.image.resize(chw, (4, 4), 'bilinear')",
                       _IMAGES + "_y = jax.image.resize(chw, (3, 4, 4), 'bilinear')"),
    "a_batch": (_IMAGES + "_y = jax.image.resize(batch, (3, 3), method='nearest')",
                _IMAGES + "_y = jax.image.resize(batch, (2, 3, 3, 1), method='nearest')"),
}

# keys given where a card rewrote the wrong place or nonsense: a batch of keys to the second of
# two calls on a line (the first's `keys[0]` was indexed again), a seed's name that is also a
# lambda's parameter (the text replace rewrote the parameter), vmap over one raw key (its two
# uint32 words mapped as keys): the card's line (typed keys in TORCH_SETUP's `key`)
KEY_PLACES = {
    "batch_in_the_second_call": (
        "keys = jax.random.split(key, 4)\n"
        "_y = jax.random.normal(keys[0], (3,)) + jax.random.uniform(keys, (3,))",
        "keys = jax.random.split(key, 4)\n"
        "_y = jax.random.normal(keys[0], (3,)) + jax.random.uniform(keys[0], (3,))"),
    "seed_named_as_the_parameter": (
        "_y = jax.vmap(lambda k: jax.random.normal(k))(jnp.arange(3))",
        "_y = jax.vmap(lambda k: jax.random.normal(jax.random.key(k)))(jnp.arange(3))"),
    "vmap_over_a_raw_key": (
        "old = jax.random.PRNGKey(0)\n_y = jax.vmap(lambda k: jax.random.normal(k))(old)",
        "old = jax.random.PRNGKey(0)\n"
        "_y = jax.vmap(lambda k: jax.random.normal(k))(jax.random.split(old, 4))"),
}

# jnp.where given two arguments (its y None: JAX's "got <class 'NoneType'> at position 2"):
# the where-arguments card's line, with a fill of 0 (TORCH_SETUP's x; exact values)
WHERE_OF_TWO = {
    "eager": ("_y = jnp.where(x > 2, x)", "_y = jnp.where(x > 2, x, 0)"),
    "under_jit": ("_y = jax.jit(lambda v: jnp.where(v > 2, v))(x)",
                  "_y = jax.jit(lambda v: jnp.where(v > 2, v, 0))(x)"),
}

# a scan's carry started at another size than the slices it meets (TORCH_SETUP's x, rows of
# 3): the broadcast card's outer sum made a (2, 3) carry, which scan refused next; the carry
# started at the slices' size (exact values)
SCAN_CARRIES = {
    "sum": ("_y = jax.lax.scan(lambda c, r: (c + r, c), jnp.zeros(2), x)[0]",
            "_y = jax.lax.scan(lambda c, r: (c + r, c), jnp.zeros(3), x)[0]"),
    "product": ("_y = jax.lax.scan(lambda c, r: (r * c, c), jnp.ones(2), x)[0]",
                "_y = jax.lax.scan(lambda c, r: (r * c, c), jnp.ones(3), x)[0]"),
}


# jnp.linalg.solve given shapes that do not pair (its message is jnp.vectorize's): the
# solve-shapes card's line, each program's names made in its first line
_SOLVE = "S = jnp.eye(3) * 2\nB = jnp.arange(6.0).reshape(2, 3)\nN = jnp.eye(2, 3)\n"
SOLVE_SHAPES = {
    "rows_as_columns": (_SOLVE + "_y = jnp.linalg.solve(S, B)",
                        _SOLVE + "_y = jnp.linalg.solve(S, B.T)"),
    "transposed_given": (_SOLVE + "C = B.T\n_y = jnp.linalg.solve(S, C.T)",
                         _SOLVE + "C = B.T\n_y = jnp.linalg.solve(S, C)"),
    "not_square": (_SOLVE + "_y = jnp.linalg.solve(N, jnp.ones(2))", None),
    "not_square_named": (_SOLVE + "b = jnp.array([1.0, 2.0])\n_y = jnp.linalg.solve(N, b)",
                         _SOLVE + "b = jnp.array([1.0, 2.0])\n"
                                  "_y = jnp.linalg.lstsq(N, b)[0]"),
    "vector_of_another_length": (_SOLVE + "b = jnp.ones(2)\n_y = jnp.linalg.solve(S, b)",
                                 None),
}


# training state kept in the learner's classes: a field of a NamedTuple or a frozen dataclass
# set in place, a registered class's flatten returning its children alone. (the program, its
# last line; the card's rewrite line, as written; the program with it pasted)
_P = ("@jax.tree_util.register_pytree_node_class\nclass P:\n"
      "    def __init__(self, a): self.a = a\n"
      "    def tree_flatten(self): return [self.a]\n"
      "    @classmethod\n    def tree_unflatten(cls, aux, children): return cls(*children)\n")
_Q = ("class Q:\n    def __init__(self, a, b): self.a, self.b = a, b\n"
      "def flatten_q(q):\n    return (q.a, q.b)\n"
      "jax.tree_util.register_pytree_node(Q, flatten_q, lambda aux, ch: Q(*ch))\n")
_STATE = ("from typing import NamedTuple\nimport dataclasses\n"
          "class State(NamedTuple):\n    step: int\n    w: jax.Array\n"
          "@dataclasses.dataclass(frozen=True)\nclass F:\n    step: int\n"
          "s = State(0, jnp.ones(3))\nf = F(2)\n")
STATE_CLASSES = {
    "flatten_list": (_P + "_y = len(jax.tree.leaves(P(1.0)))",
                     "    return [self.a], None",
                     _P.replace("return [self.a]", "return [self.a], None") +
                     "_y = len(jax.tree.leaves(P(1.0)))"),
    "flatten_children_pair": (_Q + "_y = jax.jit(lambda q: q.a + q.b)(Q(1.0, 2.0))",
                              "    return (q.a, q.b), None",
                              _Q.replace("return (q.a, q.b)", "return (q.a, q.b), None") +
                              "_y = jax.jit(lambda q: q.a + q.b)(Q(1.0, 2.0))"),
    "namedtuple_step": (_STATE + "s.step += 1", "s = s._replace(step=s.step + 1)",
                        _STATE + "s = s._replace(step=s.step + 1)\n_y = s.step"),
    "namedtuple_array": (_STATE + "s.w = s.w * 2", "s = s._replace(w=s.w * 2)",
                         _STATE + "s = s._replace(w=s.w * 2)\n_y = s.w"),
    "frozen_dataclass": (_STATE + "f.step = f.step + 1",
                         "f = dataclasses.replace(f, step=f.step + 1)",
                         _STATE + "f = dataclasses.replace(f, step=f.step + 1)\n_y = f.step"),
}


# the prefixes of the reference's entries recorded apart from `run` (draw_fixes',
# torch_habits' groups, state_classes'): each group's own test compares them
APART = ("draw_", "torch_", "join_arguments_", "array_as_dtype_", "missing_key_",
         "update_shape_", "device_name_", "device_index_", "conv_layout_", "solve_shapes_",
         "square_matrix_", "square_only_", "switch_per_element_",
         "image_shape_", "key_place_", "where_of_two_",
         "scan_carry_",
         "state_class_", "autodiff_",
         "text_leaf_", "tree_arithmetic_", "tree_map_", "one_hot_", "shape_arguments_",
         "keyword_option_", "dict_static_", "floats_only_",
         "in_axes_keys_", "list_arguments_", "nested_item_")


# arithmetic on a pytree of arrays as on one array (a gradient step on dicts, a list's, jnp.sum
# of a dict): (the setup, the line, the tree-arithmetic card's line, what `_y` is made of after)
_TREES = ("params = {'w': jnp.ones(3), 'b': jnp.zeros(())}\n"
          "grads = {'w': jnp.arange(3.0), 'b': jnp.ones(())}\n")
TREE_ARITHMETIC = {
    "sgd_dicts": (_TREES, "params = params - 0.5 * grads",
                  "params = jax.tree.map(lambda p, g: p - 0.5 * g, params, grads)",
                  "jax.tree.leaves(params)"),
    "sgd_lists": ("ws = [jnp.ones(2), jnp.ones(3)]\ngs = [jnp.ones(2), jnp.arange(3.0)]\n",
                  "ws = ws - 0.5 * gs", "ws = jax.tree.map(lambda w, g: w - 0.5 * g, ws, gs)",
                  "ws"),
    "scaled": (_TREES, "doubled = params * 2", "doubled = jax.tree.map(lambda p: p * 2, params)",
               "jax.tree.leaves(doubled)"),
    "sum_of_a_dict": (_TREES, "total = jnp.sum(grads)",
                      "total = sum([jnp.sum(x) for x in jax.tree.leaves(grads)])", "total"),
    "norm_of_a_dict": (_TREES, "norm = jnp.linalg.norm(grads)",
                       "norm = jnp.sqrt(sum([jnp.sum(x ** 2) for x in jax.tree.leaves(grads)]))",
                       "norm"),
}


# a function given to tree_map another number of trees than it takes (over _TREES): the
# tree-map-arguments card's line where one name in the learner's namespace has the first
# tree's structure (grads beside params), else words alone (None)
TREE_MAP_ARGUMENTS = {
    "one_tree_for_two": ("_y = jax.tree.map(lambda p, g: p - 0.5 * g, params)",
                         "_y = jax.tree.map(lambda p, g: p - 0.5 * g, params, grads)"),
    "two_trees_for_one": ("_y = jax.tree_util.tree_map(lambda p: p * 2, params, grads)", None),
    "three_parameters": ("def sgd(p, g, m):\n    return p - 0.5 * g\n"
                         "_y = jax.tree.map(sgd, params, grads)", None),
}


def tree_arithmetic(jax) -> dict:
    """JAX's error for each TREE_ARITHMETIC line, and `_y` after the card's line; and for
    each TREE_MAP_ARGUMENTS line, with the leaves its fix gives."""
    found = {}
    for case, (line, fix) in TREE_MAP_ARGUMENTS.items():
        names = {"jax": jax, "jnp": jax.numpy}
        exec(_TREES, names)
        found[f"tree_map_{case}"] = said(lambda: exec(line, dict(names)))
        if fix is not None:
            exec(fix, names)
            found[f"tree_map_{case}_fixed"] = [np.asarray(v).tolist()
                                               for v in jax.tree.leaves(names["_y"])]
    for case, (setup, line, fixed, result) in TREE_ARITHMETIC.items():
        names = {"jax": jax, "jnp": jax.numpy}
        exec(setup, names)
        found[f"tree_arithmetic_{case}"] = said(lambda: exec(line, dict(names)))
        exec(f"{fixed}\n_y = {result}", names)
        found[f"tree_arithmetic_{case}_fixed"] = [np.asarray(v).tolist() for v in
                                                  names["_y"]] if isinstance(names["_y"], list) \
            else np.asarray(names["_y"]).tolist()
    return found


def state_classes(jax) -> dict:
    """JAX's error for each STATE_CLASSES program, and the value its fixed program binds."""
    found = {}
    for case, (program, _, fixed) in STATE_CLASSES.items():
        found[f"state_class_{case}"] = said(lambda: exec(program, {"jax": jax,
                                                                     "jnp": jax.numpy}))
        names = {"jax": jax, "jnp": jax.numpy}
        exec(fixed, names)
        value = names["_y"]
        found[f"state_class_{case}_fixed"] = value if isinstance(value, int) else \
            np.asarray(value).tolist()
    return found


# jvp given its primals and tangents bare, vjp's or linearize's pair called as a function
# (TORCH_SETUP's x): the card's lines, as pasted
AUTODIFF_CALLS = {
    "jvp_arrays": ("_y = jax.jvp(jnp.sin, x, x)[1]", "_y = jax.jvp(jnp.sin, (x,), (x,))[1]"),
    "jvp_tangent": ("_y = jax.jvp(jnp.sin, (x,), x)[1]",
                    "_y = jax.jvp(jnp.sin, (x,), (x,))[1]"),
    "vjp_called": ("_y = jax.vjp(jnp.sin, x)(x)[0]",
                   "out, f_vjp = jax.vjp(jnp.sin, x)\n_y = f_vjp(x)[0]"),
    "linearize_called": ("_y = jax.linearize(jnp.sin, x)(x)",
                         "out, f_jvp = jax.linearize(jnp.sin, x)\n_y = f_jvp(x)"),
}


# a str among the leaves given to grad or vmap (a dict of parameters holding a layer's name):
# the text-leaf card's lines (JAX 0.10.2's own words; a vmap's in_axes None for it)
TEXT_LEAVES = {
    "grad_lambda": ("params = {'w': jnp.ones(3) * 2, 'name': 'layer1'}\n"
                    "_y = jax.grad(lambda p: (p['w'] ** 2).sum())(params)['w']",
                    "params = {'w': jnp.ones(3) * 2, 'name': 'layer1'}\n"
                    "arrays = {k: v for k, v in params.items() if k != 'name'}\n"
                    "_y = jax.grad(lambda p: (p['w'] ** 2).sum())(arrays)['w']"),
    "vmap": ("params = {'w': jnp.arange(6.0).reshape(2, 3), 'name': 'layer1'}\n"
             "_y = jax.vmap(lambda p: p['w'].sum())(params)",
             "params = {'w': jnp.arange(6.0).reshape(2, 3), 'name': 'layer1'}\n"
             "_y = jax.vmap(lambda p: p['w'].sum(), in_axes=({'w': 0, 'name': None},))(params)"),
    "jacrev_reads_it": ("params = {'w': jnp.ones(3), 'name': 'layer1'}\n"
                        "_y = jax.jacrev(lambda p: p['w'] * len(p['name']))(params)", None),
    # the dict written on the line (its path from grad's arguments: args[0]); the str taken
    # out of it where the function reads it not
    "literal": ("_y = jax.grad(lambda p: (p['w'] ** 2).sum())("
                "{'w': jnp.ones(3) * 2, 'cfg': {'act': 'relu'}})['w']",
                "_y = jax.grad(lambda p: (p['w'] ** 2).sum())("
                "{'w': jnp.ones(3) * 2, 'cfg': {}})['w']"),
    "literal_reads_it": ("_y = jax.grad(lambda p: p['w'].sum() * len(p['cfg']['act']))("
                         "{'w': jnp.ones(3), 'cfg': {'act': 'relu'}})", None),
}


def torch_habits(jax) -> dict:
    """JAX's error for each TORCH_HABITS (and IN_PLACE) line, and the value the card's fix
    gives; `clone`
    works as it is (jaxlib's clone: another Array over the same buffer). Recorded apart from
    `run`, as draw_fixes: the test compares the floats within ulps."""
    scope = {"jax": jax, "jnp": jax.numpy}
    exec(TORCH_SETUP, scope)
    found = {}
    for group, cases in (("torch", TORCH_HABITS), ("torch_traced", TORCH_HABITS_TRACED),
                         ("torch_in_place", IN_PLACE), ("torch_numpy1", NUMPY1_NAMES),
                         ("join_arguments", JOIN_ARGUMENTS), ("missing_key", MISSING_KEYS),
                         ("update_shape", UPDATE_SHAPES), ("device_name", DEVICE_NAMES),
                         ("device_index", DEVICE_INDICES), ("conv_layout", CONV_LAYOUTS),
                         ("square_matrix", SQUARE_MATRICES), ("square_only", SQUARE_ONLY),
                         ("switch_per_element", SWITCH_PER_ELEMENT),
                         ("image_shape", IMAGE_SHAPES), ("key_place", KEY_PLACES),
                         ("where_of_two", WHERE_OF_TWO), ("scan_carry", SCAN_CARRIES),
                         ("solve_shapes", SOLVE_SHAPES), ("autodiff", AUTODIFF_CALLS),
                         ("text_leaf", TEXT_LEAVES), ("one_hot", ONE_HOT),
                         ("shape_arguments", SHAPE_ARGUMENTS),
                         ("keyword_option", KEYWORD_OPTIONS), ("in_axes_keys", IN_AXES_KEYS),
                         ("list_arguments", LIST_ARGUMENTS), ("nested_item", NESTED_ITEMS),
                         ("floats_only", FLOATS_ONLY)):
        for case, (line, fix) in cases.items():
            names = dict(scope)
            found[f"{group}_{case}"] = said(lambda: exec(line, names))
            if fix is None:
                continue
            names = dict(scope)
            exec(fix, names)
            value = names["_y"]
            found[f"{group}_{case}_fixed"] = list(value) if isinstance(value, tuple) else \
                value if isinstance(value, int) else \
                str(value) if not hasattr(value, "shape") else np.asarray(value).tolist()
    x = scope["x"]
    c = x.clone()
    found["torch_clone"] = [c is not x, c.unsafe_buffer_pointer() == x.unsafe_buffer_pointer(),
                            np.asarray(c).tolist()]
    for case, (setup, line, fix) in STATIC_DICTS.items():
        names = dict(scope)
        exec(setup, names)
        found[f"dict_static_{case}"] = said(lambda: exec(line, names))
        found[f"dict_static_{case}_tuple"] = said(lambda: exec(line.replace(
            "{'a': 1}", "(('a', 1),)").replace("{'scale': 2.0}", "(('scale', 2.0),)"), names))
        exec(fix, names)
        found[f"dict_static_{case}_fixed"] = np.asarray(names["_y"]).tolist()
    for case, line in SHAPE_ARGUMENTS_SAID.items():     # (JAX's message says it: no card)
        found[f"shape_arguments_{case}"] = _said_lines(lambda: exec(line, dict(scope)), 5)
    # an array where a dtype goes, not a join's arrays written out: JAX's ValueError, no card
    for case, line in ARRAY_AS_DTYPE.items():
        found[f"array_as_dtype_{case}"] = said(lambda: exec(line, dict(scope)))
    return found


# an array given as a dtype by other ways than a join's arrays one by one (the tuple of arrays
# given, then another array): each JAX's ValueError, which no card explains
ARRAY_AS_DTYPE = {
    "hstack_tuple": "_y = jnp.hstack((v, w), v)",
    "concatenate_dtype": "_y = jnp.concatenate([x], dtype=x)",
    "astype": "_y = x.astype(a)",
    "convert_element_type": "_y = jax.lax.convert_element_type(x, a)",
}
