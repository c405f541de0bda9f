"""A learner's audit of the recompile notes as a notebook shows them (stop 100, h-recomp2-100):
programs of several cells, run in order in one shell, where a function is defined in one cell
and jitted or called in another, a cell is run again, a def is redefined with a note's fix, a
helper module is edited and reloaded. reference/make_recompile_cells_reference.py runs each
under JAX 0.10.2 in an IPython shell whose cells are named as ipykernel names them (a file per
code: the same code run again is the same file) and records per cell the tracing-cache misses
JAX logs (jax_explain_cache_misses) and the programs it lowers (jax_log_compiles), in
tests/data/recompile_cells_reference.json; tests/notebook/test_notebook_recompile_cells.py
runs the same cells under jxkernel and holds the notes to them.

PROGRAMS: name -> (what the learner did, [cell, ...]). A cell may write the learner's module
(`HELPER`'s `save`: a file rc_*.py of the folder LEARNER_DIR) as the learner edits it; a
program's last cell may set `answer`, whose value the recording keeps. LEARNER_DIR is the
learner's working folder, on the import path as a notebook's is: whoever runs the cells makes
it and puts it there and in the cells' names (the cells leave the import path alone).
"""

# the learner's module, written by a cell as the learner saves an edit of it; its `import jax`
# imports the cells' jax (jxkernel where the tests run the cells, JAX where it is recorded)
HELPER = ("import os\n"
          "def save(module, text):\n"
          "    text = text.replace('import jax\\n', f'import {jax.__name__} as jax\\n')\n"
          "    with open(os.path.join(LEARNER_DIR, module + '.py'), 'w') as f:\n"
          "        f.write(text)\n")

# the code a note gives where an argument static in one jit is traced in the next (the jit
# the new call used: signature_changes/statics.py's _NOW_TRACED_FIX), for `fun` jitted as
# `{fun}_jit`
NOW_TRACED_CODE = ("{fun}_jit = jax.jit({fun})    # the one jit of {fun}: call it everywhere, "
                   "no other (n traced)")

# a registered dataclass with an optional mask, and a function multiplying by it where given
MASKED = ("import dataclasses\n@jax.tree_util.register_dataclass\n@dataclasses.dataclass\n"
          "class {cls}:\n    x: jax.Array\n    mask: jax.Array | None = None\n"
          "@jax.jit\ndef {fun}(b):\n    if b.mask is None:\n        return b.x.sum()\n"
          "    return (b.x * b.mask).sum()")
# a function selecting with a dict's optional 'keep' entry where given
KEPT = ("@jax.jit\ndef {fun}(d):\n    keep = d['keep']\n"
        "    if keep is None:\n        return d['x'].sum()\n"
        "    return jnp.where(keep, d['x'], 0.0).sum()")

# a class whose __init__ jits its own method (each object a new jit of a new bound method)
INIT_JITS = ("class {cls}:\n    def __init__(self, k):\n        self.k = k\n"
             "        self.step = jax.jit(self._step)\n"
             "    def _step(self, x):\n        return x * self.k")

