"""What JAX says for learners' mistakes that had no card, or a card that misled (stop 78,
explain12), and whether the fixes the new cards advise work: `run(jax)` gives, per case, the
exception's class and its first line or whole message (None where the call works), and the
value each fix computes. tests/notebook/test_card_gaps.py compares; the reference
(card_gaps_reference.json) is real JAX 0.10.2's, written by
reference/make_card_gaps_reference.py."""
import re

import numpy as np
from recorded_errors import leaf_values  # tests/data

# an object of the learner's own class, not registered as a pytree, and a @dataclass
BOX = ("class Box:\n    def __init__(self, a, b):\n        self.a = a\n        self.b = b\n")
PT = ("import dataclasses\n@dataclasses.dataclass\nclass Pt:\n    a: float\n    b: float\n")

# (the class, the mistake's line, the class registered as the card advises it): each binds _y
OBJECTS = {
    "grad": (BOX, "_y = jax.grad(lambda c: c.a * c.b)(Box(1.0, 2.0))",
             "jax.tree_util.register_dataclass(Box, data_fields=['a', 'b'], meta_fields=[])"),
    "grad_dataclass": (PT, "_y = jax.grad(lambda c: c.a * c.b)(Pt(1.0, 2.0))",
                       "jax.tree_util.register_dataclass(Pt)"),
    "value_and_grad": (BOX, "_y = jax.value_and_grad(lambda c: c.a * c.b)(Box(3.0, 2.0))",
                       "jax.tree_util.register_dataclass(Box, data_fields=['a', 'b'], "
                       "meta_fields=[])"),
    "vmap": (BOX, "_y = jax.vmap(lambda c: c.a * c.b)(Box(jnp.arange(2.0), jnp.ones(2)))",
             "jax.tree_util.register_dataclass(Box, data_fields=['a', 'b'], meta_fields=[])"),
    "tree_map": (BOX, "_y = jax.tree.map(lambda v: v * 2, Box(1.0, 2.0))",
                 "jax.tree_util.register_dataclass(Box, data_fields=['a', 'b'], meta_fields=[])"),
    "tree_map_dataclass": (PT, "_y = jax.tree_util.tree_map(lambda v: v + 1, Pt(1.0, 2.0))",
                           "jax.tree_util.register_dataclass(Pt)"),
}

# checkify.check inside jit, not functionalized (JAX's ValueError), and the card's fix:
# checkify.checkify around the jitted function, then err.throw()
CHECKIFY_SETUP = ("def g(v):\n    checkify.check(v > 0, 'v must be positive')\n"
                  "    return v * 2\n")
CHECKIFY = {"mistake": "_y = jax.jit(g)(3.0)",
            "fixed": "err, _y = checkify.checkify(jax.jit(g))(3.0)\nerr.throw()",
            "fixed_failing": "err, _y = checkify.checkify(jax.jit(g))(-3.0)\nerr.throw()"}

# grad of a function returning an integer (a count, an argmax, a cast): JAX's TypeError, and
# the card's rewrite (the output cast to float: its derivative, zero, as JAX computes it)
INT_OUTPUTS = {
    "count": ("jax.grad(lambda v: jnp.sum(v > 0))(x)",
              "jax.grad(lambda v: jnp.sum(v > 0).astype(jnp.float32))(x)"),
    "argmax": ("jax.grad(lambda v: jnp.argmax(v))(x)",
               "jax.grad(lambda v: jnp.argmax(v).astype(jnp.float32))(x)"),
    "named": ("jax.grad(count)(x)",
              "jax.grad(lambda *args: count(*args).astype(jnp.float32))(x)"),
    "value_and_grad": ("jax.value_and_grad(count)(x)",
                       "jax.value_and_grad(lambda *args: count(*args).astype(jnp.float32))(x)"),
}
INT_SETUP = "x = jnp.arange(-1.0, 2.0)\ndef count(v):\n    return jnp.sum(v > 0)\n"

# typed keys: mistakes of JAX's "Pseudorandom numbers" page's kind (a key indexed, a batch of
# keys given where one goes, a key wrapped again, a key added to, a key given as a seed)
KEYS = {
    "index_scalar_key": "jax.random.key(0)[0]",
    "keys_where_one_goes": "jax.random.normal(jax.random.split(jax.random.key(0)))",
    "split_of_keys": "jax.random.split(jax.random.split(jax.random.key(0)))",
    "key_wrapped_again": "jax.random.wrap_key_data(jax.random.key(0))",
    "key_plus_one": "jax.random.key(0) + 1",
    "key_of_key": "jax.random.key(jax.random.key(0))",
    "fold_in_key": "jax.random.fold_in(jax.random.key(0), jax.random.key(1))",
    # raw keys (PRNGKey's): JAX's message names the array's shape with its data axis, (3, 2),
    # where jxkernel's said (3,)
    "raw_keys_where_one_goes": "jax.random.normal(jax.random.split(jax.random.PRNGKey(0), 3))",
}
KEY_FIXES = {     # the cards' rewrites: the first key of the batch, the key as it is
    "keys_where_one_goes": "jax.random.normal(jax.random.split(jax.random.key(0))[0])",
    "keys_where_one_goes_vmap": "jax.vmap(jax.random.normal)(jax.random.split(jax.random.key(0)))",
    "key_wrapped_again": "jax.random.key_data(jax.random.key(0))",
    "split_of_keys": "jax.random.split(jax.random.split(jax.random.key(0))[0])",
    "split_of_keys_vmap": "jax.vmap(jax.random.split)(jax.random.split(jax.random.key(0)))",
    "raw_keys_where_one_goes":
        "jax.random.normal(jax.random.split(jax.random.PRNGKey(0), 3)[0])",
    "raw_keys_where_one_goes_vmap":
        "jax.vmap(jax.random.normal)(jax.random.split(jax.random.PRNGKey(0), 3))",
}

