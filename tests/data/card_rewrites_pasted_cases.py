"""Learners' programs that raise, each with the error card's suggested code pasted where the
card says (helper explain21): tests/notebook/test_card_rewrites_pasted.py runs each program
under jxkernel, builds the pasted program from the card's own text with `pasted` (and checks
it is PASTED's, the program JAX ran), runs it and compares `_r` with JAX's.

reference/make_card_rewrites_pasted_reference.py runs each program and each pasted program
under JAX 0.10.2: the program's error class, the pasted program's `_r` (lists of numbers),
into tests/data/card_rewrites_pasted_reference.json.

name -> (the program, (first, last): its lines (1-based) the snippet goes in place of (last =
first - 1: inserted before first; a third item: the indentation it goes in at), which of the
card's code to paste: a part's index (the rewrite's lines split at each `# or ...` line: 0
the card's first fix, 1 its first alternative, ...), "first" (its first line), "second" (its
second line), "policy" (the one `policy=` argument, in place of the line's), or a slice (those
lines)); a span None where the card's code goes in two places or more: then a list of (span,
which) pairs.
"""
import re

# a call of f whose prints are caught: `_r` is [its value, what it printed]
_PRINTED = ("out = io.StringIO()\nwith contextlib.redirect_stdout(out):\n    y = f({arg})\n"
            "    jax.effects_barrier()\n_r = [y, out.getvalue()]\n")