PROGRAMS = {
    "def_then_jit_then_calls_in_four_cells": (
        "a function defined in one cell, jitted in the next, called in two more: a new length",
        ["def double(x):\n    return x * 2",
         "double_jit = jax.jit(double)",
         "double_jit(jnp.ones(3))",
         "double_jit(jnp.ones(4))"]),
    "jit_cell_run_again_then_call_cell_again": (
        "a @jax.jit def in a cell of its own run twice, its call in another cell run after each",
        ["@jax.jit\ndef bump(x):\n    return x + 1",
         "bump(jnp.ones(3))",
         "@jax.jit\ndef bump(x):\n    return x + 1",
         "bump(jnp.ones(3))"]),
    "jit_and_call_cell_run_twice": (
        "one cell that jits a lambda and calls it, run twice",
        ["sq = jax.jit(lambda x: x ** 2)\nsq(jnp.ones(3))",
         "sq = jax.jit(lambda x: x ** 2)\nsq(jnp.ones(3))"]),
    "redefined_with_a_change_in_a_later_cell": (
        "a jitted def redefined in a later cell with another body, called there",
        ["@jax.jit\ndef act(x):\n    return x * 2\nact(jnp.ones(3))",
         "@jax.jit\ndef act(x):\n    return jnp.tanh(x)\nact(jnp.ones(3))"]),
    "static_n_then_the_fix_pasted_in_a_new_cell": (
        "n static, a loop cell calling with n = 1, 2, 3; then the def redefined with n traced",
        ["def power(x, n):\n    return x ** n\npower_jit = jax.jit(power, static_argnums=1)",
         "for n in range(1, 4):\n    power_jit(jnp.ones(3), n)",
         "power_jit = jax.jit(power)",
         "for n in range(1, 4):\n    power_jit(jnp.ones(3), n)"]),
    "global_factor_changed_in_a_later_cell": (
        "a global read by the jitted function, changed in a later cell, then called",
        ["factor = 2.0\n@jax.jit\ndef scaled(x):\n    return x * factor\nscaled(jnp.ones(3))",
         "factor = 3.0",
         "scaled(jnp.ones(3))",
         "scaled(jnp.ones(4))"]),
    "timeit_of_a_jitted_call": (
        "%timeit of a jitted call, then %timeit of a jit made inside the timed statement",
        ["tf = jax.jit(lambda x: x * 2)",
         "%timeit -n 2 -r 2 tf(jnp.ones(3)).block_until_ready()",
         "%timeit -n 2 -r 2 jax.jit(lambda x: x * 3)(jnp.ones(3)).block_until_ready()"]),
    "train_loop_cell_with_a_new_batch_size": (
        "a training loop cell, run again with another batch size",
        ["def loss(w, x):\n    return ((x @ w) ** 2).mean()\n"
         "@jax.jit\ndef step(w, x):\n    return w - 0.1 * jax.grad(loss)(w, x)\nw = jnp.ones(4)",
         "batch = 32\nfor i in range(3):\n    w = step(w, jnp.ones((batch, 4)))",
         "batch = 16\nfor i in range(3):\n    w = step(w, jnp.ones((batch, 4)))"]),
    "train_loop_cell_run_again_unchanged": (
        "a training loop cell run twice as it is",
        ["@jax.jit\ndef upd(w, x):\n    return w - 0.1 * x.mean(0)\nw2 = jnp.ones(4)",
         "for i in range(3):\n    w2 = upd(w2, jnp.ones((8, 4)))",
         "for i in range(3):\n    w2 = upd(w2, jnp.ones((8, 4)))"]),
    # (the edit changes the file's size: saved in the second of the first import, a reload
    # would read the stale .pyc, which Python checks by the file's mtime and size)
    "helper_module_edited_and_reloaded": (
        "a helper imported from the learner's module, edited and reloaded, jitted again",
        [HELPER + "save('rc_helpers', 'def act(x):\\n    return x * 2\\n')\nimport rc_helpers",
         "act_jit = jax.jit(rc_helpers.act)\nact_jit(jnp.ones(3))",
         "save('rc_helpers', 'def act(x):\\n    return x * 3.0\\n')\nimport importlib\n"
         "importlib.reload(rc_helpers)",
         "act_jit = jax.jit(rc_helpers.act)\nact_jit(jnp.ones(3))"]),
    "helper_module_reloaded_unchanged": (
        "a helper module reloaded without an edit, its function jitted again",
        [HELPER + "save('rc_helpers2', 'def act2(x):\\n    return x * 2\\n')\nimport rc_helpers2",
         "act2_jit = jax.jit(rc_helpers2.act2)\nact2_jit(jnp.ones(3))",
         "import importlib\nimportlib.reload(rc_helpers2)\n"
         "act2_jit = jax.jit(rc_helpers2.act2)\nact2_jit(jnp.ones(3))"]),
    "partial_made_in_a_loop_cell": (
        "functools.partial of a loss made and jitted in a loop cell",
        ["import functools\ndef mse(x, scale):\n    return (x * scale).sum()",
         "for s in (1.0, 2.0, 3.0):\n    jax.jit(functools.partial(mse, scale=s))(jnp.ones(3))"]),
    "class_with_a_jitted_method_cell_run_again": (
        "a class whose staticmethod is jitted, its cell run again, then called again",
        ["class Net:\n    @staticmethod\n    @jax.jit\n    def apply(w, x):\n"
         "        return x @ w",
         "Net.apply(jnp.ones((3, 2)), jnp.ones(3))",
         "class Net:\n    @staticmethod\n    @jax.jit\n    def apply(w, x):\n"
         "        return x @ w",
         "Net.apply(jnp.ones((3, 2)), jnp.ones(3))"]),
    "dataclass_model_class_cell_run_again": (
        "a registered dataclass model: its class cell run again, the model made again",
        ["import dataclasses\n@jax.tree_util.register_dataclass\n@dataclasses.dataclass\n"
         "class Lin:\n    w: jax.Array\n    b: jax.Array",
         "@jax.jit\ndef predict(m, x):\n    return x * m.w + m.b",
         "model = Lin(jnp.ones(3), jnp.zeros(3))\npredict(model, jnp.ones(3))",
         "import dataclasses\n@jax.tree_util.register_dataclass\n@dataclasses.dataclass\n"
         "class Lin:\n    w: jax.Array\n    b: jax.Array",
         "model = Lin(jnp.ones(3), jnp.zeros(3))\npredict(model, jnp.ones(3))"]),
    "dataclass_class_cell_run_again_returned": (
        "a jitted function returning a registered dataclass model, its class cell run again: "
        "which class comes back (`answer`)",
        ["import dataclasses\n@jax.tree_util.register_dataclass\n@dataclasses.dataclass\n"
         "class Lin4:\n    w: jax.Array",
         "@jax.jit\ndef same4(m):\n    return m\nsame4(Lin4(jnp.ones(3)))",
         "import dataclasses\n@jax.tree_util.register_dataclass\n@dataclasses.dataclass\n"
         "class Lin4:\n    w: jax.Array",
         "answer = type(same4(Lin4(jnp.ones(3)))) is Lin4"]),
    "dataclass_model_remade_same_class": (
        "a registered dataclass model made again in a later cell (the class kept)",
        ["import dataclasses\n@jax.tree_util.register_dataclass\n@dataclasses.dataclass\n"
         "class Lin2:\n    w: jax.Array\n    b: jax.Array\n"
         "@jax.jit\ndef predict2(m, x):\n    return x * m.w + m.b",
         "model2 = Lin2(jnp.ones(3), jnp.zeros(3))\npredict2(model2, jnp.ones(3))",
         "model2 = Lin2(jnp.ones(3), 0.0)\npredict2(model2, jnp.ones(3))"]),
    "jit_inside_a_function_called_from_cells": (
        "a function that jits a lambda each call, called from two cells",
        ["def run(x):\n    return jax.jit(lambda v: v * 2)(x)",
         "run(jnp.ones(3))",
         "run(jnp.ones(3))"]),
    "jit_inside_a_function_of_a_def": (
        "a function that jits a module-level def each call, called from two cells",
        ["def body(v):\n    return v * 2\ndef run2(x):\n    return jax.jit(body)(x)",
         "run2(jnp.ones(3))",
         "run2(jnp.ones(4))"]),
    "python_float_then_int_in_later_cell": (
        "a jitted call with a Python float in one cell, an int in the next",
        ["@jax.jit\ndef shift(x, c):\n    return x + c\nshift(jnp.ones(3), 1.0)",
         "shift(jnp.ones(3), 1)"]),
    "static_argname_changed_in_later_cell": (
        "a static argument given 3 in one cell, 4 in the next",
        ["def rep(x, n):\n    return jnp.tile(x, n)\nrep_jit = jax.jit(rep, static_argnames='n')",
         "rep_jit(jnp.ones(2), n=3)",
         "rep_jit(jnp.ones(2), n=4)"]),
    "params_dict_gains_a_key_in_later_cell": (
        "a params dict made in one cell, a bias added to it in a later cell",
        ["@jax.jit\ndef lin(p, x):\n    return x @ p['w'] + p.get('b', 0.0)\n"
         "params = {'w': jnp.ones((3, 2))}\nlin(params, jnp.ones(3))",
         "params['b'] = jnp.zeros(2)\nlin(params, jnp.ones(3))"]),
    "data_cell_rerun_with_a_new_length": (
        "a data cell run again with another n, the call cell run after it",
        ["@jax.jit\ndef norm(x):\n    return x / jnp.linalg.norm(x)",
         "n = 5\nxs = jnp.arange(float(n))",
         "norm(xs)",
         "n = 7\nxs = jnp.arange(float(n))",
         "norm(xs)"]),
    "def_redefined_old_jit_kept": (
        "the def redefined in a later cell, its old jit object called again",
        ["def tri(x):\n    return x * 3",
         "tri_jit = jax.jit(tri)\ntri_jit(jnp.ones(3))",
         "def tri(x):\n    return x * 4",
         "tri_jit(jnp.ones(3))",
         "tri_jit = jax.jit(tri)\ntri_jit(jnp.ones(3))"]),
    "clear_caches_in_its_own_cell": (
        "jax.clear_caches() in a cell of its own between two calls",
        ["@jax.jit\ndef cube(x):\n    return x ** 3\ncube(jnp.ones(3))",
         "jax.clear_caches()",
         "cube(jnp.ones(3))"]),
    "numpy_input_then_jnp_input": (
        "a NumPy float64 array in one cell, a jnp array in the next",
        ["import numpy as np\n@jax.jit\ndef half(x):\n    return x / 2\nhalf(np.ones(3))",
         "half(jnp.ones(3))",
         "half(np.arange(3))"]),
    "vmap_of_jit_batch_from_another_cell": (
        "a jitted function vmapped in one cell over a batch made in another",
        ["@jax.jit\ndef dot(a, b):\n    return a @ b",
         "xb = jnp.ones((4, 3))",
         "jax.vmap(dot, in_axes=(0, None))(xb, jnp.ones(3))",
         "xb = jnp.ones((5, 3))",
         "jax.vmap(dot, in_axes=(0, None))(xb, jnp.ones(3))"]),
    "jit_of_the_same_def_in_two_cells": (
        "jax.jit(f)(x) written in two cells, f defined once",
        ["def quad(x):\n    return x ** 4",
         "jax.jit(quad)(jnp.ones(3))",
         "jax.jit(quad)(jnp.ones(3))",
         "jax.jit(quad)(jnp.ones(5))"]),
    "rebinding_jit_cell_run_twice": (
        "a cell `f = jax.jit(f)` run twice: a jit of the jitted function, then called",
        ["def lin5(x):\n    return 2 * x + 1",
         "lin5 = jax.jit(lin5)",
         "lin5(jnp.ones(3))",
         "lin5 = jax.jit(lin5)",
         "lin5(jnp.ones(3))"]),
    # the notes' fixes pasted where they say (the code as the note shows it, the test checks)
    "static_n_then_the_fix_pasted_in_a_new_cell_fixed": (
        "static_n_then_the_fix_pasted_in_a_new_cell, then its last note's code pasted in a cell "
        "and the loop run to n = 5: one program for all n",
        ["def power2(x, n):\n    return x ** n\n"
         "power2_jit = jax.jit(power2, static_argnums=1)",
         "for n in range(1, 4):\n    power2_jit(jnp.ones(3), n)",
         "power2_jit = jax.jit(power2)",
         "for n in range(1, 4):\n    power2_jit(jnp.ones(3), n)",
         NOW_TRACED_CODE.format(fun="power2"),
         "for n in range(1, 6):\n    power2_jit(jnp.ones(3), n)"]),
    "static_n_then_the_old_fix_pasted": (
        "as static_n_then_the_fix_pasted_in_a_new_cell_fixed, with the code the last note gave "
        "before (n static again): n = 4 and 5 compile again",
        ["def power3(x, n):\n    return x ** n\n"
         "power3_jit = jax.jit(power3, static_argnums=1)",
         "for n in range(1, 4):\n    power3_jit(jnp.ones(3), n)",
         "power3_jit = jax.jit(power3)",
         "for n in range(1, 4):\n    power3_jit(jnp.ones(3), n)",
         "power3_jit = jax.jit(power3, static_argnames=('n',))",
         "for n in range(1, 6):\n    power3_jit(jnp.ones(3), n)"]),
    "dataclass_model_class_cell_run_once_fixed": (
        "dataclass_model_class_cell_run_again with its fix: the class cell run once, the "
        "model made again in its own cell",
        ["import dataclasses\n@jax.tree_util.register_dataclass\n@dataclasses.dataclass\n"
         "class Lin3:\n    w: jax.Array\n    b: jax.Array",
         "@jax.jit\ndef predict3(m, x):\n    return x * m.w + m.b",
         "model3 = Lin3(jnp.ones(3), jnp.zeros(3))\npredict3(model3, jnp.ones(3))",
         "model3 = Lin3(jnp.ones(3), jnp.zeros(3))\npredict3(model3, jnp.ones(3))"]),
    "python_float_then_int_in_later_cell_fixed": (
        "python_float_then_int_in_later_cell with its note's code in place of the second cell",
        ["@jax.jit\ndef shift2(x, c):\n    return x + c\nshift2(jnp.ones(3), 1.0)",
         "c = 1    # line 1's argument, named\n"
         "c = float(c)    # always a Python float\n"
         "shift2(jnp.ones(3), c)    # line 1, given it"]),
    "rebinding_jit_cell_run_twice_fixed": (
        "rebinding_jit_cell_run_twice with its note's code: the jit under a name of its own, "
        "its cell run twice",
        ["def lin6(x):\n    return 2 * x + 1",
         "lin6_jit = jax.jit(lin6)    # a name of its own: run again, it jits the same def",
         "lin6_jit(jnp.ones(3))",
         "lin6_jit = jax.jit(lin6)    # a name of its own: run again, it jits the same def",
         "lin6_jit(jnp.ones(3))"]),
    "jit_inside_a_function_of_a_def_fixed": (
        "jit_inside_a_function_of_a_def with its note's code pasted in the function, before "
        "its call",
        ["def body2(v):\n    return v * 2\ndef run3(x):\n"
         "    n = x.shape[0]\n"
         "    size = max(4, 1 << (n - 1).bit_length())    # a power of two, at least 4\n"
         "    x = jnp.pad(x, [(0, size - n)] + [(0, 0)] * (x.ndim - 1))\n"
         "    return jax.jit(body2)(x)",
         "run3(jnp.ones(3))",
         "run3(jnp.ones(4))"]),
    "train_loop_cell_with_a_new_batch_size_fixed": (
        "train_loop_cell_with_a_new_batch_size with its note's code in the loop of the third cell",
        ["def loss2(w, x):\n    return ((x @ w) ** 2).mean()\n"
         "@jax.jit\ndef step2(w, x):\n    return w - 0.1 * jax.grad(loss2)(w, x)\n"
         "w3 = jnp.ones(4)",
         "batch = 32\nfor i in range(3):\n    w3 = step2(w3, jnp.ones((batch, 4)))",
         "batch = 16\nfor i in range(3):\n"
         "    x = jnp.ones((batch, 4))    # line 3's argument, named\n"
         "    n = x.shape[0]\n"
         "    x = jnp.pad(x, [(0, 32 - n)] + [(0, 0)] * (x.ndim - 1))\n"
         "    mask = jnp.arange(32) < n    # pass it in: weigh each row by it\n"
         "    w3 = step2(w3, x)    # line 3, given it"]),
    # (h-recomp-101) a reload in the cell that calls, run again: JAX hints "re-defined
    # repeatedly?"; the code unchanged, each reload is a new function of the same code
    "helper_module_reloaded_in_the_calling_cell": (
        "a cell that reloads the learner's module, jits its function and calls it, run twice",
        [HELPER + "save('rc_helpers5', 'def act5(x):\\n    return x * 2\\n')\n"
         "import rc_helpers5\nimport importlib",
         "importlib.reload(rc_helpers5)\nact5_jit = jax.jit(rc_helpers5.act5)\n"
         "act5_jit(jnp.ones(3))",
         "importlib.reload(rc_helpers5)\nact5_jit = jax.jit(rc_helpers5.act5)\n"
         "act5_jit(jnp.ones(3))"]),
    "helper_module_reloaded_in_the_calling_cell_fixed": (
        "helper_module_reloaded_in_the_calling_cell with its note's code: the reload and the jit "
        "in a cell of their own, the call in cells run as often as you like",
        [HELPER + "save('rc_helpers6', 'def act6(x):\\n    return x * 2\\n')\n"
         "import rc_helpers6\nimport importlib",
         "importlib.reload(rc_helpers6)    # only after an edit of rc_helpers6, not before each "
         "call\n"
         "act6_jit = jax.jit(rc_helpers6.act6)    # once after the reload",
         "out = act6_jit(jnp.ones(3))    # every call: your arguments",
         "out = act6_jit(jnp.ones(3))    # every call: your arguments"]),
    # (h-recomp-102) the learner's module holds the jit itself (`@jax.jit def step`), and is
    # reloaded: its step is a new jit of a new function, edited or not
    "jitted_def_in_module_edited_and_reloaded": (
        "a module's @jax.jit def called, the module edited and reloaded, called again",
        [HELPER + "save('rc_model', 'import jax\\n@jax.jit\\ndef step(x):\\n    return x * 2\\n')\n"
         "import rc_model",
         "rc_model.step(jnp.ones(3))",
         "save('rc_model', 'import jax\\n@jax.jit\\ndef step(x):\\n    return x * 3.0\\n')\n"
         "import importlib\nimportlib.reload(rc_model)",
         "rc_model.step(jnp.ones(3))"]),
    "jitted_def_in_module_reloaded_unchanged": (
        "a module's @jax.jit def called, the module reloaded without an edit, called again",
        [HELPER + "save('rc_model2', 'import jax\\n@jax.jit\\ndef step2(x):\\n    return x * 2\\n')"
         "\nimport rc_model2",
         "rc_model2.step2(jnp.ones(3))",
         "import importlib\nimportlib.reload(rc_model2)",
         "rc_model2.step2(jnp.ones(3))"]),
    "jitted_def_in_module_autoreloaded": (
        "%autoreload 2 on, a module's @jax.jit def called, the module edited, called again",
        ["%load_ext autoreload\n%autoreload 2\n" + HELPER +
         "save('rc_model3', 'import jax\\n@jax.jit\\ndef step3(x):\\n    return x * 2\\n')\n"
         "import rc_model3",
         "rc_model3.step3(jnp.ones(3))",
         "save('rc_model3', 'import jax\\n@jax.jit\\ndef step3(x):\\n    return x * 3.0\\n')",
         "rc_model3.step3(jnp.ones(3))",
         "%autoreload 0\nanswer = rc_model3.step3(jnp.ones(3)).tolist()"]),
    "jitted_def_in_module_edited_above_and_reloaded": (
        "a module's @jax.jit def called, a line added above it, the module reloaded, called",
        [HELPER + "save('rc_model4', 'import jax\\n@jax.jit\\ndef step4(x):\\n    return x * 2\\n')"
         "\nimport rc_model4",
         "rc_model4.step4(jnp.ones(3))",
         "save('rc_model4', 'import jax\\nSCALE = 3.0\\n@jax.jit\\ndef step4(x):\\n"
         "    return x * SCALE\\n')\nimport importlib\nimportlib.reload(rc_model4)",
         "rc_model4.step4(jnp.ones(3))"]),
    # a fix written at a call in another cell names that cell's line ("In[3]:4"; "line 4"
    # read as the line of the cell the note is under, stop 113)
    "default_left_out_then_passed_in_a_later_cell": (
        "an argument left to its default in one cell's call, passed a number in the next cell",
        ["def scale8(v, factor=2.0):\n    return v * factor\nscale8_jit = jax.jit(scale8)\n"
         "scale8_jit(jnp.ones(3))",
         "scale8_jit(jnp.ones(3), 3.0)"]),
    "default_left_out_then_passed_in_a_later_cell_fixed": (
        "default_left_out_then_passed_in_a_later_cell with its note's code in place of the "
        "first cell's call",
        ["def scale9(v, factor=2.0):\n    return v * factor\nscale9_jit = jax.jit(scale9)\n"
         "scale9_jit(jnp.ones(3), 2.0)    # {where}: factor passed, its default, as "
         "line 1 passes one",
         "scale9_jit(jnp.ones(3), 3.0)"]),
    # a jit of the function with n static made in a later cell than the call of the jit with
    # n traced: that call is not rewritten to call the later jit, which does not exist yet
    # where the notebook runs from its top (NameError); the note gives the one jit to make
    "traced_jit_then_static_jit_in_a_later_cell": (
        "jax.jit(f) called with n = 2 in one cell, jax.jit(f, static_argnums=1) with n = 2 in "
        "the next",
        ["def times(x, n):\n    return x * n\ntimes_traced = jax.jit(times)\n"
         "times_traced(jnp.ones(3), 2)",
         "times_static = jax.jit(times, static_argnums=1)\ntimes_static(jnp.ones(3), 2)"]),
    "traced_jit_then_static_jit_in_a_later_cell_fixed": (
        "traced_jit_then_static_jit_in_a_later_cell with its note's one jit made in the first "
        "cell and called in both",
        ["def times2(x, n):\n    return x * n\n"
         "times2_static = jax.jit(times2, static_argnames=('n',))    # the one jit of times2: "
         "call it everywhere, no other\ntimes2_static(jnp.ones(3), 2)",
         "times2_static(jnp.ones(3), 2)"]),
    # (stop 114) of three calls, x by position and s by keyword, then both by position, then
    # both by keyword: JAX 0.10.2's closest key is the first (one argument moved: "tuple of
    # length 0 and before tuple of length 1", {'x'}), the note named the latest ("scale, x")
    # and gave the pattern `f(..., s, x=s, x)`
    "keyword_then_position_then_all_keywords": (
        "x by position and s by keyword in one cell, both by position in the next, both by "
        "keyword in the third",
        ["@jax.jit\ndef mul10(x, s):\n    return x * s",
         "mul10(jnp.ones(3), s=2.0)",
         "mul10(jnp.ones(3), 2.0)",
         "mul10(x=jnp.ones(3), s=2.0)"]),
    "keyword_then_position_then_all_keywords_fixed": (
        "keyword_then_position_then_all_keywords with its last note's code in place of the "
        "second cell's call",
        ["@jax.jit\ndef mul11(x, s):\n    return x * s",
         "mul11(s=2.0, x=jnp.ones(3))    # {where}: x by keyword, as at line 1",
         "mul11(jnp.ones(3), 2.0)",
         "mul11(x=jnp.ones(3), s=2.0)"]),
    # (stop 114) a namedtuple's class cell edited (a field added) and run: a new class, its
    # first call compiles (JAX 0.10.2: "so their Python types differ", one lowering), an
    # edit's compile; the note said "define the class in a cell of its own, run once"
    "namedtuple_class_cell_edited_with_a_field": (
        "an optimizer state namedtuple, its class cell edited with a field and run, the state "
        "made again and stepped twice",
        ["from typing import NamedTuple\nclass Opt5(NamedTuple):\n    w: jax.Array\n"
         "    m: jax.Array",
         "@jax.jit\ndef step5(s, g):\n    m = 0.9 * s.m + g\n"
         "    return s._replace(w=s.w - 0.1 * m, m=m)",
         "s5 = Opt5(jnp.ones(3), jnp.zeros(3))\ns5 = step5(s5, jnp.ones(3))",
         "from typing import NamedTuple\nclass Opt5(NamedTuple):\n    w: jax.Array\n"
         "    m: jax.Array\n    v: jax.Array = jnp.zeros(3)",
         "s5 = Opt5(jnp.ones(3), jnp.zeros(3))\ns5 = step5(s5, jnp.ones(3))",
         "s5 = step5(s5, jnp.ones(3))"]),
    "namedtuple_class_cell_run_again": (
        "as namedtuple_class_cell_edited_with_a_field, its class cell run again unedited",
        ["from typing import NamedTuple\nclass Opt6(NamedTuple):\n    w: jax.Array\n"
         "    m: jax.Array",
         "@jax.jit\ndef step6(s, g):\n    m = 0.9 * s.m + g\n"
         "    return s._replace(w=s.w - 0.1 * m, m=m)",
         "s6 = Opt6(jnp.ones(3), jnp.zeros(3))\ns6 = step6(s6, jnp.ones(3))",
         "from typing import NamedTuple\nclass Opt6(NamedTuple):\n    w: jax.Array\n"
         "    m: jax.Array",
         "s6 = Opt6(jnp.ones(3), jnp.zeros(3))\ns6 = step6(s6, jnp.ones(3))"]),
    # (stop 114) two arguments by position in one cell, both by keyword in the next: the note
    # gave the pattern `f(..., s, x=s, x)`, no Python; it gives the earlier call with both by
    # keyword
    "two_arguments_by_position_then_by_keyword": (
        "x and s by position in one cell, both by keyword in the next",
        ["@jax.jit\ndef mul12(x, s):\n    return x * s",
         "mul12(jnp.ones(3), 2.0)",
         "mul12(x=jnp.ones(3), s=2.0)"]),
    "two_arguments_by_position_then_by_keyword_fixed": (
        "two_arguments_by_position_then_by_keyword with its note's code in place of the first "
        "call",
        ["@jax.jit\ndef mul13(x, s):\n    return x * s",
         "mul13(x=jnp.ones(3), s=2.0)    # {where}: s, x by keyword, as at line 1",
         "mul13(x=jnp.ones(3), s=2.0)"]),
    # a static argument given values of two kinds (2, then True): traced, they are two types
    # still (bool[] and i32[] (weak)), so the traced jit is a program per kind, not "one
    # program for all its values" as the note said (stop 113)
    "static_int_then_bool_in_a_later_cell": (
        "n static, given 2 in one cell and True in the next",
        ["def times3(x, n):\n    return x * n\ntimes3_jit = jax.jit(times3, static_argnums=1)\n"
         "times3_jit(jnp.ones(3), 2)",
         "times3_jit(jnp.ones(3), True)"]),
    "static_int_then_bool_in_a_later_cell_traced": (
        "static_int_then_bool_in_a_later_cell with n traced as the note's code jits it",
        ["def times4(x, n):\n    return x * n\ntimes4_jit = jax.jit(times4)\n"
         "times4_jit(jnp.ones(3), 2)",
         "times4_jit(jnp.ones(3), True)"]),
    "static_int_then_bool_in_a_later_cell_fixed": (
        "static_int_then_bool_in_a_later_cell with n traced and passed as one kind",
        ["def times5(x, n):\n    return x * n\ntimes5_jit = jax.jit(times5)\n"
         "times5_jit(jnp.ones(3), 2)",
         "times5_jit(jnp.ones(3), int(True))"]),
    # None, then an array, in a field the function multiplies by (or selects with): the note
    # made the None zeros, which gave 0.0 where the None call gave 4.0 (_zeros_pasted); it
    # gives ones (True for a bool), which the function's source says keep the result
    "dataclass_mask_none_then_array_multiplied": (
        "a registered dataclass batch whose mask is None in one cell's call, an array in the "
        "next; the function multiplies by the mask",
        [MASKED.format(cls="Batch7", fun="total7"),
         "answer = total7(Batch7(jnp.ones(4))).tolist()",
         "total7(Batch7(jnp.ones(4), jnp.ones(4)))"]),
    "dataclass_mask_none_then_array_multiplied_zeros_pasted": (
        "dataclass_mask_none_then_array_multiplied with the note's former code (zeros) in "
        "place of the first call",
        [MASKED.format(cls="Batch8", fun="total8"),
         "b = Batch8(jnp.ones(4))    # {where}'s argument, named\nimport dataclasses\n"
         "b = dataclasses.replace(b, mask=jnp.zeros((4,)) if b.mask is None else b.mask)    "
         "# an array in every call\nanswer = total8(b).tolist()    # {where}, given it",
         "total8(Batch8(jnp.ones(4), jnp.ones(4)))"]),
    "dataclass_mask_none_then_array_multiplied_fixed": (
        "dataclass_mask_none_then_array_multiplied with its note's code in place of the first "
        "call",
        [MASKED.format(cls="Batch9", fun="total9"),
         "b = Batch9(jnp.ones(4))    # {where}'s argument, named\nimport dataclasses\n"
         "b = dataclasses.replace(b, mask=jnp.ones((4,)) if b.mask is None else b.mask)    "
         "# an array in every call: ones where it was None\n"
         "answer = total9(b).tolist()    # {where}, given it",
         "total9(Batch9(jnp.ones(4), jnp.ones(4)))"]),
    "dict_keep_none_then_bool_in_where": (
        "a dict whose 'keep' entry is None in one cell's call, a boolean array in the next; "
        "the function selects with it (jnp.where)",
        [KEPT.format(fun="pick1"),
         "answer = pick1({'x': jnp.ones(4), 'keep': None}).tolist()",
         "pick1({'x': jnp.ones(4), 'keep': jnp.arange(4) < 2})"]),
    "dict_keep_none_then_bool_in_where_fixed": (
        "dict_keep_none_then_bool_in_where with its note's code in place of the first call",
        [KEPT.format(fun="pick2"),
         "d = {'x': jnp.ones(4), 'keep': None}    # {where}'s argument, named\n"
         "d['keep'] = jnp.ones((4,), jnp.bool) if d['keep'] is None else d['keep']    # an "
         "array in every call: True where it was None\n"
         "answer = pick2(d).tolist()    # {where}, given it",
         "pick2({'x': jnp.ones(4), 'keep': jnp.arange(4) < 2})"]),
    # a mask both multiplied by and summed (a masked mean): no one value is known to mean
    # nothing (ones do here, zeros give nan), so the note's code is a pattern
    "mask_none_then_array_in_a_masked_mean": (
        "a masked mean given mask None in one cell, an array in the next",
        ["@jax.jit\ndef mmean(x, mask):\n"
         "    return x.mean() if mask is None else (x * mask).sum() / mask.sum()",
         "mmean(jnp.ones(4), None)",
         "mmean(jnp.ones(4), jnp.ones(4))"]),
    # a cell run again making a new object whose jit is new (JAX 0.10.2: "maybe the function
    # is being re-defined repeatedly"): the note said "Make the Model once, outside the loop"
    # with a `for` loop the cells have not; it names the cell and gives the cells' lines
    "model_cell_run_again_jitting_in_init": (
        "a class whose __init__ jits its method; the cell making the model run again, then "
        "the call",
        [INIT_JITS.format(cls="Model3"),
         "model3 = Model3(2.0)",
         "model3.step(jnp.ones(3))",
         "model3 = Model3(2.0)",
         "model3.step(jnp.ones(3))"]),
    "model_made_and_called_in_a_cell_run_again": (
        "a class whose __init__ jits its method, made and called in one cell run twice",
        [INIT_JITS.format(cls="Model4"),
         "model4 = Model4(2.0)\nmodel4.step(jnp.ones(3))",
         "model4 = Model4(2.0)\nmodel4.step(jnp.ones(3))"]),
    "callable_object_jitted_in_a_cell_run_again": (
        "jax.jit of a callable object made in a cell run again, called in another",
        ["class Scale5:\n    def __init__(self, k):\n        self.k = k\n"
         "    def __call__(self, x):\n        return x * self.k",
         "scale5 = jax.jit(Scale5(2.0))",
         "scale5(jnp.ones(3))",
         "scale5 = jax.jit(Scale5(2.0))",
         "scale5(jnp.ones(3))"]),
    "lambda_jitted_in_a_cell_run_again": (
        "jax.jit(lambda ...) in a cell run again, called in another",
        ["sq7 = jax.jit(lambda x: x * 2)",
         "sq7(jnp.ones(3))",
         "sq7 = jax.jit(lambda x: x * 2)",
         "sq7(jnp.ones(3))"]),
    "model_cell_run_again_jitting_in_init_fixed": (
        "model_cell_run_again_jitting_in_init with its note's code: the model made in a cell "
        "run once, the call in a cell run twice",
        [INIT_JITS.format(cls="Model8"),
         "model8 = Model8(2.0)    # in a cell of its own, run once",
         "# in the cells that call it, run as often as you like:\n"
         "model8.step(jnp.ones(3))    # {at}",
         "# in the cells that call it, run as often as you like:\n"
         "model8.step(jnp.ones(3))    # {at}"]),
    "model_made_and_called_in_a_cell_run_again_fixed": (
        "model_made_and_called_in_a_cell_run_again with its note's code",
        [INIT_JITS.format(cls="Model9"),
         "model9 = Model9(2.0)    # in a cell of its own, run once",
         "# in the cells that call it, run as often as you like:\n"
         "model9.step(jnp.ones(3))    # {at}",
         "# in the cells that call it, run as often as you like:\n"
         "model9.step(jnp.ones(3))    # {at}"]),
    "callable_object_jitted_in_a_cell_run_again_fixed": (
        "callable_object_jitted_in_a_cell_run_again with its note's code",
        ["class Scale10:\n    def __init__(self, k):\n        self.k = k\n"
         "    def __call__(self, x):\n        return x * self.k",
         "scale10 = jax.jit(Scale10(2.0))    # in a cell of its own, run once",
         "# in the cells that call it, run as often as you like:\n"
         "scale10(jnp.ones(3))    # {at}",
         "# in the cells that call it, run as often as you like:\n"
         "scale10(jnp.ones(3))    # {at}"]),
    "lambda_jitted_in_a_cell_run_again_fixed": (
        "lambda_jitted_in_a_cell_run_again with its note's code: the jit in a cell run once, "
        "the call in a cell run twice",
        ["sq8 = jax.jit(lambda x: x * 2)    # in a cell of its own, run once",
         "# in the cells that call it, run as often as you like:\n"
         "sq8(jnp.ones(3))    # {at}",
         "# in the cells that call it, run as often as you like:\n"
         "sq8(jnp.ones(3))    # {at}"]),
}