# jnp functions whose static arguments go through an inner jit, given a traced value there
INNER_STATIC = {
    "digitize": "jax.jit(lambda b: jnp.digitize(x, b, right=b[0] > 0))(x)",
    "vander": "jax.jit(lambda n: jnp.vander(x, n))(3)",
    "diff": "jax.jit(lambda n: jnp.diff(x, n))(1)",
    "cumsum_axis": "jax.jit(lambda a: jnp.cumsum(x, axis=a))(0)",
    "sort_axis": "jax.jit(lambda a: jnp.sort(x, axis=a))(0)",
    "tril_k": "jax.jit(lambda k: jnp.tril(jnp.ones((3, 3)), k))(0)",
    "polyfit_deg": "jax.jit(lambda d: jnp.polyfit(x, x, d))(1)",
    "corrcoef_rowvar": "jax.jit(lambda r: jnp.corrcoef(x, rowvar=r))(True)",
    "median_axis": "jax.jit(lambda a: jnp.median(x, axis=a))(0)",
    "rot90_k": "jax.jit(lambda k: jnp.rot90(jnp.ones((2, 2)), k))(1)",
    "digitize_vmap": "jax.vmap(lambda r: jnp.digitize(x, x, right=r))(jnp.array([True]))",
    "diff_grad": "jax.grad(lambda n: jnp.diff(x, n.astype(int)).sum())(1.0)",
}

# the jnp-static card's rewrite: the jitted lambda's argument made static
INNER_STATIC_FIXES = {
    "vander": "jax.jit(lambda n: jnp.vander(x, n), static_argnames=('n',))(3)",
    "sort_axis": "jax.jit(lambda a: jnp.sort(x, axis=a), static_argnames=('a',))(0)",
}

# a traced value where a primitive's parameter or Python's hash() needs a value (stop 78,
# cards17): (the mistake, the card's rewrite: the jitted lambda's argument static); each
# binds _y
HASHES = {
    "tile": ("_y = jax.jit(lambda v, n: jnp.tile(v, (n,)))(x, 2)",
             "_y = jax.jit(lambda v, n: jnp.tile(v, (n,)), static_argnames=('n',))(x, 2)"),
    "dict_key": ("_y = jax.jit(lambda k: {0: 1.0, 1: 2.0}[k])(1)",
                 "_y = jax.jit(lambda k: {0: 1.0, 1: 2.0}[k], static_argnames=('k',))(1)"),
    "set_member": ("_y = jax.jit(lambda k: x * (k in {0, 1}))(1)",
                   "_y = jax.jit(lambda k: x * (k in {0, 1}), static_argnames=('k',))(1)"),
    "hash": ("_y = jax.jit(lambda k: x * hash(k))(1)",
             "_y = jax.jit(lambda k: x * hash(k), static_argnames=('k',))(1)"),
}
# the traced-hash card's other advice, in words: an array indexed by the traced key
HASH_INDEXED = "_y = jax.jit(lambda k: jnp.array([1.0, 2.0])[k])(1)"

# a @dataclass (frozen or not) given to jit whole: JAX's TypeError; registered, it runs
FPT = ("import dataclasses\n@dataclasses.dataclass(frozen=True)\nclass FPt:\n    a: float\n"
       "    b: float\n")
JIT_OBJECTS = {
    "dataclass": (PT, "_y = jax.jit(lambda p: p.a * p.b)(Pt(1.0, 2.0))",
                  "jax.tree_util.register_dataclass(Pt)"),
    "frozen_dataclass": (FPT, "_y = jax.jit(lambda p: p.a * p.b)(FPt(1.0, 2.0))",
                         "jax.tree_util.register_dataclass(FPt)"),
}

# while_loop of a weakly typed int carry that the body makes a float: the functions traced,
# in order, by a side effect in each (JAX: cond, body; then both again for the promoted carry)
WHILE_TRACES = """traced = []
def cond(c):
    traced.append(('cond', str(c.aval.dtype), c.aval.weak_type))
    return c < 10
def body(c):
    traced.append(('body', str(c.aval.dtype), c.aval.weak_type))
    return c * 1.5
_y = lax.while_loop(cond, body, 1)
first = list(traced)
traced.clear()
lax.while_loop(cond, lambda c: c + 1, 1)    # cond again, at the weak int: traced before
second = list(traced)
"""