CASES = {
    # int(i) of a traced 0-d array: i cast (it said `value = x.astype(int)`: the data cast)
    "int_of_traced_index": ("@jax.jit\ndef pick(x, i):\n    return x[int(i)]\n"
                            "_r = pick(jnp.arange(3.0), jnp.array(2))\n", (3, 3), 0),
    # the same given a Python int: static under the decorator, or the index cast
    "int_of_python_index_static": ("@jax.jit\ndef pick(x, i):\n    return x[int(i)]\n"
                                   "_r = pick(jnp.arange(3.0), 1)\n", (1, 3), 0),
    "int_of_python_index_traced": ("@jax.jit\ndef pick(x, i):\n    return x[int(i)]\n"
                                   "_r = pick(jnp.arange(3.0), 1)\n", (3, 3), 1),
    # int() of a sum: the sum cast (it cast the whole vector)
    "int_of_a_sum": ("def count(x):\n    return jnp.zeros(3) + int(x.sum())\n"
                     "_r = jax.jit(count)(jnp.arange(3.0))\n", (2, 2), "first"),
    "float_static": ("@jax.jit\ndef f(x):\n    return float(x) * 2\n_r = f(3.0)\n", (1, 3), 0),
    "float_traced": ("@jax.jit\ndef f(x):\n    return float(x) * 2\n_r = f(3.0)\n", (3, 3), 1),
    "item_traced": ("@jax.jit\ndef f(x):\n    return x.item() + 1\n_r = f(2.0)\n", (3, 3), 0),
    "numpy_on_a_tracer": ("import numpy as np\n@jax.jit\ndef f(x):\n    return np.sin(x) * 2\n"
                          "_r = f(jnp.arange(3.0))\n", (4, 4), "first"),
    "if_made_static": ("@jax.jit\ndef relu(x):\n    if x > 0:\n        return x\n"
                       "    return 0.0\n_r = relu(3.0)\n", (1, 2), 2),
    "while_on_a_tracer": ("@jax.jit\ndef halve(x):\n    while x > 1.0:\n        x = x / 2\n"
                          "    return x\n_r = halve(10.0)\n", (3, 4), "first"),
    # (stop 129) a while over a traced vector's test: the truth-value card wrote `while
    # jnp.all(v < 10):`, still Python's while of a traced bool (TracerBoolConversionError)
    "while_on_a_traced_vector": ("@jax.jit\ndef grow(v):\n    while v < 10:\n        v = v * 2\n"
                                 "    return v\n_r = grow(jnp.array([1.0, 3.0]))\n", (3, 4),
                                 "first"),
    "python_max": ("@jax.jit\ndef f(x):\n    return max(x, 0.0)\n_r = f(-1.0)\n", (3, 3),
                   "first"),
    # `or` and `not` in the condition: jnp.logical_or / logical_not (jnp.where(x > 0 or y > 0,
    # ...) pasted raised the same error: Python's `or` still needed True or False)
    "if_with_or": ("@jax.jit\ndef f(x, y):\n    if x > 0 or y > 0:\n        return x + y\n"
                   "    return x - y\n_r = f(-1.0, -2.0)\n", (3, 5), 0),
    "if_with_not": ("@jax.jit\ndef f(x):\n    if not x > 0:\n        return -x\n    return x\n"
                    "_r = f(-2.0)\n", (3, 5), 1),
    # an `if` with no else setting the name its test reads (`if x > 1.0: x = 1.0`): x's new
    # value where the test holds, else x (it gave the template of two branch functions)
    "if_setting_its_tested_name_where": ("@jax.jit\ndef clip(x):\n    if x > 1.0:\n"
                                         "        x = 1.0\n    return x\n_r = clip(3.0)\n",
                                         (3, 4), 0),
    # control-flow.md's `if x < 3: return 3. * x ** 2 else: return -4 * x` of an int x: the
    # card's lax.cond had a float branch and an int one (JAX 0.10.2: "cond branches must have
    # equal output types"); the int one is cast to jnp.where's float32 now
    "if_branches_of_two_dtypes_cond": ("@jax.jit\ndef f(x):\n    if x < 3:\n"
                                       "        return 3. * x ** 2\n    else:\n"
                                       "        return -4 * x\n_r = [f(2), f(4)]\n", (3, 6), 1),
    "if_setting_its_tested_name_cond": ("@jax.jit\ndef clip(x):\n    if x > 1.0:\n"
                                        "        x = 1.0\n    return x\n_r = clip(0.5)\n",
                                        (3, 4), 1),
    # a range over a 0-d array's count: the loop as lax.fori_loop (it said "a size? take it
    # from a shape", no code for the loop)
    "range_of_an_array_count": ("@jax.jit\ndef f(x, n):\n    s = 0.0\n    for i in range(n):\n"
                                "        s = s + x * i\n    return s\n_r = f(2.0, jnp.array(4))\n",
                                (4, 5), "first"),
    # two draws from one key: split, each draw as written (it dropped the shape)
    "key_reused": ("jax.config.update('jax_debug_key_reuse', True)\nkey = jax.random.key(0)\n"
                   "try:\n    a = jax.random.normal(key, (2,))\n"
                   "    b = jax.random.uniform(key, (2,), minval=-1.0)\n"
                   "finally:\n    jax.config.update('jax_debug_key_reuse', False)\n"
                   "_r = [a, b]\n", (4, 5), 0),
    # the same two draws inside a jitted function (JAX raises at its call, "In jit, argument 0
    # is already consumed"): the function's two lines rewritten (it gave the template)
    "key_reused_inside_jit": ("jax.config.update('jax_debug_key_reuse', True)\n@jax.jit\n"
                              "def sample(key):\n    a = jax.random.normal(key, (2,))\n"
                              "    b = jax.random.uniform(key, (2,), minval=-1.0)\n"
                              "    return a + b\ntry:\n    _r = sample(jax.random.key(0))\n"
                              "finally:\n    jax.config.update('jax_debug_key_reuse', False)\n",
                              (4, 5), 0),
    "seed_as_key": ("_r = jax.random.normal(0, (2,))\n", (1, 1), "first"),
    "list_made_static": ("def fill(v, shape):\n    return jnp.zeros(shape) + v\n"
                         "_r = jax.jit(fill, static_argnums=1)(1.0, [2, 3])\n", (3, 3), "first"),
    "string_into_jit": ("def f(x, mode):\n    return x * 2 if mode == 'double' else x\n"
                        "_r = jax.jit(f)(1.0, 'double')\n", (3, 3), "first"),
    "traced_dict_key": ("table = {0: 1.0, 1: 2.0}\n@jax.jit\ndef look(k):\n"
                        "    return table[k]\n_r = look(1)\n", (2, 3), 0),
    "vmap_sizes": ("_r = jax.vmap(lambda a, b: a * b)(jnp.ones(3), jnp.arange(2.0))\n", (1, 1),
                   "first"),
    # sizes that tie, where the first argument's in_axes does not fit the function: the
    # in_axes the function traces with, fewest arguments moved off their axis (it said
    # (0, None) for W @ x: JAX's error in the dot; (0, 1) for x + b: xs mapped by columns)
    "vmap_sizes_matvec": ("W = jnp.ones((3, 4))\nxs = jnp.arange(20.0).reshape(5, 4)\n"
                          "_r = jax.vmap(lambda W, x: W @ x)(W, xs)\n", (3, 3), "first"),
    "vmap_sizes_bias_first": ("b = jnp.arange(3.0)\nxs = jnp.arange(15.0).reshape(5, 3)\n"
                              "_r = jax.vmap(lambda b, x: x + b)(b, xs)\n", (3, 3), "first"),
    "vmap_sizes_predict": ("def predict(w, x):\n    return w @ x + 1.0\n"
                           "w = jnp.full((2, 3), 0.5)\nxs = jnp.arange(18.0).reshape(6, 3)\n"
                           "_r = jax.vmap(predict)(w, xs)\n", (5, 5), "first"),
    "vmap_rank": ("_r = jax.vmap(lambda a: a * 2, in_axes=1)(jnp.arange(3.0))\n", (1, 1),
                  "first"),
    "item_assigned": ("x = jnp.zeros(3)\nx[1] = 5.0\n_r = x\n", (2, 2), "first"),
    "method_jitted": ("class Model:\n    def __init__(self, w):\n        self.w = w\n"
                      "    @jax.jit\n    def apply(self, x):\n        return self.w * x\n"
                      "_r = Model(2.0).apply(3.0)\n", (7, 6), 0),
    "traced_slice": ("@jax.jit\ndef head(x, n):\n    return x[:n]\n"
                     "_r = head(jnp.arange(1.0, 6.0), 2)\n", (3, 3), "first"),
    # stop 125: the slice bound to a name and reduced on a line below (the masked whole's
    # zeros counted in the mean: the note said "0 outside the slice" and no more): the mask,
    # and the line below reduced over it (a sum keeps the masked line: zeros add nothing)
    "traced_slice_then_mean": ("@jax.jit\ndef f(x, n):\n    y = x[:n]\n    return y.mean()\n"
                               "_r = f(jnp.arange(1.0, 6.0), 2)\n", None,
                               [((3, 3), slice(0, 1)), ((4, 4), slice(1, 2))]),
    "traced_slice_then_max": ("@jax.jit\ndef g(x, n):\n    tail = x[n:]\n"
                              "    m = jnp.max(tail) + 1\n    return m\n"
                              "_r = g(jnp.array([4.0, -1.0, -3.0, -2.0]), 1)\n", None,
                              [((3, 3), slice(0, 1)), ((4, 4), slice(1, 2))]),
    "traced_slice_then_sum": ("@jax.jit\ndef h(x, n):\n    y = x[:n]\n    return y.sum()\n"
                              "_r = h(jnp.arange(1.0, 6.0), 2)\n", (3, 3), "first"),
    "grad_int": ("_r = jax.grad(lambda x: x ** 2)(3)\n", (1, 1), "first"),
    "grad_vector_jacobian": ("def f(x):\n    return x ** 2\n_r = jax.grad(f)(jnp.arange(3.0))\n",
                             (3, 3), "first"),
    "grad_vector_sum": ("def f(x):\n    return x ** 2\n_r = jax.grad(f)(jnp.arange(3.0))\n",
                        (3, 3), "second"),
    "grad_pair": ("def f(x):\n    return x ** 2, x\n_r = jax.grad(f)(2.0)\n", (3, 3), "first"),
    "float_of_a_vector": ("_r = float(jnp.arange(3.0))\n", (1, 1), "first"),
    "broadcast": ("a = jnp.ones((2, 3))\nb = jnp.arange(2.0)\n_r = a + b\n", (3, 3), "first"),
    "matmul": ("W = jnp.arange(12.0).reshape(3, 4)\nx = jnp.ones(3)\n_r = W @ x\n", (3, 3),
               "first"),
    "policy_misspelled": ("def f(x):\n    return jnp.sin(x) * x\n"
                          "g = jax.checkpoint(f, policy=jax.checkpoint_policies.dots_savable)\n"
                          "_r = jax.grad(g)(1.0)\n", (3, 3), "policy"),
    "policy_string": ("def f(x):\n    return jnp.sin(x) * x\n"
                      "g = jax.checkpoint(f, policy='dots_saveable')\n_r = jax.grad(g)(1.0)\n",
                      (3, 3), "first"),
    "psum_unbound": ("_r = jax.lax.psum(jnp.arange(3.0), 'i')\n", (1, 1), "first"),
    "truth_of_a_vector": ("x = jnp.arange(3.0)\n_r = 0\nif x > -1:\n    _r = 1\n", (3, 3),
                          "first"),
    # static where the learner jitted by rebinding the name (`f = jax.jit(f)`): the jit made
    # again from f.__wrapped__ (it wrote `f = jax.jit(f, static_argnames=...)`, which, pasted
    # below, jits the jit, whose own jit still traces n: JAX raises again)
    "static_of_a_rebound_jit": ("def f(x, n):\n    return jnp.zeros(n) + x\nf = jax.jit(f)\n"
                                "_r = f(1.0, 3)\n", (4, 3), "first"),
    # a static object whose class has __eq__ and no __hash__ (the hash pasted beside __eq__);
    # a dataclass not frozen (frozen); a frozen one holding an array: registered, and the
    # call with it traced (it said so in words: registered alone, still static, JAX raises)
    "static_object_without_hash": ("class Cfg:\n    def __init__(self, n):\n        self.n = n\n"
                                   "    def __eq__(self, other):\n        return self.n == other.n\n"
                                   "def f(x, cfg):\n    return x * cfg.n\n"
                                   "_r = jax.jit(f, static_argnums=1)(2.0, Cfg(3))\n", (4, 3), 0),
    "static_dataclass_not_frozen": ("import dataclasses\n@dataclasses.dataclass\nclass Cfg:\n"
                                    "    n: int\ndef f(x, cfg):\n    return x * cfg.n\n"
                                    "_r = jax.jit(f, static_argnums=1)(2.0, Cfg(3))\n", (2, 3), 0),
    "static_dataclass_holding_an_array": (
        "import dataclasses\n@dataclasses.dataclass(frozen=True)\nclass Cfg:\n    w: object\n"
        "def f(x, cfg):\n    return x * cfg.w\n"
        "_r = jax.jit(f, static_argnums=1)(2.0, Cfg(jnp.arange(2.0)))\n", None,
        [((5, 4), "first"), ((7, 7), "second")]),
    # vmap's in_axes for the positional arguments alone, a keyword argument beside them (it
    # wrote `jax.vmap(f, in_axes=(0))(...)`: no tuple, and a call of nothing)
    "in_axes_with_a_keyword_argument": ("def f(a, b):\n    return a * b\n"
                                        "_r = jax.vmap(f, in_axes=(0, 1))(jnp.arange(3.0), "
                                        "b=jnp.ones(3))\n", (3, 3), "first"),
    # grad of a dict holding 'loss': that entry (it took 'acc', first in sorted order); of a
    # function returning None: `return y`, its last line's name (it wrote `return loss`); of an
    # int held in a name: the call's argument made a float array (the template's `x =
    # jnp.asarray(x, ...)` fitted only a name that was x); a masked mean: mean's where= (the
    # zeros jnp.where puts in counted in the mean)
    "grad_of_a_dict_with_a_loss": ("def f(x):\n    return {'loss': x ** 2, 'acc': x}\n"
                                   "_r = jax.grad(f)(2.0)\n", (3, 3), "first"),
    "grad_of_no_return": ("def f(x):\n    y = x ** 2\n_r = jax.grad(f)(2.0)\n", (3, 2, "    "),
                          "first"),
    "grad_of_an_int_name": ("n = 3\n_r = jax.grad(lambda v: v ** 2)(n)\n", (2, 2), "first"),
    "masked_mean_under_jit": ("@jax.jit\ndef f(x):\n    return x[x > 0].mean()\n"
                              "_r = f(jnp.arange(-1.0, 3.0))\n", (3, 3), "first"),
    # a masked or sliced max/min: the masked whole's zeros would be its max (or min) where the
    # kept elements are all below (above) 0 (it wrote `jnp.where(x < 0, x, 0).max()`: 0.)
    # an argmax (argmin) of the kept elements: it was jnp.where(m, x, 0).argmax(), whose 0
    # could win at a dropped position ([2., -3., -1.] masked x < 0: 0); the index is into x
    # itself now (2, where x[m].argmax() without jit gives 1, the kept elements' own index)
    "masked_argmax_under_jit": ("@jax.jit\ndef f(x):\n    return x[x < 0].argmax()\n"
                                "_r = f(jnp.array([2.0, -3.0, -1.0]))\n", (3, 3), "first"),
    "masked_jnp_argmin_under_jit": ("@jax.jit\ndef f(x):\n    return jnp.argmin(x[x > 0])\n"
                                    "_r = f(jnp.array([-2.0, 3.0, 1.0]))\n", (3, 3), "first"),
    "masked_max_under_jit": ("@jax.jit\ndef f(x):\n    return x[x < 0].max()\n"
                             "_r = f(jnp.array([-3.0, -1.0, 2.0]))\n", (3, 3), "first"),
    "traced_slice_min": ("@jax.jit\ndef f(x, n):\n    return x[:n].min()\n"
                         "_r = f(jnp.array([1.0, 2.0, -4.0]), 2)\n", (3, 3), "first"),
    # jnp's function around the mask: its mean over the kept elements (it wrote
    # `jnp.mean(jnp.where(x > 0, x, 0))`: the zeros counted, 0.75 for 1.5)
    "masked_jnp_mean": ("@jax.jit\ndef f(x):\n    return jnp.mean(x[x > 0]) * 2\n"
                        "_r = f(jnp.arange(-1.0, 3.0))\n", (3, 3), "first"),
    # a branch of lax.cond that is a named function: its own return broadcast or cast (it
    # wrote `return jnp.broadcast_to(result, ...)`, `return result.astype(...)`)
    "cond_branch_named_shape": ("def _cut(v):\n    return v[:1]\nx = jnp.ones((3, 2))\n"
                                "_r = jax.lax.cond(False, lambda v: v, _cut, x)\n", (2, 2), 0),
    "cond_branch_named_dtype": ("def zero(v):\n    return 0\n"
                                "_r = jax.lax.cond(False, lambda v: v, zero, 1.5)\n", (2, 2), 0),
    # vmap of a scalar alone: a batch, passed on the learner's line (it was `ys =
    # jax.vmap(f)(xs)`, f no name of the learner's)
    "vmap_of_a_scalar": ("_r = jax.vmap(lambda a: a * 2)(3.0)\n", (1, 1), 0),
    # a scan carry started as int32, the body adding floats: the start made float32 (the sum
    # meant: first), or the body's return cast back (it named `new_carry` and `y`, which the
    # body has not); a leaf of a while_loop's carry made int by the body cast back (first: the
    # body narrowed it); a carry that lost its axis broadcast back
    "scan_carry_cast_back": ("def body(c, x):\n    return c + x, x\n"
                             "_r = jax.lax.scan(body, jnp.int32(0), jnp.ones(3))\n", (2, 2), 1),
    "scan_carry_float_start": ("def body(c, x):\n    return c + x, x\n"
                               "_r = jax.lax.scan(body, jnp.int32(0), jnp.ones(3))\n", (3, 3), 0),
    "while_carry_leaf_cast_back": ("def halve(state):\n    i, v = state\n"
                                   "    return i + 1, (v / 2).astype(jnp.int32)\n"
                                   "_r = jax.lax.while_loop(lambda s: s[0] < 3, halve, "
                                   "(0, jnp.ones(2)))\n", (3, 3), 0),
    "scan_carry_lost_its_axis": ("def body(c, x):\n    return c.sum() + x, x\n"
                                 "_r = jax.lax.scan(body, jnp.ones(2), jnp.ones(3))\n", (2, 2), 0),
    # stop 100's audit (h-cards-100): each conversion of a traced value on the line cast (it
    # cast the first alone: pasted, `int(x.max())` raised JAX's ConcretizationTypeError again)
    "int_of_two_values_unpacked": ("@jax.jit\ndef f(x):\n    lo, hi = int(x.min()), int(x.max())\n"
                                   "    return jnp.arange(3) * lo + hi\n"
                                   "_r = f(jnp.arange(1.0, 4.0))\n", (3, 3), "first"),
    "int_of_two_indices": ("@jax.jit\ndef f(x, i, j):\n    return x[int(i)] + x[int(j)]\n"
                           "_r = f(jnp.arange(4.0), jnp.array(1), jnp.array(3))\n", (3, 3),
                           "first"),
    # a Python list indexed by the cast: made an array (`table[x.astype(int)]`: a list's index
    # asks __index__, JAX's TracerIntegerConversionError)
    "int_indexing_a_list_in_scan": ("table = [10.0, 20.0, 30.0]\n"
                                    "_r = jax.lax.scan(lambda c, x: (c + table[int(x)], None), "
                                    "0.0, jnp.arange(3))[0]\n", (2, 2), "first"),
    # float() in a print's f-string with a spec: jax.debug.print (it said `print(f'loss
    # {x:.3f}')`: "unsupported format string passed to DynamicJaxprTracer.__format__"); two
    # Python floats converted: both static (x alone: float(y) raised again)
    "float_in_a_formatted_print": ("@jax.jit\ndef f(x):\n    print(f'loss {float(x):.3f}')\n"
                                   "    return x\n_r = f(3.0)\n", (3, 3), 1),
    "float_of_two_arguments_static": ("@jax.jit\ndef f(x, y):\n"
                                      "    print(f'{float(x):.1f} {float(y):.1f}')\n"
                                      "    return x + y\n_r = f(1.0, 2.0)\n", (1, 3), 0),
    "float_of_two_arguments_printed": ("@jax.jit\ndef f(x, y):\n"
                                       "    print(f'{float(x):.1f} {float(y):.1f}')\n"
                                       "    return x + y\n_r = f(1.0, 2.0)\n", (3, 3), 1),
    # `x.at[0] += 1.0` (Python's TypeError, JAX's words): no card before, the .add given now
    "at_plus_equals": ("x = jnp.zeros(3)\nx.at[0] += 1.0\n_r = x\n", (2, 2), "first"),
    "at_minus_equals_under_jit": ("@jax.jit\ndef f(x):\n    x.at[1] -= 2.0\n    return x\n"
                                  "_r = f(jnp.zeros(3))\n", (3, 3), "first"),
    # `if weights:` of an argument defaulting to None: `is not None` (jnp.where(weights, x *
    # weights, x) kept x where a weight was 0: [1, 1, 2] for the [1, 0, 2] meant)
    "if_of_a_none_default_vector": ("@jax.jit\ndef f(x, weights=None):\n    if weights:\n"
                                    "        x = x * weights\n    return x\n"
                                    "_r = [f(jnp.ones(3), jnp.array([1.0, 0.0, 2.0])), "
                                    "f(jnp.ones(3))]\n", (3, 3), "first"),
    "if_not_of_a_none_default": ("@jax.jit\ndef f(x, scale=None):\n    if not scale:\n"
                                 "        scale = 1.0\n    return x * scale\n"
                                 "_r = [f(2.0, scale=0.0), f(2.0)]\n", (3, 3), "first"),
    "ifexp_of_a_none_default": ("@jax.jit\ndef f(x, b=None):\n    return x + b if b else x\n"
                                "_r = [f(1.0, 0.5), f(1.0)]\n", (3, 3), "first"),
    "elif_of_a_none_default": ("@jax.jit\ndef f(x, *, w=None):\n    if x is None:\n"
                               "        return 0.0\n    elif w:\n        return x * w\n"
                               "    return x\n_r = [f(2.0, w=0.0), f(2.0)]\n", (5, 5), "first"),
    # a format spec of a traced value (no card before): the print as jax.debug.print, under
    # jit, grad and vmap alike (JAX 0.10.2 prints the same lines)
    "formatted_print_under_jit": ("@jax.jit\ndef f(x):\n    print(f'{x:.2f}')\n"
                                  "    return x * 2\n_r = f(3.0)\n", (3, 3), "first"),
    "formatted_print_under_grad": ("def f(x):\n    print(f'x = {x:.2f}')\n    return x ** 2\n"
                                   "_r = jax.grad(f)(3.0)\n", (2, 2), "first"),
    # ... of a vector: its spec dropped, which an array takes in no format (jax.debug.print('v
    # = {:.2f}', v), the card's code before, raises NumPy's TypeError in JAX 0.10.2's callback)
    "formatted_print_of_a_vector": ("import io, contextlib\n@jax.jit\ndef f(v):\n"
                                    "    print(f'v = {v:.2f}')\n    return v * 2\n"
                                    + _PRINTED.format(arg="jnp.array([1.234, 4.5678])"),
                                    (4, 4), "first"),
    "formatted_print_under_vmap": ("def f(x):\n    print(f'x = {x:.2f}')\n    return x ** 2\n"
                                   "_r = jax.vmap(f)(jnp.arange(3.0))\n", (2, 2), "first"),
    # int() on the second line of a statement: the whole statement rewritten (the static fix
    # gave the fragment `+ int(y))`, a SyntaxError pasted; the traced one a template)
    "int_in_a_statement_of_two_lines_static": ("@jax.jit\ndef f(x, y):\n    return (x * 2\n"
                                               "            + int(y))\n_r = f(1.0, 2.0)\n",
                                               (1, 4), 0),
    "int_in_a_statement_of_two_lines_traced": ("@jax.jit\ndef f(x, i):\n"
                                               "    return jnp.take(x,\n"
                                               "                    int(i))\n"
                                               "_r = f(jnp.arange(3.0), jnp.array(2))\n",
                                               (3, 4), 0),
    # stop 100 (h-cards2-100): an assert checking an input under jit as checkify.check, the
    # call checkified and its error thrown (it gave jnp.where / lax.cond's pattern); pasted in
    # three places (a slice: those lines of the card's code): the import at the top, the
    # check for the assert, the call; a good input returns, a bad one raises JAX's
    # JaxRuntimeError (a ValueError) with the assert's message
    "assert_checkified_good": ('@jax.jit\ndef f(x):\n    assert x > 0, "x must be positive"\n'
                               '    return jnp.sqrt(x)\n_r = f(4.0)\n', None,
                               [((1, 0), slice(0, 1)), ((3, 3), slice(1, 2)),
                                ((5, 5), slice(2, 5))]),
    "assert_checkified_bad": ('@jax.jit\ndef f(x):\n    assert x > 0, "x must be positive"\n'
                              '    return jnp.sqrt(x)\ntry:\n    _r = f(-1.0)\n'
                              'except ValueError as e:\n    _r = str(e)\n', None,
                              [((1, 0), slice(0, 1)), ((3, 3), slice(1, 2)),
                               ((6, 6), slice(2, 5))]),
    # x a Python float: static, the assert runs in Python per compile (AssertionError)
    "assert_made_static": ('@jax.jit\ndef f(x):\n    assert x > 0, "x must be positive"\n'
                           '    return jnp.sqrt(x)\n_r = [f(4.0)]\ntry:\n    f(-1.0)\n'
                           'except AssertionError as e:\n    _r.append(str(e))\n', (1, 2), 1),
    # bool() of a traced comparison (of a value) kept traced: the comparison itself
    # (x.astype(bool)), used as an array below (it gave jnp.where / lax.cond's pattern)
    "bool_of_a_comparison": ("@jax.jit\ndef f(x):\n    flag = bool(x > 0)\n"
                             "    return x * flag\n_r = [f(3.0), f(-2.0)]\n", (3, 3), "first"),
    "bool_of_a_value": ("@jax.jit\ndef f(x):\n    flag = bool(x)\n"
                        "    return jnp.where(flag, x, 1.0)\n_r = [f(3.0), f(0.0)]\n", (3, 3),
                        "first"),
    # ... and tested by an `if` below: the line alone raises there (REFUSED); the card says
    # so and gives the `if` traced too, pasted in its place
    "bool_then_if": ("@jax.jit\ndef f(x):\n    flag = bool(x > 0)\n    if flag:\n"
                     "        return x\n    return -x\n_r = [f(3.0), f(-2.0)]\n", None,
                     [((3, 3), slice(0, 1)), ((4, 6), slice(4, 5))]),
    # a comprehension filtering a traced vector on its values, summed or counted: the same
    # value on the whole array (4.0, 10.0, 2 for [1, -2, 3], as Python's filter gives; it gave
    # jnp.where / lax.cond's pattern)
    "filtered_sum": ("@jax.jit\ndef f(xs):\n    return sum([v for v in xs if v > 0])\n"
                     "_r = f(jnp.array([1.0, -2.0, 3.0]))\n", (3, 3), "first"),
    "filtered_generator_sum": ("@jax.jit\ndef f(xs):\n    return sum(v ** 2 for v in xs if v > 0)"
                               "\n_r = f(jnp.array([1.0, -2.0, 3.0]))\n", (3, 3), "first"),
    "filtered_count": ("@jax.jit\ndef f(xs):\n    n = len([v for v in xs if v > 0])\n"
                       "    return n\n_r = f(jnp.array([1.0, -2.0, 3.0]))\n", (3, 3), "first"),
    # h-cards3-100, the shape and transformation cards. vmap over params = (W, b) and a batch:
    # JAX says "most axes (2 of them) had size 2", which the card did not read (in_axes=(0,)
    # offered, one entry for two arguments); a dict's leaf of another length: its leaf's
    # entry in a dict (it offered in_axes=(0, None) for a function of one argument)
    "vmap_sizes_params_tuple": ("def predict(params, x):\n    W, b = params\n"
                                "    return W @ x + b\n"
                                "params = (jnp.arange(6.0).reshape(2, 3), jnp.array([1.0, -1.0]))"
                                "\nxs = jnp.arange(12.0).reshape(4, 3)\n"
                                "_r = jax.vmap(predict)(params, xs)\n", (6, 6), 0),
    "vmap_sizes_dict_leaf": ("batch = {'x': jnp.arange(12.0).reshape(3, 4), "
                             "'y': jnp.array([1.0, 2.0])}\ndef f(d):\n"
                             "    return d['x'].sum() + d['y']\n_r = jax.vmap(f)(batch)\n",
                             (4, 4), 0),
    # in_axes as a dict keyed by the parameters' names (no card): a tuple in their order; a
    # dict for a function of one dict argument: the dict inside a tuple
    "vmap_in_axes_dict": ("params = {'w': jnp.array([1.0, 2.0, 3.0]), 'b': jnp.array(0.5)}\n"
                          "xs = jnp.arange(6.0).reshape(2, 3)\ndef predict(p, x):\n"
                          "    return p['w'] @ x + p['b']\n"
                          "_r = jax.vmap(predict, in_axes={'p': None, 'x': 0})(params, xs)\n",
                          (5, 5), "first"),
    "vmap_in_axes_dict_of_one_argument": ("batch = {'x': jnp.arange(6.0).reshape(2, 3), "
                                          "'w': jnp.array([1.0, 0.0, -1.0])}\ndef f(d):\n"
                                          "    return d['x'] @ d['w']\n"
                                          "_r = jax.vmap(f, in_axes={'x': 0, 'w': None})(batch)\n",
                                          (4, 4), "first"),
    # a fori_loop's int carry given a float: told as a scan's `carry[1]`, with the pattern
    # only; the start made float32 (the sum meant: first), or the body's return cast back
    "fori_carry_cast_back": ("def body(i, total):\n    return total + 0.5 * i\n"
                             "_r = jax.lax.fori_loop(0, 4, body, jnp.int32(0))\n", (2, 2), 1),
    "fori_carry_float_start": ("def body(i, total):\n    return total + 0.5 * i\n"
                               "_r = jax.lax.fori_loop(0, 4, body, jnp.int32(0))\n", (3, 3), 0),
    # a lambda body's int carry made float (stop 101): the float start, code, is the card's
    # first fix now (the cast back of a lambda's return, its pattern, was: in PATTERNS)
    "scan_carry_of_a_lambda_float_start": ("_r = jax.lax.scan(lambda c, x: (c + x, x), "
                                           "jnp.int32(0), jnp.ones(3))\n", (1, 1), 0),
    # a broadcast (and a product, and a reshape) on a statement of two lines: the whole
    # statement (it gave `v = jnp.expand_dims(v, 1)`, `y = a @ b.T`, `y = x.reshape(...)`)
    "broadcast_in_a_statement_of_two_lines": ("@jax.jit\ndef loss(pred, target):\n"
                                              "    err = (pred\n           - target)\n"
                                              "    return jnp.mean(err ** 2)\n"
                                              "_r = loss(jnp.arange(12.0).reshape(4, 3), "
                                              "jnp.arange(4.0))\n", (3, 4), "first"),
    "matmul_in_a_statement_of_two_lines": ("W = jnp.arange(6.0).reshape(2, 3)\n"
                                           "xs = jnp.arange(12.0).reshape(4, 3)\n"
                                           "_r = jnp.dot(\n    xs, W)\n", (3, 4), "first"),
    "reshape_in_a_statement_of_two_lines": ("imgs = jnp.arange(18.0).reshape(2, 3, 3)\n"
                                            "_r = imgs.reshape(\n    2, 3 * 3 * 3)\n", (2, 3),
                                            "first"),
    # a size written as a product, `28 * 28 * 3`: -1 in its place (it gave y = x.reshape(...))
    "reshape_size_written_as_a_product": ("imgs = jnp.arange(18.0).reshape(2, 3, 3)\n"
                                          "_r = imgs.reshape(2, 3 * 3 * 3)\n", (2, 2), "first"),
    # (out, in) weights times a batch of rows, then a bias: x @ W.T (it gave W @ x.T, whose
    # (2, 4) the (2,) bias does not broadcast with); W.T where W is meant: W (it wrote W.T.T)
    "matmul_weights_out_in_with_bias": ("def layer(W, b, x):\n"
                                        "    return jnp.maximum(W @ x + b, 0.0)\n"
                                        "W = jnp.arange(6.0).reshape(2, 3)\n"
                                        "b = jnp.array([0.5, -20.5])\n"
                                        "xs = jnp.arange(12.0).reshape(4, 3)\n"
                                        "_r = layer(W, b, xs)\n", (2, 2), "first"),
    "matmul_weights_transposed_twice": ("W = jnp.arange(6.0).reshape(3, 2)\n"
                                        "xs = jnp.arange(12.0).reshape(4, 3)\n_r = xs @ W.T\n",
                                        (3, 3), "first"),
    # scan's xs a dict, or a tuple held in a name, of leaves of two lengths: each leaf cut by
    # jax.tree.map (it gave `lax.scan(lambda c, x: step(c, x, W), init, xs)`, a NameError)
    "scan_xs_dict_of_two_lengths": ("def step(c, b):\n    return c + b['x'].sum() * b['y'], c\n"
                                    "data = {'x': jnp.arange(8.0).reshape(4, 2), "
                                    "'y': jnp.array([1.0, 2.0, 3.0])}\n"
                                    "_r = jax.lax.scan(step, 0.0, data)\n", (4, 4), "first"),
    "scan_xs_named_tuple_of_two_lengths": ("def step(c, batch):\n    x, y = batch\n"
                                           "    return c + x * y, None\n"
                                           "xs = (jnp.arange(5.0), jnp.arange(4.0))\n"
                                           "_r = jax.lax.scan(step, 0.0, xs)[0]\n", (5, 5),
                                           "first"),
    # jnp.stack of two lengths, jnp.concatenate of arrays differing off its axis (no card):
    # the shorter padded, or joined end to end; joined along the axis where they differ
    "stack_of_two_lengths_padded": ("a = jnp.arange(3.0)\nb = jnp.arange(4.0) + 10\n"
                                    "_r = jnp.stack([a, b])\n", (3, 3), 0),
    "stack_of_two_lengths_joined": ("a = jnp.arange(3.0)\nb = jnp.arange(4.0) + 10\n"
                                    "_r = jnp.stack([a, b])\n", (3, 3), 1),
    "concatenate_along_the_axis_they_differ": ("a = jnp.arange(6.0).reshape(2, 3)\n"
                                               "b = jnp.arange(3.0).reshape(1, 3)\n"
                                               "_r = jnp.concatenate([a, b], axis=1)\n", (3, 3),
                                               "first"),
    # axis=1 to join vectors of two lengths (it said jnp.stack, which needs one shape): end to
    # end along axis 0; inside vmap (the batch's axis counted: it said jnp.stack there too),
    # one example's axis 0, a sum's as a join's
    "concatenate_two_lengths_axis_1": ("a = jnp.arange(3.0)\nb = jnp.arange(4.0) + 10\n"
                                       "_r = jnp.concatenate([a, b], axis=1)\n", (3, 3), "first"),
    "concatenate_inside_vmap_axis_1": ("xs = jnp.arange(24.0).reshape(8, 3)\n"
                                       "ys = jnp.arange(32.0).reshape(8, 4)\n"
                                       "_r = jax.vmap(lambda a, b: jnp.concatenate([a, b], "
                                       "axis=1))(xs, ys)\n", (3, 3), "first"),
    "concatenate_itself_inside_vmap_axis_1": ("xs = jnp.arange(24.0).reshape(8, 3)\n"
                                              "_r = jax.vmap(lambda a: jnp.concatenate([a, a], "
                                              "axis=1))(xs)\n", (2, 2), "first"),
    "sum_inside_vmap_axis_1": ("xs = jnp.arange(24.0).reshape(8, 3)\n"
                               "_r = jax.vmap(lambda a: a.sum(axis=1))(xs)\n", (2, 2), "first"),
    # a custom_jvp rule returning the tangent alone (no card: JAX's "must produce a pair"):
    # the function's own value first, as JAX's tutorial computes it; a rule written with one
    # parameter per value: the two tuples, unpacked into its names
    # (powers of 2.0: values exact on every CPU)
    "jvp_rule_returns_the_tangent_alone": ("@jax.custom_jvp\ndef g(x):\n    return x ** 3\n"
                                           "@g.defjvp\ndef g_jvp(primals, tangents):\n"
                                           "    x, = primals\n    t, = tangents\n"
                                           "    return 3.0 * x ** 2 * t\n"
                                           "_r = jax.grad(g)(2.0)\n", (8, 8), "first"),
    "jvp_rule_one_parameter_per_value": ("@jax.custom_jvp\ndef h(x, y):\n    return x * y\n"
                                         "@h.defjvp\ndef h_jvp(x, y, tx, ty):\n"
                                         "    return x * y, tx * y + x * ty\n"
                                         "_r = jax.grad(h, argnums=(0, 1))(1.0, 2.0)\n", (5, 5),
                                         0),
    # a custom_vjp's fwd returning its output alone, with a bwd that reads no residuals: None
    "vjp_fwd_returns_the_output_alone": ("@jax.custom_vjp\ndef k(x):\n    return x ** 3\n"
                                         "def k_fwd(x):\n    return x ** 3\n"
                                         "def k_bwd(res, g):\n    return (g * 2.0,)\n"
                                         "k.defvjp(k_fwd, k_bwd)\n_r = jax.grad(k)(2.0)\n",
                                         (5, 5), "first"),
    # the same inside jax.vmap: JAX's message lists the batched shapes, (8, 3) and (8, 4); the
    # card wrote its pad and its axis for them (jnp.pad(a, [(0, 0), (0, 1)]) of one example's
    # (3,), axis=2 of (3, 2)), which raised; one example's shapes now
    "stack_of_two_lengths_inside_vmap_padded": ("xs = jnp.arange(24.0).reshape(8, 3)\n"
                                                "ys = jnp.arange(32.0).reshape(8, 4)\n"
                                                "_r = jax.vmap(lambda a, b: jnp.stack([a, b]))"
                                                "(xs, ys)\n", (3, 3), 0),
    "stack_of_two_lengths_inside_vmap_joined": ("xs = jnp.arange(24.0).reshape(8, 3)\n"
                                                "ys = jnp.arange(32.0).reshape(8, 4)\n"
                                                "_r = jax.vmap(lambda a, b: jnp.stack([a, b]))"
                                                "(xs, ys)\n", (3, 3), 1),
    "concatenate_inside_vmap_along_the_axis_they_differ": (
        "xs = jnp.arange(48.0).reshape(8, 3, 2)\nys = jnp.arange(72.0).reshape(8, 3, 3)\n"
        "_r = jax.vmap(lambda a, b: jnp.concatenate([a, b], axis=0))(xs, ys)\n", (3, 3),
        "first"),
    # squeeze of an axis whose size is not 1 (no card): the axis of size 1 there is, or the
    # squeeze left out where there is none (inside vmap: the batch's axis is vmap's)
    "squeeze_inside_vmap": ("xs = jnp.arange(48.0).reshape(8, 6)\n"
                            "_r = jax.vmap(lambda a: jnp.squeeze(a, axis=0))(xs)\n", (2, 2),
                            "first"),
    "squeeze_the_other_axis": ("_r = jnp.arange(6.0).reshape(6, 1).squeeze(0)\n", (1, 1),
                               "first"),
    "squeeze_lax_dimensions": ("_r = jax.lax.squeeze(jnp.arange(6.0).reshape(1, 6), "
                               "dimensions=(1,))\n", (1, 1), "first"),
    # scan's or map's xs a Python list of numbers (it was told "a number with no steps": the
    # list's entries are leaves): one array of as many steps
    "scan_over_a_python_list": ("_r = jax.lax.scan(lambda c, x: (c + x, c), 0.0, "
                                "[1.0, 2.0, 3.0])\n", (1, 1), "first"),
    "map_over_a_python_list": ("_r = jax.lax.map(lambda x: x * 2, [1.0, 2.0])\n", (1, 1),
                               "first"),
    "scan_over_a_named_list": ("steps = [1, 2, 3]\n"
                               "_r = jax.lax.scan(lambda c, x: (c + x, c), 0, steps)\n", (2, 2),
                               "first"),
    # a list grown by append in a fori_loop's body (the card said to return the carry "as it
    # came in, a list"): an array of a slot per step, each filled in
    "fori_loop_append": ("_r = jax.lax.fori_loop(0, 3, lambda i, c: c.append(i), [])\n",
                         (1, 1), "first"),
    "fori_loop_append_from_one": ("_r = jax.lax.fori_loop(1, 4, lambda i, out: "
                                  "out.append(i * 2.0), [])\n", (1, 1), "first"),
    # an array static under a @partial(jax.jit, static_argnums=0) decorator: the card wrote
    # f = jax.jit(f), a jit of the jit, which keeps x static and hands it the outer jit's
    # tracer (JAX 0.10.2: unhashable DynamicJaxprTracer); the function it wraps, jitted again
    "static_array_under_a_decorator": ("from functools import partial\n"
                                       "@partial(jax.jit, static_argnums=0)\ndef f(x):\n"
                                       "    return x * 2\n_r = f(jnp.ones(3))\n", (5, 4),
                                       "first"),
    # jax.debug.print called as Python's print (no card: JAX's "Unused positional arguments",
    # "expected str", a concretization, KeyError 'x'): a format string with a field for each
    # value, the values after it; each prints under JAX as the program runs
    "debug_print_values_side_by_side": ("import io, contextlib\n@jax.jit\ndef f(x):\n    jax.debug.print('x =', x)\n"
        "    return x * 2\n" + _PRINTED.format(arg="3.0"), (4, 4), "first"),
    "debug_print_a_value_alone": ("import io, contextlib\n@jax.jit\ndef f(x):\n    jax.debug.print(x)\n"
        "    return x * 2\n" + _PRINTED.format(arg="3.0"), (4, 4), "first"),
    "debug_print_percent_format": ("import io, contextlib\n@jax.jit\ndef f(x):\n    jax.debug.print('x = %.2f' % x)\n"
        "    return x * 2\n" + _PRINTED.format(arg="3.0"), (4, 4), "first"),
    "debug_print_named_field_by_position": ("import io, contextlib\n@jax.jit\ndef f(x):\n    jax.debug.print('x = {x:.2f}', x)\n"
        "    return x * 2\n" + _PRINTED.format(arg="3.0"), (4, 4), "first"),
    # (stop 128) a format spec given a vector: NumPy's TypeError inside the print's callback as
    # the program runs (JAX: a JaxRuntimeError at the call), and no card; the spec dropped on
    # the print's own line, which the card names
    "debug_print_spec_of_a_vector": (
        "import io, contextlib\n@jax.jit\ndef f(x):\n    jax.debug.print('x = {:.2f}', x)\n"
        "    return x * 2\n" + _PRINTED.format(arg="jnp.array([1.25, 4.5])"), (4, 4), "first"),
    # (stop 128) an unnamed field given its value by name: Python's IndexError, JAX's too
    "debug_print_field_by_position_value_by_name": (
        "import io, contextlib\n@jax.jit\ndef f(x):\n    jax.debug.print('x = {:.2f}', x=x)\n"
        "    return x * 2\n" + _PRINTED.format(arg="3.0"), (4, 4), "first"),
    # (stop 129) print's % habit in jax.debug.print's string, the value after it (JAX's "Unused
    # positional arguments"): the card kept the %f and added a field, which printed
    # "x = %f 3.0" under JAX; the % conversion becomes the field
    "debug_print_percent_with_the_value_after": (
        "import io, contextlib\n@jax.jit\ndef f(x):\n    jax.debug.print('x = %f', x)\n"
        "    return x * 2\n" + _PRINTED.format(arg="3.0"), (4, 4), "first"),
    # vmap over one key (no axis to map): it wrote a batch of floats, jnp.asarray([1.0, 2.0,
    # 3.0]), as the keys; a batch of keys split from it now
    "vmap_over_one_key": ("key = jax.random.key(0)\n"
                          "_r = jax.vmap(lambda k: jax.random.randint(k, (), 0, 10))(key)\n",
                          (2, 2), 0),
    "concatenate_features_along_axis_0": ("feats = jnp.arange(6.0).reshape(3, 2)\n"
                                          "extra = jnp.arange(3.0).reshape(3, 1)\n"
                                          "_r = jnp.concatenate([feats, extra])\n", (3, 3),
                                          "first"),
    # stop 104 (h-cards-104): a typed key against raw key data (jax.random.PRNGKey's uint32[2])
    # in a cond/switch branch or a loop's carry (no card: drawing it raised, `key<fry>` is no
    # dtype): the raw data wrapped into a key (jax.random.wrap_key_data), or a key's data
    # taken where the carry came in raw (jax.random.key_data)
    "key_cond_typed_and_raw": ("_r = jax.random.key_data(jax.lax.cond(False, lambda: "
                               "jax.random.key(0), lambda: jax.random.PRNGKey(1)))\n", (1, 1),
                               "first"),
    "key_switch_typed_and_raw": ("_r = jax.random.key_data(jax.lax.switch(1, [lambda: "
                                 "jax.random.key(0), lambda: jax.random.PRNGKey(1)]))\n",
                                 (1, 1), "first"),
    "key_cond_def_branch_raw": ("def fresh(k):\n    return jax.random.split(k)[0]\n"
                                "def raw(k):\n    return jax.random.PRNGKey(3)\n"
                                "_r = jax.random.key_data(jax.lax.cond(False, fresh, raw, "
                                "jax.random.key(0)))\n", (4, 4), "second"),
    "key_while_carry_raw": ("_r = jax.lax.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, "
                            "jax.random.PRNGKey(1)), (0, jax.random.key(0)))\n"
                            "_r = [_r[0], jax.random.key_data(_r[1])]\n", (1, 1), "first"),
    "key_fori_carry_data": ("_r = jax.random.key_data(jax.lax.fori_loop(0, 2, lambda i, k: "
                            "jax.random.key_data(k), jax.random.key(0)))\n", (1, 1), "first"),
    "key_while_carry_typed_back": ("def body(k):\n"
                                   "    return jax.random.fold_in(jax.random.wrap_key_data(k), 1)\n"
                                   "_r = jax.lax.while_loop(lambda k: k[0] == 0, body, "
                                   "jax.random.PRNGKey(0))\n", (2, 2), "second"),
    # stop 104: an `if` on the value vmap maps (not jit): jnp.where, or lax.cond (a select
    # under vmap); np.asarray of a tracer; a masked assignment (`x[x > 1] = 0`)
    "if_under_vmap_where": ("def f(v):\n    if v > 0:\n        return v\n    return -v\n"
                            "_r = jax.vmap(f)(jnp.arange(-2.0, 2.0))\n", (2, 4), 0),
    "if_under_vmap_cond": ("def f(v):\n    if v > 0:\n        return v\n    return -v\n"
                           "_r = jax.vmap(f)(jnp.arange(-2.0, 2.0))\n", (2, 4), 1),
    "numpy_asarray_of_a_tracer": ("import numpy as np\n"
                                  "_r = jax.jit(lambda v: np.asarray(v) * 2)(jnp.arange(3.0))\n",
                                  (2, 2), "first"),
    "masked_assignment": ("x = jnp.arange(4.0)\nx[x > 1] = 0\n_r = x\n", (2, 2), "first"),
    # two leaves of a carry made float (JAX's bullets): the card started the first as float
    # alone, and the pasted loop raised at the second; every leaf started as the body returns
    "while_carry_two_leaves_widened": ("_r = jax.lax.while_loop(lambda c: c[0] < 3, lambda c: "
                                       "(c[0] + 1.5, c[1] * 2.5), (jnp.int32(0), "
                                       "jnp.int32(1)))\n", (1, 1), "second"),
    "fori_carry_two_leaves_widened": ("_r = jax.lax.fori_loop(0, 3, lambda i, c: (c[0] + 0.5, "
                                      "c[1] * 1.5), (jnp.int32(0), jnp.int32(1)))\n", (1, 1),
                                      "second"),
    # helper flow: while_loop's per-element condition. A named condition beside a lambda
    # body, or the call on two lines: the card gave `state = lax.while_loop(... test(c) ...,
    # state)`, names the program has not (NameError, REFUSED); each function called on the
    # lambda's parameter now. A tuple carry: jnp.where of the body's tuple (JAX's TypeError,
    # REFUSED), and vmap of a tuple start holding a number (JAX's ValueError, REFUSED); the
    # whole carry steps while any element's test holds now
    "while_per_element_named_condition": ("def not_done(c):\n    return c < 5.0\n"
                                          "_r = jax.lax.while_loop(not_done, lambda c: c * 2, "
                                          "jnp.array([1.0, 3.0, 6.0]))\n", (3, 3), "first"),
    "while_per_element_on_two_lines": ("_r = jax.lax.while_loop(lambda c: c < 5.0,\n"
                                       "                        lambda c: c * 2, "
                                       "jnp.array([1.0, 3.0, 6.0]))\n", (1, 2), "first"),
    "while_per_element_tuple_carry": ("_r = jax.lax.while_loop(lambda c: c[1] < 5.0, lambda c: "
                                      "(c[0] + 1, c[1] * 2), (0, jnp.ones(3)))\n", (1, 1),
                                      "first"),
    "while_per_element_named_tuple_carry": ("def not_done(c):\n    return c[1] < 5.0\n"
                                            "def step(c):\n    return c[0] + 1, c[1] * 2\n"
                                            "_r = jax.lax.while_loop(not_done, step, "
                                            "(0, jnp.ones(3)))\n", (5, 5), "first"),
    # ... and fori_loop given a bound of shape (1,) or (3,) (JAX raises the while_loop's
    # error, "cond_fun must return a boolean scalar", of the loop it runs as): it was told as
    # a while_loop's per-element condition, with that template; the bound squeezed now, or
    # one loop per element by vmap
    "fori_bound_of_one_element": ("n = jnp.array([3])\n"
                                  "_r = jax.lax.fori_loop(0, n, lambda i, v: v + 1.0, 0.0)\n",
                                  (2, 2), "first"),
    "fori_bounds_of_one_element_under_jit": ("@jax.jit\ndef f(lo, hi):\n"
                                             "    return jax.lax.fori_loop(lo, hi, lambda i, v: "
                                             "v + 1.0, 0.0)\n"
                                             "_r = f(jnp.array([0]), jnp.array([3]))\n", (3, 3),
                                             "first"),
    "fori_bound_per_element": ("n = jnp.array([1, 2, 3])\n"
                               "_r = jax.lax.fori_loop(0, n, lambda i, v: v + 1.0, 0.0)\n",
                               (2, 2), "first"),
    # a condition giving a number from a partial: it is called on the lambda's parameter
    # (it gave `state = lax.while_loop(lambda c: c != 0, body, state)`: NameError)
    "while_number_condition_of_a_partial": ("from functools import partial\n"
                                            "def gap(limit, c):\n    return limit - c\n"
                                            "_r = jax.lax.while_loop(partial(gap, 5.0), "
                                            "lambda c: c + 1.0, 0.0)\n", (4, 4), "first"),
    # helper flow: cond's or switch's one tuple (or list) of operands for branches taking
    # one parameter per element (Python's "missing 1 required positional argument"): the
    # card gave its call convention as a comment alone; the elements as the operands now
    "cond_operands_as_one_tuple": ("_r = jax.lax.cond(True, lambda x, y: x + y, "
                                   "lambda x, y: x - y, (1.0, 2.0))\n", (1, 1), "first"),
    "switch_operands_as_one_list": ("_r = jax.lax.switch(1, [lambda a, b: a + b, "
                                    "lambda a, b: a * b], [2.0, 3.0])\n", (1, 1), "first"),
    # a batch of keys (split's: key<fry>[2] against uint32[2,2]), a def'd scan body's carry
    "key_cond_batch_of_keys": ("_r = jax.random.key_data(jax.lax.cond(False, lambda: "
                               "jax.random.split(jax.random.key(0)), lambda: "
                               "jax.random.split(jax.random.PRNGKey(1))))\n", (1, 1), "first"),
    "key_scan_def_body": ("def step(k, x):\n    return jax.random.key_data(k), x\n"
                          "_r = jax.lax.scan(step, jax.random.key(0), jnp.arange(3.0))\n"
                          "_r = [jax.random.key_data(_r[0]), _r[1]]\n", (2, 2), "second"),
    # a number among concatenate's vectors: `1.0[None]` (c[None] of c = 1.0) was offered, a
    # TypeError pasted (REFUSED); a list of rows of two lengths: jnp.asarray of it was offered,
    # NumPy's ValueError pasted (REFUSED): each row an array, joined end to end
    "concatenate_a_number": ("_r = jnp.concatenate([jnp.ones(2), 1.0])\n", (1, 1), "first"),
    "concatenate_a_number_named": ("c = 1.0\nv = jnp.ones(2)\n_r = jnp.concatenate([v, c])\n",
                                   (3, 3), "first"),
    "concatenate_ragged_rows": ("_r = jnp.concatenate([[1.0, 2.0], [3.0]])\n", (1, 1), "first"),
    "hstack_ragged_rows_named": ("rows = [[1.0, 2.0], [3.0]]\n_r = jnp.hstack(rows)\n", (2, 2),
                                 "first"),
    # a matrix product of a number (no card): the product as `*`; jnp.split into pieces that
    # do not divide the axis (no card): jnp.array_split
    "matmul_by_a_number": ("x = jnp.arange(3.0)\n_r = 2.0 @ x\n", (2, 2), "first"),
    "matmul_by_a_number_second": ("_r = jnp.matmul(jnp.ones((2, 2)), jnp.float32(3.0))\n",
                                  (1, 1), "first"),
    "split_uneven": ("_r = jnp.split(jnp.arange(5.0), 2)\n", (1, 1), "first"),
    # a print of a value converted under jit (`.item()`, float(), int()): the conversion
    # dropped and the print as jax.debug.print (it kept print: JAX 0.10.2 prints
    # `loss: JitTracer(~float32[])`, no value); `_r` holds what was printed
    "item_printed": ("import io, contextlib\n@jax.jit\ndef f(x):\n"
                     "    print('loss:', x.item())\n    return x * 2\n"
                     + _PRINTED.format(arg="3.0"), (4, 4), "first"),
    "float_printed_kept_traced": ("import io, contextlib\n@jax.jit\ndef f(x):\n"
                                  "    print(float(x))\n    return x * 2\n"
                                  + _PRINTED.format(arg="3.0"), (4, 4), 1),
    "int_printed": ("import io, contextlib\n@jax.jit\ndef f(x):\n"
                    "    print('step', int(x))\n    return x * 2\n"
                    + _PRINTED.format(arg="jnp.array(2)"), (4, 4), "first"),
    # a conversion in an `if` or `while` test under jit: the branch traced, its test
    # unconverted (it gave `if m > 0:`, the line with .item() dropped: JAX 0.10.2 raises
    # TracerBoolConversionError, Python's `if` still of a traced value)
    "item_in_an_if": ("@jax.jit\ndef norm(x):\n    m = x.mean()\n    if m.item() > 0:\n"
                      "        return x - m\n    return x\n"
                      "_r = [norm(jnp.arange(3.0)), norm(-jnp.arange(3.0))]\n", (4, 6), 0),
    "item_in_an_if_cond": ("@jax.jit\ndef norm(x):\n    m = x.mean()\n    if m.item() > 0:\n"
                           "        return x - m\n    return x\n"
                           "_r = [norm(jnp.arange(3.0)), norm(-jnp.arange(3.0))]\n", (4, 6), 1),
    "item_in_a_while": ("@jax.jit\ndef halve(x):\n    while x.item() > 1.0:\n        x = x / 2\n"
                        "    return x\n_r = halve(10.0)\n", (3, 4), "first"),
    "float_in_an_if_kept_traced": ("@jax.jit\ndef f(x):\n    if float(x) > 0:\n        return x\n"
                                   "    return -x\n_r = [f(2.0), f(-3.0)]\n", (3, 5), 1),
    "int_in_an_if_kept_traced": ("@jax.jit\ndef f(x, i):\n    if int(i) > 1:\n"
                                 "        return x * 2\n    return x\n"
                                 "_r = [f(1.5, jnp.array(2)), f(1.5, jnp.array(1))]\n", (3, 5),
                                 0),
    # grad of a vector-valued f bound to a name first (`g = jax.grad(f)`, then `g(xs)`): the
    # call rewritten as jax.grad(f, its argnums)'s (it gave `J = jax.jacrev(f)(x)`, x no name
    # of the learner's: pasted, a NameError; and `g = jax.grad(...)(x)` rebound their g)
    "grad_vector_bound_jacobian": ("def f(x):\n    return x ** 2\ng = jax.grad(f)\n"
                                   "xs = jnp.arange(3.0)\n_r = g(xs)\n", (5, 5), "first"),
    "grad_vector_bound_sum": ("def f(x):\n    return x ** 2\ng = jax.grad(f)\n"
                              "xs = jnp.arange(3.0)\n_r = g(xs)\n", (5, 5), "second"),
    "grad_vector_bound_argnums_jacobian": ("def f(w, x):\n    return w * x ** 2\n"
                                           "df = jax.grad(f, argnums=1)\n"
                                           "_r = df(2.0, jnp.arange(3.0))\n", (4, 4), "first"),
    "grad_vector_bound_argnums_sum": ("def f(w, x):\n    return w * x ** 2\n"
                                      "df = jax.grad(f, argnums=1)\n"
                                      "_r = df(2.0, jnp.arange(3.0))\n", (4, 4), "second"),
    # jnp.dot of two lists: both made arrays (it made the first alone, position 0, JAX's
    # message's; pasted, JAX 0.10.2 raised again at position 1)
    "dot_of_two_lists": ("_r = jnp.dot([1.0, 2.0], [3.0, 4.0])\n", (1, 1), "first"),
    # vmap's sizes differing at a keyword argument (vmap maps those along axis 0, whatever
    # in_axes says): passed positionally with in_axes=(0, None) (it gave the template
    # `jax.vmap(f, in_axes=(0,))(...)`, unmarked: pasted, vmap of Ellipsis, JAX's TypeError)
    "vmap_sizes_of_a_keyword_argument": ("def f(x, scale):\n    return x * scale\n"
                                         "_r = jax.vmap(f)(jnp.arange(3.0), "
                                         "scale=jnp.arange(2.0))\n", (3, 3), "first"),
    # vmap of a distance between two rows, of 4 and 5 rows: (0, None) passes ys whole, and
    # dist sums over all of it (4 numbers); the alternative is every pair, a vmap of a vmap
    # (it offered the first alone)
    "vmap_sizes_every_pair_whole": ("xs = jnp.arange(12.0).reshape(4, 3)\n"
                                    "ys = jnp.arange(15.0).reshape(5, 3)\n"
                                    "def dist(a, b):\n    return jnp.sqrt(((a - b) ** 2).sum())\n"
                                    "_r = jax.vmap(dist)(xs, ys)\n", (5, 5), 0),
    "vmap_sizes_every_pair": ("xs = jnp.arange(12.0).reshape(4, 3)\n"
                              "ys = jnp.arange(15.0).reshape(5, 3)\n"
                              "def dist(a, b):\n    return jnp.sqrt(((a - b) ** 2).sum())\n"
                              "_r = jax.vmap(dist)(xs, ys)\n", (5, 5), 1),
}

