"""What JAX says for learners' mistakes that had no card, or a card that misled (stop 78,
explain12), and whether the fixes the new cards advise work: `run(jax)` gives, per case, the
exception's class and its first line or whole message (None where the call works), and the
value each fix computes. tests/notebook/test_card_gaps.py compares; the reference
(card_gaps_reference.json) is real JAX 0.10.2's, written by
reference/make_card_gaps_reference.py."""
import json
import re

import numpy as np

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
}
KEY_FIXES = {     # the cards' rewrites: the first key of the batch, the key as it is
    "keys_where_one_goes": "jax.random.normal(jax.random.split(jax.random.key(0))[0])",
    "keys_where_one_goes_vmap": "jax.vmap(jax.random.normal)(jax.random.split(jax.random.key(0)))",
    "key_wrapped_again": "jax.random.key_data(jax.random.key(0))",
    "split_of_keys": "jax.random.split(jax.random.split(jax.random.key(0))[0])",
    "split_of_keys_vmap": "jax.vmap(jax.random.split)(jax.random.split(jax.random.key(0)))",
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

def _said(fn, whole=False):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  the error is the answer
        text = re.sub(r" at 0x[0-9a-f]+", "", str(e))         # objects' addresses
        if whole:
            return {"error": type(e).__name__, "message": text}
        return {"error": type(e).__name__, "first_line": text.splitlines()[0]}
    return None


def _value(jax, result):
    """The leaves of `result` as lists (a registered Box is a pytree of them)."""
    return json.loads(json.dumps([np.asarray(a).tolist()
                                  for a in jax.tree_util.tree_leaves(result)]))


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
        found[f"object_{case}_fixed"] = _value(jax, names["_y"])
    names = dict(from_, checkify=checkify)
    exec(CHECKIFY_SETUP, names)
    found["checkify_unwrapped"] = _said(lambda: exec(CHECKIFY["mistake"], dict(names)), True)
    ran = dict(names)
    exec(CHECKIFY["fixed"], ran)
    found["checkify_fixed"] = _value(jax, ran["_y"])
    found["checkify_fixed_failing"] = _said(lambda: exec(CHECKIFY["fixed_failing"],
                                                         dict(names)))
    names = dict(from_)
    exec(INT_SETUP, names)
    for case, (mistake, fix) in INT_OUTPUTS.items():
        found[f"int_output_{case}"] = _said(lambda: eval(mistake, dict(names)))
        found[f"int_output_{case}_fixed"] = _value(jax, eval(fix, dict(names)))
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
        found[f"inner_static_{case}_fixed"] = _value(jax, eval(code, dict(names)))
    names = dict(from_, x=jax.numpy.arange(1.0, 4.0))
    for case, (mistake, fix) in HASHES.items():
        found[f"hash_{case}"] = _said(lambda: exec(mistake, dict(names)))
        ran = dict(names)
        exec(fix, ran)
        found[f"hash_{case}_fixed"] = _value(jax, ran["_y"])
    ran = dict(names)
    exec(HASH_INDEXED, ran)
    found["hash_indexed"] = _value(jax, ran["_y"])
    for case, (cls, line, register) in JIT_OBJECTS.items():
        names = dict(from_)
        exec(cls, names)
        found[f"jit_object_{case}"] = _said(lambda: exec(line, names))
        names = dict(from_)
        exec(cls + register + "\n" + line, names)
        found[f"jit_object_{case}_fixed"] = _value(jax, names["_y"])
    found["pmap_devices"] = jax.local_device_count()
    names = dict(from_)
    exec(PMAP_SETUP, names)
    for case, (mistake, fixes) in PMAP.items():
        found[f"pmap_{case}"] = _said(lambda: exec(mistake, dict(names)))
        for k, fix in enumerate(fixes):
            ran = dict(names)
            exec(fix, ran)
            found[f"pmap_{case}_fixed_{k}"] = _value(jax, ran["_y"])
    found["pmap_squeeze"] = _said(lambda: exec(PMAP_SQUEEZE, dict(names)))
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
            found[f"nans_{case}_fixed"] = _value(jax, ran["_y"])
    finally:
        jax.config.update("jax_debug_nans", False)
    names = dict(from_)
    exec(WHILE_TRACES, names)
    found["while_traces_promoted"] = [list(t) for t in names["first"]]
    found["while_traces_cached_cond"] = [list(t) for t in names["second"]]
    found["while_traces_value"] = float(names["_y"])
    return found