# stop 101 (h-cards-101) ------------------------------------------------------------------
# a fori_loop's int carry the body makes float: the float start computes what the body
# does (1.5), the cast back drops each step's half (0); JAX 0.10.2 runs a weak `0` start
# (promoted: 1.5), so the mistake's start is a strong int
CARRY_FLOAT = {
    "mistake": "_y = lax.fori_loop(0, 3, lambda i, c: c + 0.5, jnp.int32(0))",
    "float_start": "_y = lax.fori_loop(0, 3, lambda i, c: c + 0.5, "
                   "jnp.asarray(jnp.int32(0), jnp.float32))",
    "cast_back": "_y = lax.fori_loop(0, 3, lambda i, c: (c + 0.5).astype(jnp.int32), "
                 "jnp.int32(0))",
    "weak_start": "_y = lax.fori_loop(0, 3, lambda i, c: c + 0.5, 0)",
}
# the same of one leaf of a tuple carry, its start a tuple written on the line: that leaf of
# the start made float
CARRY_LEAF_SETUP = "def body(c, x):\n    a, b = c\n    return (a + x, b), x\n"
CARRY_LEAF = ("_y = lax.scan(body, (jnp.int32(0), 1.0), jnp.arange(1.0, 4.0))",
              "_y = lax.scan(body, (jnp.asarray(jnp.int32(0), jnp.float32), 1.0), "
              "jnp.arange(1.0, 4.0))")

# stop 102: a loop body written as a lambda on the line, its carry's type changed: the card
# casts (or broadcasts) the lambda's own carry back in the line (it gave a pattern,
# `return new_carry.astype(...)`, that no lambda has a place for); (the mistake, the rewrite)
LAMBDA_CARRY = {
    "scan_dtype": ("_y = lax.scan(lambda c, x: (c + x, c), jnp.int32(0), jnp.arange(3.0))",
                   "_y = lax.scan(lambda c, x: ((c + x).astype(jnp.int32), c), jnp.int32(0), "
                   "jnp.arange(3.0))"),
    "while_shape": ("_y = lax.while_loop(lambda c: c[0] < 5, lambda c: c.sum() + 1.0, "
                    "jnp.ones(2))",
                    "_y = lax.while_loop(lambda c: c[0] < 5, lambda c: jnp.broadcast_to("
                    "c.sum() + 1.0, (2,)), jnp.ones(2))"),
}

# vmap's out_axes past what f returns for one element (a scalar at out_axes=1): JAX's
# NumPy words for the stacked result; (the mistake, the card's rewrite)
VMAP_OUT = {
    "scalar": ("_y = jax.vmap(lambda v: v.sum(), out_axes=1)(xs)",
               "_y = jax.vmap(lambda v: v.sum(), out_axes=0)(xs)"),
    "scalar_negative": ("_y = jax.vmap(lambda v: v.sum(), out_axes=-2)(xs)",
                        "_y = jax.vmap(lambda v: v.sum(), out_axes=0)(xs)"),
    "vector": ("_y = jax.vmap(lambda v: v * 2, out_axes=2)(xs)",
               "_y = jax.vmap(lambda v: v * 2, out_axes=1)(xs)"),
}
VMAP_OUT_SETUP = "xs = jnp.arange(6.0).reshape(3, 2)\n"
# the card's other way, in words: f returning a vector, the batch then at axis 1: (1, 3)
VMAP_OUT_VECTOR = "_y = jax.vmap(lambda v: v.sum(keepdims=True), out_axes=1)(xs)"

# `assert x > 0` of a vector x: NumPy's ValueError (traced or not: not
# TracerBoolConversionError), the fixes, and what the nearer fixes raise under jit:
# `assert jnp.all(...)` a TracerBoolConversionError, `checkify.check(x > 0)` a TypeError
ASSERT_JIT = ("@jax.jit\ndef f(x):\n    {}\n    return jnp.sqrt(x)\n")
ASSERT_VECTOR = {
    "jit": ASSERT_JIT.format("assert x > 0, 'x must be positive'") + "_y = f(xs)",
    "jit_parenthesized": ASSERT_JIT.format("assert (x > 0)") + "_y = f(xs)",
    "eager": "def g(x):\n    assert x > 0, 'x must be positive'\n    return jnp.sqrt(x)\n"
             "_y = g(xs)",
    "jit_all": ASSERT_JIT.format("assert jnp.all(x > 0)") + "_y = f(xs)",
    "jit_check_of_the_vector": ASSERT_JIT.format("checkify.check(x > 0, 'x must be positive')")
    + "err, _y = checkify.checkify(f)(xs)",
}
ASSERT_CHECKED = ASSERT_JIT.format("checkify.check(jnp.all(x > 0), 'x must be positive')")
ASSERT_FIXED = {    # the cards' rewrites pasted, for a positive xs (and one not)
    "jit": ASSERT_CHECKED + "err, _y = checkify.checkify(f)(xs)\nerr.throw()",
    "eager": "def g(x):\n    assert jnp.all(x > 0), 'x must be positive'\n"
             "    return jnp.sqrt(x)\n_y = g(xs)",
}
ASSERT_SETUP = "xs = jnp.arange(1.0, 4.0)\n"
ASSERT_FAILING = "xs = jnp.arange(-1.0, 2.0)\n"