# programs whose card has no code it can stand behind (its own names unknown: a leaked value's
# return, an `if` or `while` of several statements, a named scan body, grad's has_aux where the
# line calls the grad made earlier): the pattern, as comments under
# "# the pattern, with your own names in place of these:" (pasted as code it raised NameError,
# or defined functions returning None), with the fix in words; JAX's error class recorded for
# each program
PATTERNS = {
    "leaked_from_jit": "saved = []\n@jax.jit\ndef f(x):\n    y = x * 2\n    saved.append(y)\n"
                       "    return x\nf(1.0)\n_r = saved[0] + 1\n",
    "leaked_from_a_loop_body": "seen = []\ndef body(i, c):\n    seen.append(c)\n"
                               "    return c + 1.0\n_r = jax.lax.fori_loop(0, 3, body, 0.0)\n"
                               "_s = seen[0] + 1\n",
    "if_of_two_statements": "@jax.jit\ndef f(x):\n    if x > 0:\n        y = x * 2\n"
                            "        z = y + 1\n    else:\n        z = x\n    return z\n"
                            "_r = f(1.0)\n",
    "while_of_two_statements": "@jax.jit\ndef f(x):\n    while x > 1.0:\n        x = x / 2\n"
                               "        x = x - 0.1\n    return x\n_r = f(10.0)\n",
    "scan_named_body": "def step(c, x):\n    return c + x\n"
                       "_r = jax.lax.scan(step, 0.0, jnp.arange(3.0))\n",
    "grad_pair_made_earlier": "def f(x):\n    return x ** 2, x\ng = jax.grad(f)\n_r = g(2.0)\n",
    # a traced value formatted into a string kept in a name: no print to make debug.print
    "formatted_label": "@jax.jit\ndef f(x):\n    label = f'x={x:.2f}'\n    return x * 2\n"
                       "_r = f(3.0)\n",
    # h-cards3-100: a loop body or branches returning another structure (the card said
    # `scan` and `carry[1]` for a fori_loop's state, `<class 'jxkernel.core.avals.ShapedArray'>`,
    # and gave `return carry, y` as code; cond's had no card): the body's names as a pattern
    "fori_body_returning_one_of_its_pair": "def body(i, state):\n    x, v = state\n"
                                           "    return x + v\n"
                                           "_r = jax.lax.fori_loop(0, 3, body, (0.0, 1.0))\n",
    "scan_body_returning_its_carry_alone": "def step(carry, x):\n    h, c = carry\n"
                                           "    return (h + x, c * x)\n"
                                           "_r = jax.lax.scan(step, (0.0, 1.0), "
                                           "jnp.arange(1.0, 4.0))\n",
    "while_body_returning_one_of_its_pair": "def cond(s):\n    i, x = s\n    return i < 3\n"
                                            "def body(s):\n    i, x = s\n    return i + 1\n"
                                            "_r = jax.lax.while_loop(cond, body, (0, 1.0))\n",
    "cond_branches_of_a_pair_and_an_array": "def f(x):\n    return jax.lax.cond(x > 0, "
                                            "lambda x: (x, x), lambda x: x, x)\n_r = f(1.0)\n",
    # ... and of a lambda bound to no name: nothing to call it by, the pattern
    "grad_vector_bound_of_a_lambda": ("dl = jax.value_and_grad(lambda w: w * jnp.ones(3))\n"
                                      "_r = dl(1.0)\n"),
    # helper flow: a value leaked from grad's or vmap's trace (a LinearizeTracer, a
    # BatchTracer: no function named by the core) was told as "inside f (for jit)" with
    # `jax.jit(f)` returning a pair, which for grad JAX refuses (REFUSED below); now the
    # transformation JAX's message names, and has_aux for a differentiated function
    "leaked_from_grad": ("kept = {}\ndef loss(w):\n    kept['w'] = w\n    return w ** 2\n"
                         "jax.grad(loss)(3.0)\n_r = kept['w'] * 2\n"),
    "leaked_from_jitted_grad": ("seen = []\ndef loss(w):\n    seen.append(w * 2)\n"
                                "    return w ** 2\njax.jit(jax.grad(loss))(3.0)\n"
                                "_r = seen[0] + 1\n"),
    # helper flow: a dict carry losing a key: its nodes were told as JAX prints them
    # ("<class 'dict'> with 2 children"); in words now ("a dict with 2 children")
    "fori_dict_carry_losing_a_key": ("_r = jax.lax.fori_loop(0, 3, lambda i, c: "
                                     "{'a': c['a'] + 1.0}, {'a': 0.0, 'b': 1.0})\n"),
    "leaked_from_vmap": ("seen = []\ndef f(x):\n    seen.append(x * 2)\n    return x + 1\n"
                         "jax.vmap(f)(jnp.arange(3.0))\n_r = seen[0] + 1\n"),
}

