"""Recompilation scenarios a learner meets, as source run the same way under real JAX 0.10.2
(reference/make_recompile_reference.py, with `jax_explain_cache_misses` on: it records each
tracing-cache miss of the scenario's own functions and the cause JAX names, in
tests/data/recompile_reference.json) and under jxkernel (tests/views/test_recompile_corpus.py:
the compile log's events of the same functions and their `changes`).

Each scenario is source text, executed with `jax`, `jnp` and `np` in its globals and the file
name `<recompile:NAME>`, so that the functions it defines are told apart from the library's
own (JAX only explains misses of functions outside its own files, and jxkernel's events carry
the file name as their source). A scenario that is expected to raise is named in RAISES, and
its exception's class name is recorded (JAX logs a "never seen function" miss for a trace that
began and raised, and nothing for a call refused before tracing; neither compiles).

`run(jax, name)` executes one scenario and returns its globals (or the exception it raised).
"""
import numpy as np

FILE_PREFIX = "<recompile:"

# name -> (what a learner did, source). Keep each a few lines: it is read in the docs too.
SCENARIOS = {
    # ---------------------------------------------------------------- types of one argument
    "same_call_twice": (
        "the same call twice: one trace, then a cache hit",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3)); f(jnp.ones(3))\n"),
    "shape": (
        "a new length",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3)); f(jnp.ones(4))\n"),
    "shape_back_and_forth": (
        "two lengths alternating: each traced once",
        "f = jax.jit(lambda x: x * 2)\n"
        "for n in (3, 4, 3, 4):\n"
        "    f(jnp.ones(n))\n"),
    "rank": (
        "a vector, then a scalar",
        "f = jax.jit(lambda x: x + 1)\n"
        "f(jnp.ones(3)); f(jnp.ones(()))\n"),
    "dtype": (
        "float32, then int32",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3)); f(jnp.ones(3, jnp.int32))\n"),
    "weak_type_float": (
        "a Python float, then a float32 array (weak type)",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(1.0); f(jnp.asarray(1.0, jnp.float32))\n"),
    "python_int_then_float": (
        "a Python int, then a Python float",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(1); f(1.0)\n"),
    "python_values_change": (
        "Python floats of different values: no recompile",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(1.0); f(2.0); f(3.5)\n"),
    "bool_then_int": (
        "a Python bool, then a Python int",
        "f = jax.jit(lambda x: x + 1)\n"
        "f(True); f(1)\n"),
    "numpy_f64_is_f32": (
        "a NumPy float64 array is float32 without x64: no recompile",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3)); f(np.ones(3))\n"),
    "numpy_scalar_vs_python": (
        "a NumPy float32 scalar, then a Python float (weak type)",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(np.float32(1.0)); f(1.0)\n"),
    "second_argument_shape": (
        "the second of two arguments changes length",
        "def g(a, b):\n"
        "    return a.sum() + b.sum()\n"
        "f = jax.jit(g)\n"
        "f(jnp.ones(2), jnp.ones(3)); f(jnp.ones(2), jnp.ones(5))\n"),
    "numpy_int64_is_int32": (
        "np.arange (int64) after jnp.arange (int32): the same type without x64",
        "f = jax.jit(lambda x: x + 1)\n"
        "f(jnp.arange(3)); f(np.arange(3))\n"),
    "python_int_then_numpy_int32": (
        "a Python int, then a NumPy int32 scalar (weak type)",
        "f = jax.jit(lambda x: x + 1)\n"
        "f(3); f(np.int32(3))\n"),
    "float16_then_bfloat16": (
        "float16, then bfloat16",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3, jnp.float16)); f(jnp.ones(3, jnp.bfloat16))\n"),
    "shape_and_dtype_two_arguments": (
        "one argument changes shape and another dtype in the same call",
        "def g(a, b):\n"
        "    return a.sum() + b.sum()\n"
        "f = jax.jit(g)\n"
        "f(jnp.ones(2), jnp.ones(3)); f(jnp.ones(4), jnp.ones(3, jnp.int32))\n"),
    # ---------------------------------------------------------------- static arguments
    "static_value": (
        "a new value of a static argument (static_argnums)",
        "f = jax.jit(lambda x, n: x * n, static_argnums=1)\n"
        "f(jnp.ones(3), 2); f(jnp.ones(3), 3)\n"),
    "static_argnames_value": (
        "a new value of a static keyword argument (static_argnames)",
        "def scale(x, *, n):\n"
        "    return x * n\n"
        "f = jax.jit(scale, static_argnames='n')\n"
        "f(jnp.ones(3), n=2); f(jnp.ones(3), n=2); f(jnp.ones(3), n=5)\n"),
    "static_equal_tuple": (
        "an equal (new) tuple as a static argument: a cache hit",
        "f = jax.jit(lambda x, shape: x.reshape(shape), static_argnums=1)\n"
        "f(jnp.ones(6), (2, 3)); f(jnp.ones(6), tuple([2, 3]))\n"),
    "static_unhashable": (
        "a list as a static argument: an error, nothing traced",
        "f = jax.jit(lambda x, shape: x.reshape(shape), static_argnums=1)\n"
        "f(jnp.ones(6), [2, 3])\n"),
    "static_self": (
        "a method jitted with self static: each instance is a new static value",
        "class Model:\n"
        "    def __init__(self, k):\n"
        "        self.k = k\n"
        "    def apply(self, x):\n"
        "        return x * self.k\n"
        "f = jax.jit(Model.apply, static_argnums=0)\n"
        "f(Model(2), jnp.ones(3)); f(Model(3), jnp.ones(3))\n"),
    # ---------------------------------------------------------------- pytrees
    "dict_leaf_shape": (
        "a leaf of a dict argument changes shape",
        "f = jax.jit(lambda params: params['w'] * 2)\n"
        "f({'w': jnp.ones(2)}); f({'w': jnp.ones(3)})\n"),
    "nested_dict_leaf": (
        "a leaf two levels down changes shape",
        "f = jax.jit(lambda params: params['layer']['w'].sum())\n"
        "f({'layer': {'w': jnp.ones(2)}}); f({'layer': {'w': jnp.ones(5)}})\n"),
    "list_leaf_shape": (
        "one item of a list changes shape",
        "f = jax.jit(lambda xs: xs[0].sum() + xs[1].sum())\n"
        "f([jnp.ones(2), jnp.ones(2)]); f([jnp.ones(2), jnp.ones(3)])\n"),
    "namedtuple_field": (
        "a field of a namedtuple changes dtype",
        "import collections\n"
        "Point = collections.namedtuple('Point', 'x y')\n"
        "f = jax.jit(lambda p: p.x + p.y)\n"
        "f(Point(jnp.ones(2), jnp.ones(2))); f(Point(jnp.ones(2), jnp.ones(2, jnp.int32)))\n"),
    "varargs_shape": (
        "*args: the second changes shape",
        "def g(*xs):\n"
        "    return sum(x.sum() for x in xs)\n"
        "f = jax.jit(g)\n"
        "f(jnp.ones(2), jnp.ones(2)); f(jnp.ones(2), jnp.ones(6))\n"),
    "keyword_leaf_shape": (
        "an argument passed by keyword changes shape",
        "def g(x, scale):\n"
        "    return x * scale.sum()\n"
        "f = jax.jit(g)\n"
        "f(jnp.ones(2), scale=jnp.ones(2)); f(jnp.ones(2), scale=jnp.ones(3))\n"),
    "static_string": (
        "a static string argument (a mode) changes",
        "def g(x, mode):\n"
        "    return jnp.sin(x) if mode == 'sin' else jnp.cos(x)\n"
        "f = jax.jit(g, static_argnames='mode')\n"
        "f(jnp.ones(2), mode='sin'); f(jnp.ones(2), mode='cos'); f(jnp.ones(2), mode='sin')\n"),
    "dict_key_added": (
        "a key added to a dict argument",
        "f = jax.jit(lambda params: params['w'] * 2)\n"
        "f({'w': jnp.ones(2)}); f({'w': jnp.ones(2), 'b': jnp.ones(2)})\n"),
    "dict_order": (
        "the same keys in another order: a cache hit (keys are sorted)",
        "f = jax.jit(lambda p: p['a'] + p['b'])\n"
        "f({'a': jnp.ones(2), 'b': jnp.ones(2)}); f({'b': jnp.ones(2), 'a': jnp.ones(2)})\n"),
    "list_length": (
        "a longer list",
        "f = jax.jit(lambda xs: sum(xs))\n"
        "f([jnp.ones(2), jnp.ones(2)]); f([jnp.ones(2), jnp.ones(2), jnp.ones(2)])\n"),
    "tuple_vs_list": (
        "a tuple, then a list of the same arrays",
        "f = jax.jit(lambda xs: xs[0] + xs[1])\n"
        "f((jnp.ones(2), jnp.ones(2))); f([jnp.ones(2), jnp.ones(2)])\n"),
    "none_leaf": (
        "None in place of an array",
        "f = jax.jit(lambda p: p['w'] if p['b'] is None else p['w'] + p['b'])\n"
        "f({'w': jnp.ones(2), 'b': None}); f({'w': jnp.ones(2), 'b': jnp.ones(2)})\n"),
    "keyword_vs_positional": (
        "the same argument by position, then by keyword",
        "def g(x):\n"
        "    return x * 2\n"
        "f = jax.jit(g)\n"
        "f(jnp.ones(3)); f(x=jnp.ones(3))\n"),
    "default_argument_passed": (
        "a traced argument with a default, left out, then passed",
        "def g(x, y=1.0):\n"
        "    return x * y\n"
        "f = jax.jit(g)\n"
        "f(jnp.ones(3)); f(jnp.ones(3), 1.0)\n"),
    # ---------------------------------------------------------------- function objects
    "jit_in_a_loop_lambda": (
        "jax.jit(lambda ...) made anew in a loop: every call traces",
        "for i in range(3):\n"
        "    jax.jit(lambda x: x + 1)(jnp.ones(3))\n"),
    "jit_in_a_loop_same_def": (
        "jax.jit(g) of one def made anew in a loop",
        "def g(x):\n"
        "    return x + 1\n"
        "for i in range(3):\n"
        "    jax.jit(g)(jnp.ones(3))\n"),
    "cell_rerun": (
        "a cell defining and calling a jitted lambda run twice (same code, new object)",
        "cell = 'f = jax.jit(lambda x: x * 3)\\nf(jnp.ones(3))\\n'\n"
        "code = compile(cell, FILE, 'exec')\n"
        "exec(code, globals()); exec(code, globals())\n"),
    "two_functions": (
        "two functions of different code, called from one line",
        "f = jax.jit(lambda x: x + 1)\n"
        "g = jax.jit(lambda x: x * 2)\n"
        "for h in (f, g):\n"
        "    h(jnp.ones(3))\n"),
    "two_cells_different_code": (
        "two cells each defining f of different code (as two %%jit cells)",
        "exec(compile('f = jax.jit(lambda x: x + 1)\\nf(jnp.ones(3))', FILE, 'exec'))\n"
        "exec(compile('f = jax.jit(lambda x: jnp.sin(x))\\nf(jnp.ones(3))', FILE, 'exec'))\n"),
    "partial_in_a_loop": (
        "jax.jit(functools.partial(g, k)) made anew each time",
        "import functools\n"
        "def g(k, x):\n"
        "    return x * k\n"
        "for k in (1.0, 1.0):\n"
        "    jax.jit(functools.partial(g, k))(jnp.ones(3))\n"),
    "bound_method": (
        "jax.jit(m.apply) of a bound method, made once",
        "class Model:\n"
        "    def apply(self, x):\n"
        "        return x * 2\n"
        "m = Model()\n"
        "f = jax.jit(m.apply)\n"
        "f(jnp.ones(3)); f(jnp.ones(3)); f(jnp.ones(4))\n"),
    "same_function_two_statics": (
        "one def jitted twice: without and with static_argnums",
        "def power(x, n):\n"
        "    return x * n\n"
        "jax.jit(power)(jnp.ones(2), 2.0)\n"
        "jax.jit(power, static_argnums=1)(jnp.ones(2), 2.0)\n"),
    # ---------------------------------------------------------------- closures and constants
    "closure_python_value_changed": (
        "a closed-over Python number rebound: the cached program keeps the old value",
        "k = 2.0\n"
        "f = jax.jit(lambda x: x * k)\n"
        "f(jnp.ones(3)); k = 3.0; f(jnp.ones(3))\n"),
    "closure_array_changed": (
        "a closed-over global array rebound, then a new shape",
        "w = jnp.ones(())\n"
        "f = jax.jit(lambda x: x * w)\n"
        "f(jnp.ones(3)); w = jnp.full((), 2.0); f(jnp.ones(3)); f(jnp.ones(4))\n"),
    "closure_factory": (
        "a factory that closes over a value and jits: a new function each time",
        "def make(k):\n"
        "    return jax.jit(lambda x: x * k)\n"
        "make(2.0)(jnp.ones(3)); make(3.0)(jnp.ones(3))\n"),
    "closure_factory_in_a_loop": (
        "the factory's jits called at one place, in a loop (JAX: 're-defined' on the second)",
        "def make(k):\n"
        "    return jax.jit(lambda x: x * k)\n"
        "for k in (2.0, 3.0):\n"
        "    make(k)(jnp.ones(3))\n"),
    # ---------------------------------------------------------------- configuration, devices
    "enable_x64_toggled": (
        "jax_enable_x64 switched on between two calls",
        "f = jax.jit(lambda x: x * 2)\n"
        "x = jnp.ones(3)\n"
        "f(x)\n"
        "jax.config.update('jax_enable_x64', True)\n"
        "try:\n"
        "    f(x)\n"
        "finally:\n"
        "    jax.config.update('jax_enable_x64', False)\n"),
    "donation": (
        "donate_argnums: the same shape again, a cache hit",
        "f = jax.jit(lambda x: x + 1, donate_argnums=0)\n"
        "f(jnp.ones(3)); f(jnp.ones(3))\n"),
    "donation_added": (
        "one def jitted without, then with donate_argnums",
        "def g(x):\n"
        "    return x + 1\n"
        "jax.jit(g)(jnp.ones(3))\n"
        "jax.jit(g, donate_argnums=0)(jnp.ones(3))\n"),
    "device_put_committed": (
        "an array put on the device explicitly, then an uncommitted one",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jax.device_put(jnp.ones(3), jax.devices()[0])); f(jnp.ones(3))\n"),
    "sharding_single_device": (
        "a SingleDeviceSharding given to device_put",
        "f = jax.jit(lambda x: x * 2)\n"
        "s = jax.sharding.SingleDeviceSharding(jax.devices()[0])\n"
        "f(jnp.ones(3)); f(jax.device_put(jnp.ones(3), s))\n"),
    # ---------------------------------------------------------------- transformations
    "vmap_of_jit": (
        "vmap of a jitted function, then the function itself on one row",
        "f = jax.jit(lambda x: x * 2)\n"
        "jax.vmap(f)(jnp.ones((5, 3))); f(jnp.ones(3))\n"),
    "grad_of_jit": (
        "grad of a jitted function, then the function itself",
        "f = jax.jit(lambda x: x * x)\n"
        "jax.grad(f)(1.0); f(1.0)\n"),
    "jit_of_jit": (
        "a jitted function called inside another jitted function",
        "inner = jax.jit(lambda x: x * 2)\n"
        "outer = jax.jit(lambda x: inner(x) + 1)\n"
        "outer(jnp.ones(3)); inner(jnp.ones(3))\n"),
    "lower_then_call": (
        "jit(f).lower(x).compile(), then f(x)",
        "f = jax.jit(lambda x: x * 2)\n"
        "f.lower(jnp.ones(3)).compile(); f(jnp.ones(3))\n"),
    "donating_lower_after_call": (
        "jit(g)(x), then jit(g, donate_argnums=0).lower(x).compile() and its call: g traced once",
        "def g(x):\n"
        "    return x + 1\n"
        "jax.jit(g)(jnp.ones(3))\n"
        "jax.jit(g, donate_argnums=0).lower(jnp.ones(3)).compile()\n"
        "jax.jit(g, donate_argnums=0)(jnp.ones(3))\n"),
    "keep_unused_compile_then_call": (
        "jit(f, keep_unused=True).lower(x, y).compile(), then f(x, y): compiled once",
        "f = jax.jit(lambda x, y: x * 2, keep_unused=True)\n"
        "f.lower(jnp.ones(3), jnp.ones(3)).compile(); f(jnp.ones(3), jnp.ones(3))\n"),
    "export_symbolic": (
        "export with a symbolic shape, then a concrete call",
        "export = jax.export\n"
        "f = jax.jit(lambda x: x * 2)\n"
        "n, = export.symbolic_shape('n')\n"
        "export.export(f)(jax.ShapeDtypeStruct((n,), jnp.float32)); f(jnp.ones(3))\n"),
    # the export's f32[n] in the jit's history broke jxkernel's explainer for every bucketed
    # length after it (its bucket read the symbolic shape's length: None), order-dependently
    # in the suite (an export test before tests/api/test_sparse.py, in one worker)
    "export_symbolic_then_growing": (
        "export with a symbolic shape, then calls of 3, 4 and 5 elements",
        "export = jax.export\n"
        "f = jax.jit(lambda x: x * 2)\n"
        "n, = export.symbolic_shape('n')\n"
        "export.export(f)(jax.ShapeDtypeStruct((n,), jnp.float32))\n"
        "for k in (3, 4, 5):\n"
        "    f(jnp.ones(k))\n"),
    # -------------------------------------------------- more: learners' loops
    "int_float_alternating": (
        "a Python int and a Python float alternating in a loop: each kind traced once",
        "f = jax.jit(lambda x: x * 2)\n"
        "for v in (1, 1.0, 2, 2.0):\n"
        "    f(v)\n"),
    "last_partial_batch": (
        "a training loop over 100 rows in batches of 32: the last batch (4 rows) compiles anew",
        "data = jnp.ones((100, 3))\n"
        "step = jax.jit(lambda batch: (batch ** 2).mean())\n"
        "for i in range(0, 100, 32):\n"
        "    step(data[i:i + 32])\n"),
    "accumulator_starts_as_python_float": (
        "an accumulator started as 0.0 (weak), then the step's f32 result (strong)",
        "step = jax.jit(lambda total, b: total + b.sum())\n"
        "total = 0.0\n"
        "for i in range(3):\n"
        "    total = step(total, jnp.ones(3))\n"),
    "static_learning_rate_decays": (
        "a decaying learning rate passed static: a compile every step",
        "def update(w, lr):\n"
        "    return w - lr * w\n"
        "f = jax.jit(update, static_argnums=1)\n"
        "w = jnp.ones(3)\n"
        "for step in range(3):\n"
        "    w = f(w, 0.1 * 0.5 ** step)\n"),
    "python_list_vs_array": (
        "a jnp array, then a Python list of the same numbers",
        "f = jax.jit(lambda x: jnp.asarray(x).sum())\n"
        "f(jnp.array([1.0, 2.0])); f([1.0, 2.0])\n"),
    # -------------------------------------------------- more: static arguments
    "static_argnames_given_positionally": (
        "static_argnames='n', n given by position, then by keyword",
        "def scale(x, n):\n"
        "    return x * n\n"
        "f = jax.jit(scale, static_argnames='n')\n"
        "f(jnp.ones(3), 2); f(jnp.ones(3), 2); f(jnp.ones(3), n=2)\n"),
    "static_argnums_given_by_keyword": (
        "static_argnums=1 and the argument passed by keyword: still static",
        "def scale(x, n):\n"
        "    return x * n\n"
        "f = jax.jit(scale, static_argnums=1)\n"
        "f(jnp.ones(3), n=2); f(jnp.ones(3), n=2); f(jnp.ones(3), n=3)\n"),
    "static_keywords_in_another_order": (
        "two static keywords passed in the other order: one program (JAX sorts them)",
        "def scale(x, n, m=1):\n"
        "    return x * n + m\n"
        "f = jax.jit(scale, static_argnames=('n', 'm'))\n"
        "f(jnp.ones(3), n=2, m=0); f(jnp.ones(3), m=0, n=2); f(jnp.ones(3), m=0, n=3)\n"),
    "array_keywords_in_another_order": (
        "arrays passed by keyword, then in the other order: one program; then x by position",
        "def sub(x, y):\n"
        "    return x - y\n"
        "f = jax.jit(sub)\n"
        "a, b = jnp.ones(3), jnp.arange(3.0)\n"
        "f(x=a, y=b); f(y=b, x=a); f(x=a, y=b); f(a, y=b)\n"),
    "traced_bool_flag_in_if": (
        "a bool flag passed traced and read by a Python if: an error",
        "def g(x, training):\n"
        "    return x * 0.5 if training else x\n"
        "f = jax.jit(g)\n"
        "f(jnp.ones(3), True)\n"),
    "static_bool_flag_alternating": (
        "the bool flag made static, alternating: each value compiled once",
        "def g(x, training):\n"
        "    return x * 0.5 if training else x\n"
        "f = jax.jit(g, static_argnames='training')\n"
        "for t in (True, False, True, False):\n"
        "    f(jnp.ones(3), training=t)\n"),
    "static_beside_a_list_then_tuple": (
        "a static argument kept, the traced one a list then a tuple (JAX's tree: a Static node)",
        "f = jax.jit(lambda xs, n: xs[0] * n, static_argnums=1)\n"
        "f([jnp.ones(3)], 2); f((jnp.ones(3),), 2)\n"),
    "static_and_a_dict_key_change_at_once": (
        "a static keyword and a dict's keys change in one call: JAX names both",
        "def g(p, scale):\n"
        "    return sum(p.values()) * scale\n"
        "f = jax.jit(g, static_argnames='scale')\n"
        "f({'w': jnp.ones(3)}, scale=2); f({'w': jnp.ones(3), 'b': jnp.ones(3)}, scale=3)\n"),
    "static_numpy_array": (
        "a NumPy array as a static argument (a shape): an error, nothing traced",
        "f = jax.jit(lambda x, shape: x.reshape(shape), static_argnums=1)\n"
        "f(jnp.ones(6), np.array([2, 3]))\n"),
    "frozen_dataclass_static": (
        "a frozen dataclass (hashed by its fields) as a static config: equal is a hit",
        "import dataclasses\n"
        "@dataclasses.dataclass(frozen=True)\n"
        "class Config:\n"
        "    scale: float\n"
        "f = jax.jit(lambda x, cfg: x * cfg.scale, static_argnums=1)\n"
        "f(jnp.ones(3), Config(2.0)); f(jnp.ones(3), Config(2.0)); f(jnp.ones(3), Config(3.0))\n"),
    "ones_traced_n": (
        "jnp.ones(n) with n traced: an error (a shape must be concrete)",
        "f = jax.jit(lambda n: jnp.ones(n))\n"
        "f(3)\n"),
    "ones_static_n": (
        "jnp.ones(n) with n static: one compile per size",
        "f = jax.jit(lambda n: jnp.ones(n), static_argnums=0)\n"
        "f(3); f(3); f(4)\n"),
    "method_self_traced": (
        "jax.jit(Model.apply) with self not static: an error (an object is not an array)",
        "class Model:\n"
        "    def __init__(self, k):\n"
        "        self.k = k\n"
        "    def apply(self, x):\n"
        "        return x * self.k\n"
        "f = jax.jit(Model.apply)\n"
        "f(Model(2), jnp.ones(3))\n"),
    # -------------------------------------------------- more: pytrees
    "dataclass_meta_field": (
        "a registered dataclass whose meta (static) field changes",
        "import dataclasses, functools\n"
        "@functools.partial(jax.tree_util.register_dataclass, data_fields=['w'],\n"
        "                   meta_fields=['act'])\n"
        "@dataclasses.dataclass\n"
        "class Layer:\n"
        "    w: object\n"
        "    act: str\n"
        "f = jax.jit(lambda l, x: x * l.w if l.act == 'id' else jnp.tanh(x * l.w))\n"
        "f(Layer(jnp.ones(3), 'id'), jnp.ones(3)); f(Layer(jnp.ones(3), 'id'), jnp.ones(3))\n"
        "f(Layer(jnp.ones(3), 'tanh'), jnp.ones(3))\n"),
    "keyword_order": (
        "the same keywords in another order",
        "def g(a, b):\n"
        "    return a - b\n"
        "f = jax.jit(g)\n"
        "f(a=jnp.ones(2), b=jnp.ones(2)); f(b=jnp.ones(2), a=jnp.ones(2))\n"),
    # -------------------------------------------------- more: function objects
    "jit_bound_method_in_a_loop": (
        "jax.jit(m.apply) made anew in a loop (a new bound method each time)",
        "class Model:\n"
        "    def apply(self, x):\n"
        "        return x * 2\n"
        "m = Model()\n"
        "for i in range(3):\n"
        "    jax.jit(m.apply)(jnp.ones(3))\n"),
    # JAX's "re-defined repeatedly?" hint is keyed on the call site: a partial or a bound
    # method jitted anew on a line of its own gets none, however often its code compiled
    "partial_in_a_loop_then_once": (
        "jax.jit(functools.partial(g, k)) in a loop, then once more on a line of its own",
        "import functools\n"
        "def g(k, x):\n"
        "    return x * k\n"
        "for k in (1.0, 2.0):\n"
        "    jax.jit(functools.partial(g, k))(jnp.ones(3))\n"
        "jax.jit(functools.partial(g, 3.0))(jnp.ones(3))\n"),
    "bound_method_jitted_on_two_lines": (
        "jax.jit(m.apply) on one line, then again on the next (no loop)",
        "class Model:\n"
        "    def apply(self, x):\n"
        "        return x * 2\n"
        "m = Model()\n"
        "jax.jit(m.apply)(jnp.ones(3))\n"
        "jax.jit(m.apply)(jnp.ones(3))\n"),
    # -------------------------------------------------- more: config, transforms
    "default_matmul_precision": (
        "a call inside jax.default_matmul_precision('float32'), then outside again",
        "f = jax.jit(lambda a, b: a @ b)\n"
        "a = jnp.ones((2, 2))\n"
        "f(a, a)\n"
        "with jax.default_matmul_precision('float32'):\n"
        "    f(a, a)\n"
        "f(a, a)\n"),
    "default_device_cpu": (
        "a call inside jax.default_device(the CPU), the one device there is",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "with jax.default_device(jax.devices('cpu')[0]):\n"
        "    f(jnp.ones(3))\n"),
    "vmap_of_jit_batch_changes": (
        "vmap of a jitted function over 5 rows, then 7 rows",
        "f = jax.jit(lambda x: x * 2)\n"
        "jax.vmap(f)(jnp.ones((5, 3))); jax.vmap(f)(jnp.ones((7, 3)))\n"),
    "eval_shape_then_call": (
        "jax.eval_shape(f, x), then f(x)",
        "f = jax.jit(lambda x: x * 2)\n"
        "jax.eval_shape(f, jnp.ones(3)); f(jnp.ones(3))\n"),
    "eval_shape_then_call_later": (
        "jax.eval_shape(f, x) after another statement, then f(x): logged at eval_shape's line",
        "f = jax.jit(lambda x: x * 2)\n"
        "x = jnp.ones(3); jax.eval_shape(f, x)\n"
        "f(x)\n"),
    "eval_shape_then_jit_of_other_shape": (
        "jax.eval_shape(g, x) of a plain function, then jax.jit(g) at another shape: g's first "
        "compile, a miss against eval_shape's trace",
        "def g(x):\n    return x * 2\n"
        "jax.eval_shape(g, jnp.ones(5))\n"
        "jax.jit(g)(jnp.ones(7))\n"),
    "eval_shape_of_partial_of_jit": (
        "jax.eval_shape(functools.partial(init_state, n)) of a jit with n static, for two sizes "
        "(Flax's key_concepts), then init_state(4): traced for shapes only, nothing compiled "
        "until the call, which compiles eval_shape's trace without tracing again",
        "import functools\n"
        "@functools.partial(jax.jit, static_argnums=(0,))\n"
        "def init_state(n):\n    return jnp.zeros(n)\n"
        "jax.eval_shape(functools.partial(init_state, 3))\n"
        "jax.eval_shape(functools.partial(init_state, 4))\n"
        "init_state(4)\n"),
    "lower_then_call_next_line": (
        "f.lower(x), then f(x) on the next line: one trace, logged where it was lowered",
        "f = jax.jit(lambda x: x * 2)\n"
        "x = jnp.ones(3); f.lower(x)\n"
        "f(x); f(jnp.ones(4))\n"),
    "trace_then_call": (
        "f.trace(x), then f(x): one trace, logged where it was traced",
        "f = jax.jit(lambda x: x * 2)\n"
        "x = jnp.ones(3); t = f.trace(x)\n"
        "f(x)\n"),
    "make_jaxpr_of_jit": (
        "jax.make_jaxpr(f)(x) of a jitted f, then f(x)",
        "f = jax.jit(lambda x: x * 2)\n"
        "x = jnp.ones(3); jax.make_jaxpr(f)(x)\n"
        "f(x); jax.make_jaxpr(f)(jnp.ones(4))\n"),
    "make_jaxpr_plain_new_shape": (
        "jax.make_jaxpr(g) of a plain function, again, then on a longer input",
        "def g(x):\n"
        "    return x * 2\n"
        "x = jnp.ones(3); jax.make_jaxpr(g)(x); jax.make_jaxpr(g)(x)\n"
        "jax.make_jaxpr(g)(jnp.ones(4))\n"),
    "make_jaxpr_then_jit_new_shape": (
        "jax.make_jaxpr(g)(x) of a plain g, then jax.jit(g) at x (the same trace) and at a "
        "longer input",
        "def g(x):\n"
        "    return x * 2\n"
        "x = jnp.ones(3); jax.make_jaxpr(g)(x)\n"
        "jax.jit(g)(x); jax.jit(g)(jnp.ones(4))\n"),
    "jit_then_make_jaxpr_new_shape": (
        "jax.jit(g)(x) of a plain g, then jax.make_jaxpr(g) at x (the same trace) and at a "
        "longer input",
        "def g(x):\n"
        "    return x * 2\n"
        "x = jnp.ones(3); jax.jit(g)(x)\n"
        "jax.make_jaxpr(g)(x); jax.make_jaxpr(g)(jnp.ones(4))\n"),
    "make_jaxpr_of_jit_twice": (
        "jax.make_jaxpr(f)(x) twice of one jitted f: traced once",
        "f = jax.jit(lambda x: x * 2)\n"
        "x = jnp.ones(3); jax.make_jaxpr(f)(x); jax.make_jaxpr(f)(x)\n"),
    "grad_of_jit_new_shape": (
        "grad of a jitted loss, then again on a longer input",
        "f = jax.jit(lambda x: (x * x).sum())\n"
        "jax.grad(f)(jnp.ones(3)); jax.grad(f)(jnp.ones(3)); jax.grad(f)(jnp.ones(4))\n"),
    # -------------------------------------------------- a jit traced inside another's trace
    "grad_of_jit_inside_jit_new_shape": (
        "grad of a jitted loss inside a jitted step, on a longer input: the loss is traced "
        "again, inlined into the step's program (nothing of its own compiles)",
        "def loss(x):\n"
        "    return (x * x).sum()\n"
        "loss_jit = jax.jit(loss)\n"
        "def step(x):\n"
        "    return x - 0.1 * jax.grad(loss_jit)(x)\n"
        "step_jit = jax.jit(step)\n"
        "step_jit(jnp.ones(3)); step_jit(jnp.ones(3)); step_jit(jnp.ones(4))\n"),
    "grad_of_jit_inside_jit_weak_type": (
        "the same with a Python float, then a float32 array (weak type)",
        "def loss(x):\n"
        "    return x * x\n"
        "loss_jit = jax.jit(loss)\n"
        "def step(x):\n"
        "    return jax.grad(loss_jit)(x)\n"
        "step_jit = jax.jit(step)\n"
        "step_jit(1.0); step_jit(jnp.asarray(1.0, jnp.float32))\n"),
    "vmap_of_jit_inside_jit": (
        "vmap of a jitted function inside a jitted one: a new batch size reuses the row's "
        "trace, a new row length traces it again",
        "def row(x):\n"
        "    return x * 2\n"
        "row_jit = jax.jit(row)\n"
        "def rows(xs):\n"
        "    return jax.vmap(row_jit)(xs)\n"
        "rows_jit = jax.jit(rows)\n"
        "rows_jit(jnp.ones((5, 3))); rows_jit(jnp.ones((7, 3))); rows_jit(jnp.ones((5, 4)))\n"),
    "jit_inside_jit_static": (
        "a jitted function called twice inside another with two static values, then directly",
        "def power(x, n):\n"
        "    return x ** n\n"
        "power_jit = jax.jit(power, static_argnums=1)\n"
        "def both(x):\n"
        "    return power_jit(x, 2) + power_jit(x, 3)\n"
        "both_jit = jax.jit(both)\n"
        "both_jit(jnp.ones(3)); power_jit(jnp.ones(3), 2)\n"),
    # -------------------------------------------------- jax.make_user_context
    "user_context_changed": (
        "a call inside `with ctx(1):` of a jax.make_user_context context, twice, then outside",
        "ctx = jax.make_user_context(0)\n"
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "with ctx(1):\n"
        "    f(jnp.ones(3))\n"
        "with ctx(1):\n"
        "    f(jnp.ones(3))\n"
        "f(jnp.ones(3))\n"),
    "user_context_two_contexts": (
        "two contexts, one of them set globally between two calls",
        "ctx_a = jax.make_user_context('a')\n"
        "ctx_b = jax.make_user_context(None)\n"
        "f = jax.jit(lambda x: x + 1)\n"
        "f(jnp.ones(3)); ctx_b.set_global(2); f(jnp.ones(3))\n"),
    "user_context_made_after_a_call": (
        "a context made after a jitted function ran: every function traces again once",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "mode = jax.make_user_context('train')\n"
        "f(jnp.ones(3)); f(jnp.ones(3))\n"),
    # -------------------------------------------------- control-flow bodies (JAX caches their
    # traces by the function object and its input types, and explains their misses too)
    "scan_body_carry_shape": (
        "the same scan body, called again with the same types (a hit), then a longer carry",
        "def body(c, x):\n"
        "    return c + x, c.sum()\n"
        "jax.lax.scan(body, jnp.zeros(3), jnp.ones((5, 3)))\n"
        "jax.lax.scan(body, jnp.zeros(3), jnp.ones((5, 3)))\n"
        "jax.lax.scan(body, jnp.zeros(4), jnp.ones((5, 4)))\n"),
    "scan_body_longer_xs": (
        "a scan over a longer sequence: the body sees the same slice type (a hit)",
        "def body(c, x):\n"
        "    return c + x, None\n"
        "jax.lax.scan(body, 0.0, jnp.ones(5)); jax.lax.scan(body, 0.0, jnp.ones(7))\n"),
    "scan_body_weak_carry": (
        "a scan started from 0.0 (weak), then from a float32 array",
        "def body(c, x):\n"
        "    return c + x, None\n"
        "jax.lax.scan(body, 0.0, jnp.ones(3))\n"
        "jax.lax.scan(body, jnp.float32(0.0), jnp.ones(3))\n"),
    "scan_new_lambda_each_call": (
        "lax.scan(lambda ...) in a loop: a new body function each time, traced each time",
        "for i in range(3):\n"
        "    jax.lax.scan(lambda c, x: (c + x, None), 0.0, jnp.ones(3))\n"),
    "scan_body_dict_carry_key_added": (
        "a key added to a scan's dict carry",
        "def body(c, x):\n"
        "    return {k: v + x for k, v in c.items()}, None\n"
        "jax.lax.scan(body, {'a': 0.0}, jnp.ones(3))\n"
        "jax.lax.scan(body, {'a': 0.0, 'b': 0.0}, jnp.ones(3))\n"),
    "scan_body_matmul_precision": (
        "the same scan inside jax.default_matmul_precision('float32')",
        "def body(c, x):\n"
        "    return c @ x, None\n"
        "a = jnp.ones((2, 2))\n"
        "jax.lax.scan(body, a, jnp.ones((3, 2, 2)))\n"
        "with jax.default_matmul_precision('float32'):\n"
        "    jax.lax.scan(body, a, jnp.ones((3, 2, 2)))\n"),
    "fori_loop_body_types": (
        "fori_loop's body from 1.0 (weak), a float32 array, then an int",
        "def body(i, c):\n"
        "    return c + i\n"
        "jax.lax.fori_loop(0, 3, body, 1.0)\n"
        "jax.lax.fori_loop(0, 3, body, jnp.float32(1.0))\n"
        "jax.lax.fori_loop(0, 3, body, 1)\n"),
    "fori_loop_int_start_float_body": (
        "a sum from 0 (a Python int) whose body adds floats: promoted, traced twice in one call",
        "def body(i, total):\n"
        "    return total + 0.5 * i\n"
        "jax.lax.fori_loop(0, 3, body, 0)\n"),
    "fori_loop_int_start_float_body_fixed": (
        "the same sum started from the type the body returns: traced once",
        "def body(i, total):\n"
        "    return total + 0.5 * i\n"
        "init_val = 0\n"
        "init_val = jnp.asarray(init_val, jnp.float32)\n"
        "jax.lax.fori_loop(0, 3, body, init_val)\n"),
    # a jitted step called by a scan's body with batches of 25 rows, after a call with 32: one
    # trace for the scan's program (each step's slice the same), not a last, partial batch
    "jit_in_a_scan_body_with_slices": (
        "a jitted step called in a scan over batches of 25, after a call with 32 rows",
        "@jax.jit\n"
        "def step(w, x):\n"
        "    return w - 0.1 * x.sum()\n"
        "w = step(jnp.float32(0.0), jnp.ones((32, 3)))\n"
        "w, _ = jax.lax.scan(lambda w, x: (step(w, x), None), w, jnp.ones((4, 25, 3)))\n"),
    # the other way: a weak float start whose body returns int32 is promoted to f32 (the type
    # both can take), traced again, and still differs: JAX raises the carry's TypeError
    "fori_loop_float_start_int_body": (
        "a loop from 1.5 (a Python float) whose body returns int32: promoted, traced again, "
        "then the carry's types differ (TypeError)",
        "def body(i, c):\n"
        "    return c.astype(jnp.int32) + i\n"
        "jax.lax.fori_loop(0, 3, body, 1.5)\n"),
    "scan_int_start_float_body": (
        "a scan's carry from 0 (a Python int) with float steps: promoted, traced twice",
        "def step(c, x):\n"
        "    return c + x, c\n"
        "jax.lax.scan(step, 0, jnp.ones(3))\n"),
    # the promoted start's fix rewrites the learner's own call line (round 11): the literal
    # start wrapped where it is passed, or the variable the line passes cast before it
    "scan_int_start_float_body_fixed": (
        "scan_int_start_float_body with its fix pasted: the start written as a float32",
        "def step(c, x):\n"
        "    return c + x, c\n"
        "jax.lax.scan(step, jnp.asarray(0, jnp.float32), jnp.ones(3))\n"),
    "fori_loop_int_start_float_body_line_fixed": (
        "fori_loop_int_start_float_body with its fix pasted into the call line",
        "def body(i, total):\n"
        "    return total + 0.5 * i\n"
        "jax.lax.fori_loop(0, 3, body, jnp.asarray(0, jnp.float32))\n"),
    "scan_int_variable_start_float_body": (
        "a scan's carry from a variable holding 0 (a Python int) with float steps: promoted",
        "def step(c, x):\n"
        "    return c + x, c\n"
        "start = 0\n"
        "jax.lax.scan(step, start, jnp.ones(3))\n"),
    "scan_int_variable_start_float_body_fixed": (
        "the same with its fix: the variable the line passes cast before the call",
        "def step(c, x):\n"
        "    return c + x, c\n"
        "start = 0\n"
        "start = jnp.asarray(start, jnp.float32)\n"
        "jax.lax.scan(step, start, jnp.ones(3))\n"),
    "cond_operand_float_then_int": (
        "cond's operand k 1.0, then 2 (a Python int): both branches traced again",
        "def f(x, k):\n"
        "    return x * k\n"
        "def g(x, k):\n"
        "    return x\n"
        "jax.lax.cond(True, f, g, jnp.ones(2), 1.0)\n"
        "jax.lax.cond(True, f, g, jnp.ones(2), 2)\n"),
    "cond_operand_float_then_int_fixed": (
        "the same with its fix pasted into the second call's line (a Python float, as the "
        "first call's: jnp.asarray(2, jnp.float32) is strong and traces again)",
        "def f(x, k):\n"
        "    return x * k\n"
        "def g(x, k):\n"
        "    return x\n"
        "jax.lax.cond(True, f, g, jnp.ones(2), 1.0)\n"
        "jax.lax.cond(True, f, g, jnp.ones(2), 2.0)\n"),
    "scan_int_start_in_jit": (
        "a jitted function whose scan starts from 0 with float steps: promoted inside jit",
        "def step(c, x):\n"
        "    return c + x, c\n"
        "@jax.jit\n"
        "def total(xs):\n"
        "    return jax.lax.scan(step, 0, xs)[0]\n"
        "total(jnp.ones(3))\n"),
    "scan_int_start_in_jit_fixed": (
        "the same with its fix pasted into the call line inside the jitted function",
        "def step(c, x):\n"
        "    return c + x, c\n"
        "@jax.jit\n"
        "def total(xs):\n"
        "    return jax.lax.scan(step, jnp.asarray(0, jnp.float32), xs)[0]\n"
        "total(jnp.ones(3))\n"),
    "fori_loop_int_start_cast_back": (
        "the same sum with the start cast to int32 (the dtype it started as): refused",
        "def body(i, total):\n"
        "    return total + 0.5 * i\n"
        "jax.lax.fori_loop(0, 3, body, jnp.asarray(0, jnp.int32))\n"),
    "fori_loop_lambda_in_jit": (
        "a lambda body inside a jitted function, which traces again for a new shape",
        "@jax.jit\n"
        "def f(x):\n"
        "    return jax.lax.fori_loop(0, 3, lambda i, c: c * 2, x)\n"
        "f(jnp.ones(3)); f(jnp.ones(3)); f(jnp.ones(4))\n"),
    "fori_loop_traced_bound_in_jit": (
        "fori_loop with a traced bound (a while loop) inside jit, on a new shape",
        "def body(i, c):\n"
        "    return c + 1.0\n"
        "f = jax.jit(lambda n, c: jax.lax.fori_loop(0, n, body, c))\n"
        "f(3, jnp.ones(3)); f(3, jnp.ones(4))\n"),
    "while_loop_carry_dtype": (
        "a while_loop from an int32, then a float32: cond and body traced again",
        "def cond(c):\n"
        "    return c < 10\n"
        "def body(c):\n"
        "    return c * 2\n"
        "jax.lax.while_loop(cond, body, jnp.int32(1))\n"
        "jax.lax.while_loop(cond, body, jnp.float32(1))\n"),
    "while_loop_closures_new_carry_shape": (
        "cond and body made anew in each call, reading tol, the carry a new shape: traced "
        "again for the shape, whatever the objects (Optax's lbfgs page, run by hand)",
        "def run(x0, tol):\n"
        "    def body(c):\n"
        "        return c * 0.5\n"
        "    def cond(c):\n"
        "        return jnp.sum(c ** 2) > tol\n"
        "    return jax.lax.while_loop(cond, body, x0)\n"
        "run(jnp.ones(8), 1.0)\n"
        "run(jnp.ones(6), 1.0)\n"),
    "while_loop_closures_made_anew": (
        "cond and body made anew in each call, reading tol, the carry the same: traced again "
        "for each new object",
        "def run(x0, tol):\n"
        "    def body(c):\n"
        "        return c * 0.5\n"
        "    def cond(c):\n"
        "        return jnp.sum(c ** 2) > tol\n"
        "    return jax.lax.while_loop(cond, body, x0)\n"
        "run(jnp.ones(3), 1.0)\n"
        "run(jnp.ones(3), 2.0)\n"),
    "cond_branch_closure_rebound": (
        "a cond branch reading a global number that is rebound: a hit, the old value kept",
        "k = 2.0\n"
        "def branch(x):\n"
        "    return x * k\n"
        "def other(x):\n"
        "    return x\n"
        "jax.lax.cond(True, branch, other, jnp.ones(3))\n"
        "k = 3.0\n"
        "jax.lax.cond(True, branch, other, jnp.ones(3))\n"),
    "cond_lambdas_in_a_loop": (
        "lax.cond(p, lambda x: x * k, ...) in a loop over k: new branches each time",
        "for k in (1.0, 2.0):\n"
        "    jax.lax.cond(True, lambda x: x * k, lambda x: x, jnp.ones(2))\n"),
    "switch_branches_new_shape": (
        "lax.switch over a list of branches made once, on a new shape",
        "branches = [lambda x: x + 1, lambda x: x * 2]\n"
        "jax.lax.switch(0, branches, jnp.ones(3)); jax.lax.switch(1, branches, jnp.ones(4))\n"),
    "scan_body_outside_jit_static": (
        "a jitted function with a new static value: its scan body, defined outside, is a hit",
        "def body(c, x):\n"
        "    return c * x, None\n"
        "def f(x, n):\n"
        "    return jax.lax.scan(body, x, jnp.ones((n, 3)))[0]\n"
        "g = jax.jit(f, static_argnums=1)\n"
        "g(jnp.ones(3), 2); g(jnp.ones(3), 3)\n"),
    "scan_body_inside_jit_static": (
        "the same with the body defined inside the jitted function: a new body each trace",
        "def f(x, n):\n"
        "    def body(c, x):\n"
        "        return c * x, None\n"
        "    return jax.lax.scan(body, x, jnp.ones((n, 3)))[0]\n"
        "g = jax.jit(f, static_argnums=1)\n"
        "g(jnp.ones(3), 2); g(jnp.ones(3), 3)\n"),
    "nested_scan_longer_inner": (
        "a scan inside a scan's body, the inner sequence longer: the inner body is a hit",
        "def inner(c, x):\n"
        "    return c + x, None\n"
        "def outer(c, xs):\n"
        "    return jax.lax.scan(inner, c, xs)[0], None\n"
        "jax.lax.scan(outer, jnp.zeros(3), jnp.ones((2, 4, 3)))\n"
        "jax.lax.scan(outer, jnp.zeros(3), jnp.ones((2, 5, 3)))\n"),
    "vmap_of_scan_then_direct": (
        "vmap of a function running a scan, then the function on one row: the body is a hit",
        "def body(c, x):\n"
        "    return c + x, None\n"
        "def run(c):\n"
        "    return jax.lax.scan(body, c, jnp.ones((4, 3)))[0]\n"
        "jax.vmap(run)(jnp.ones((5, 3))); run(jnp.ones(3))\n"),
    "lax_map_function": (
        "lax.map of a function: JAX traces its own wrapper, and logs nothing of the user's",
        "def sq(x):\n"
        "    return x * x\n"
        "jax.lax.map(sq, jnp.ones((3, 2))); jax.lax.map(sq, jnp.ones((3, 4)))\n"),
    "jit_then_cond_same_function": (
        "one def jitted, then used as both branches of a cond",
        "def double(x):\n"
        "    return x * 2\n"
        "jax.jit(double)(jnp.ones(3))\n"
        "jax.lax.cond(True, double, double, jnp.ones(3))\n"),
    "cond_then_switch_same_function": (
        "one def used as cond's branches, then as switch's: traced for each (JAX's debug info)",
        "def double(x):\n"
        "    return x * 2\n"
        "jax.lax.cond(True, double, double, jnp.ones(3))\n"
        "jax.lax.switch(0, [double, double], jnp.ones(3))\n"),
    # -------------------------------------------------- which earlier key JAX names (stop 60)
    # JAX 0.10.2 names min((severity, number of differences, message text)) over the earlier
    # keys (partial_eval.explain): a context difference before a pytree one before a types
    # one, then fewer differing leaves, then the message's text (not the latest key)
    "shape_tie_named_by_text": (
        "lengths 3, 5, then 4: both earlier keys one shape away; JAX names f32[3]",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3)); f(jnp.ones(5)); f(jnp.ones(4))\n"),
    "static_tie_named_by_text": (
        "static 10, 2, then 3: JAX names 10 (\"Static(val=10)\" sorts before \"...=2)\")",
        "f = jax.jit(lambda x, n: x * n, static_argnums=1)\n"
        "f(jnp.ones(3), 10); f(jnp.ones(3), 2); f(jnp.ones(3), 3)\n"),
    "two_arguments_tie": (
        "(a, b) lengths (2, 3), (3, 2), then (3, 3): JAX names the key that differs at a",
        "def g(a, b):\n"
        "    return a.sum() + b.sum()\n"
        "f = jax.jit(g)\n"
        "f(jnp.ones(2), jnp.ones(3)); f(jnp.ones(3), jnp.ones(2)); f(jnp.ones(3), jnp.ones(3))\n"),
    "fewer_leaves_differ": (
        "one leaf differing in shape and dtype is nearer than two leaves differing in shape",
        "def g(a, b):\n"
        "    return a.sum() + b.sum()\n"
        "f = jax.jit(g)\n"
        "f(jnp.ones(2, jnp.int32), jnp.ones(3)); f(jnp.ones(2), jnp.ones(2))\n"
        "f(jnp.ones(3), jnp.ones(3))\n"),
    "structure_before_types": (
        "a key differing in structure is named before one differing in a shape",
        "f = jax.jit(lambda p: p['w'].sum())\n"
        "f({'w': jnp.ones(2)}); f({'w': jnp.ones(3), 'b': jnp.ones(2)})\n"
        "f({'w': jnp.ones(2), 'b': jnp.ones(2)})\n"),
    "static_before_shape": (
        "a key differing in a static value is named before one differing in a shape",
        "f = jax.jit(lambda x, n: x * n, static_argnums=1)\n"
        "f(jnp.ones(4), 3); f(jnp.ones(3), 2); f(jnp.ones(4), 2)\n"),
    "config_before_types": (
        "a key differing in jax_enable_x64 is named before one differing in a shape",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3, jnp.float32))\n"
        "jax.config.update('jax_enable_x64', True)\n"
        "try:\n"
        "    f(jnp.ones(4, jnp.float32)); f(jnp.ones(3, jnp.float32))\n"
        "finally:\n"
        "    jax.config.update('jax_enable_x64', False)\n"),
    # -------------------------------------------------- more learners' programs (stop 60)
    "static_equal_values_other_types": (
        "static True, 1, 2.0, then 2: equal values of other types are other keys in JAX",
        "f = jax.jit(lambda x, n: x * n, static_argnums=1)\n"
        "f(jnp.ones(3), True); f(jnp.ones(3), 1); f(jnp.ones(3), 2.0); f(jnp.ones(3), 2)\n"),
    "static_none_then_value": (
        "a static option None, then a number",
        "def g(x, clip=None):\n"
        "    return x if clip is None else jnp.minimum(x, clip)\n"
        "f = jax.jit(g, static_argnames='clip')\n"
        "f(jnp.ones(3), clip=None); f(jnp.ones(3), clip=0.5)\n"),
    "none_then_array_argument": (
        "a traced argument None, then an array",
        "def g(x, bias):\n"
        "    return x if bias is None else x + bias\n"
        "f = jax.jit(g)\n"
        "f(jnp.ones(3), None); f(jnp.ones(3), jnp.ones(3))\n"),
    "static_default_then_passed": (
        "a static keyword left to its default, then passed with the same value",
        "def g(x, n=2):\n"
        "    return x * n\n"
        "f = jax.jit(g, static_argnames='n')\n"
        "f(jnp.ones(3)); f(jnp.ones(3), n=2)\n"),
    "static_dict_unhashable": (
        "a dict as a static argument (a config): an error, nothing traced",
        "f = jax.jit(lambda x, cfg: x * cfg['k'], static_argnums=1)\n"
        "f(jnp.ones(3), {'k': 2.0})\n"),
    "static_jax_array": (
        "a jax Array as a static argument: an error, nothing traced",
        "f = jax.jit(lambda x, n: x * n, static_argnums=1)\n"
        "f(jnp.ones(3), jnp.asarray(2.0))\n"),
    "global_function_rebound": (
        "a global function the jitted one calls, rebound: a hit, the old one kept",
        "act = jnp.tanh\n"
        "f = jax.jit(lambda x: act(x))\n"
        "f(jnp.ones(3)); act = jnp.sin; f(jnp.ones(3))\n"),
    "static_self_hashed_by_fields": (
        "a method with self static, its class hashed by its fields: an equal model is a hit",
        "class Model:\n"
        "    def __init__(self, k):\n"
        "        self.k = k\n"
        "    def __hash__(self):\n"
        "        return hash(self.k)\n"
        "    def __eq__(self, other):\n"
        "        return isinstance(other, Model) and self.k == other.k\n"
        "    def apply(self, x):\n"
        "        return x * self.k\n"
        "f = jax.jit(Model.apply, static_argnums=0)\n"
        "f(Model(2), jnp.ones(3)); f(Model(2), jnp.ones(3)); f(Model(3), jnp.ones(3))\n"),
    "partial_of_jit_static_argnames": (
        "@functools.partial(jax.jit, static_argnames='mode') as a decorator, two modes",
        "import functools\n"
        "@functools.partial(jax.jit, static_argnames='mode')\n"
        "def act(x, mode):\n"
        "    return jnp.tanh(x) if mode == 'tanh' else jnp.maximum(x, 0)\n"
        "act(jnp.ones(3), mode='tanh'); act(jnp.ones(3), mode='relu')\n"
        "act(jnp.ones(3), mode='tanh')\n"),
    "int_list_length_changes": (
        "a list of arrays that grows by one each step (appended in a loop)",
        "f = jax.jit(lambda xs: sum(x.sum() for x in xs))\n"
        "xs = []\n"
        "for i in range(3):\n"
        "    xs.append(jnp.ones(2))\n"
        "    f(xs)\n"),
    # -------------------------------------------------- a learner through JAX's tutorials
    # (jit, Thinking in JAX, the sharp bits, pytrees, stateful computations, a training loop)
    "bound_method_self_attribute_changed": (
        "jax.jit(m.apply) made once, then m.k changed: a hit, the old k kept (as in JAX)",
        "class Model:\n"
        "    def __init__(self, k):\n"
        "        self.k = k\n"
        "    def apply(self, x):\n"
        "        return x * self.k\n"
        "m = Model(2.0)\n"
        "f = jax.jit(m.apply)\n"
        "f(jnp.ones(3)); m.k = 3.0; out = f(jnp.ones(3))\n"),
    "static_self_attribute_mutated": (
        "self static (hashed by identity), then an attribute of the same object changed: a "
        "hit, the old value kept",
        "class Model:\n"
        "    def __init__(self, k):\n"
        "        self.k = k\n"
        "    def apply(self, x):\n"
        "        return x * self.k\n"
        "f = jax.jit(Model.apply, static_argnums=0)\n"
        "m = Model(2.0)\n"
        "f(m, jnp.ones(3)); m.k = 3.0; out = f(m, jnp.ones(3))\n"),
    "static_eq_without_hash": (
        "a static config class defining __eq__ but not __hash__ (unhashable): an error",
        "class Config:\n"
        "    def __init__(self, k):\n"
        "        self.k = k\n"
        "    def __eq__(self, other):\n"
        "        return self.k == other.k\n"
        "f = jax.jit(lambda x, cfg: x * cfg.k, static_argnums=1)\n"
        "f(jnp.ones(3), Config(2.0))\n"),
    "static_lambda_each_call": (
        "a function passed as a static argument, a new lambda each call",
        "def apply(fn, x):\n"
        "    return fn(x)\n"
        "f = jax.jit(apply, static_argnums=0)\n"
        "for i in range(3):\n"
        "    f(lambda x: x * 2, jnp.ones(3))\n"),
    "static_partial_each_call": (
        "a static functools.partial made anew each call (equal, but hashed by identity)",
        "import functools\n"
        "def apply(fn, x):\n"
        "    return fn(x)\n"
        "f = jax.jit(apply, static_argnums=0)\n"
        "for i in range(2):\n"
        "    f(functools.partial(jnp.multiply, 2.0), jnp.ones(3))\n"),
    "tree_util_partial_argument": (
        "a jax.tree_util.Partial passed traced: a new k is a new leaf value, a hit",
        "def apply(fn, x):\n"
        "    return fn(x)\n"
        "f = jax.jit(apply)\n"
        "for k in (2.0, 3.0):\n"
        "    f(jax.tree_util.Partial(jnp.multiply, k), jnp.ones(3))\n"),
    "namedtuple_then_tuple": (
        "a namedtuple, then a plain tuple of the same arrays",
        "import collections\n"
        "Point = collections.namedtuple('Point', 'x y')\n"
        "f = jax.jit(lambda p: p[0] + p[1])\n"
        "f(Point(jnp.ones(2), jnp.ones(2))); f((jnp.ones(2), jnp.ones(2)))\n"),
    "none_then_empty_tuple": (
        "None, then () in a dict: no leaves either way, still another structure",
        "f = jax.jit(lambda p: p['w'] * 2)\n"
        "f({'w': jnp.ones(2), 'extra': None}); f({'w': jnp.ones(2), 'extra': ()})\n"),
    "kwargs_key_added": (
        "**kwargs: one more keyword",
        "def g(x, **opts):\n"
        "    return x * sum(opts.values())\n"
        "f = jax.jit(g)\n"
        "f(jnp.ones(3), a=1.0); f(jnp.ones(3), a=1.0, b=2.0)\n"),
    "python_float_then_numpy_float64": (
        "a Python float, then a NumPy float64 scalar (float32 without x64, strong)",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(1.0); f(np.float64(1.0))\n"),
    "python_float_then_jnp_array": (
        "a Python float, then jnp.array(1.0) of it",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(1.0); f(jnp.array(1.0))\n"),
    "numpy_float32_then_jnp_float32": (
        "np.float32(1.0), then jnp.float32(1.0): the same type, a hit",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(np.float32(1.0)); f(jnp.float32(1.0))\n"),
    "counter_round_trips_weak": (
        "a step counter started as 0 and fed back from the jitted step: a hit (it stays weak)",
        "step = jax.jit(lambda i, x: (i + 1, x * 2))\n"
        "i, x = 0, jnp.ones(3)\n"
        "for _ in range(3):\n"
        "    i, x = step(i, x)\n"),
    "optimizer_state_dtype_promotes": (
        "momentum kept in bfloat16, returned as float32 by the update: the second step compiles",
        "def update(w, m, g):\n"
        "    m = 0.9 * m + 0.1 * g\n"
        "    return w - 0.01 * m, m\n"
        "f = jax.jit(update)\n"
        "w, m = jnp.ones(3), jnp.zeros(3, jnp.bfloat16)\n"
        "for _ in range(3):\n"
        "    w, m = f(w, m, jnp.ones(3))\n"),
    "velocity_starts_as_python_float": (
        "a velocity started as 0.0 and returned as an array like w: the second step compiles",
        "def update(w, v):\n"
        "    v = 0.9 * v + w\n"
        "    return w - 0.1 * v, v\n"
        "f = jax.jit(update)\n"
        "w, v = jnp.ones(3), 0.0\n"
        "for _ in range(3):\n"
        "    w, v = f(w, v)\n"),
    "optimizer_count_becomes_float": (
        "an Adam-like count started as 0, returned as count + 1.0 (a float)",
        "def update(count, w):\n"
        "    count = count + 1.0\n"
        "    return count, w * (1 - 0.9 ** count)\n"
        "f = jax.jit(update)\n"
        "count, w = 0, jnp.ones(3)\n"
        "for _ in range(3):\n"
        "    count, w = f(count, w)\n"),
    "last_partial_batch_dict": (
        "batches as dicts {'x', 'y'}: the last, short one compiles anew",
        "data = {'x': jnp.ones((10, 3)), 'y': jnp.ones(10)}\n"
        "step = jax.jit(lambda b: ((b['x'].sum(axis=1) - b['y']) ** 2).mean())\n"
        "for i in range(0, 10, 4):\n"
        "    step({k: v[i:i + 4] for k, v in data.items()})\n"),
    "prng_key_raw_then_typed": (
        "a raw jax.random.PRNGKey, then a typed jax.random.key",
        "f = jax.jit(lambda k: jax.random.normal(k, (3,)))\n"
        "f(jax.random.PRNGKey(0)); f(jax.random.key(0))\n"),
    "numbers_then_keys": (
        "one jitted function given an array of numbers, then an array of typed keys",
        "f = jax.jit(lambda x: x[::-1])\n"
        "f(jnp.ones(4)); f(jax.random.split(jax.random.key(0), 4))\n"),
    "prng_key_impl_changed": (
        "a key of the rbg implementation, then a threefry one (the default)",
        "f = jax.jit(lambda k: jax.random.uniform(k, (3,)))\n"
        "f(jax.random.key(0, impl='rbg')); f(jax.random.key(1))\n"),
    "debug_nans_toggled": (
        "jax_debug_nans switched on between two calls",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "jax.config.update('jax_debug_nans', True)\n"
        "try:\n"
        "    f(jnp.ones(3))\n"
        "finally:\n"
        "    jax.config.update('jax_debug_nans', False)\n"),
    "numpy_rank_promotion_context": (
        "a call inside jax.numpy_rank_promotion('raise'), then outside",
        "f = jax.jit(lambda x, y: x + y)\n"
        "f(jnp.ones(3), jnp.ones(3))\n"
        "with jax.numpy_rank_promotion('raise'):\n"
        "    f(jnp.ones(3), jnp.ones(3))\n"
        "f(jnp.ones(3), jnp.ones(3))\n"),
    "checking_leaks_around_a_call": (
        "a call inside jax.checking_leaks() (a learner hunting a leak): a hit, no trace again",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "with jax.checking_leaks():\n"
        "    f(jnp.ones(3))\n"),
    "set_mesh_around_a_call": (
        "a call outside set_mesh, then inside (a 1-device mesh): the trace context changed",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(4))\n"
        "with jax.set_mesh(jax.make_mesh((1,), ('x',))):\n"
        "    f(jnp.ones(4))\n"),
    "enable_x64_context": (
        "a call with a Python float inside jax.enable_x64(True)",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(1.0)\n"
        "with jax.enable_x64(True):\n"
        "    f(1.0)\n"),
    "disable_jit_then_jit": (
        "calls under jax.disable_jit() trace nothing; the first call after it traces",
        "f = jax.jit(lambda x: x * 2)\n"
        "with jax.disable_jit():\n"
        "    f(jnp.ones(3)); f(jnp.ones(4))\n"
        "f(jnp.ones(3))\n"),
    "named_scope_around_call": (
        "a call inside jax.named_scope('layer'), then outside: a hit",
        "f = jax.jit(lambda x: x * 2)\n"
        "with jax.named_scope('layer'):\n"
        "    f(jnp.ones(3))\n"
        "f(jnp.ones(3))\n"),
    "checkpoint_policy_jit_made_anew": (
        "jax.jit(jax.grad(jax.checkpoint(loss, policy=p))) made for each of two policies",
        "def loss(x):\n"
        "    return jnp.sin(x).sum()\n"
        "for policy in (None, jax.checkpoint_policies.dots_saveable):\n"
        "    jax.jit(jax.grad(jax.checkpoint(loss, policy=policy)))(jnp.ones(3))\n"),
    "checkpoint_inside_jit_new_shape": (
        "a jitted step using jax.checkpoint(layer) inside, on a longer input",
        "def layer(x):\n"
        "    return jnp.sin(x) * 2\n"
        "f = jax.jit(lambda x: jax.grad(lambda y: jax.checkpoint(layer)(y).sum())(x))\n"
        "f(jnp.ones(3)); f(jnp.ones(3)); f(jnp.ones(4))\n"),
    "closure_array_rebound_new_shape": (
        "a closed-over global array rebound to another shape: a hit, the old array kept",
        "w = jnp.ones(3)\n"
        "f = jax.jit(lambda x: x * w)\n"
        "f(jnp.ones(3)); w = jnp.full(1, 5.0); out = f(jnp.ones(3))\n"),
    "closure_number_rebound": (
        "a global number read by a jitted function, rebound: a hit, the old number kept",
        "k = 2.0\n"
        "f = jax.jit(lambda x: x * k)\n"
        "f(jnp.ones(3)); k = 3.0; out = f(jnp.ones(3))\n"),
    "closure_numpy_array_mutated": (
        "a closed-over NumPy array changed in place: a hit, the old values kept",
        "w = np.ones(3, np.float32)\n"
        "f = jax.jit(lambda x: x * w)\n"
        "f(jnp.ones(3)); w[0] = 5.0; out = f(jnp.ones(3))\n"),
    "helper_global_rebound": (
        "a global number read by a helper the jitted function calls, rebound: a hit, the old "
        "number kept",
        "k = 2.0\n"
        "def helper(x):\n"
        "    return x * k\n"
        "f = jax.jit(lambda x: helper(x) + 1)\n"
        "f(jnp.ones(3)); k = 3.0; out = f(jnp.ones(3))\n"),
    "helper_global_passed_on": (
        "the fix for helper_global_rebound: the number passed to the jitted function and on to "
        "its helper: a hit, the new number used",
        "def helper(x, k):\n"
        "    return x * k\n"
        "f = jax.jit(lambda x, k: helper(x, k) + 1)\n"
        "f(jnp.ones(3), 2.0); out = f(jnp.ones(3), 3.0)\n"),
    "loop_body_global_rebound": (
        "a global number read by a fori_loop body written inside the jitted function, rebound: "
        "a hit, the old number kept",
        "k = 2.0\n"
        "@jax.jit\n"
        "def f(x):\n"
        "    return jax.lax.fori_loop(0, 2, lambda i, c: c * k, x)\n"
        "f(jnp.ones(3)); k = 3.0; out = f(jnp.ones(3))\n"),
    "jit_decorated_def_in_two_cells": (
        "the same @jax.jit def run again as a later cell (its code on another line): a new "
        "function, never seen",
        "cell = '@jax.jit\\ndef f(x):\\n    return x * 2\\nf(jnp.ones(3))\\n'\n"
        "exec(compile(cell, FILE, 'exec'), globals())\n"
        "exec(compile('\\n' * 5 + cell, FILE, 'exec'), globals())\n"),
    "static_argnames_misspelled": (
        "static_argnames naming no parameter ('N' for n): an error, as jit is made",
        "def scale(x, n):\n"
        "    return x * n\n"
        "f = jax.jit(scale, static_argnames='N')\n"
        "f(jnp.ones(3), 2); f(jnp.ones(3), 3)\n"),
    "vmap_of_jit_in_axes_changes": (
        "vmap of a jitted function over axis 0, then axis 1: rows of another length",
        "f = jax.jit(lambda x: x.sum())\n"
        "jax.vmap(f, in_axes=0)(jnp.ones((2, 3))); jax.vmap(f, in_axes=1)(jnp.ones((2, 3)))\n"),
    "jitted_step_defined_inside_train": (
        "a @jax.jit step defined inside train(), train() called twice: a new step each time",
        "def train(x):\n"
        "    @jax.jit\n"
        "    def step(x):\n"
        "        return x * 0.5\n"
        "    return step(x)\n"
        "train(jnp.ones(3)); train(jnp.ones(3))\n"),
    "static_frozen_dataclass_with_list_field": (
        "a frozen dataclass config with a list field as a static argument: an error",
        "import dataclasses\n"
        "@dataclasses.dataclass(frozen=True)\n"
        "class Config:\n"
        "    sizes: list\n"
        "f = jax.jit(lambda x, cfg: x * len(cfg.sizes), static_argnums=1)\n"
        "f(jnp.ones(3), Config([2, 3]))\n"),
    "list_of_python_floats_new_values": (
        "a list of Python floats with new values each call: a hit (each a weak f32 leaf)",
        "f = jax.jit(lambda xs: xs[0] + xs[1])\n"
        "f([1.0, 2.0]); f([3.0, 4.0])\n"),
    "static_numpy_int_then_python_int": (
        "a static size as np.int32(3) (from an array's arithmetic), then a Python 3",
        "f = jax.jit(lambda x, n: jnp.tile(x, n), static_argnums=1)\n"
        "f(jnp.ones(2), np.int32(3)); f(jnp.ones(2), 3)\n"),
    "params_list_returned_as_tuple": (
        "params passed as a list, the step returning a tuple fed back: the second step compiles",
        "def step(params):\n"
        "    w, b = params\n"
        "    return (w * 0.9, b * 0.9)\n"
        "f = jax.jit(step)\n"
        "params = [jnp.ones(3), jnp.ones(())]\n"
        "for _ in range(3):\n"
        "    params = f(params)\n"),
    "jit_of_vmap_made_anew": (
        "jax.jit(jax.vmap(f)) made anew in a loop",
        "def row(x):\n"
        "    return x.sum()\n"
        "for i in range(2):\n"
        "    jax.jit(jax.vmap(row))(jnp.ones((4, 3)))\n"),
    "static_float_from_arithmetic": (
        "a static learning rate 0.1 * 3, then 0.3 (not equal in floating point)",
        "f = jax.jit(lambda w, lr: w - lr * w, static_argnums=1)\n"
        "f(jnp.ones(3), 0.1 * 3); f(jnp.ones(3), 0.3)\n"),
    "second_axis_grows": (
        "rows of 3 features, then of 4 (the second axis grows)",
        "f = jax.jit(lambda x: (x ** 2).sum(axis=1))\n"
        "f(jnp.ones((5, 3))); f(jnp.ones((5, 4)))\n"),
    "static_argnums_out_of_range": (
        "static_argnums=2 for a function of two arguments: an error, as jit is made",
        "f = jax.jit(lambda x, n: x * n, static_argnums=2)\n"
        "f(jnp.ones(3), 2); f(jnp.ones(3), 3)\n"),
    # -------------------------------------------------- the fixes told for them, applied
    # (tests/views/test_recompile_corpus.py's APPLIED_RECORDED: JAX lowers each once)
    "static_lambda_made_once_fixed": (
        "static_lambda_each_call with its fix: the function made once, outside the loop",
        "def apply(fn, x):\n"
        "    return fn(x)\n"
        "f = jax.jit(apply, static_argnums=0)\n"
        "fn = lambda x: x * 2\n"
        "for i in range(3):\n"
        "    f(fn, jnp.ones(3))\n"),
    "namedtuple_then_tuple_fixed": (
        "namedtuple_then_tuple with its fix: p = Point(*p) before each call",
        "import collections\n"
        "Point = collections.namedtuple('Point', 'x y')\n"
        "f = jax.jit(lambda p: p[0] + p[1])\n"
        "for p in (Point(jnp.ones(2), jnp.ones(2)), (jnp.ones(2), jnp.ones(2))):\n"
        "    p = Point(*p)\n"
        "    f(p)\n"),
    "none_then_empty_tuple_fixed": (
        "none_then_empty_tuple with its fix: p['extra'] = None before each call",
        "f = jax.jit(lambda p: p['w'] * 2)\n"
        "for p in ({'w': jnp.ones(2), 'extra': None}, {'w': jnp.ones(2), 'extra': ()}):\n"
        "    p['extra'] = None\n"
        "    f(p)\n"),
    "none_leaf_fixed": (
        "none_leaf with its fix: zeros where None was",
        "f = jax.jit(lambda p: p['w'] if p['b'] is None else p['w'] + p['b'])\n"
        "for p in ({'w': jnp.ones(2), 'b': None}, {'w': jnp.ones(2), 'b': jnp.ones(2)}):\n"
        "    p['b'] = jnp.zeros((2,)) if p['b'] is None else p['b']\n"
        "    f(p)\n"),
    "velocity_starts_as_python_float_fixed": (
        "velocity_starts_as_python_float with its fix: v made with w's shape from the start",
        "def update(w, v):\n"
        "    v = 0.9 * v + w\n"
        "    return w - 0.1 * v, v\n"
        "f = jax.jit(update)\n"
        "w, v = jnp.ones(3), 0.0\n"
        "v = jnp.broadcast_to(jnp.asarray(v, jnp.float32), (3,))\n"
        "for _ in range(3):\n"
        "    w, v = f(w, v)\n"),
    "last_partial_batch_dict_fixed": (
        "last_partial_batch_dict with its fix: both leaves padded to 4 rows, and a mask",
        "data = {'x': jnp.ones((10, 3)), 'y': jnp.ones(10)}\n"
        "step = jax.jit(lambda b, mask: ((((b['x'].sum(axis=1) - b['y']) ** 2) * mask).sum()\n"
        "                                / mask.sum()))\n"
        "for i in range(0, 10, 4):\n"
        "    b = {k: v[i:i + 4] for k, v in data.items()}\n"
        "    n = b['x'].shape[0]\n"
        "    b['x'] = jnp.pad(b['x'], [(0, 4 - n)] + [(0, 0)] * (b['x'].ndim - 1))\n"
        "    n = b['y'].shape[0]\n"
        "    b['y'] = jnp.pad(b['y'], [(0, 4 - n)] + [(0, 0)] * (b['y'].ndim - 1))\n"
        "    mask = jnp.arange(4) < n\n"
        "    step(b, mask)\n"),
    "prng_key_raw_then_typed_fixed": (
        "prng_key_raw_then_typed with its fix: raw keys wrapped, typed keys every call",
        "f = jax.jit(lambda k: jax.random.normal(k, (3,)))\n"
        "for k in (jax.random.PRNGKey(0), jax.random.key(0)):\n"
        "    if not jnp.issubdtype(k.dtype, jax.dtypes.prng_key):\n"
        "        k = jax.random.wrap_key_data(k)\n"
        "    f(k)\n"),
    "prng_key_impl_changed_fixed": (
        "prng_key_impl_changed with its fix: every key made with one impl",
        "f = jax.jit(lambda k: jax.random.uniform(k, (3,)))\n"
        "f(jax.random.key(0, impl='rbg')); f(jax.random.key(1, impl='rbg'))\n"),
    "enable_x64_context_fixed": (
        "enable_x64_context with its fix: jax_enable_x64 set once, first thing",
        "jax.config.update('jax_enable_x64', True)\n"
        "try:\n"
        "    f = jax.jit(lambda x: x * 2)\n"
        "    f(1.0)\n"
        "    with jax.enable_x64(True):\n"
        "        f(1.0)\n"
        "finally:\n"
        "    jax.config.update('jax_enable_x64', False)\n"),
    "optimizer_state_dtype_promotes_fixed": (
        "optimizer_state_dtype_promotes with its fix: m cast to bfloat16 before each call",
        "def update(w, m, g):\n"
        "    m = 0.9 * m + 0.1 * g\n"
        "    return w - 0.01 * m, m\n"
        "f = jax.jit(update)\n"
        "w, m = jnp.ones(3), jnp.zeros(3, jnp.bfloat16)\n"
        "for _ in range(3):\n"
        "    m = jnp.asarray(m, jnp.bfloat16)\n"
        "    w, m = f(w, m, jnp.ones(3))\n"),
    "optimizer_count_becomes_float_fixed": (
        "optimizer_count_becomes_float with its fix: count = float(count) before each call",
        "def update(count, w):\n"
        "    count = count + 1.0\n"
        "    return count, w * (1 - 0.9 ** count)\n"
        "f = jax.jit(update)\n"
        "count, w = 0, jnp.ones(3)\n"
        "for _ in range(3):\n"
        "    count = float(count)\n"
        "    count, w = f(count, w)\n"),
    "checkpoint_policy_jit_made_once_fixed": (
        "checkpoint_policy_jit_made_anew with its fix: the jitted step made once, called twice",
        "def loss(x):\n"
        "    return jnp.sin(x).sum()\n"
        "loss_jit = jax.jit(jax.grad(jax.checkpoint(loss)))\n"
        "for i in range(2):\n"
        "    loss_jit(jnp.ones(3))\n"),
    "static_eq_with_hash_fixed": (
        "static_eq_without_hash with its fix: a __hash__ beside __eq__",
        "class Config:\n"
        "    def __init__(self, k):\n"
        "        self.k = k\n"
        "    def __eq__(self, other):\n"
        "        return self.k == other.k\n"
        "    def __hash__(self):\n"
        "        return hash(tuple(vars(self).values()))\n"
        "f = jax.jit(lambda x, cfg: x * cfg.k, static_argnums=1)\n"
        "f(jnp.ones(3), Config(2.0)); f(jnp.ones(3), Config(2.0))\n"),
    "static_numpy_int_then_python_int_fixed": (
        "static_numpy_int_then_python_int with its fix: n = int(n) before each call",
        "f = jax.jit(lambda x, n: jnp.tile(x, n), static_argnums=1)\n"
        "for n in (np.int32(3), 3):\n"
        "    n = int(n)\n"
        "    f(jnp.ones(2), n)\n"),
    "static_frozen_dataclass_with_tuple_field_fixed": (
        "static_frozen_dataclass_with_list_field with its fix: the field a tuple",
        "import dataclasses\n"
        "@dataclasses.dataclass(frozen=True)\n"
        "class Config:\n"
        "    sizes: tuple\n"
        "f = jax.jit(lambda x, cfg: x * len(cfg.sizes), static_argnums=1)\n"
        "f(jnp.ones(3), Config(sizes=tuple([2, 3]))); f(jnp.ones(3), Config(sizes=(2, 3)))\n"),
    "params_list_returned_as_tuple_fixed": (
        "params_list_returned_as_tuple with its fix: params = list(params) before each call",
        "def step(params):\n"
        "    w, b = params\n"
        "    return (w * 0.9, b * 0.9)\n"
        "f = jax.jit(step)\n"
        "params = [jnp.ones(3), jnp.ones(())]\n"
        "for _ in range(3):\n"
        "    params = list(params)\n"
        "    params = f(params)\n"),
    "second_axis_grows_fixed": (
        "second_axis_grows with its fix: the second axis padded to a power of two, at least 4",
        "f = jax.jit(lambda x: (x ** 2).sum(axis=1))\n"
        "for x in (jnp.ones((5, 3)), jnp.ones((5, 4))):\n"
        "    n = x.shape[1]\n"
        "    size = max(4, 1 << (n - 1).bit_length())\n"
        "    x = jnp.pad(x, [(0, 0)] * 1 + [(0, size - n)] + [(0, 0)] * (x.ndim - 1 - 1))\n"
        "    f(x)\n"),
    "lengths_bucketed_fixed": (
        "the bucketing fix applied to lengths 1 to 64: buckets 4, 8, 16, 32, 64, five programs "
        "(what the fix promises: lengths up to 4 share one, each doubling adds one)",
        "f = jax.jit(lambda x: x.sum())\n"
        "for n in range(1, 65):\n"
        "    x = jnp.ones(n)\n"
        "    size = max(4, 1 << (n - 1).bit_length())    # a power of two, at least 4\n"
        "    x = jnp.pad(x, [(0, size - n)] + [(0, 0)] * (x.ndim - 1))\n"
        "    f(x)\n"),
    "vmap_of_jit_rows_grow": (
        "vmap of a jitted function over rows of length 3, then 5: the rows' trace misses",
        "f = jax.jit(lambda x: x.sum())\n"
        "jax.vmap(f)(jnp.ones((2, 3))); jax.vmap(f)(jnp.ones((2, 5)))\n"),
    "vmap_of_jit_rows_grow_fixed": (
        "vmap_of_jit_rows_grow with its fix: the array given to vmap padded along the rows' axis",
        "f = jax.jit(lambda x: x.sum())\n"
        "for xs in (jnp.ones((2, 3)), jnp.ones((2, 5))):\n"
        "    n = xs.shape[1]    # xs: the array given to vmap (mapped over axis 0)\n"
        "    size = max(8, 1 << (n - 1).bit_length())    # a power of two, at least 8\n"
        "    xs = jnp.pad(xs, [(0, 0)] * 1 + [(0, size - n)] + [(0, 0)] * (xs.ndim - 2))\n"
        "    jax.vmap(f)(xs)\n"),
    "jitted_step_defined_once_fixed": (
        "jitted_step_defined_inside_train with its fix: the jitted step made once, outside",
        "@jax.jit\n"
        "def step(x):\n"
        "    return x * 0.5\n"
        "def train(x):\n"
        "    return step(x)\n"
        "train(jnp.ones(3)); train(jnp.ones(3))\n"),
    # -------------------------------------------------- a learner's third pass (stop 71)
    "static_self_plain_dataclass": (
        "a method of a plain @dataclass jitted with self static: unhashable (eq=True sets "
        "__hash__ to None), an error",
        "import dataclasses\n"
        "@dataclasses.dataclass\n"
        "class Model:\n"
        "    k: float\n"
        "    def apply(self, x):\n"
        "        return x * self.k\n"
        "f = jax.jit(Model.apply, static_argnums=0)\n"
        "f(Model(2.0), jnp.ones(3))\n"),
    "static_self_plain_dataclass_fixed": (
        "static_self_plain_dataclass with its fix: frozen=True (hashed by its fields): an "
        "equal model is a hit",
        "import dataclasses\n"
        "@dataclasses.dataclass(frozen=True)\n"
        "class Model:\n"
        "    k: float\n"
        "    def apply(self, x):\n"
        "        return x * self.k\n"
        "f = jax.jit(Model.apply, static_argnums=0)\n"
        "f(Model(2.0), jnp.ones(3)); f(Model(2.0), jnp.ones(3))\n"),
    "static_self_array_field": (
        "a method of a frozen dataclass holding an array, self static: an error (an array "
        "is not hashable)",
        "import dataclasses\n"
        "@dataclasses.dataclass(frozen=True)\n"
        "class Model:\n"
        "    w: object\n"
        "    def apply(self, x):\n"
        "        return x * self.w\n"
        "f = jax.jit(Model.apply, static_argnums=0)\n"
        "f(Model(jnp.ones(3)), jnp.ones(3))\n"),
    "static_self_array_field_fixed": (
        "static_self_array_field with its fix: Model a pytree with w a data field, self traced",
        "import dataclasses\n"
        "@dataclasses.dataclass(frozen=True)\n"
        "class Model:\n"
        "    w: object\n"
        "    def apply(self, x):\n"
        "        return x * self.w\n"
        "jax.tree_util.register_dataclass(Model, data_fields=['w'], meta_fields=[])\n"
        "f = jax.jit(Model.apply)\n"
        "f(Model(jnp.ones(3)), jnp.ones(3)); f(Model(jnp.zeros(3)), jnp.ones(3))\n"),
    "static_nan": (
        "a static float('nan'), twice: nan != nan, so each call is a new key",
        "f = jax.jit(lambda x, eps: x + eps, static_argnums=1)\n"
        "f(jnp.ones(3), float('nan')); f(jnp.ones(3), float('nan'))\n"),
    "static_nan_fixed": (
        "static_nan with its fix: eps traced",
        "f = jax.jit(lambda x, eps: x + eps)\n"
        "f(jnp.ones(3), float('nan')); f(jnp.ones(3), float('nan'))\n"),
    "static_dtype_scalar_type_then_dtype": (
        "a static dtype given as jnp.float32, then as x.dtype (a NumPy dtype): two keys",
        "def cast(x, dtype):\n"
        "    return x.astype(dtype)\n"
        "f = jax.jit(cast, static_argnames='dtype')\n"
        "x = jnp.ones(3)\n"
        "f(x, dtype=jnp.float32); f(x, dtype=x.dtype)\n"),
    "static_dtype_scalar_type_then_dtype_fixed": (
        "static_dtype_scalar_type_then_dtype with its fix: dtype = jnp.dtype(dtype) each call "
        "(np.float32 and 'float32' too: one key)",
        "def cast(x, dtype):\n"
        "    return x.astype(dtype)\n"
        "f = jax.jit(cast, static_argnames='dtype')\n"
        "x = jnp.ones(3)\n"
        "for dtype in (jnp.float32, x.dtype, np.float32, 'float32'):\n"
        "    dtype = jnp.dtype(dtype)\n"
        "    f(x, dtype=dtype)\n"),
    "ordereddict_order": (
        "an OrderedDict with its keys in another order: its order is its structure",
        "import collections\n"
        "f = jax.jit(lambda p: p['a'] + p['b'])\n"
        "f(collections.OrderedDict(a=jnp.ones(2), b=jnp.ones(2)))\n"
        "f(collections.OrderedDict(b=jnp.ones(2), a=jnp.ones(2)))\n"),
    "ordereddict_order_fixed": (
        "ordereddict_order with its fix: p = dict(p) (a dict's keys are sorted)",
        "import collections\n"
        "f = jax.jit(lambda p: p['a'] + p['b'])\n"
        "for p in (collections.OrderedDict(a=jnp.ones(2), b=jnp.ones(2)),\n"
        "          collections.OrderedDict(b=jnp.ones(2), a=jnp.ones(2))):\n"
        "    p = dict(p)\n"
        "    f(p)\n"),
    "defaultdict_then_dict": (
        "a defaultdict, then a dict of the same key",
        "import collections\n"
        "f = jax.jit(lambda p: p['a'] * 2)\n"
        "d = collections.defaultdict(float)\n"
        "d['a'] = jnp.ones(2)\n"
        "f(d); f({'a': jnp.ones(2)})\n"),
    "pytree_aux_data_compared_by_identity": (
        "a pytree class whose aux data is an object without __eq__: a new one each call "
        "is a new structure",
        "class Meta:\n"
        "    def __init__(self, name):\n"
        "        self.name = name\n"
        "class Box:\n"
        "    def __init__(self, w, meta):\n"
        "        self.w, self.meta = w, meta\n"
        "jax.tree_util.register_pytree_node(\n"
        "    Box, lambda b: ((b.w,), b.meta), lambda meta, ws: Box(ws[0], meta))\n"
        "f = jax.jit(lambda b: b.w * 2)\n"
        "f(Box(jnp.ones(2), Meta('a'))); f(Box(jnp.ones(2), Meta('a')))\n"),
    "pytree_aux_data_compared_by_identity_fixed": (
        "pytree_aux_data_compared_by_identity with its fix: Meta a frozen dataclass "
        "(== and hash by its fields)",
        "import dataclasses\n"
        "@dataclasses.dataclass(frozen=True)\n"
        "class Meta:\n"
        "    name: str\n"
        "class Box:\n"
        "    def __init__(self, w, meta):\n"
        "        self.w, self.meta = w, meta\n"
        "jax.tree_util.register_pytree_node(\n"
        "    Box, lambda b: ((b.w,), b.meta), lambda meta, ws: Box(ws[0], meta))\n"
        "f = jax.jit(lambda b: b.w * 2)\n"
        "f(Box(jnp.ones(2), Meta('a'))); f(Box(jnp.ones(2), Meta('a')))\n"),
    "history_concatenate_grows": (
        "a loss history grown with jnp.concatenate inside the jitted step: a compile a step",
        "step = jax.jit(lambda hist, x: jnp.concatenate([hist, x.sum()[None]]))\n"
        "hist = jnp.zeros(0)\n"
        "for i in range(3):\n"
        "    hist = step(hist, jnp.ones(3))\n"),
    "boolean_mask_outside_jit": (
        "x[x > 0] (as many items as pass) passed to a jitted function: a shape per count",
        "f = jax.jit(lambda v: v.mean())\n"
        "x = jnp.array([1.0, -2.0, 3.0, -4.0])\n"
        "f(x[x > 0]); f(x[x > -3])\n"),
    "string_argument_not_static": (
        "a string passed traced (not in static_argnames): an error, nothing traced",
        "def g(x, mode):\n"
        "    return jnp.sin(x) if mode == 'sin' else jnp.cos(x)\n"
        "f = jax.jit(g)\n"
        "f(jnp.ones(2), 'sin')\n"),
    "donate_argnums_zero_then_one": (
        "one def jitted with donate_argnums=0, then with donate_argnums=1: traced once, "
        "compiled twice",
        "def g(x, y):\n"
        "    return x + y\n"
        "jax.jit(g, donate_argnums=0)(jnp.ones(3), jnp.ones(3))\n"
        "jax.jit(g, donate_argnums=1)(jnp.ones(3), jnp.ones(3))\n"),
    "keep_unused_added": (
        "one def jitted without, then with keep_unused=True: traced and compiled once",
        "def g(x, y):\n"
        "    return x * 2\n"
        "jax.jit(g)(jnp.ones(3), jnp.ones(3))\n"
        "jax.jit(g, keep_unused=True)(jnp.ones(3), jnp.ones(3))\n"),
    "jit_of_grad_made_anew": (
        "jax.jit(jax.grad(loss)) made anew at each step of a training loop",
        "def loss(w):\n"
        "    return (w ** 2).sum()\n"
        "w = jnp.ones(3)\n"
        "for i in range(3):\n"
        "    w = w - 0.1 * jax.jit(jax.grad(loss))(w)\n"),
    "wrapper_decorator_each_call": (
        "jax.jit(logged(g)) with a functools.wraps decorator applied anew each time",
        "import functools\n"
        "def logged(fn):\n"
        "    @functools.wraps(fn)\n"
        "    def wrapper(*a):\n"
        "        return fn(*a)\n"
        "    return wrapper\n"
        "def g(x):\n"
        "    return x * 2\n"
        "for i in range(2):\n"
        "    jax.jit(logged(g))(jnp.ones(3))\n"),
    "same_jit_called_from_two_cells": (
        "one jitted function called from two later cells, each with its own length",
        "f = jax.jit(lambda x: x * 2)\n"
        "exec(compile('f(jnp.ones(3))', FILE, 'exec'))\n"
        "exec(compile('\\n\\nf(jnp.ones(4))', FILE, 'exec'))\n"),
    "python_complex_then_float": (
        "a Python float, then a Python complex",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(1.0); f(1j)\n"),
    "x64_numpy_float64_after_float32": (
        "with jax_enable_x64 on, a NumPy float32 array, then np.ones (float64)",
        "jax.config.update('jax_enable_x64', True)\n"
        "try:\n"
        "    f = jax.jit(lambda x: x * 2)\n"
        "    f(np.ones(3, np.float32)); f(np.ones(3))\n"
        "finally:\n"
        "    jax.config.update('jax_enable_x64', False)\n"),
    "bool_mask_then_float_mask": (
        "a bool mask, then a float mask of 0.0 and 1.0",
        "f = jax.jit(lambda x, m: jnp.where(m, x, 0.0))\n"
        "f(jnp.ones(3), jnp.array([True, False, True]))\n"
        "f(jnp.ones(3), jnp.array([1.0, 0.0, 1.0]))\n"),
    "transposed_twice_is_a_hit": (
        "a.T.T and a transposed (3, 2) array: the same shape as a, a cache hit",
        "f = jax.jit(lambda a: a @ jnp.ones(3))\n"
        "a = jnp.ones((2, 3))\n"
        "f(a); f(a.T.T); f(jnp.ones((3, 2)).T)\n"),
    "static_tuple_holding_a_list": (
        "a static tuple holding a list: an error, nothing traced",
        "f = jax.jit(lambda x, shape: x.reshape(shape[0]), static_argnums=1)\n"
        "f(jnp.ones(6), ([2, 3],))\n"),
    "static_numpy_type_then_jnp_type_then_string": (
        "a static dtype as np.float32, then jnp.float32, then 'float32': three keys",
        "def cast(x, dtype):\n"
        "    return x.astype(dtype)\n"
        "f = jax.jit(cast, static_argnums=1)\n"
        "f(jnp.ones(3), np.float32); f(jnp.ones(3), jnp.float32); f(jnp.ones(3), 'float32')\n"),
    "static_shape_tuple_changes": (
        "a static shape tuple, (2, 3) then (3, 2): one program per shape",
        "f = jax.jit(lambda x, shape: x.reshape(shape), static_argnums=1)\n"
        "f(jnp.ones(6), (2, 3)); f(jnp.ones(6), (3, 2)); f(jnp.ones(6), (2, 3))\n"),
    "static_int_then_bool": (
        "a static flag 1, then True: equal, other types, two keys",
        "f = jax.jit(lambda x, flag: x * 2 if flag else x, static_argnums=1)\n"
        "f(jnp.ones(3), 1); f(jnp.ones(3), True)\n"),
    "static_keywords_one_then_the_other": (
        "two static keywords with defaults: a passed, then b passed instead",
        "def g(x, *, a=1, b=2):\n"
        "    return x * a + b\n"
        "f = jax.jit(g, static_argnames=('a', 'b'))\n"
        "f(jnp.ones(2), a=1); f(jnp.ones(2), b=2)\n"),
    "int_array_then_float_array": (
        "jnp.array([1, 2, 3]) (int32), then jnp.array([1., 2., 3.])",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.array([1, 2, 3])); f(jnp.array([1., 2., 3.]))\n"),
    "uint8_image_then_float": (
        "an image as uint8, then as float32",
        "f = jax.jit(lambda img: img / 255.0)\n"
        "f(np.zeros((2, 2), np.uint8)); f(np.zeros((2, 2), np.float32))\n"),
    "python_floats_in_a_list_then_an_int": (
        "a list of Python floats, then one of them an int",
        "f = jax.jit(lambda xs: xs[0] + xs[1])\n"
        "f([1.0, 2.0]); f([1, 2.0])\n"),
    "scalar_then_one_element_array": (
        "jnp.float32(1.0) (a scalar), then jnp.array([1.0]) (one element, rank 1)",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.float32(1.0)); f(jnp.array([1.0]))\n"),
    "varargs_count_changes": (
        "*args: two arrays, then three",
        "def g(*xs):\n"
        "    return sum(xs)\n"
        "f = jax.jit(g)\n"
        "f(jnp.ones(2), jnp.ones(2)); f(jnp.ones(2), jnp.ones(2), jnp.ones(2))\n"),
    "matmul_precision_updated_globally": (
        "jax.config.update('jax_default_matmul_precision', 'highest') between two calls",
        "f = jax.jit(lambda a, b: a @ b)\n"
        "a = jnp.ones((2, 2))\n"
        "f(a, a)\n"
        "jax.config.update('jax_default_matmul_precision', 'highest')\n"
        "try:\n"
        "    f(a, a)\n"
        "finally:\n"
        "    jax.config.update('jax_default_matmul_precision', None)\n"),
    "dtype_promotion_strict_updated": (
        "jax.config.update('jax_numpy_dtype_promotion', 'strict') between two calls",
        "f = jax.jit(lambda a: a * 2)\n"
        "f(jnp.ones(2))\n"
        "jax.config.update('jax_numpy_dtype_promotion', 'strict')\n"
        "try:\n"
        "    f(jnp.ones(2))\n"
        "finally:\n"
        "    jax.config.update('jax_numpy_dtype_promotion', 'standard')\n"),
    "jitted_method_of_a_pytree_dataclass": (
        "@jax.jit on a method of a registered dataclass (self traced), a model of another size",
        "import dataclasses\n"
        "@jax.tree_util.register_dataclass\n"
        "@dataclasses.dataclass\n"
        "class Model:\n"
        "    w: object\n"
        "    @jax.jit\n"
        "    def apply(self, x):\n"
        "        return x * self.w\n"
        "Model(jnp.ones(3)).apply(jnp.ones(3)); Model(jnp.ones(4)).apply(jnp.ones(4))\n"),
    "list_meta_field_equal": (
        "a register_dataclass meta field holding an equal list: a hit",
        "import dataclasses, functools\n"
        "@functools.partial(jax.tree_util.register_dataclass, data_fields=['w'],\n"
        "                   meta_fields=['sizes'])\n"
        "@dataclasses.dataclass\n"
        "class Layer:\n"
        "    w: object\n"
        "    sizes: list\n"
        "f = jax.jit(lambda l: l.w * 2)\n"
        "f(Layer(jnp.ones(3), [1, 2])); f(Layer(jnp.ones(3), [1, 2]))\n"),
    "lambda_default_in_a_loop": (
        "jax.jit(lambda x, k=k: x * k) in a loop over k: a new function each time",
        "for k in (1.0, 2.0):\n"
        "    jax.jit(lambda x, k=k: x * k)(jnp.ones(3))\n"),
    "lambda_default_in_a_loop_fixed": (
        "lambda_default_in_a_loop with its fix: one jitted lambda, k passed in each call",
        "f = jax.jit(lambda x, k: x * k)    # once, outside the loop: no default\n"
        "for k in (1.0, 2.0):\n"
        "    y = f(jnp.ones(3), k)    # k passed in each call\n"),
    "int_array_then_float_array_fixed": (
        "int_array_then_float_array with its fix: x cast to float32 (not to int32, which "
        "would truncate the floats)",
        "f = jax.jit(lambda x: x * 2)\n"
        "for x in (jnp.array([1, 2, 3]), jnp.array([1.5, 2., 3.])):\n"
        "    x = jnp.asarray(x, jnp.float32)\n"
        "    y = f(x)\n"),
    "uint8_image_then_float_fixed": (
        "uint8_image_then_float with its fix: img cast to float32 (uint8 would truncate)",
        "f = jax.jit(lambda img: img / 255.0)\n"
        "for img in (np.zeros((2, 2), np.uint8), np.full((2, 2), 0.5, np.float32)):\n"
        "    img = jnp.asarray(img, jnp.float32)\n"
        "    y = f(img)\n"),
    "history_concatenate_grows_fixed": (
        "history_concatenate_grows with its fix: the history made at its full size once, each "
        "step's value written at a traced index",
        "step = jax.jit(lambda hist, i, x: hist.at[i].set(x.sum()))\n"
        "hist = jnp.zeros((3,))    # n_steps, once, before the loop\n"
        "for i in range(3):\n"
        "    hist = step(hist, i, jnp.ones(3))\n"),
    "callable_object_jitted_anew": (
        "jax.jit(Model(k)) of a new callable object in a loop: traced and compiled each time "
        "(JAX logs 'never seen function: <unknown>', defined nowhere, twice)",
        "class Model:\n"
        "    def __init__(self, k):\n"
        "        self.k = k\n"
        "    def __call__(self, x):\n"
        "        return x * self.k\n"
        "for k in (1.0, 2.0):\n"
        "    jax.jit(Model(k))(jnp.ones(3))\n"),
    "callable_object_new_shape": (
        "jax.jit(Model()) made once, called with a new length (JAX logs 'for <unknown>', "
        "defined nowhere: an object has no code of its own)",
        "class Model:\n"
        "    def __init__(self, k):\n"
        "        self.k = k\n"
        "    def __call__(self, x):\n"
        "        return x * self.k\n"
        "f = jax.jit(Model(2.0))\n"
        "f(jnp.ones(3)); f(jnp.ones(4))\n"),
    "partial_made_once_new_shape": (
        "jax.jit(functools.partial(g, k)) made once, called with a new length (JAX names g, "
        "where g was defined)",
        "import functools\n"
        "def g(k, x):\n"
        "    return x * k\n"
        "f = jax.jit(functools.partial(g, 2.0))\n"
        "f(jnp.ones(3)); f(jnp.ones(4))\n"),
    # ------------------------------------ a learner's notebook: five more common reasons
    "pytree_aux_float_decays": (
        "a registered class keeping its decaying learning rate in the aux data: a new "
        "structure, and a compile, at every step",
        "@jax.tree_util.register_pytree_node_class\n"
        "class Opt:\n"
        "    def __init__(self, lr):\n"
        "        self.lr = lr\n"
        "    def tree_flatten(self):\n"
        "        return (), self.lr\n"
        "    @classmethod\n"
        "    def tree_unflatten(cls, lr, children):\n"
        "        return cls(lr)\n"
        "step = jax.jit(lambda opt, w: w - opt.lr * w)\n"
        "opt, w = Opt(0.1), jnp.ones(3)\n"
        "for _ in range(3):\n"
        "    w = step(opt, w)\n"
        "    opt = Opt(opt.lr * 0.5)\n"),
    "loss_history_list_in_state": (
        "the losses kept in a list inside the state the jitted step takes and returns: one "
        "leaf more, and a compile, at every step",
        "def train_step(state, x):\n"
        "    loss = (state['w'] * x).sum()\n"
        "    return {'w': state['w'] - 0.1 * x, 'losses': state['losses'] + [loss]}\n"
        "step = jax.jit(train_step)\n"
        "state = {'w': jnp.ones(3), 'losses': []}\n"
        "for _ in range(3):\n"
        "    state = step(state, jnp.ones(3))\n"),
    "images_flattened_then_not": (
        "a batch of images flattened to (8, 784) for training, then given as (8, 28, 28) "
        "for evaluation (the function flattens either: two programs)",
        "w = jnp.zeros((784, 10))\n"
        "predict = jax.jit(lambda w, x: x.reshape(x.shape[0], -1) @ w)\n"
        "predict(w, jnp.ones((8, 784)))\n"
        "predict(w, jnp.ones((8, 28, 28)))\n"),
    "batch_dict_label_dtype_int_then_float": (
        "a batch dict whose labels are int32 in one batch and float32 in the next (two "
        "loaders)",
        "def loss(w, batch):\n"
        "    return ((batch['x'] @ w - batch['y']) ** 2).mean()\n"
        "f = jax.jit(loss)\n"
        "w = jnp.ones(3)\n"
        "f(w, {'x': jnp.ones((4, 3)), 'y': jnp.array([0, 1, 1, 0])})\n"
        "f(w, {'x': jnp.ones((4, 3)), 'y': jnp.array([0.0, 1.0, 1.0, 0.0])})\n"),
    "trainer_made_each_epoch": (
        "a Trainer whose __init__ jits its own method, made anew each epoch: a new jit of a "
        "new bound method, traced and compiled each epoch",
        "class Trainer:\n"
        "    def __init__(self, lr):\n"
        "        self.lr = lr\n"
        "        self.step = jax.jit(self._step)\n"
        "    def _step(self, w, g):\n"
        "        return w - self.lr * g\n"
        "w = jnp.ones(3)\n"
        "for epoch in range(3):\n"
        "    w = Trainer(0.1).step(w, jnp.ones(3))\n"),
    "pytree_aux_float_decays_fixed": (
        "pytree_aux_float_decays with its fix: the learning rate among the children (a leaf, "
        "traced)",
        "@jax.tree_util.register_pytree_node_class\n"
        "class Opt:\n"
        "    def __init__(self, lr):\n"
        "        self.lr = lr\n"
        "    def tree_flatten(self):\n"
        "        return (self.lr,), None\n"
        "    @classmethod\n"
        "    def tree_unflatten(cls, aux, children):\n"
        "        return cls(*children)\n"
        "step = jax.jit(lambda opt, w: w - opt.lr * w)\n"
        "opt, w = Opt(0.1), jnp.ones(3)\n"
        "for _ in range(3):\n"
        "    w = step(opt, w)\n"
        "    opt = Opt(opt.lr * 0.5)\n"),
    "loss_history_list_in_state_fixed": (
        "loss_history_list_in_state with its fix: the losses an array of its full size, "
        "made before the loop, each written at its step's index (passed traced)",
        "def train_step(state, x, i):\n"
        "    loss = (state['w'] * x).sum()\n"
        "    return {'w': state['w'] - 0.1 * x, 'losses': state['losses'].at[i].set(loss)}\n"
        "step = jax.jit(train_step)\n"
        "state = {'w': jnp.ones(3), 'losses': jnp.zeros((3,), jnp.float32)}\n"
        "for i in range(3):\n"
        "    state = step(state, jnp.ones(3), i)\n"),
    "images_flattened_then_not_fixed": (
        "images_flattened_then_not with its fix: every batch reshaped to the first layout "
        "before the call",
        "w = jnp.zeros((784, 10))\n"
        "predict = jax.jit(lambda w, x: x.reshape(x.shape[0], -1) @ w)\n"
        "for x in (jnp.ones((8, 784)), jnp.ones((8, 28, 28))):\n"
        "    x = x.reshape(x.shape[0], 784)    # before the call\n"
        "    predict(w, x)\n"),
    "batch_dict_label_dtype_int_then_float_fixed": (
        "batch_dict_label_dtype_int_then_float with its fix: the labels cast to float32 "
        "before each call",
        "def loss(w, batch):\n"
        "    return ((batch['x'] @ w - batch['y']) ** 2).mean()\n"
        "f = jax.jit(loss)\n"
        "w = jnp.ones(3)\n"
        "for y in (jnp.array([0, 1, 1, 0]), jnp.array([0.0, 1.0, 1.0, 0.0])):\n"
        "    batch = {'x': jnp.ones((4, 3)), 'y': y}\n"
        "    batch['y'] = jnp.asarray(batch['y'], jnp.float32)\n"
        "    f(w, batch)\n"),
    "trainer_made_each_epoch_fixed": (
        "trainer_made_each_epoch with its fix: one Trainer, made before the loop",
        "class Trainer:\n"
        "    def __init__(self, lr):\n"
        "        self.lr = lr\n"
        "        self.step = jax.jit(self._step)\n"
        "    def _step(self, w, g):\n"
        "        return w - self.lr * g\n"
        "w = jnp.ones(3)\n"
        "trainer = Trainer(0.1)    # once, outside the loop\n"
        "for epoch in range(3):\n"
        "    w = trainer.step(w, jnp.ones(3))\n"),
    "callable_object_jitted_anew_fixed": (
        "callable_object_jitted_anew with its fix: Model a pytree, one jitted function taking "
        "it as an argument",
        "class Model:\n"
        "    def __init__(self, k):\n"
        "        self.k = k\n"
        "    def __call__(self, x):\n"
        "        return x * self.k\n"
        "jax.tree_util.register_pytree_node(\n"
        "    Model, lambda m: ((m.k,), None), lambda _, leaves: Model(*leaves))\n"
        "apply = jax.jit(lambda model, x: model(x))    # once, outside the loop\n"
        "for k in (1.0, 2.0):\n"
        "    y = apply(Model(k), jnp.ones(3))\n"),
    # ------------------- options in (or out of) JAX 0.10.2's trace context (stop 75)
    # config.trace_context(): a call after one of its options changed traces again, and
    # JAX names the option; one outside it (the PRNG options) is a cache hit
    "trace_context_legacy_prng_key": (
        "jax_legacy_prng_key set to 'error' between two calls: not in JAX's trace context, a hit",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "jax.config.update('jax_legacy_prng_key', 'error')\n"
        "try:\n"
        "    f(jnp.ones(3))\n"
        "finally:\n"
        "    jax.config.update('jax_legacy_prng_key', 'allow')\n"),
    "trace_context_enable_custom_prng": (
        "jax_enable_custom_prng switched on between two calls: not in JAX's trace context, a hit",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "jax.config.update('jax_enable_custom_prng', True)\n"
        "try:\n"
        "    f(jnp.ones(3))\n"
        "finally:\n"
        "    jax.config.update('jax_enable_custom_prng', False)\n"),
    "trace_context_default_prng_impl": (
        "jax_default_prng_impl set to 'rbg' between two calls: not in JAX's trace context, a hit",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "jax.config.update('jax_default_prng_impl', 'rbg')\n"
        "try:\n"
        "    f(jnp.ones(3))\n"
        "finally:\n"
        "    jax.config.update('jax_default_prng_impl', 'threefry2x32')\n"),
    "trace_context_custom_vjp3": (
        "jax_custom_vjp3 switched on between two calls",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "jax.config.update('jax_custom_vjp3', True)\n"
        "try:\n"
        "    f(jnp.ones(3))\n"
        "finally:\n"
        "    jax.config.update('jax_custom_vjp3', False)\n"),
    "trace_context_remat3": (
        "jax_remat3 switched on between two calls",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "jax.config.update('jax_remat3', True)\n"
        "try:\n"
        "    f(jnp.ones(3))\n"
        "finally:\n"
        "    jax.config.update('jax_remat3', False)\n"),
    "trace_context_use_direct_linearize": (
        "jax_use_direct_linearize switched off between two calls",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "jax.config.update('jax_use_direct_linearize', False)\n"
        "try:\n"
        "    f(jnp.ones(3))\n"
        "finally:\n"
        "    jax.config.update('jax_use_direct_linearize', True)\n"),
    "trace_context_embedded_constants_max_bytes": (
        "jax_embedded_constants_max_bytes set to 64 between two calls",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "jax.config.update('jax_embedded_constants_max_bytes', 64)\n"
        "try:\n"
        "    f(jnp.ones(3))\n"
        "finally:\n"
        "    jax.config.update('jax_embedded_constants_max_bytes', 32)\n"),
    "trace_context_no_execution": (
        "jax_no_execution switched on between two calls: traced and compiled again, then "
        "refused (RuntimeError)",
        "f = jax.jit(lambda x: x * 2)\n"
        "x = jnp.ones(3)\n"
        "f(x)\n"
        "jax.config.update('jax_no_execution', True)\n"
        "try:\n"
        "    f(x)\n"
        "except RuntimeError as e:\n"
        "    refused = str(e)\n"
        "finally:\n"
        "    jax.config.update('jax_no_execution', False)\n"),
    "trace_context_debug_key_reuse": (
        "jax_debug_key_reuse switched on between two calls",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "jax.config.update('jax_debug_key_reuse', True)\n"
        "try:\n"
        "    f(jnp.ones(3))\n"
        "finally:\n"
        "    jax.config.update('jax_debug_key_reuse', False)\n"),
    "trace_context_threefry_partitionable": (
        "jax_threefry_partitionable switched off between two calls",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "jax.config.update('jax_threefry_partitionable', False)\n"
        "try:\n"
        "    f(jnp.ones(3))\n"
        "finally:\n"
        "    jax.config.update('jax_threefry_partitionable', True)\n"),
    "trace_context_softmax_custom_jvp": (
        "jax_softmax_custom_jvp switched on between two calls",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "jax.config.update('jax_softmax_custom_jvp', True)\n"
        "try:\n"
        "    f(jnp.ones(3))\n"
        "finally:\n"
        "    jax.config.update('jax_softmax_custom_jvp', False)\n"),
    "trace_context_random_seed_offset": (
        "jax_random_seed_offset set to 1 between two calls",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "jax.config.update('jax_random_seed_offset', 1)\n"
        "try:\n"
        "    f(jnp.ones(3))\n"
        "finally:\n"
        "    jax.config.update('jax_random_seed_offset', 0)\n"),
    "trace_context_allow_f16_reductions": (
        "jax_allow_f16_reductions switched off between two calls",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "jax.config.update('jax_allow_f16_reductions', False)\n"
        "try:\n"
        "    f(jnp.ones(3))\n"
        "finally:\n"
        "    jax.config.update('jax_allow_f16_reductions', True)\n"),
    "trace_context_check_static_indices": (
        "jax_check_static_indices switched on between two calls",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "jax.config.update('jax_check_static_indices', True)\n"
        "try:\n"
        "    f(jnp.ones(3))\n"
        "finally:\n"
        "    jax.config.update('jax_check_static_indices', False)\n"),
    "trace_context_auto_pcast": (
        "jax_auto_pcast switched off between two calls",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "jax.config.update('jax_auto_pcast', False)\n"
        "try:\n"
        "    f(jnp.ones(3))\n"
        "finally:\n"
        "    jax.config.update('jax_auto_pcast', True)\n"),
    "trace_context_remove_size_one_mesh_axis_from_type": (
        "jax_remove_size_one_mesh_axis_from_type switched on between two calls",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "jax.config.update('jax_remove_size_one_mesh_axis_from_type', True)\n"
        "try:\n"
        "    f(jnp.ones(3))\n"
        "finally:\n"
        "    jax.config.update('jax_remove_size_one_mesh_axis_from_type', False)\n"),
    "trace_context_explicit_x64_dtypes": (
        "jax_explicit_x64_dtypes set to 'allow' between two calls (an enum's value named)",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "jax.config.update('jax_explicit_x64_dtypes', 'allow')\n"
        "try:\n"
        "    f(jnp.ones(3))\n"
        "finally:\n"
        "    jax.config.update('jax_explicit_x64_dtypes', 'warn')\n"),
    "trace_context_numpy_rank_promotion": (
        "jax_numpy_rank_promotion set to 'warn' by config.update between two calls",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "jax.config.update('jax_numpy_rank_promotion', 'warn')\n"
        "try:\n"
        "    f(jnp.ones(3))\n"
        "finally:\n"
        "    jax.config.update('jax_numpy_rank_promotion', 'allow')\n"),
    "trace_context_default_prng_impl_inside": (
        "a key made inside the jit, then jax_default_prng_impl set to 'rbg': a hit, the "
        "threefry program kept (its result the old one)",
        "f = jax.jit(lambda s: jax.random.uniform(jax.random.key(s), (2,)))\n"
        "f(0)\n"
        "jax.config.update('jax_default_prng_impl', 'rbg')\n"
        "try:\n"
        "    out = f(0)\n"
        "finally:\n"
        "    jax.config.update('jax_default_prng_impl', 'threefry2x32')\n"),
    # -------------------------------------------- a learner's fourth pass (stop 75, explain7)
    "learner4_last_batch_smaller": (
        "a training loop over 10 examples in batches of 4: the last batch has 2",
        "@jax.jit\n"
        "def loss(w, xb):\n"
        "    return jnp.mean((xb @ w) ** 2)\n"
        "data, w = jnp.ones((10, 3)), jnp.ones(3)\n"
        "for i in range(0, 10, 4):\n"
        "    loss(w, data[i:i + 4])\n"),
    "learner4_arange_then_linspace": (
        "jnp.arange(3) (int32), then jnp.linspace (float32) into the same function",
        "f = jax.jit(lambda x: jnp.sin(x) + 1)\n"
        "f(jnp.arange(3)); f(jnp.linspace(0.0, 1.0, 3))\n"),
    "learner4_learning_rate_weak": (
        "a learning rate as a Python float, then as jnp.float32 (weak type)",
        "@jax.jit\n"
        "def sgd(w, g, lr):\n"
        "    return w - lr * g\n"
        "w = jnp.ones(3)\n"
        "w = sgd(w, w, 0.1)\n"
        "w = sgd(w, w, jnp.float32(0.1))\n"),
    "learner4_static_steps_in_a_loop": (
        "static_argnames='n' given the loop's counter: a compile per value",
        "import functools\n"
        "@functools.partial(jax.jit, static_argnames='n')\n"
        "def power(x, n):\n"
        "    return x ** n\n"
        "for n in range(1, 4):\n"
        "    power(jnp.ones(3), n=n)\n"),
    "learner4_global_threshold_changed": (
        "a global read inside the jit changed between calls: a hit, JAX keeps the old value",
        "threshold = 0.5\n"
        "@jax.jit\n"
        "def clip(x):\n"
        "    return jnp.where(x > threshold, threshold, x)\n"
        "clip(jnp.ones(3))\n"
        "threshold = 0.25\n"
        "out = clip(jnp.ones(3))\n"),
    "learner4_cell_run_twice": (
        "the cell defining @jax.jit def step run twice (the same lines): a new function",
        "cell = '@jax.jit\\ndef step(x):\\n    return x * 0.9\\nstep(jnp.ones(3))\\n'\n"
        "exec(compile(cell, FILE, 'exec'), globals())\n"
        "exec(compile(cell, FILE, 'exec'), globals())\n"),
    "learner4_x64_switched_on_later": (
        "jax_enable_x64 switched on after a first call, mid-notebook",
        "f = jax.jit(lambda x: x.sum())\n"
        "f(jnp.ones(3))\n"
        "jax.config.update('jax_enable_x64', True)\n"
        "try:\n"
        "    f(jnp.ones(3))\n"
        "finally:\n"
        "    jax.config.update('jax_enable_x64', False)\n"),
    "learner4_bound_method_jitted_each_step": (
        "jax.jit(model.apply) made inside the training loop (a bound method, new each step)",
        "class Model:\n"
        "    def __init__(self, k):\n"
        "        self.k = k\n"
        "    def apply(self, x):\n"
        "        return x * self.k\n"
        "model = Model(2.0)\n"
        "for _ in range(2):\n"
        "    jax.jit(model.apply)(jnp.ones(3))\n"),
    "learner4_partial_jitted_each_step": (
        "jax.jit(functools.partial(loss, beta=b)) made for each b in a sweep",
        "import functools\n"
        "def loss(x, beta):\n"
        "    return jnp.sum(x ** 2) * beta\n"
        "for b in (0.1, 0.2):\n"
        "    jax.jit(functools.partial(loss, beta=b))(jnp.ones(3))\n"),
    "learner4_params_dict_gains_a_key": (
        "a params dict that gains a 'bias' entry between calls",
        "@jax.jit\n"
        "def predict(params, x):\n"
        "    return x @ params['w'] + params.get('b', 0.0)\n"
        "params = {'w': jnp.ones(3)}\n"
        "predict(params, jnp.ones(3))\n"
        "params['b'] = jnp.zeros(())\n"
        "predict(params, jnp.ones(3))\n"),
    # ... each with the fix its explanation shows, applied: one program (the fix works)
    "learner4_last_batch_smaller_fixed": (
        "the last batch padded to 4 rows, a mask keeping the padding out of the loss",
        "@jax.jit\n"
        "def loss(w, xb, mask):\n"
        "    return jnp.sum((xb @ w) ** 2 * mask) / jnp.sum(mask)\n"
        "data, w = jnp.ones((10, 3)), jnp.ones(3)\n"
        "for i in range(0, 10, 4):\n"
        "    xb = data[i:i + 4]\n"
        "    n = xb.shape[0]\n"
        "    xb = jnp.pad(xb, [(0, 4 - n)] + [(0, 0)] * (xb.ndim - 1))\n"
        "    mask = jnp.arange(4) < n    # pass it in: weigh each row by it\n"
        "    loss(w, xb, mask)\n"),
    "learner4_arange_then_linspace_fixed": (
        "each input cast to float32 before the call",
        "f = jax.jit(lambda x: jnp.sin(x) + 1)\n"
        "for x in (jnp.arange(3), jnp.linspace(0.0, 1.0, 3)):\n"
        "    x = jnp.asarray(x, jnp.float32)\n"
        "    f(x)\n"),
    "learner4_learning_rate_weak_fixed": (
        "the learning rate an array from the start",
        "@jax.jit\n"
        "def sgd(w, g, lr):\n"
        "    return w - lr * g\n"
        "w = jnp.ones(3)\n"
        "for lr in (0.1, jnp.float32(0.1)):\n"
        "    lr = jnp.asarray(lr, jnp.float32)    # an array from the start\n"
        "    w = sgd(w, w, lr)\n"),
    "learner4_static_steps_in_a_loop_fixed": (
        "n traced (@jax.jit without static_argnames): one program for every n",
        "@jax.jit\n"
        "def power(x, n):\n"
        "    return x ** n\n"
        "for n in range(1, 4):\n"
        "    power(jnp.ones(3), n=n)\n"),
    "learner4_bound_method_jitted_once_fixed": (
        "jax.jit(model.apply) made once, before the loop",
        "class Model:\n"
        "    def __init__(self, k):\n"
        "        self.k = k\n"
        "    def apply(self, x):\n"
        "        return x * self.k\n"
        "model = Model(2.0)\n"
        "apply_jit = jax.jit(model.apply)    # once, outside the loop\n"
        "for _ in range(2):\n"
        "    apply_jit(jnp.ones(3))\n"),
    "learner4_partial_jitted_once_fixed": (
        "loss jitted once, beta passed in each call of the sweep",
        "def loss(x, beta):\n"
        "    return jnp.sum(x ** 2) * beta\n"
        "f_jit = jax.jit(loss)    # once\n"
        "for beta in (0.1, 0.2):\n"
        "    y = f_jit(jnp.ones(3), beta=beta)    # beta passed, not bound\n"),
    "learner4_params_dict_gains_a_key_fixed": (
        "the params given every key in every call",
        "@jax.jit\n"
        "def predict(params, x):\n"
        "    return x @ params['w'] + params.get('b', 0.0)\n"
        "defaults = {'b': jnp.zeros(())}\n"
        "params = {'w': jnp.ones(3)}\n"
        "params = {**defaults, **params}    # the same keys in every call\n"
        "predict(params, jnp.ones(3))\n"
        "params['b'] = jnp.zeros(())\n"
        "params = {**defaults, **params}    # the same keys in every call\n"
        "predict(params, jnp.ones(3))\n"),
    # ---------------------------------------------------------------- learner5: a lambda
    # made anew in a loop reads the loop variable; "make it once" alone keeps its first value
    "learner5_lambda_in_a_loop_reads_i": (
        "jax.jit(lambda x: x * i) made anew for each i: every call traces",
        "for i in range(3):\n"
        "    y = jax.jit(lambda x: x * i)(jnp.ones(3))\n"),
    "learner5_lambda_made_once_reads_i": (
        "the same lambda jitted once, still reading i: one trace, i baked in as 0",
        "f_jit = jax.jit(lambda x: x * i)\n"
        "for i in range(3):\n"
        "    out = f_jit(jnp.ones(3))\n"),
    "learner5_lambda_made_once_reads_i_fixed": (
        "jitted once, i passed as an argument: one trace, i's value in every call",
        "f_jit = jax.jit(lambda x, i: x * i)    # once, outside the loop\n"
        "for i in range(3):\n"
        "    out = f_jit(jnp.ones(3), i)\n"),
    # the JIT tutorial's g_inner_jitted_partial: a partial that binds nothing, made anew
    "learner5_partial_binds_nothing_in_a_loop": (
        "jax.jit(partial(body)) made anew in a while loop: every call traces",
        "from functools import partial\n"
        "def body(prev_i):\n"
        "    return prev_i + 1\n"
        "i = 0\n"
        "while i < 3:\n"
        "    i = jax.jit(partial(body))(i)\n"),
    "learner5_partial_binds_nothing_in_a_loop_fixed": (
        "body jitted once, outside the loop, and called",
        "def body(prev_i):\n"
        "    return prev_i + 1\n"
        "f_jit = jax.jit(body)    # once\n"
        "i = 0\n"
        "while i < 3:\n"
        "    i = f_jit(i)\n"),
    # a decorated def left out its keyword, then passed it: the fix calls it by its name
    "learner5_decorated_keyword_left_out_then_passed": (
        "@jax.jit def scale(x, factor=2.0): called without factor, then with factor=3.0",
        "@jax.jit\n"
        "def scale(x, factor=2.0):\n"
        "    return x * factor\n"
        "scale(jnp.ones(2))\n"
        "scale(jnp.ones(2), factor=3.0)\n"),
    "learner5_decorated_keyword_left_out_then_passed_fixed": (
        "factor passed in every call, as the fix says: one trace",
        "@jax.jit\n"
        "def scale(x, factor=2.0):\n"
        "    return x * factor\n"
        "factor = 2.0\n"
        "scale(jnp.ones(2), factor=factor)    # in every call\n"
        "factor = 3.0\n"
        "scale(jnp.ones(2), factor=factor)    # in every call\n"),
    # ---------------------------------------------------------------- learner13: a jitted
    # function called with a Python number, then under vmap: a row of an array is never weak,
    # so the weak side is the earlier call's, and no rewrite of the vmap line removes the miss
    "learner13_python_number_then_vmap": (
        "f(1.0), then jax.vmap(f) over a float32 array, then jax.grad(f)(1.0)",
        "@jax.jit\n"
        "def f(x):\n"
        "    return x * 2\n"
        "f(1.0)\n"
        "x = jnp.arange(3.)\n"
        "jax.vmap(f)(x)\n"
        "jax.grad(f)(1.0)\n"),
    "learner13_python_number_then_vmap_cast_pasted": (
        "the vmap's array cast to float32 (already float32): the vmap's trace misses still",
        "@jax.jit\n"
        "def f(x):\n"
        "    return x * 2\n"
        "f(1.0)\n"
        "x = jnp.arange(3.)\n"
        "x = jnp.asarray(x, jnp.float32)\n"
        "jax.vmap(f)(x)\n"),
    "learner13_array_first_then_vmap": (
        "the first call given an array: the vmap reuses its trace, jax.grad(f)(1.0) misses",
        "@jax.jit\n"
        "def f(x):\n"
        "    return x * 2\n"
        "f(jnp.asarray(1.0, jnp.float32))\n"
        "x = jnp.arange(3.)\n"
        "jax.vmap(f)(x)\n"
        "jax.grad(f)(1.0)\n"),
    "learner13_arrays_in_every_call_fixed": (
        "every call that gave a Python number given a float32 array: one trace",
        "@jax.jit\n"
        "def f(x):\n"
        "    return x * 2\n"
        "f(jnp.asarray(1.0, jnp.float32))    # in place of f(1.0)\n"
        "x = jnp.arange(3.)\n"
        "jax.vmap(f)(x)\n"
        "jax.grad(f)(jnp.asarray(1.0, jnp.float32))\n"),
    # a traced `if` met on a new shape only: JAX logs that trace's miss before the error,
    # and nothing when the same call fails again (jxkernel logged neither)
    "traced_if_on_a_new_shape_raises_twice": (
        "a traced if on a new shape, raising twice",
        "def relu(x):\n"
        "    if x.shape == (3,) and x[0] > 0:\n"
        "        return x\n"
        "    return x * 0\n"
        "f = jax.jit(relu)\n"
        "f(jnp.ones(2))\n"
        "for _ in range(2):\n"
        "    try:\n"
        "        f(jnp.ones(3))\n"
        "    except jax.errors.TracerBoolConversionError as e:\n"
        "        error = e\n"
        "raise error\n"),
}

# scenarios that raise: the recorded result is the exception class name
RAISES = {"static_unhashable", "traced_bool_flag_in_if", "static_numpy_array", "ones_traced_n",
          "method_self_traced", "static_dict_unhashable",
          "static_jax_array", "static_eq_without_hash",
          "static_argnames_misspelled", "static_frozen_dataclass_with_list_field",
          "static_argnums_out_of_range", "fori_loop_int_start_cast_back",
          "fori_loop_float_start_int_body",
          "static_self_plain_dataclass", "static_self_array_field",
          "string_argument_not_static", "static_tuple_holding_a_list",
          "traced_if_on_a_new_shape_raises_twice"}


def run(jax, name, tag=""):
    """Execute scenario `name` with `jax` (real JAX or jxkernel): its globals, or the
    exception it raised (for those in RAISES). Its file is `<recompile:NAME>`, or
    `<recompile:NAME TAG>` with a tag (so that a second run is code of another file)."""
    _, source = SCENARIOS[name]
    filename = f"{FILE_PREFIX}{name}{' ' + tag if tag else ''}>"
    env = {"jax": jax, "jnp": jax.numpy, "np": np, "FILE": filename, "__name__": name}
    try:
        exec(compile(source, filename, "exec"), env)
    except Exception as e:       # noqa: BLE001 (recorded for RAISES, re-raised otherwise)
        if name in RAISES:
            return e
        raise
    return env