# jax.random.split's num traced under jit: JAX binds it as random_split's parameter `shape`
# (its hash TypeError; ours said "Shapes must be 1D sequences"); traced under vmap, and a
# float; and the card's rewrite, the count static
SPLIT_TRACED = {
    "lambda": "_y = jax.jit(lambda k, n: jax.random.split(k, n))(jax.random.key(0), 3)",
    "decorated": "@jax.jit\ndef f(key, n):\n    return jax.random.split(key, n)\n"
                 "_y = f(jax.random.key(0), 3)",
    "shape_tuple": "_y = jax.jit(lambda k, n: jax.random.split(k, (n, 2)))(jax.random.key(0), 3)",
    "raw_key": "_y = jax.jit(lambda k, n: jax.random.split(k, n))(jax.random.PRNGKey(0), 3)",
    "float": "_y = jax.random.split(jax.random.key(0), 3.0)",
}
SPLIT_VMAPPED = "_y = jax.vmap(lambda n: jax.random.split(jax.random.key(0), n))(jnp.arange(3))"
SPLIT_FIXED = ("_y = jax.jit(lambda k, n: jax.random.split(k, n), static_argnames=('n',))"
               "(jax.random.key(0), 3)")

# lax.switch's branches of two dtypes, lambdas in the list: (the mistake, the card's rewrite:
# the branch JAX names made the promoted dtype, as the cond card's lambdas are)
SWITCH_DTYPES = {
    "astype": ("_y = lax.switch(1, [lambda x: x, lambda x: x.astype(jnp.int32)], 2.5)",
               "_y = lax.switch(1, [lambda x: x, lambda x: jnp.asarray(x.astype(jnp.int32), "
               "jnp.float32)], 2.5)"),
    "third_a_bool": ("_y = lax.switch(2, (lambda x: x * 2, lambda x: x + 1, lambda x: x > 1), "
                     "2.5)",
                     "_y = lax.switch(2, (lambda x: x * 2, lambda x: x + 1, lambda x: "
                     "jnp.asarray(x > 1, jnp.float32)), 2.5)"),
    "no_operands": ("_y = lax.switch(1, [lambda: 1.5, lambda: jnp.int32(1)])",
                    "_y = lax.switch(1, [lambda: 1.5, lambda: jnp.asarray(jnp.int32(1), "
                    "jnp.float32)])"),
}

# lax.switch (and cond) branches off in several places (stop 103): several branches, several
# leaves, or one leaf off in both dtype and shape. JAX's message names the first pair that
# differs; the card changes every branch at once (to the dtype all promote to and the first
# branch's shape). (definitions run first, the mistake, the card's whole rewrite, the program
# with the rewrite applied); each binds _y
_SAME_HALF_FLAG = ("def same(x):\n    return x\ndef half(x):\n    return x[:2]\n"
                   "def flag(x):\n    return x > 1\n")