# fixes a card must not offer, each run as the learner would paste it: x made static where
# the `if` reads traced y too (the card offered it: JAX raises again when x > 0 is False)
REFUSED = {
    # helper flow: the while_loop per-element card's code before (REFUSED_BEFORE): its
    # template of names the program has not; jnp.where of a tuple carry; vmap of a tuple
    # start holding a number; and the number-condition card's template
    "while_template_of_names_not_there": ("def not_done(c):\n    return c < 5.0\n"
                                          "state = jax.lax.while_loop(lambda c: jnp.any(test(c)),"
                                          " lambda c: jnp.where(test(c), step(c), c), state)\n"),
    "where_of_a_tuple_carry": ("_r = jax.lax.while_loop(lambda c: jnp.any(c[1] < 5.0), lambda c: "
                               "jnp.where(c[1] < 5.0, (c[0] + 1, c[1] * 2), c), "
                               "(0, jnp.ones(3)))\n"),
    "vmap_of_a_tuple_start_holding_a_number": ("def not_done(c):\n    return c[1] < 5.0\n"
                                               "def step(c):\n    return c[0] + 1, c[1] * 2\n"
                                               "_r = jax.vmap(lambda c: jax.lax.while_loop("
                                               "not_done, step, c))((0, jnp.ones(3)))\n"),
    "while_number_template_of_names_not_there": ("from functools import partial\n"
                                                 "def gap(limit, c):\n    return limit - c\n"
                                                 "state = jax.lax.while_loop(lambda c: c != 0, "
                                                 "body, state)\n"),
    # helper flow: the leak card's pattern for a value leaked from grad (`return result,
    # value` from the function, called as before): grad of a pair, JAX 0.10.2's TypeError
    # ("Gradient only defined for scalar-output functions"); the card gives has_aux now
    "grad_of_a_loss_returning_its_value_too": ("def loss(w):\n    return w ** 2, w\n"
                                               "result, value = jax.grad(loss)(3.0)\n"
                                               "_r = value * 2\n"),
    # stop 113: a vector's format spec kept in jax.debug.print (the card's code before): JAX
    # 0.10.2's callback raises NumPy's TypeError (unsupported format string)
    "format_spec_of_a_vector_in_debug_print": ("@jax.jit\ndef f(v):\n"
                                               "    jax.debug.print('v = {:.2f}', v)\n"
                                               "    return v * 2\n"
                                               "y = f(jnp.array([1.234, 4.5678]))\n"
                                               "jax.effects_barrier()\n_r = y\n"),
    # stop 104: the first leaf of a carry of two made float alone (the card's code before)
    "carry_first_leaf_started_alone": ("_r = jax.lax.while_loop(lambda c: c[0] < 3, lambda c: "
                                       "(c[0] + 1.5, c[1] * 2.5), (jnp.asarray(jnp.int32(0), "
                                       "jnp.float32), jnp.int32(1)))\n"),
    # stop 104: the cards' code before (REFUSED_BEFORE): a number indexed with None, a list of
    # rows of two lengths made one array
    "concatenate_a_number_indexed": "_r = jnp.concatenate([jnp.ones(2), 1.0[None]])\n",
    "concatenate_a_named_number_indexed": ("c = 1.0\nv = jnp.ones(2)\n"
                                           "_r = jnp.concatenate([v, c[None]])\n"),
    "concatenate_ragged_rows_as_one_array": ("_r = jnp.concatenate(jnp.asarray([[1.0, 2.0], "
                                             "[3.0]]))\n"),
    "stack_ragged_rows_as_one_array": "_r = jnp.stack(jnp.asarray([[1.0, 2.0], [3.0]]))\n",
    "static_x_of_an_or_reading_y": ("from functools import partial\n"
                                    "@partial(jax.jit, static_argnames=('x',))\n"
                                    "def f(x, y):\n    if x > 0 or y > 0:\n"
                                    "        return x + y\n    return x - y\n"
                                    "_r = f(-1.0, -2.0)\n"),
    # control-flow.md's branches as the card's lax.cond gave them: a float and an int branch
    "cond_of_a_float_and_an_int_branch": ("@jax.jit\ndef f(x):\n    return jax.lax.cond("
                                          "x < 3, lambda: 3.0 * x ** 2, lambda: -4 * x)\n"
                                          "_r = f(2)\n"),
    # the cards' code before stop 100's audit, pasted (REFUSED_BEFORE names each one's case):
    # the first int() cast alone; a list indexed by the cast; the array itself given a format
    # spec; x static where the line converts traced y too; a statement's second line alone
    "first_int_cast_alone": ("@jax.jit\ndef f(x):\n    lo, hi = x.min().astype(int), "
                             "int(x.max())\n    return jnp.arange(3) * lo + hi\n"
                             "_r = f(jnp.arange(1.0, 4.0))\n"),
    "list_indexed_by_a_traced_int": ("table = [10.0, 20.0, 30.0]\n_r = jax.lax.scan(lambda c, x: "
                                     "(c + table[x.astype(int)], None), 0.0, "
                                     "jnp.arange(3))[0]\n"),
    "format_spec_of_the_array_itself": ("@jax.jit\ndef f(x):\n    print(f'loss {x:.3f}')\n"
                                        "    return x\n_r = f(3.0)\n"),
    "static_x_of_two_floats_converted": ("from functools import partial\n"
                                         "@partial(jax.jit, static_argnames=('x',))\n"
                                         "def f(x, y):\n"
                                         "    print(f'{float(x):.1f} {float(y):.1f}')\n"
                                         "    return x + y\n_r = f(1.0, 2.0)\n"),
    "fragment_of_a_statement": ("from functools import partial\n"
                                "@partial(jax.jit, static_argnames=('y',))\ndef f(x, y):\n"
                                "    + int(y))\n_r = f(1.0, 2.0)\n"),
    # h-cards2-100: the assert's check with the call left as it was (JAX 0.10.2's ValueError:
    # a check under jit not checkified), and bool() dropped where an `if` tests the flag below
    # (TracerBoolConversionError there): the cards say where each changes too
    "check_with_the_call_unchanged": ("from jax.experimental import checkify\n@jax.jit\n"
                                      "def f(x):\n"
                                      "    checkify.check(x > 0, 'x must be positive')\n"
                                      "    return jnp.sqrt(x)\n_r = f(4.0)\n"),
    "bool_dropped_then_if": ("@jax.jit\ndef f(x):\n    flag = x > 0\n    if flag:\n"
                             "        return x\n    return -x\n_r = [f(3.0), f(-2.0)]\n"),
    # h-cards3-100: the shape and transformation cards' code before its audit, pasted: one
    # in_axes entry for params and xs; (0, None) for a function of one dict argument; W @ x.T,
    # whose (2, 4) the bias does not broadcast with; `v`, `x`, `W`, `init`: names the
    # learner's code has not (UnboundLocalError, NameError)
    "in_axes_one_entry_for_params_and_xs": ("def predict(params, x):\n    W, b = params\n"
                                            "    return W @ x + b\n"
                                            "params = (jnp.arange(6.0).reshape(2, 3), "
                                            "jnp.array([1.0, -1.0]))\n"
                                            "xs = jnp.arange(12.0).reshape(4, 3)\n"
                                            "_r = jax.vmap(predict, in_axes=(0,))(params, xs)\n"),
    "in_axes_two_entries_for_one_dict": ("batch = {'x': jnp.arange(12.0).reshape(3, 4), "
                                         "'y': jnp.array([1.0, 2.0])}\ndef f(d):\n"
                                         "    return d['x'].sum() + d['y']\n"
                                         "_r = jax.vmap(f, in_axes=(0, None))(batch)\n"),
    "matmul_transposed_then_bias": ("def layer(W, b, x):\n"
                                    "    return jnp.maximum(W @ x.T + b, 0.0)\n"
                                    "W = jnp.arange(6.0).reshape(2, 3)\n"
                                    "b = jnp.array([0.5, -20.5])\n"
                                    "xs = jnp.arange(12.0).reshape(4, 3)\n"
                                    "_r = layer(W, b, xs)\n"),
    "expand_dims_of_a_name_not_there": ("@jax.jit\ndef loss(pred, target):\n"
                                        "    v = jnp.expand_dims(v, 1)\n"
                                        "    return jnp.mean(err ** 2)\n"
                                        "_r = loss(jnp.arange(12.0).reshape(4, 3), "
                                        "jnp.arange(4.0))\n"),
    "reshape_of_a_name_not_there": ("imgs = jnp.arange(18.0).reshape(2, 3, 3)\n"
                                    "y = x.reshape(2, -1)\n"),
    "scan_with_the_cards_own_names": ("def step(c, b):\n"
                                      "    return c + b['x'].sum() * b['y'], c\n"
                                      "data = {'x': jnp.arange(8.0).reshape(4, 2), "
                                      "'y': jnp.array([1.0, 2.0, 3.0])}\n"
                                      "carry, ys = jax.lax.scan(lambda c, x: step(c, x, W), "
                                      "init, xs)\n"),
    # the list-argument card's code before: jnp.dot's first list made an array, its second
    # left a list (TypeError at position 1)
    "dot_of_the_first_list_alone": "_r = jnp.dot(jnp.asarray([1.0, 2.0]), [3.0, 4.0])\n",
    # the vmap-sizes card's template before, for a keyword argument of another size, pasted
    "vmap_template_for_a_keyword_argument": ("def f(x, scale):\n    return x * scale\n"
                                             "jax.vmap(f, in_axes=(0,))(...)\n"),
}