_PAIRS = "def pair(x):\n    return x, x.sum()\ndef flagged(x):\n    return x > 2, x[0]\n"
SWITCH_SEVERAL = {
    "dtypes_two_off": (
        "", "_y = lax.switch(2, [lambda x: x, lambda x: x.astype(jnp.int32), lambda x: x > 1], "
        "2.5)",
        "_y = lax.switch(2, [lambda x: x, lambda x: jnp.asarray(x.astype(jnp.int32), "
        "jnp.float32), lambda x: jnp.asarray(x > 1, jnp.float32)], 2.5)", None),
    "shapes_two_off": (
        "", "_y = lax.switch(2, [lambda x: x, lambda x: x[:2], lambda x: x[:1]], "
        "jnp.arange(1.0, 4.0))",
        "_y = lax.switch(2, [lambda x: x, lambda x: jnp.pad(x[:2], [(0, 1)]), lambda x: "
        "jnp.broadcast_to(x[:1], (3,))], jnp.arange(1.0, 4.0))", None),
    "dtype_one_shape_other": (
        "", "_y = lax.switch(1, [lambda x: x * 2, lambda x: x > 1, lambda x: x[:2]], "
        "jnp.arange(3.0))",
        "_y = lax.switch(1, [lambda x: x * 2, lambda x: jnp.asarray(x > 1, jnp.float32), "
        "lambda x: jnp.pad(x[:2], [(0, 1)])], jnp.arange(3.0))", None),
    "dtype_and_shape": (
        "", "_y = lax.switch(1, [lambda x: x, lambda x: x[:2].astype(jnp.int32)], "
        "jnp.arange(1.5, 4.5))",
        "_y = lax.switch(1, [lambda x: x, lambda x: jnp.asarray(jnp.pad(x[:2].astype(jnp.int32),"
        " [(0, 1)]), jnp.float32)], jnp.arange(1.5, 4.5))", None),
    "int_first": (
        "", "_y = lax.switch(0, [lambda: 1, lambda: 2.5, lambda: jnp.int32(3)])",
        "_y = lax.switch(0, [lambda: jnp.asarray(1, jnp.float32), lambda: 2.5, lambda: "
        "jnp.asarray(jnp.int32(3), jnp.float32)])", None),
    "tuple_leaves": (
        "", "_y = lax.switch(1, [lambda x: (x, x), lambda x: (x.astype(jnp.int32), x[:2])], "
        "jnp.arange(1.5, 4.5))",
        "_y = lax.switch(1, [lambda x: (x, x), lambda x: (jnp.asarray(x.astype(jnp.int32), "
        "jnp.float32), jnp.pad(x[:2], [(0, 1)]))], jnp.arange(1.5, 4.5))", None),
    "dict_three": (
        "", "_y = lax.switch(2, [lambda x: {'a': x, 'b': x.sum()}, lambda x: {'a': x > 2, "
        "'b': x.sum()}, lambda x: {'a': x, 'b': x[0].astype(jnp.int32)}], jnp.arange(1.0, 4.0))",
        "_y = lax.switch(2, [lambda x: {'a': x, 'b': x.sum()}, lambda x: {'a': jnp.asarray(x > "
        "2, jnp.float32), 'b': x.sum()}, lambda x: {'a': x, 'b': jnp.asarray(x[0].astype("
        "jnp.int32), jnp.float32)}], jnp.arange(1.0, 4.0))", None),
    "cond_dict": (
        "", "_y = lax.cond(False, lambda x: {'a': x, 'b': x}, lambda x: {'a': x[:1], "
        "'b': x > 1}, jnp.arange(1.0, 4.0))",
        "_y = lax.cond(False, lambda x: {'a': x, 'b': x}, lambda x: {'a': jnp.broadcast_to("
        "x[:1], (3,)), 'b': jnp.asarray(x > 1, jnp.float32)}, jnp.arange(1.0, 4.0))", None),
    "defs_two_off": (
        _SAME_HALF_FLAG, "_y = lax.switch(1, [same, half, flag], jnp.arange(1.0, 4.0))",
        "# in branch1 (half), return float32[3]:\n"
        "return jnp.pad(x[:2], [(0, 1)])    # in place of return x[:2]\n"
        "# in branch2 (flag), return float32[3]:\n"
        "return jnp.asarray(x > 1, jnp.float32)    # in place of return x > 1",
        "def same(x):\n    return x\ndef half(x):\n    return jnp.pad(x[:2], [(0, 1)])\n"
        "def flag(x):\n    return jnp.asarray(x > 1, jnp.float32)\n"
        "_y = [lax.switch(i, [same, half, flag], jnp.arange(1.0, 4.0)) for i in range(3)]"),
    "def_one_leaf_of_a_pair": (
        _PAIRS, "_y = lax.switch(1, [pair, flagged], jnp.arange(1.0, 4.0))",
        "# in branch1 (flagged), return float32[3] at [0], float32[] at [1]:\n"
        "return jnp.asarray(x > 2, jnp.float32), x[0]    # in place of return x > 2, x[0]",
        "def pair(x):\n    return x, x.sum()\n"
        "def flagged(x):\n    return jnp.asarray(x > 2, jnp.float32), x[0]\n"
        "_y = lax.switch(1, [pair, flagged], jnp.arange(1.0, 4.0))"),
    "pair_only": (     # one branch of three off: the pair's card, as before
        "", "_y = lax.switch(2, [lambda x: x, lambda x: x + 1, lambda x: x[:1]], "
        "jnp.arange(1.0, 4.0))",
        "_y = lax.switch(2, [lambda x: x, lambda x: x + 1, lambda x: jnp.broadcast_to(x[:1], "
        "(3,))], jnp.arange(1.0, 4.0))", None),
}

# a branch of another structure among them: the card changes the others and names it (the
# line so changed raises JAX's structure error for that branch, its next error)
SWITCH_OTHER_STRUCTURE = (
    "_y = lax.switch(1, [lambda x: x, lambda x: x > 0, lambda x: (x, x), lambda x: x[:1]], "
    "jnp.ones(3))",
    "_y = lax.switch(1, [lambda x: x, lambda x: jnp.asarray(x > 0, jnp.float32), lambda x: "
    "(x, x), lambda x: jnp.broadcast_to(x[:1], (3,))], jnp.ones(3))\n"
    "# and branch2 (<lambda>) returns another structure than branch 0: make it return "
    "float32[3] too")


def switch_several_program(case) -> str:
    """The program SWITCH_SEVERAL[case]'s card makes: its rewrite, or the definitions as
    rewritten and the call."""
    setup, _, rewrite, program = SWITCH_SEVERAL[case]
    return program or setup + rewrite