# each refused program above that a card pasted before, and the case whose card pastes
# another program now
REFUSED_BEFORE = {"first_int_cast_alone": "int_of_two_values_unpacked",
                  "while_template_of_names_not_there": "while_per_element_named_condition",
                  "where_of_a_tuple_carry": "while_per_element_tuple_carry",
                  "vmap_of_a_tuple_start_holding_a_number":
                      "while_per_element_named_tuple_carry",
                  "while_number_template_of_names_not_there":
                      "while_number_condition_of_a_partial",
                  "format_spec_of_a_vector_in_debug_print": "formatted_print_of_a_vector",
                  "concatenate_a_number_indexed": "concatenate_a_number",
                  "carry_first_leaf_started_alone": "while_carry_two_leaves_widened",
                  "concatenate_a_named_number_indexed": "concatenate_a_number_named",
                  "concatenate_ragged_rows_as_one_array": "concatenate_ragged_rows",
                  "list_indexed_by_a_traced_int": "int_indexing_a_list_in_scan",
                  "format_spec_of_the_array_itself": "float_in_a_formatted_print",
                  "static_x_of_two_floats_converted": "float_of_two_arguments_static",
                  "fragment_of_a_statement": "int_in_a_statement_of_two_lines_static",
                  "in_axes_one_entry_for_params_and_xs": "vmap_sizes_params_tuple",
                  "in_axes_two_entries_for_one_dict": "vmap_sizes_dict_leaf",
                  "matmul_transposed_then_bias": "matmul_weights_out_in_with_bias",
                  "expand_dims_of_a_name_not_there": "broadcast_in_a_statement_of_two_lines",
                  "reshape_of_a_name_not_there": "reshape_size_written_as_a_product",
                  "scan_with_the_cards_own_names": "scan_xs_dict_of_two_lengths",
                  "dot_of_the_first_list_alone": "dot_of_two_lists",
                  "vmap_template_for_a_keyword_argument": "vmap_sizes_of_a_keyword_argument"}

# the cases whose values are random draws (compared within 4 ulps: threefry's bits are
# exact, the floats made of them are computed)
RANDOM = ("key_reused", "key_reused_inside_jit", "seed_as_key")


def snippet(rewrite, take) -> list:
    """The lines of the card's code a case pastes."""
    lines = rewrite.splitlines()
    if take == "first":
        return lines[:1]
    if take == "second":
        return lines[1:2]
    if take == "policy":
        return [re.search(r"policy=[\w.]+", rewrite).group(0)]
    if isinstance(take, slice):
        return lines[take]
    parts = [[]]
    for line in lines:
        if line.lstrip().startswith("# or"):
            parts.append([])
        else:
            parts[-1].append(line)
    return parts[take]


def pasted(program, span, take, rewrite) -> str:
    """`program` with the card's snippet in place of its lines `span`, as a learner pastes
    it: at the first replaced line's indentation (its lines as they are when the card wrote
    them indented); `policy=` in place of the line's own. A span None: `take` lists (span,
    take) pairs, each pasted (the last lines first, so the numbers hold)."""
    if span is None:
        for each, part in sorted(take, reverse=True):
            program = pasted(program, each, part, rewrite)
        return program
    lines = program.splitlines(keepends=True)
    first, last = span[:2]
    code = snippet(rewrite, take)
    if take == "policy":
        lines[first - 1] = re.sub(r"policy=[\w.]+", code[0], lines[first - 1])
        return "".join(lines)
    at = lines[first - 1] if first <= len(lines) else ""
    indent = at[:len(at) - len(at.lstrip())]
    if code and code[0][:1].isspace():
        indent = ""
    indent = span[2] if len(span) > 2 else indent       # (a line added at a body's end)
    lines[first - 1:last] = [indent + line + "\n" for line in code]
    return "".join(lines)