# pmap given an axis longer than the devices (8 rows on the one CPU device the tests and the
# recording run with): (the mistake, the pmap-devices card's rewrite: vmap, then, where it
# offers it, pmap of vmap over a block of rows per device); each binds _y. And a squeeze of
# JAX's same words that no pmap raised (no card)
PMAP_SETUP = "x8 = jnp.arange(16.0).reshape(8, 2)\n"
PMAP = {
    "lambda": ("_y = jax.pmap(lambda v: v * 2)(x8)",
               ["_y = jax.vmap(lambda v: v * 2)(x8)",
                "_y = jax.pmap(jax.vmap(lambda v: v * 2))(x8.reshape(jax.local_device_count(), "
                "-1, 2))"]),
    "in_axes": ("_y = jax.pmap(lambda v, w: v * w, in_axes=(0, None))(x8, 2.0)",
                ["_y = jax.vmap(lambda v, w: v * w, in_axes=(0, None))(x8, 2.0)"]),
    "axis_name": ("_y = jax.pmap(lambda v: v - lax.pmean(v, 'i'), 'i')(x8)",
                  ["_y = jax.vmap(lambda v: v - lax.pmean(v, 'i'), axis_name='i')(x8)"]),
}
PMAP_SQUEEZE = "_y = jnp.squeeze(x8, 0)"
# pmap given mapped axes of two sizes (a row per device, and a w of 2 entries with none): JAX
# 0.10.2's error is its body's squeeze's; (the mistake, the pmap-sizes card's rewrite: in_axes
# None for w), each binding _y
PMAP_SIZES_SETUP = "x1 = jnp.arange(2.0).reshape(1, 2)\nw = jnp.arange(1.0, 3.0)\n"
PMAP_SIZES = {
    "two": ("_y = jax.pmap(lambda x, w: x * w)(x1, w)",
            "_y = jax.pmap(lambda x, w: x * w, in_axes=(0, None))(x1, w)"),
    "three": ("_y = jax.pmap(lambda x, y, b: x * y + b)(x1, x1, w)",
              "_y = jax.pmap(lambda x, y, b: x * y + b, in_axes=(0, 0, None))(x1, x1, w)"),
}
# jax_debug_nans on: a NaN made by log under jit (the de-optimized rerun raises at log), by
# sqrt inside a jnp.where under grad (its derivative at 0, inf, times where's zero: 0 * inf)
# and under vmap (sqrt of -1: where computes both branches; jitted, none: the jit's output
# holds no NaN, and only a NaN out makes JAX rerun it), and by 0 / 0; the
# debug-nans card's rewrite of the jnp.where line (sqrt given a safe input under the where's
# own condition), run with jax_debug_nans on
NANS_SETUP = ("def f(x):\n    y = x * 2\n    return jnp.log(y)\n"
              "def h(x):\n    return jnp.where(x > 0, jnp.sqrt(x), 0.0)\n"
              "def ratio(a, b):\n    return a / b\n")
NANS_GUARDED = "def h(x):\n    return jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.0)\n"
NANS = {
    "log_jit": "_y = jax.jit(f)(jnp.array([1.0, -1.0, 2.0]))",
    "where_grad": "_y = jax.grad(h)(0.0)",
    "where_vmap": "_y = jax.vmap(h)(jnp.array([-1.0, 4.0]))",
    "where_vmap_jit": "_y = jax.jit(jax.vmap(h))(jnp.array([-1.0, 4.0]))",
    "div": "_y = ratio(jnp.zeros(2), jnp.zeros(2))",
}
NANS_FIXED = ("where_grad", "where_vmap")

# stop 104 (h-cards-104): mistakes of families no case held, each run as a cell: a typed key
# against raw key data (or keys of two impls) in branches or a loop carry, grad of a vector,
# two -1s in a reshape, a number or rows of two lengths given to concatenate/stack, an uneven
# jnp.split, a matrix product of a number, a scan of nothing without a length, a jitted
# function returning a string, a scan body returning its y as the carry. JAX's whole message
# is recorded (the lines naming a branch's function and file left out)
STOP_104 = {
    "key_cond_typed_and_raw": "_y = lax.cond(False, lambda: jax.random.key(0), "
                              "lambda: jax.random.PRNGKey(1))",
    "key_cond_two_impls": "_y = lax.cond(True, lambda: jax.random.key(0), "
                          "lambda: jax.random.key(1, impl='rbg'))",
    "key_switch_typed_and_raw": "_y = lax.switch(1, [lambda: jax.random.key(0), "
                                "lambda: jax.random.PRNGKey(1)])",
    "key_cond_pair_and_dtype": "_y = lax.cond(True, lambda: (jax.random.key(0), 1.0), "
                               "lambda: (jax.random.PRNGKey(0), 2))",
    "key_while_carry_raw": "_y = lax.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, "
                           "jax.random.PRNGKey(1)), (0, jax.random.key(0)))",
    "key_fori_carry_data": "_y = lax.fori_loop(0, 2, lambda i, k: jax.random.key_data(k), "
                           "jax.random.key(0))",
    "grad_of_a_vector": "_y = jax.grad(lambda v: v * 2)(jnp.arange(3.0))",
    "reshape_two_unknowns": "_y = jnp.arange(6.0).reshape(-1, -1)",
    "concatenate_a_number": "_y = jnp.concatenate([jnp.ones(2), 1.0])",
    "stack_ragged_rows": "_y = jnp.stack([[1.0, 2.0], [3.0]])",
    "concatenate_ragged_rows": "_y = jnp.concatenate([[1.0, 2.0], [3.0]])",
    "split_uneven": "_y = jnp.split(jnp.arange(5.0), 2)",
    "matmul_by_a_number": "_y = 2.0 @ jnp.arange(3.0)",
    "scan_of_nothing_without_length": "_y = lax.scan(lambda c, _: (c + 1, c), 0.0, None)",
    "jit_returning_a_string": "_y = jax.jit(lambda v: 'done')(1.0)",
    "scan_body_returning_y_as_carry": "_y = lax.scan(lambda c, x: ((c + x, c), c), 0.0, "
                                      "jnp.arange(3.0))",
}


def _stop_104(from_) -> dict:
    found = {}
    for case, code in STOP_104.items():
        said = _said(lambda: exec(code, dict(from_)), True)
        found[f"stop104_{case}"] = said and {"error": said["error"], "lines": [
            line for line in said["message"].splitlines()
            if not re.match(r"(branch ?\d+|true_fun|false_fun) is ", line)]}
    return found


def _said(fn, whole=False):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  the error is the answer
        text = re.sub(r" at 0x[0-9a-f]+", "", str(e))         # objects' addresses
        if whole:
            return {"error": type(e).__name__, "message": text}
        return {"error": type(e).__name__, "first_line": text.splitlines()[0]}
    return None


def _mistakes_fixed(jax, names, prefix, cases) -> dict:
    """For each (mistake, fix) of `cases`, run in a copy of `names`: JAX's words for the
    mistake, and the leaves of the `_y` its fix makes."""
    found = {}
    for case, (mistake, fix) in cases.items():
        found[f"{prefix}_{case}"] = _said(lambda: exec(mistake, dict(names)))
        ran = dict(names)
        exec(fix, ran)
        found[f"{prefix}_{case}_fixed"] = leaf_values(jax, ran["_y"])
    return found


def run(jax):
    from_ = {"jax": jax, "jnp": jax.numpy, "lax": jax.lax}
    checkify = __import__(jax.__name__ + ".experimental.checkify",
                          fromlist=["checkify"])
    found = {}
    for case, (cls, line, register) in OBJECTS.items():
        names = dict(from_)
        exec(cls, names)
        found[f"object_{case}"] = _said(lambda: exec(line, names))
        names = dict(from_)
        exec(cls + register + "\n" + line, names)
        found[f"object_{case}_fixed"] = leaf_values(jax, names["_y"])
    names = dict(from_, checkify=checkify)
    exec(CHECKIFY_SETUP, names)
    found["checkify_unwrapped"] = _said(lambda: exec(CHECKIFY["mistake"], dict(names)), True)
    ran = dict(names)
    exec(CHECKIFY["fixed"], ran)
    found["checkify_fixed"] = leaf_values(jax, ran["_y"])
    found["checkify_fixed_failing"] = _said(lambda: exec(CHECKIFY["fixed_failing"],
                                                         dict(names)))
    names = dict(from_)
    exec(INT_SETUP, names)
    for case, (mistake, fix) in INT_OUTPUTS.items():
        found[f"int_output_{case}"] = _said(lambda: eval(mistake, dict(names)))
        found[f"int_output_{case}_fixed"] = leaf_values(jax, eval(fix, dict(names)))
    for case, code in KEYS.items():
        found[f"key_{case}"] = _said(lambda: eval(code, dict(from_)))
    for case, code in KEY_FIXES.items():
        found[f"key_{case}_fixed"] = np.asarray(
            jax.random.key_data(r) if "key_data" not in code and
            jax.dtypes.issubdtype(r.dtype, jax.dtypes.prng_key) else r).tolist() \
            if (r := eval(code, dict(from_))) is not None else None
    names = dict(from_, x=jax.numpy.arange(1.0, 5.0))
    for case, code in INNER_STATIC.items():
        found[f"inner_static_{case}"] = _said(lambda: eval(code, dict(names)), True)
    for case, code in INNER_STATIC_FIXES.items():
        found[f"inner_static_{case}_fixed"] = leaf_values(jax, eval(code, dict(names)))
    names = dict(from_, x=jax.numpy.arange(1.0, 4.0))
    found.update(_mistakes_fixed(jax, names, "hash", HASHES))
    ran = dict(names)
    exec(HASH_INDEXED, ran)
    found["hash_indexed"] = leaf_values(jax, ran["_y"])
    for case, (cls, line, register) in JIT_OBJECTS.items():
        names = dict(from_)
        exec(cls, names)
        found[f"jit_object_{case}"] = _said(lambda: exec(line, names))
        names = dict(from_)
        exec(cls + register + "\n" + line, names)
        found[f"jit_object_{case}_fixed"] = leaf_values(jax, names["_y"])
    found["pmap_devices"] = jax.local_device_count()
    names = dict(from_)
    exec(PMAP_SETUP, names)
    for case, (mistake, fixes) in PMAP.items():
        found[f"pmap_{case}"] = _said(lambda: exec(mistake, dict(names)))
        for k, fix in enumerate(fixes):
            ran = dict(names)
            exec(fix, ran)
            found[f"pmap_{case}_fixed_{k}"] = leaf_values(jax, ran["_y"])
    found["pmap_squeeze"] = _said(lambda: exec(PMAP_SQUEEZE, dict(names)))
    names = dict(from_)
    exec(PMAP_SIZES_SETUP, names)
    found.update(_mistakes_fixed(jax, names, "pmap_sizes", PMAP_SIZES))
    names = dict(from_)
    exec(NANS_SETUP, names)
    jax.config.update("jax_debug_nans", True)
    try:
        for case, code in NANS.items():
            found[f"nans_{case}"] = _said(lambda: exec(code, dict(names)))
        exec(NANS_GUARDED, names)
        for case in NANS_FIXED:
            ran = dict(names)
            exec(NANS[case], ran)
            found[f"nans_{case}_fixed"] = leaf_values(jax, ran["_y"])
    finally:
        jax.config.update("jax_debug_nans", False)
    names = dict(from_)
    exec(WHILE_TRACES, names)
    found["while_traces_promoted"] = [list(t) for t in names["first"]]
    found["while_traces_cached_cond"] = [list(t) for t in names["second"]]
    found["while_traces_value"] = float(names["_y"])
    found.update(_stop_101(jax, from_, checkify))
    found.update(_mistakes_fixed(jax, from_, "lambda_carry", LAMBDA_CARRY))
    found.update(_stop_104(from_))
    return found