# each case's program with the card's code pasted (the card's text, checked by the test)
PASTED = {
    'traced_slice_then_mean': "@jax.jit\ndef f(x, n):\n    mask = jnp.arange(x.shape[0]) < n    # in place of y = ...: the slice's elements, x's shape\n    return x.mean(where=mask)    # in place of line 4's y: over the slice's elements alone\n_r = f(jnp.arange(1.0, 6.0), 2)\n",
    'traced_slice_then_max': "@jax.jit\ndef g(x, n):\n    mask = jnp.arange(x.shape[0]) >= n    # in place of tail = ...: the slice's elements, x's shape\n    m = x.max(where=mask, initial=x.min()) + 1    # in place of line 4's tail: over the slice's elements alone\n    return m\n_r = g(jnp.array([4.0, -1.0, -3.0, -2.0]), 1)\n",
    'traced_slice_then_sum': '@jax.jit\ndef h(x, n):\n    y = jnp.where(jnp.arange(x.shape[0]) < n, x, 0)    # the shape of x: 0 outside the slice\n    return y.sum()\n_r = h(jnp.arange(1.0, 6.0), 2)\n',
    'int_of_traced_index': '@jax.jit\ndef pick(x, i):\n    return x[i.astype(int)]   # instead of int(i): traced, an array of int dtype\n    # a size? take it from a shape, known under jit (n = x.shape[0])\n_r = pick(jnp.arange(3.0), jnp.array(2))\n',
    'int_of_python_index_static': "from functools import partial\n@partial(jax.jit, static_argnames=('i',))   # in place of @jax.jit\ndef pick(x, i):\n    # then this line sees a Python value:\n    return x[int(i)]\n_r = pick(jnp.arange(3.0), 1)\n",
    'int_of_python_index_traced': '@jax.jit\ndef pick(x, i):\n    return x[i.astype(int)]   # instead of int(i): traced, an array of int dtype\n_r = pick(jnp.arange(3.0), 1)\n',
    'int_of_a_sum': 'def count(x):\n    return jnp.zeros(3) + x.sum().astype(int)   # instead of int(x.sum()): traced, an array of int dtype\n_r = jax.jit(count)(jnp.arange(3.0))\n',
    'float_static': "from functools import partial\n@partial(jax.jit, static_argnames=('x',))   # in place of @jax.jit\ndef f(x):\n    # then this line sees a Python value:\n    return float(x) * 2\n_r = f(3.0)\n",
    'float_traced': '@jax.jit\ndef f(x):\n    return x * 2   # the array itself, traced: no float()\n_r = f(3.0)\n',
    'item_traced': '@jax.jit\ndef f(x):\n    return x + 1   # the array itself, traced: no .item()\n_r = f(2.0)\n',
    'numpy_on_a_tracer': 'import numpy as np\n@jax.jit\ndef f(x):\n    return jnp.sin(x) * 2\n_r = f(jnp.arange(3.0))\n',
    'if_made_static': "from functools import partial\n@partial(jax.jit, static_argnames=('x',))   # in place of @jax.jit\ndef relu(x):\n    if x > 0:\n        return x\n    return 0.0\n_r = relu(3.0)\n",
    'while_on_a_traced_vector': '@jax.jit\ndef grow(v):\n    v = jax.lax.while_loop(lambda v: jnp.all(v < 10), lambda v: v * 2, v)    # in place of the whole loop (its 2 lines): every element (jnp.any: at least one)\n    return v\n_r = grow(jnp.array([1.0, 3.0]))\n',
    'while_on_a_tracer': '@jax.jit\ndef halve(x):\n    x = jax.lax.while_loop(lambda x: x > 1.0, lambda x: x / 2, x)    # in place of the whole loop (its 2 lines), traced: x its state\n    return x\n_r = halve(10.0)\n',
    'python_max': "@jax.jit\ndef f(x):\n    return jnp.maximum(x, 0.0)    # jnp's max and min: traced, no True or False needed\n_r = f(-1.0)\n",
    'if_with_or': '@jax.jit\ndef f(x, y):\n    return jnp.where(jnp.logical_or(x > 0, y > 0), x + y, x - y)\n_r = f(-1.0, -2.0)\n',
    'if_with_not': '@jax.jit\ndef f(x):\n    return jax.lax.cond(jnp.logical_not(x > 0), lambda: -x, lambda: x)\n_r = f(-2.0)\n',
    'if_branches_of_two_dtypes_cond': '@jax.jit\ndef f(x):\n    return jax.lax.cond(x < 3, lambda: 3.0 * x ** 2, lambda: (-4 * x).astype(jnp.float32))\n_r = [f(2), f(4)]\n',
    'if_setting_its_tested_name_where': '@jax.jit\ndef clip(x):\n    x = jnp.where(x > 1.0, 1.0, x)\n    return x\n_r = clip(3.0)\n',
    'if_setting_its_tested_name_cond': '@jax.jit\ndef clip(x):\n    x = jax.lax.cond(x > 1.0, lambda: 1.0, lambda: x)\n    return x\n_r = clip(0.5)\n',
    'range_of_an_array_count': '@jax.jit\ndef f(x, n):\n    s = 0.0\n    s = jax.lax.fori_loop(0, n, lambda i, s: s + x * i, s)    # in place of the whole loop (its 2 lines), traced: s its state\n    return s\n_r = f(2.0, jnp.array(4))\n',
    'key_reused_inside_jit': "jax.config.update('jax_debug_key_reuse', True)\n@jax.jit\ndef sample(key):\n    key, k1, k2 = jax.random.split(key, 3)    # one key per draw, and one to keep\n    a = jax.random.normal(k1, (2,))    # in place of line 4\n    b = jax.random.uniform(k2, (2,), minval=-1.0)    # in place of line 5\n    return a + b\ntry:\n    _r = sample(jax.random.key(0))\nfinally:\n    jax.config.update('jax_debug_key_reuse', False)\n",
    'key_reused': "jax.config.update('jax_debug_key_reuse', True)\nkey = jax.random.key(0)\ntry:\n    key, k1, k2 = jax.random.split(key, 3)    # one key per draw, and one to keep\n    a = jax.random.normal(k1, (2,))    # in place of line 4\n    b = jax.random.uniform(k2, (2,), minval=-1.0)    # in place of line 5\nfinally:\n    jax.config.update('jax_debug_key_reuse', False)\n_r = [a, b]\n",
    'seed_as_key': '_r = jax.random.normal(jax.random.key(0), (2,))    # a key from the seed; split it for the next draw\n',
    'list_made_static': 'def fill(v, shape):\n    return jnp.zeros(shape) + v\n_r = jax.jit(fill, static_argnums=1)(1.0, (2, 3))\n',
    'string_into_jit': "def f(x, mode):\n    return x * 2 if mode == 'double' else x\n_r = jax.jit(f, static_argnames=('mode',))(1.0, 'double')\n",
    'traced_dict_key': "table = {0: 1.0, 1: 2.0}\nfrom functools import partial\n@partial(jax.jit, static_argnames=('k',))   # in place of @jax.jit\ndef look(k):\n    return table[k]\n_r = look(1)\n",
    'vmap_sizes': '_r = jax.vmap(lambda a, b: a * b, in_axes=(0, None))(jnp.ones(3), jnp.arange(2.0))\n',
    'vmap_sizes_matvec': "W = jnp.ones((3, 4))\nxs = jnp.arange(20.0).reshape(5, 4)\n_r = jax.vmap(lambda W, x: W @ x, in_axes=(None, 0))(W, xs)\n",
    'vmap_sizes_bias_first': "b = jnp.arange(3.0)\nxs = jnp.arange(15.0).reshape(5, 3)\n_r = jax.vmap(lambda b, x: x + b, in_axes=(None, 0))(b, xs)\n",
    'vmap_sizes_predict': "def predict(w, x):\n    return w @ x + 1.0\nw = jnp.full((2, 3), 0.5)\nxs = jnp.arange(18.0).reshape(6, 3)\n_r = jax.vmap(predict, in_axes=(None, 0))(w, xs)\n",
    'vmap_rank': "_r = jax.vmap(lambda a: a * 2, in_axes=(0,))(jnp.arange(3.0))    # axis 0: size 3: the batch's?\n",
    'item_assigned': 'x = jnp.zeros(3)\nx = x.at[1].set(5.0)    # a new array, bound to x\n_r = x\n',
    'method_jitted': 'class Model:\n    def __init__(self, w):\n        self.w = w\n    @jax.jit\n    def apply(self, x):\n        return self.w * x\ndef _flatten(obj):        # traced fields, then static ones\n    return (obj.w,), ()\n\ndef _unflatten(static, traced):\n    (w,), () = traced, static\n    return Model(w=w)\n\njax.tree_util.register_pytree_node(Model, _flatten, _unflatten)   # keep @jax.jit\n_r = Model(2.0).apply(3.0)\n',
    'traced_slice': '@jax.jit\ndef head(x, n):\n    return jnp.where(jnp.arange(x.shape[0]) < n, x, 0)    # the shape of x: 0 outside the slice\n_r = head(jnp.arange(1.0, 6.0), 2)\n',
    'grad_int': '_r = jax.grad(lambda x: x ** 2)(3.0)    # a float input: grad differentiates it\n',
    'grad_vector_jacobian': "def f(x):\n    return x ** 2\n_r = jax.jacrev(f)(jnp.arange(3.0))    # the Jacobian: every output's derivative\n",
    'grad_vector_sum': 'def f(x):\n    return x ** 2\n_r = jax.grad(lambda *args: f(*args).sum())(jnp.arange(3.0))    # the derivative of their sum (a loss)\n',
    'grad_pair': 'def f(x):\n    return x ** 2, x\n_r, aux = jax.grad(f, has_aux=True)(2.0)    # aux: the rest of what f returned\n',
    'float_of_a_vector': '_r = jnp.arange(3.0).tolist()    # every value; or one: float(jnp.arange(3.0).sum()), float(jnp.arange(3.0)[0]) for a vector\n',
    'broadcast': 'a = jnp.ones((2, 3))\nb = jnp.arange(2.0)\n_r = a + jnp.expand_dims(b, 1)    # (2, 1): broadcasts with (2, 3)\n',
    'matmul': 'W = jnp.arange(12.0).reshape(3, 4)\nx = jnp.ones(3)\n_r = W.T @ x    # (4,)\n',
    'policy_misspelled': 'def f(x):\n    return jnp.sin(x) * x\ng = jax.checkpoint(f, policy=jax.checkpoint_policies.dots_saveable)\n_r = jax.grad(g)(1.0)\n',
    'policy_string': 'def f(x):\n    return jnp.sin(x) * x\ng = jax.checkpoint(f, policy=jax.checkpoint_policies.dots_saveable)\n_r = jax.grad(g)(1.0)\n',
    'psum_unbound': "_r = jnp.sum(jnp.arange(3.0))    # the whole array's sum: no collective outside shard_map\n",
    'truth_of_a_vector': 'x = jnp.arange(3.0)\n_r = 0\nif jnp.all(x > -1):    # every element (jnp.any: at least one)\n    _r = 1\n',
    'static_of_a_rebound_jit': "def f(x, n):\n    return jnp.zeros(n) + x\nf = jax.jit(f)\nf = jax.jit(f.__wrapped__, static_argnames=('n',))    # f is the jit already: made again from the function it wraps\n_r = f(1.0, 3)\n",
    'static_object_without_hash': 'class Cfg:\n    def __init__(self, n):\n        self.n = n\n    # in class Cfg, beside its __eq__:\n    def __hash__(self):\n        return hash(tuple(vars(self).values()))\n    def __eq__(self, other):\n        return self.n == other.n\ndef f(x, cfg):\n    return x * cfg.n\n_r = jax.jit(f, static_argnums=1)(2.0, Cfg(3))\n',
    'static_dataclass_not_frozen': 'import dataclasses\n@dataclasses.dataclass(frozen=True)    # == and hash by its fields\nclass Cfg:\n    n: int\ndef f(x, cfg):\n    return x * cfg.n\n_r = jax.jit(f, static_argnums=1)(2.0, Cfg(3))\n',
    'static_dataclass_holding_an_array': "import dataclasses\n@dataclasses.dataclass(frozen=True)\nclass Cfg:\n    w: object\njax.tree_util.register_dataclass(Cfg, data_fields=['w'], meta_fields=[])    # once, after class Cfg\ndef f(x, cfg):\n    return x * cfg.w\n_r = jax.jit(f)(2.0, Cfg(jnp.arange(2.0)))   # cfg traced\n",
    'in_axes_with_a_keyword_argument': 'def f(a, b):\n    return a * b\n_r = jax.vmap(f, in_axes=(0,))(jnp.arange(3.0), b=jnp.ones(3))    # in_axes=(0,): one entry per argument\n',
    'grad_of_a_dict_with_a_loss': "def f(x):\n    return {'loss': x ** 2, 'acc': x}\n_r = jax.grad(lambda *args: f(*args)['loss'])(2.0)    # the loss entry: one number\n",
    'grad_of_no_return': 'def f(x):\n    y = x ** 2\n    return y    # at the end of f: the one number grad differentiates\n_r = jax.grad(f)(2.0)\n',
    'grad_of_an_int_name': 'n = 3\n_r = jax.grad(lambda v: v ** 2)(jnp.asarray(n, jnp.float32))    # a float input: grad differentiates it\n',
    'masked_mean_under_jit': '@jax.jit\ndef f(x):\n    return x.mean(where=x > 0)    # over the elements where the mask holds: one shape, traced\n_r = f(jnp.arange(-1.0, 3.0))\n',
    'masked_argmax_under_jit': '@jax.jit\ndef f(x):\n    return jnp.where(x < 0, x, -jnp.inf).argmax()    # an index into x itself, not into the kept elements alone: -jnp.inf where the mask is False\n_r = f(jnp.array([2.0, -3.0, -1.0]))\n',
    'masked_jnp_argmin_under_jit': '@jax.jit\ndef f(x):\n    return jnp.where(x > 0, x, jnp.inf).argmin()    # an index into x itself, not into the kept elements alone: jnp.inf where the mask is False\n_r = f(jnp.array([-2.0, 3.0, 1.0]))\n',
    'masked_max_under_jit': '@jax.jit\ndef f(x):\n    return x.max(where=x < 0, initial=x.min())    # over the elements where the mask holds: one shape, traced\n_r = f(jnp.array([-3.0, -1.0, 2.0]))\n',
    'traced_slice_min': '@jax.jit\ndef f(x, n):\n    return x.min(where=jnp.arange(x.shape[0]) < n, initial=x.max())    # over the slice\'s elements alone: one shape, traced\n_r = f(jnp.array([1.0, 2.0, -4.0]), 2)\n',
    'masked_jnp_mean': '@jax.jit\ndef f(x):\n    return x.mean(where=x > 0) * 2    # over the elements where the mask holds: one shape, traced\n_r = f(jnp.arange(-1.0, 3.0))\n',
    'cond_branch_named_shape': 'def _cut(v):\n    # in false_fun (_cut), return the shape true_fun returns:\n    return jnp.broadcast_to(v[:1], (3, 2))    # in place of return v[:1]\nx = jnp.ones((3, 2))\n_r = jax.lax.cond(False, lambda v: v, _cut, x)\n',
    'cond_branch_named_dtype': 'def zero(v):\n    # in false_fun (zero), return float32:\n    return jnp.asarray(0, jnp.float32)    # in place of return 0\n_r = jax.lax.cond(False, lambda v: v, zero, 1.5)\n',
    'vmap_of_a_scalar': 'xs = jnp.asarray([1.0, 2.0, 3.0])    # a batch: one value per element (your values)\n_r = jax.vmap(lambda a: a * 2)(xs)\n',
    'scan_carry_cast_back': 'def body(c, x):\n    return (c + x).astype(jnp.int32), x    # in place of return c + x, x\n_r = jax.lax.scan(body, jnp.int32(0), jnp.ones(3))\n',
    'scan_carry_float_start': 'def body(c, x):\n    return c + x, x\n# start carry as body returns it, float32: the values it computes, kept whole\n_r = jax.lax.scan(body, jnp.asarray(jnp.int32(0), jnp.float32), jnp.ones(3))\n',
    'while_carry_leaf_cast_back': 'def halve(state):\n    i, v = state\n    # in halve, give carry[1] back with the type it came in as:\n    return i + 1, (v / 2).astype(jnp.int32).astype(jnp.float32)    # in place of return i + 1, (v / 2).astype(jnp.int32)\n_r = jax.lax.while_loop(lambda s: s[0] < 3, halve, (0, jnp.ones(2)))\n',
    'scan_carry_lost_its_axis': 'def body(c, x):\n    # in body, keep carry at shape (2,), as it came in (each element then the value it computes: the results change):\n    return jnp.broadcast_to(c.sum() + x, (2,)), x    # in place of return c.sum() + x, x\n_r = jax.lax.scan(body, jnp.ones(2), jnp.ones(3))\n',
    'int_of_two_values_unpacked': '@jax.jit\ndef f(x):\n    lo, hi = x.min().astype(int), x.max().astype(int)   # instead of int(x.min()) and int(x.max()): traced, arrays of int dtype\n    return jnp.arange(3) * lo + hi\n_r = f(jnp.arange(1.0, 4.0))\n',
    'int_of_two_indices': '@jax.jit\ndef f(x, i, j):\n    return x[i.astype(int)] + x[j.astype(int)]   # instead of int(i) and int(j): traced, arrays of int dtype\n_r = f(jnp.arange(4.0), jnp.array(1), jnp.array(3))\n',
    'int_indexing_a_list_in_scan': 'table = [10.0, 20.0, 30.0]\n_r = jax.lax.scan(lambda c, x: (c + jnp.asarray(table)[x.astype(int)], None), 0.0, jnp.arange(3))[0]   # instead of int(x): traced, an array of int dtype (a list indexed by one made an array)\n',
    'float_in_a_formatted_print': "@jax.jit\ndef f(x):\n    jax.debug.print('loss {:.3f}', x)    # prints the values as the program runs: a format spec needs a number, which a traced value has not\n    return x\n_r = f(3.0)\n",
    'float_of_two_arguments_static': "from functools import partial\n@partial(jax.jit, static_argnames=('x', 'y'))   # in place of @jax.jit\ndef f(x, y):\n    # then this line sees a Python value:\n    print(f'{float(x):.1f} {float(y):.1f}')\n    return x + y\n_r = f(1.0, 2.0)\n",
    'float_of_two_arguments_printed': "@jax.jit\ndef f(x, y):\n    jax.debug.print('{:.1f} {:.1f}', x, y)    # prints the values as the program runs: a format spec needs a number, which a traced value has not\n    return x + y\n_r = f(1.0, 2.0)\n",
    'at_plus_equals': 'x = jnp.zeros(3)\nx = x.at[0].add(1.0)    # a new array, bound to x\n_r = x\n',
    'at_minus_equals_under_jit': '@jax.jit\ndef f(x):\n    x = x.at[1].subtract(2.0)    # a new array, bound to x\n    return x\n_r = f(jnp.zeros(3))\n',
    'if_of_a_none_default_vector': '@jax.jit\ndef f(x, weights=None):\n    if weights is not None:    # whether weights was given (its default is None): known while tracing; a weights given as 0 now counts as given\n        x = x * weights\n    return x\n_r = [f(jnp.ones(3), jnp.array([1.0, 0.0, 2.0])), f(jnp.ones(3))]\n',
    'if_not_of_a_none_default': '@jax.jit\ndef f(x, scale=None):\n    if scale is None:    # whether scale was given (its default is None): known while tracing; a scale given as 0 now counts as given\n        scale = 1.0\n    return x * scale\n_r = [f(2.0, scale=0.0), f(2.0)]\n',
    'ifexp_of_a_none_default': '@jax.jit\ndef f(x, b=None):\n    return x + b if b is not None else x    # whether b was given (its default is None): known while tracing; a b given as 0 now counts as given\n_r = [f(1.0, 0.5), f(1.0)]\n',
    'elif_of_a_none_default': '@jax.jit\ndef f(x, *, w=None):\n    if x is None:\n        return 0.0\n    elif w is not None:    # whether w was given (its default is None): known while tracing; a w given as 0 now counts as given\n        return x * w\n    return x\n_r = [f(2.0, w=0.0), f(2.0)]\n',
    'formatted_print_of_a_vector': "import io, contextlib\n@jax.jit\ndef f(v):\n    jax.debug.print('v = {}', v)    # prints the values as the program runs\n    return v * 2\nout = io.StringIO()\nwith contextlib.redirect_stdout(out):\n    y = f(jnp.array([1.234, 4.5678]))\n    jax.effects_barrier()\n_r = [y, out.getvalue()]\n",
    'formatted_print_under_jit': "@jax.jit\ndef f(x):\n    jax.debug.print('{:.2f}', x)    # prints the values as the program runs\n    return x * 2\n_r = f(3.0)\n",
    'formatted_print_under_grad': "def f(x):\n    jax.debug.print('x = {:.2f}', x)    # prints the values as the program runs\n    return x ** 2\n_r = jax.grad(f)(3.0)\n",
    'formatted_print_under_vmap': "def f(x):\n    jax.debug.print('x = {:.2f}', x)    # prints the values as the program runs\n    return x ** 2\n_r = jax.vmap(f)(jnp.arange(3.0))\n",
    'int_in_a_statement_of_two_lines_static': "from functools import partial\n@partial(jax.jit, static_argnames=('y',))   # in place of @jax.jit\ndef f(x, y):\n    # then this line sees a Python value:\n    return (x * 2\n            + int(y))\n_r = f(1.0, 2.0)\n",
    'int_in_a_statement_of_two_lines_traced': '@jax.jit\ndef f(x, i):\n    return jnp.take(x,\n                    i.astype(int))   # instead of int(i): traced, an array of int dtype\n    # a size? take it from a shape, known under jit (n = x.shape[0])\n_r = f(jnp.arange(3.0), jnp.array(2))\n',
    'assert_checkified_good': 'from jax.experimental import checkify    # once, at the top\n@jax.jit\ndef f(x):\n    checkify.check(x > 0, "x must be positive")    # in place of the assert\n    return jnp.sqrt(x)\n# and the call, in place of _r = f(4.0) (a check under jit raises unless checkified):\nerr, _r = checkify.checkify(f)(4.0)    # the checks\' error, returned as a value\nerr.throw()    # raises here if a check failed\n',
    'assert_checkified_bad': 'from jax.experimental import checkify    # once, at the top\n@jax.jit\ndef f(x):\n    checkify.check(x > 0, "x must be positive")    # in place of the assert\n    return jnp.sqrt(x)\ntry:\n    # and the call, in place of _r = f(-1.0) (a check under jit raises unless checkified):\n    err, _r = checkify.checkify(f)(-1.0)    # the checks\' error, returned as a value\n    err.throw()    # raises here if a check failed\nexcept ValueError as e:\n    _r = str(e)\n',
    'assert_made_static': 'from functools import partial\n@partial(jax.jit, static_argnames=(\'x\',))   # in place of @jax.jit\ndef f(x):\n    assert x > 0, "x must be positive"\n    return jnp.sqrt(x)\n_r = [f(4.0)]\ntry:\n    f(-1.0)\nexcept AssertionError as e:\n    _r.append(str(e))\n',
    'bool_of_a_comparison': '@jax.jit\ndef f(x):\n    flag = x > 0    # instead of bool(x > 0): traced, a bool array (flag * y, jnp.where(flag, a, b) take it)\n    return x * flag\n_r = [f(3.0), f(-2.0)]\n',
    'bool_of_a_value': '@jax.jit\ndef f(x):\n    flag = x.astype(bool)    # instead of bool(x): traced, a bool array (flag * y, jnp.where(flag, a, b) take it)\n    return jnp.where(flag, x, 1.0)\n_r = [f(3.0), f(0.0)]\n',
    'bool_then_if': '@jax.jit\ndef f(x):\n    flag = x > 0    # instead of bool(x > 0): traced, a bool array\n    return jnp.where(flag, x, -x)\n_r = [f(3.0), f(-2.0)]\n',

    'filtered_sum': '@jax.jit\ndef f(xs):\n    return jnp.where(xs > 0, xs, 0).sum()    # the whole of xs at once, 0 where an element fails: the same sum\n_r = f(jnp.array([1.0, -2.0, 3.0]))\n',
    'filtered_generator_sum': '@jax.jit\ndef f(xs):\n    return jnp.where(xs > 0, xs ** 2, 0).sum()    # the whole of xs at once, 0 where an element fails: the same sum\n_r = f(jnp.array([1.0, -2.0, 3.0]))\n',
    'filtered_count': '@jax.jit\ndef f(xs):\n    n = (xs > 0).sum()    # the whole of xs at once, how many pass, counted\n    return n\n_r = f(jnp.array([1.0, -2.0, 3.0]))\n',
    'vmap_sizes_params_tuple': 'def predict(params, x):\n    W, b = params\n    return W @ x + b\nparams = (jnp.arange(6.0).reshape(2, 3), jnp.array([1.0, -1.0]))\nxs = jnp.arange(12.0).reshape(4, 3)\n_r = jax.vmap(predict, in_axes=(None, 0))(params, xs)\n',
    'vmap_sizes_dict_leaf': "batch = {'x': jnp.arange(12.0).reshape(3, 4), 'y': jnp.array([1.0, 2.0])}\ndef f(d):\n    return d['x'].sum() + d['y']\n_r = jax.vmap(f, in_axes=({'x': 0, 'y': None},))(batch)\n",
    'vmap_in_axes_dict': "params = {'w': jnp.array([1.0, 2.0, 3.0]), 'b': jnp.array(0.5)}\nxs = jnp.arange(6.0).reshape(2, 3)\ndef predict(p, x):\n    return p['w'] @ x + p['b']\n_r = jax.vmap(predict, in_axes=(None, 0))(params, xs)    # in_axes=(None, 0): in the order of its parameters\n",
    'vmap_in_axes_dict_of_one_argument': "batch = {'x': jnp.arange(6.0).reshape(2, 3), 'w': jnp.array([1.0, 0.0, -1.0])}\ndef f(d):\n    return d['x'] @ d['w']\n_r = jax.vmap(f, in_axes=({'x': 0, 'w': None},))(batch)    # in_axes=({'x': 0, 'w': None},): for its one argument, a dict: the dict inside a tuple\n",
    'fori_carry_cast_back': 'def body(i, total):\n    return (total + 0.5 * i).astype(jnp.int32)    # in place of return total + 0.5 * i\n_r = jax.lax.fori_loop(0, 4, body, jnp.int32(0))\n',
    'fori_carry_float_start': 'def body(i, total):\n    return total + 0.5 * i\n# start carry as body returns it, float32: the values it computes, kept whole\n_r = jax.lax.fori_loop(0, 4, body, jnp.asarray(jnp.int32(0), jnp.float32))\n',
    'scan_carry_of_a_lambda_float_start': '# start carry as lambda c, x: (c + x, x) returns it, float32: the values it computes, kept whole\n_r = jax.lax.scan(lambda c, x: (c + x, x), jnp.asarray(jnp.int32(0), jnp.float32), jnp.ones(3))\n',
    'broadcast_in_a_statement_of_two_lines': '@jax.jit\ndef loss(pred, target):\n    err = pred - jnp.expand_dims(target, 1)    # (4, 1): broadcasts with (4, 3)\n    return jnp.mean(err ** 2)\n_r = loss(jnp.arange(12.0).reshape(4, 3), jnp.arange(4.0))\n',
    'matmul_in_a_statement_of_two_lines': 'W = jnp.arange(6.0).reshape(2, 3)\nxs = jnp.arange(12.0).reshape(4, 3)\n_r = jnp.dot(xs, W.T)    # (4, 2)\n',
    'reshape_in_a_statement_of_two_lines': 'imgs = jnp.arange(18.0).reshape(2, 3, 3)\n_r = imgs.reshape(2, -1)    # gives (2, 9)\n',
    'reshape_size_written_as_a_product': 'imgs = jnp.arange(18.0).reshape(2, 3, 3)\n_r = imgs.reshape(2, -1)    # gives (2, 9)\n',
    'matmul_weights_out_in_with_bias': 'def layer(W, b, x):\n    return jnp.maximum(x @ W.T + b, 0.0)    # (4, 2)\nW = jnp.arange(6.0).reshape(2, 3)\nb = jnp.array([0.5, -20.5])\nxs = jnp.arange(12.0).reshape(4, 3)\n_r = layer(W, b, xs)\n',
    'matmul_weights_transposed_twice': 'W = jnp.arange(6.0).reshape(3, 2)\nxs = jnp.arange(12.0).reshape(4, 3)\n_r = xs @ W    # (4, 2)\n',
    'scan_xs_dict_of_two_lengths': "def step(c, b):\n    return c + b['x'].sum() * b['y'], c\ndata = {'x': jnp.arange(8.0).reshape(4, 2), 'y': jnp.array([1.0, 2.0, 3.0])}\n_r = jax.lax.scan(step, 0.0, jax.tree.map(lambda a: a[:3], data))    # every leaf cut to 3 steps\n",
    'scan_xs_named_tuple_of_two_lengths': 'def step(c, batch):\n    x, y = batch\n    return c + x * y, None\nxs = (jnp.arange(5.0), jnp.arange(4.0))\n_r = jax.lax.scan(step, 0.0, jax.tree.map(lambda a: a[:4], xs))[0]    # every leaf cut to 4 steps\n',
    'stack_of_two_lengths_padded': "a = jnp.arange(3.0)\nb = jnp.arange(4.0) + 10\n_r = jnp.stack([jnp.pad(a, (0, 1)), b])    # each (4,), zeros after the shorter's values\n",
    'stack_of_two_lengths_joined': 'a = jnp.arange(3.0)\nb = jnp.arange(4.0) + 10\n_r = jnp.concatenate([a, b])    # (7,)\n',
    'concatenate_along_the_axis_they_differ': 'a = jnp.arange(6.0).reshape(2, 3)\nb = jnp.arange(3.0).reshape(1, 3)\n_r = jnp.concatenate([a, b])    # (3, 3)\n',
    'concatenate_two_lengths_axis_1': 'a = jnp.arange(3.0)\nb = jnp.arange(4.0) + 10\n_r = jnp.concatenate([a, b], axis=0)    # axis 0: (7,)\n',
    'concatenate_inside_vmap_axis_1': "xs = jnp.arange(24.0).reshape(8, 3)\nys = jnp.arange(32.0).reshape(8, 4)\n_r = jax.vmap(lambda a, b: jnp.concatenate([a, b], axis=0))(xs, ys)    # axis 0: one example's\n",
    'concatenate_itself_inside_vmap_axis_1': "xs = jnp.arange(24.0).reshape(8, 3)\n_r = jax.vmap(lambda a: jnp.concatenate([a, a], axis=0))(xs)    # axis 0: one example's\n",
    'sum_inside_vmap_axis_1': "xs = jnp.arange(24.0).reshape(8, 3)\n_r = jax.vmap(lambda a: a.sum(axis=0))(xs)    # axis 0: one example's\n",
    'jvp_rule_returns_the_tangent_alone': "@jax.custom_jvp\ndef g(x):\n    return x ** 3\n@g.defjvp\ndef g_jvp(primals, tangents):\n    x, = primals\n    t, = tangents\n    return g(x), 3.0 * x ** 2 * t    # g's value, then the tangent\n_r = jax.grad(g)(2.0)\n",
    'jvp_rule_one_parameter_per_value': '@jax.custom_jvp\ndef h(x, y):\n    return x * y\n@h.defjvp\ndef h_jvp(primals, tangents):    # in place of def h_jvp(x, y, tx, ty):\n    x, y = primals\n    tx, ty = tangents\n    return x * y, tx * y + x * ty\n_r = jax.grad(h, argnums=(0, 1))(1.0, 2.0)\n',
    'vjp_fwd_returns_the_output_alone': '@jax.custom_vjp\ndef k(x):\n    return x ** 3\ndef k_fwd(x):\n    return x ** 3, None    # k_bwd reads no residuals\ndef k_bwd(res, g):\n    return (g * 2.0,)\nk.defvjp(k_fwd, k_bwd)\n_r = jax.grad(k)(2.0)\n',
    'stack_of_two_lengths_inside_vmap_padded': "xs = jnp.arange(24.0).reshape(8, 3)\nys = jnp.arange(32.0).reshape(8, 4)\n_r = jax.vmap(lambda a, b: jnp.stack([jnp.pad(a, (0, 1)), b]))(xs, ys)    # each (4,), zeros after the shorter's values\n",
    'stack_of_two_lengths_inside_vmap_joined': 'xs = jnp.arange(24.0).reshape(8, 3)\nys = jnp.arange(32.0).reshape(8, 4)\n_r = jax.vmap(lambda a, b: jnp.concatenate([a, b]))(xs, ys)    # (7,)\n',
    'concatenate_inside_vmap_along_the_axis_they_differ': 'xs = jnp.arange(48.0).reshape(8, 3, 2)\nys = jnp.arange(72.0).reshape(8, 3, 3)\n_r = jax.vmap(lambda a, b: jnp.concatenate([a, b], axis=1))(xs, ys)    # (3, 5)\n',
    'squeeze_inside_vmap': 'xs = jnp.arange(48.0).reshape(8, 6)\n_r = jax.vmap(lambda a: a)(xs)    # (6,): no axis of size 1 to remove\n',
    'squeeze_the_other_axis': '_r = jnp.arange(6.0).reshape(6, 1).squeeze(1)    # axis 1: size 1\n',
    'squeeze_lax_dimensions': '_r = jax.lax.squeeze(jnp.arange(6.0).reshape(1, 6), dimensions=(0,))    # axis 0: size 1\n',
    'scan_over_a_python_list': '_r = jax.lax.scan(lambda c, x: (c + x, c), 0.0, jnp.asarray([1.0, 2.0, 3.0]))    # one array: 3 steps\n',
    'map_over_a_python_list': '_r = jax.lax.map(lambda x: x * 2, jnp.asarray([1.0, 2.0]))    # one array: 2 steps\n',
    'scan_over_a_named_list': 'steps = [1, 2, 3]\n_r = jax.lax.scan(lambda c, x: (c + x, c), 0, jnp.asarray(steps))    # one array: 3 steps\n',
    'fori_loop_append': '_r = jax.lax.fori_loop(0, 3, lambda i, c: c.at[i].set(i), jnp.zeros(3))    # one slot per step, filled in\n',
    'fori_loop_append_from_one': '_r = jax.lax.fori_loop(1, 4, lambda i, out: out.at[i - 1].set(i * 2.0), jnp.zeros(3))    # one slot per step, filled in\n',
    'static_array_under_a_decorator': 'from functools import partial\n@partial(jax.jit, static_argnums=0)\ndef f(x):\n    return x * 2\nf = jax.jit(f.__wrapped__)   # x traced\n_r = f(jnp.ones(3))\n',
    'debug_print_values_side_by_side': "import io, contextlib\n@jax.jit\ndef f(x):\n    jax.debug.print('x = {}', x)    # prints the values as the program runs\n    return x * 2\nout = io.StringIO()\nwith contextlib.redirect_stdout(out):\n    y = f(3.0)\n    jax.effects_barrier()\n_r = [y, out.getvalue()]\n",
    'debug_print_a_value_alone': "import io, contextlib\n@jax.jit\ndef f(x):\n    jax.debug.print('x = {}', x)    # prints the values as the program runs\n    return x * 2\nout = io.StringIO()\nwith contextlib.redirect_stdout(out):\n    y = f(3.0)\n    jax.effects_barrier()\n_r = [y, out.getvalue()]\n",
    'debug_print_percent_format': "import io, contextlib\n@jax.jit\ndef f(x):\n    jax.debug.print('x = {:.2f}', x)    # prints the values as the program runs\n    return x * 2\nout = io.StringIO()\nwith contextlib.redirect_stdout(out):\n    y = f(3.0)\n    jax.effects_barrier()\n_r = [y, out.getvalue()]\n",
    'debug_print_named_field_by_position': "import io, contextlib\n@jax.jit\ndef f(x):\n    jax.debug.print('x = {x:.2f}', x=x)    # prints the values as the program runs\n    return x * 2\nout = io.StringIO()\nwith contextlib.redirect_stdout(out):\n    y = f(3.0)\n    jax.effects_barrier()\n_r = [y, out.getvalue()]\n",
    'debug_print_spec_of_a_vector': "import io, contextlib\n@jax.jit\ndef f(x):\n    jax.debug.print('x = {}', x)    # line 4: an array's values, no spec\n    return x * 2\nout = io.StringIO()\nwith contextlib.redirect_stdout(out):\n    y = f(jnp.array([1.25, 4.5]))\n    jax.effects_barrier()\n_r = [y, out.getvalue()]\n",
    'debug_print_percent_with_the_value_after': "import io, contextlib\n@jax.jit\ndef f(x):\n    jax.debug.print('x = {:f}', x)    # prints the values as the program runs\n    return x * 2\nout = io.StringIO()\nwith contextlib.redirect_stdout(out):\n    y = f(3.0)\n    jax.effects_barrier()\n_r = [y, out.getvalue()]\n",
    'debug_print_field_by_position_value_by_name': "import io, contextlib\n@jax.jit\ndef f(x):\n    jax.debug.print('x = {x:.2f}', x=x)    # prints the values as the program runs\n    return x * 2\nout = io.StringIO()\nwith contextlib.redirect_stdout(out):\n    y = f(3.0)\n    jax.effects_barrier()\n_r = [y, out.getvalue()]\n",
    'vmap_over_one_key': 'key = jax.random.key(0)\nkeys = jax.random.split(key, 3)    # a batch of keys: one per element\n_r = jax.vmap(lambda k: jax.random.randint(k, (), 0, 10))(keys)\n',
    'concatenate_features_along_axis_0': 'feats = jnp.arange(6.0).reshape(3, 2)\nextra = jnp.arange(3.0).reshape(3, 1)\n_r = jnp.concatenate([feats, extra], axis=1)    # (3, 3)\n',
    'key_cond_typed_and_raw': '_r = jax.random.key_data(jax.lax.cond(False, lambda: jax.random.key(0), lambda: jax.random.wrap_key_data(jax.random.PRNGKey(1))))\n',
    'key_switch_typed_and_raw': '_r = jax.random.key_data(jax.lax.switch(1, [lambda: jax.random.key(0), lambda: jax.random.wrap_key_data(jax.random.PRNGKey(1))]))\n',
    'key_cond_def_branch_raw': 'def fresh(k):\n    return jax.random.split(k)[0]\ndef raw(k):\n    return jax.random.wrap_key_data(jax.random.PRNGKey(3))    # in place of return jax.random.PRNGKey(3)\n_r = jax.random.key_data(jax.lax.cond(False, fresh, raw, jax.random.key(0)))\n',
    'key_while_carry_raw': '_r = jax.lax.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, jax.random.wrap_key_data(jax.random.PRNGKey(1))), (0, jax.random.key(0)))\n_r = [_r[0], jax.random.key_data(_r[1])]\n',
    'key_fori_carry_data': '_r = jax.random.key_data(jax.lax.fori_loop(0, 2, lambda i, k: jax.random.wrap_key_data(jax.random.key_data(k)), jax.random.key(0)))\n',
    'key_while_carry_typed_back': 'def body(k):\n    return jax.random.key_data(jax.random.fold_in(jax.random.wrap_key_data(k), 1))    # in place of return jax.random.fold_in(jax.random.wrap_key_data(k), 1)\n_r = jax.lax.while_loop(lambda k: k[0] == 0, body, jax.random.PRNGKey(0))\n',
    'concatenate_a_number': '_r = jnp.concatenate([jnp.ones(2), jnp.array([1.0])])    # jnp.array([1.0]): (1,)\n',
    'concatenate_a_number_named': 'c = 1.0\nv = jnp.ones(2)\n_r = jnp.concatenate([v, jnp.atleast_1d(c)])    # jnp.atleast_1d(c): (1,)\n',
    'concatenate_ragged_rows': '_r = jnp.concatenate([jnp.asarray(row) for row in [[1.0, 2.0], [3.0]]])    # each row an array of its own\n',
    'hstack_ragged_rows_named': 'rows = [[1.0, 2.0], [3.0]]\n_r = jnp.hstack([jnp.asarray(row) for row in rows])    # each row an array of its own\n',
    'matmul_by_a_number': 'x = jnp.arange(3.0)\n_r = 2.0 * x    # * multiplies by a number\n',
    'matmul_by_a_number_second': '_r = jnp.ones((2, 2)) * jnp.float32(3.0)    # * multiplies by a number\n',
    'split_uneven': '_r = jnp.array_split(jnp.arange(5.0), 2)    # the first 1 piece one element longer than the others\n',
    'key_cond_batch_of_keys': '_r = jax.random.key_data(jax.lax.cond(False, lambda: jax.random.split(jax.random.key(0)), lambda: jax.random.wrap_key_data(jax.random.split(jax.random.PRNGKey(1)))))\n',
    'key_scan_def_body': 'def step(k, x):\n    return jax.random.wrap_key_data(jax.random.key_data(k)), x    # in place of return jax.random.key_data(k), x\n_r = jax.lax.scan(step, jax.random.key(0), jnp.arange(3.0))\n_r = [jax.random.key_data(_r[0]), _r[1]]\n',
    'if_under_vmap_where': 'def f(v):\n    return jnp.where(v > 0, v, -v)\n_r = jax.vmap(f)(jnp.arange(-2.0, 2.0))\n',
    'if_under_vmap_cond': 'def f(v):\n    return jax.lax.cond(v > 0, lambda: v, lambda: -v)\n_r = jax.vmap(f)(jnp.arange(-2.0, 2.0))\n',
    'numpy_asarray_of_a_tracer': 'import numpy as np\n_r = jax.jit(lambda v: jnp.asarray(v) * 2)(jnp.arange(3.0))\n',
    'masked_assignment': 'x = jnp.arange(4.0)\nx = x.at[x > 1].set(0)    # a new array, bound to x\n_r = x\n',
    'while_carry_two_leaves_widened': '_r = jax.lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1.5, c[1] * 2.5), (jnp.asarray(jnp.int32(0), jnp.float32), jnp.asarray(jnp.int32(1), jnp.float32)))\n',
    'fori_carry_two_leaves_widened': '_r = jax.lax.fori_loop(0, 3, lambda i, c: (c[0] + 0.5, c[1] * 1.5), (jnp.asarray(jnp.int32(0), jnp.float32), jnp.asarray(jnp.int32(1), jnp.float32)))\n',
    'item_printed': "import io, contextlib\n@jax.jit\ndef f(x):\n    jax.debug.print('loss: {}', x)    # prints the values as the program runs\n    return x * 2\nout = io.StringIO()\nwith contextlib.redirect_stdout(out):\n    y = f(3.0)\n    jax.effects_barrier()\n_r = [y, out.getvalue()]\n",
    'float_printed_kept_traced': "import io, contextlib\n@jax.jit\ndef f(x):\n    jax.debug.print('{}', x)    # prints the values as the program runs\n    return x * 2\nout = io.StringIO()\nwith contextlib.redirect_stdout(out):\n    y = f(3.0)\n    jax.effects_barrier()\n_r = [y, out.getvalue()]\n",
    'int_printed': "import io, contextlib\n@jax.jit\ndef f(x):\n    jax.debug.print('step {}', x.astype(int))    # prints the values as the program runs\n    return x * 2\nout = io.StringIO()\nwith contextlib.redirect_stdout(out):\n    y = f(jnp.array(2))\n    jax.effects_barrier()\n_r = [y, out.getvalue()]\n",
    'item_in_an_if': '@jax.jit\ndef norm(x):\n    m = x.mean()\n    return jnp.where(m > 0, x - m, x)\n_r = [norm(jnp.arange(3.0)), norm(-jnp.arange(3.0))]\n',
    'item_in_an_if_cond': '@jax.jit\ndef norm(x):\n    m = x.mean()\n    return jax.lax.cond(m > 0, lambda: x - m, lambda: x)\n_r = [norm(jnp.arange(3.0)), norm(-jnp.arange(3.0))]\n',
    'item_in_a_while': '@jax.jit\ndef halve(x):\n    x = jax.lax.while_loop(lambda x: x > 1.0, lambda x: x / 2, x)    # in place of the whole loop (its 2 lines), traced: x its state\n    return x\n_r = halve(10.0)\n',
    'float_in_an_if_kept_traced': '@jax.jit\ndef f(x):\n    return jnp.where(x > 0, x, -x)\n_r = [f(2.0), f(-3.0)]\n',
    'int_in_an_if_kept_traced': '@jax.jit\ndef f(x, i):\n    return jnp.where(i.astype(int) > 1, x * 2, x)\n_r = [f(1.5, jnp.array(2)), f(1.5, jnp.array(1))]\n',
    'grad_vector_bound_jacobian': "def f(x):\n    return x ** 2\ng = jax.grad(f)\nxs = jnp.arange(3.0)\n_r = jax.jacrev(f)(xs)    # the Jacobian: every output's derivative\n",
    'grad_vector_bound_sum': 'def f(x):\n    return x ** 2\ng = jax.grad(f)\nxs = jnp.arange(3.0)\n_r = jax.grad(lambda *args: f(*args).sum())(xs)    # the derivative of their sum (a loss)\n',
    'grad_vector_bound_argnums_jacobian': "def f(w, x):\n    return w * x ** 2\ndf = jax.grad(f, argnums=1)\n_r = jax.jacrev(f, argnums=1)(2.0, jnp.arange(3.0))    # the Jacobian: every output's derivative\n",
    'grad_vector_bound_argnums_sum': 'def f(w, x):\n    return w * x ** 2\ndf = jax.grad(f, argnums=1)\n_r = jax.grad(lambda *args: f(*args).sum(), argnums=1)(2.0, jnp.arange(3.0))    # the derivative of their sum (a loss)\n',
    'dot_of_two_lists': '_r = jnp.dot(jnp.asarray([1.0, 2.0]), jnp.asarray([3.0, 4.0]))    # each array: one value for jnp.dot\n',
    'vmap_sizes_of_a_keyword_argument': 'def f(x, scale):\n    return x * scale\n_r = jax.vmap(f, in_axes=(0, None))(jnp.arange(3.0), jnp.arange(2.0))    # scale passed positionally: in_axes=(0, None)\n',
    'vmap_sizes_every_pair_whole': 'xs = jnp.arange(12.0).reshape(4, 3)\nys = jnp.arange(15.0).reshape(5, 3)\ndef dist(a, b):\n    return jnp.sqrt(((a - b) ** 2).sum())\n_r = jax.vmap(dist, in_axes=(0, None))(xs, ys)    # the same whole argument for every element\n',
    'vmap_sizes_every_pair': 'xs = jnp.arange(12.0).reshape(4, 3)\nys = jnp.arange(15.0).reshape(5, 3)\ndef dist(a, b):\n    return jnp.sqrt(((a - b) ** 2).sum())\n_r = jax.vmap(jax.vmap(dist, in_axes=(None, 0)), in_axes=(0, None))(xs, ys)    # (4, 5): at [i, j], of xs[i] and ys[j]\n',

    'while_per_element_named_condition': 'def not_done(c):\n    return c < 5.0\n_r = jax.lax.while_loop(lambda c: jnp.any(not_done(c)), lambda c: jnp.where(not_done(c), c * 2, c), jnp.array([1.0, 3.0, 6.0]))    # each element until its own test fails\n',
    'while_per_element_on_two_lines': '_r = jax.lax.while_loop(lambda c: jnp.any(c < 5.0), lambda c: jnp.where(c < 5.0, c * 2, c), jnp.array([1.0, 3.0, 6.0]))    # each element until its own test fails\n',
    'while_per_element_tuple_carry': "_r = jax.lax.while_loop(lambda c: jnp.any(c[1] < 5.0), lambda c: (c[0] + 1, c[1] * 2), (0, jnp.ones(3)))    # the whole carry steps while any element's test holds (jnp.all: while every one does)\n",
    'while_per_element_named_tuple_carry': "def not_done(c):\n    return c[1] < 5.0\ndef step(c):\n    return c[0] + 1, c[1] * 2\n_r = jax.lax.while_loop(lambda c: jnp.any(not_done(c)), step, (0, jnp.ones(3)))    # the whole carry steps while any element's test holds (jnp.all: while every one does)\n",
    'fori_bound_of_one_element': "n = jnp.array([3])\n_r = jax.lax.fori_loop(0, jnp.squeeze(n), lambda i, v: v + 1.0, 0.0)    # one number: fori_loop's bounds are scalars\n",
    'fori_bounds_of_one_element_under_jit': "@jax.jit\ndef f(lo, hi):\n    return jax.lax.fori_loop(jnp.squeeze(lo), jnp.squeeze(hi), lambda i, v: v + 1.0, 0.0)    # one number: fori_loop's bounds are scalars\n_r = f(jnp.array([0]), jnp.array([3]))\n",
    'fori_bound_per_element': 'n = jnp.array([1, 2, 3])\n_r = jax.vmap(lambda n_: jax.lax.fori_loop(0, n_, lambda i, v: v + 1.0, 0.0))(n)    # one loop per element of n\n',
    'while_number_condition_of_a_partial': "from functools import partial\ndef gap(limit, c):\n    return limit - c\n_r = jax.lax.while_loop(lambda c: partial(gap, 5.0)(c) != 0, lambda c: c + 1.0, 0.0)    # Python's `while c:` reads c != 0\n",
    'cond_operands_as_one_tuple': '_r = jax.lax.cond(True, lambda x, y: x + y, lambda x, y: x - y, 1.0, 2.0)    # one operand per parameter of the branches\n',
    'switch_operands_as_one_list': '_r = jax.lax.switch(1, [lambda a, b: a + b, lambda a, b: a * b], 2.0, 3.0)    # one operand per parameter of the branches\n',
}