def _stop_101(jax, from_, checkify) -> dict:
    """The cases of stop 101: JAX's words (whole, or the lines that name no file) and the
    values of the cards' fixes."""
    found = {}

    def ran(code, setup=""):
        names = dict(from_, checkify=checkify)
        exec(setup + code, names)
        return leaf_values(jax, names["_y"])

    for case, code in CARRY_FLOAT.items():
        found[f"carry_float_{case}"] = _said(lambda: exec(code, dict(from_)), True) \
            if case == "mistake" else ran(code)
    found["carry_leaf_float_start"] = ran(CARRY_LEAF[1], CARRY_LEAF_SETUP)
    for case, (mistake, fix) in VMAP_OUT.items():
        names = dict(from_)
        exec(VMAP_OUT_SETUP, names)
        found[f"vmap_out_{case}"] = _said(lambda: exec(mistake, names), True)
        found[f"vmap_out_{case}_fixed"] = ran(fix, VMAP_OUT_SETUP)
    found["vmap_out_vector_returned"] = ran(VMAP_OUT_VECTOR, VMAP_OUT_SETUP)
    for case, code in ASSERT_VECTOR.items():
        names = dict(from_, checkify=checkify)
        exec(ASSERT_SETUP, names)
        said = _said(lambda: exec(code, names), True)
        found[f"assert_vector_{case}"] = said and {"error": said["error"],
                                                   "first_line": said["message"].split("\n")[0]}
    for case, code in ASSERT_FIXED.items():
        found[f"assert_vector_{case}_fixed"] = ran(code, ASSERT_SETUP)
        found[f"assert_vector_{case}_fixed_failing"] = _said(
            lambda: ran(code, ASSERT_FAILING))
    for case, code in SPLIT_TRACED.items():
        found[f"split_{case}"] = _said(lambda: exec(code, dict(from_)), True)
    found["split_vmapped"] = _said(lambda: exec(SPLIT_VMAPPED, dict(from_)))
    names = dict(from_)
    exec(SPLIT_FIXED, names)
    found["split_fixed"] = np.asarray(jax.random.key_data(names["_y"])).tolist()
    for case, (mistake, fix) in SWITCH_DTYPES.items():
        said = _said(lambda: exec(mistake, dict(from_)), True)
        found[f"switch_{case}"] = {"error": said["error"], "lines": [
            line for line in said["message"].splitlines() if " is <lambda> at " not in line]}
        found[f"switch_{case}_fixed"] = ran(fix)
    for case, (setup, mistake, _, _) in SWITCH_SEVERAL.items():
        said = _said(lambda: exec(setup + mistake, dict(from_)), True)
        # (the lines naming each branch's function and file left out: the file is <string>)
        found[f"switch_several_{case}"] = {"error": said["error"], "lines": [
            line for line in said["message"].splitlines()
            if not re.match(r"(branch ?\d+|true_fun|false_fun) is ", line)]}
        found[f"switch_several_{case}_fixed"] = ran(switch_several_program(case))
    found["switch_other_structure_fixed"] = _said(
        lambda: exec(SWITCH_OTHER_STRUCTURE[1], dict(from_)))
    return found
