"""A function given to grad, value_and_grad, jit or vmap, then called: with other arguments
than it takes (CASES), or a library's function jitted whole with an argument it needs as a
Python value (STATIC_OF_LIBRARY), or what grad returns unpacked otherwise (GRAD_RESULTS), or
what vmap and scan return (a dict of stacked leaves) indexed as a list (STACKED).
Each line, the error JAX 0.10.2 raises for it and the value the card's line gives
(reference/make_transformed_call_reference.py records `run(jax)`;
tests/notebook/test_transformed_call_cards.py checks the cards against it).

    >>> sorted(CASES)[0]
    'argnums_read_as_positions'
"""
import numpy as np

from learner_cells import said  # tests/data

# the learner's names: a loss of the parameters and the data, one of the parameters only,
# a step unpacking its batch, a per-example loss, a jitted loss bound to a name
SETUP = """\
params = jnp.array([0.5, -1.0, 2.0]); x = jnp.arange(12.0).reshape(4, 3) / 10
y = jnp.array([1.0, 0.0, -1.0, 2.0])
def loss(params, x, y):
    return jnp.mean((x @ params - y) ** 2)
def loss1(params):
    return jnp.sum(params ** 2)
def step(params, batch):
    xb, yb = batch
    return loss(params, xb, yb)
def per_example(p, xi, yi):
    return (xi @ p - yi) ** 2
loss_jit = jax.jit(loss)
def loss_aux(params):
    return jnp.sum(params ** 2), {'norm': jnp.linalg.norm(params)}
"""
# case: (the line, the card's kind, the card's lines pasted (None: it says what in words),
# the value they give, _y)
CASES = {
    "grad_without_the_data": ("_y = jax.grad(loss)(params)", "call-arity",
                              "_y = jax.grad(loss)(params, x, y)"),
    "value_and_grad_without_the_data": ("_y = jax.value_and_grad(loss)(params)[1]",
                                        "call-arity",
                                        "_y = jax.value_and_grad(loss)(params, x, y)[1]"),
    "argnums_read_as_positions": ("_y = jax.grad(loss, argnums=1)(x, y)", "call-arity",
                                  "_y = jax.grad(loss, argnums=1)(params, x, y)"),
    "jitted_name_without_the_data": ("_y = loss_jit(params)", "call-arity",
                                     "_y = loss_jit(params, x, y)"),
    "lambda_of_one_parameter": ("_y = jax.grad(lambda p: jnp.sum(p ** 2))(params, x)",
                                "call-arity",
                                "_y = jax.grad(lambda p, x: jnp.sum(p ** 2))(params, x)"),
    "def_of_one_parameter": ("_y = jax.grad(loss1)(params, x, y)", "call-arity",
                             "def loss1(params, x, y):\n    return jnp.sum(params ** 2)\n"
                             "_y = jax.grad(loss1)(params, x, y)"),
    "batch_given_apart": ("_y = jax.grad(step)(params, x, y)", "call-arity",
                          "_y = jax.grad(step)(params, (x, y))"),
    "vmap_in_axes_for_every_parameter": ("_y = jax.vmap(loss, in_axes=(None, 0, 0))(params, x)",
                                         "vmap-in-axes",
                                         "_y = jax.vmap(loss, in_axes=(None, 0, 0))(params, x, y)"),
    "vmap_in_axes_and_argument_short": ("_y = jax.vmap(per_example, in_axes=(None, 0))(params, x)",
                                        "call-arity", None),
    "jit_one_argument_more": ("_y = jax.jit(loss)(params, x, y, 3)", "call-arity", None),
}
# jnp's functions jitted whole, their axis traced (JAX: "The axis argument must be known
# statically"): the card made the fix `sum = jax.jit(sum, static_argnames=('axis',))`
# (Python's builtin rebound; the line unchanged traced the axis again). (the line, the card's
# line: static in place, or the jit bound to a name made again from the function it wraps)
STATIC_OF_LIBRARY = {
    "sum_inline": ("_y = jax.jit(jnp.sum)(x, 0)",
                   "_y = jax.jit(jnp.sum, static_argnames=('axis',))(x, 0)"),
    "mean_by_keyword": ("_y = jax.jit(jnp.mean)(x, axis=1)",
                        "_y = jax.jit(jnp.mean, static_argnames=('axis',))(x, axis=1)"),
    # a tuple of sizes, traced element by element (JAX: "Shapes must be 1D sequences of
    # concrete values"): the card said to take sizes from shapes, where the learner wrote them
    "reshape_sizes": ("_y = jax.jit(jnp.reshape)(x, (2, 6))",
                      "_y = jax.jit(jnp.reshape, static_argnames=('shape',))(x, (2, 6))"),
    "bound_to_a_name": ("_y = sum_jit(x, 1)",
                        "sum_jit = jax.jit(sum_jit.__wrapped__, static_argnames=('axis',))"),
}
STATIC_SETUP = "sum_jit = jax.jit(jnp.sum)\n"
# what grad and value_and_grad return, unpacked or used otherwise: Python's own errors in
# JAX 0.10.2 too, and no card said what grad returns. (the cell, the card's kind, the card's
# lines and what reads `_y` after them (None: a pattern))
GRAD_RESULTS = {
    "grad_unpacked_as_value_and_gradient": (
        "value, grads = jax.grad(loss)(params, x, y)", "grad-unpacked",
        "value, grads = jax.value_and_grad(loss)(params, x, y)\n_y = grads"),
    "value_and_grad_with_aux_into_three": (
        "value, aux, grads = jax.value_and_grad(loss_aux, has_aux=True)(params)",
        "grad-unpacked",
        "(value, aux), grads = jax.value_and_grad(loss_aux, has_aux=True)(params)\n_y = grads"),
    "grad_with_aux_into_three": (
        "g, a, b = jax.grad(loss_aux, has_aux=True)(params)", "grad-unpacked", None),
    "aux_pair_used_as_the_gradient": (
        "grads = jax.grad(loss_aux, has_aux=True)(params)\n_y = params - 0.1 * grads",
        "aux-pair",
        "grads, aux = jax.grad(loss_aux, has_aux=True)(params)\n_y = params - 0.1 * grads"),
}
# what grad and value_and_grad return, unpacked in another order than it comes: no error
# there, and the name taken as the gradient (the aux, the value, has_aux's (value, aux) pair)
# fails where it meets the parameters (tree_map's structures; Python's arithmetic), where the
# card spoke of structures alone. (the cell, the card's kind, the card's line for the
# statement that unpacked it; that line in the cell in its place gives `_y`)
ORDER_SETUP = """\
p = {'w': jnp.array([0.5, -1.0, 2.0]), 'b': jnp.array(0.5)}
def loss_p(p, x, y):
    return jnp.mean((x @ p['w'] + p['b'] - y) ** 2)
def loss_p_aux(p, x, y):
    r = x @ p['w'] + p['b'] - y
    return jnp.mean(r ** 2), {'worst': jnp.max(jnp.abs(r))}
import types
lib = types.ModuleType('lib'); lib.jax = jax      # a library's step: its tree_map not the cell's
exec('def sgd(g, p):\\n    return jax.tree.map(lambda u, v: v - 0.1 * u, g, p)', lib.__dict__)
"""
_STEP = "_y = jax.tree.map(lambda a, g: a - 0.1 * g, p, grads)"
ORDER = {
    "value_and_grad_gradient_in_the_pair": (
        "(value, grads), aux = jax.value_and_grad(loss_p_aux, has_aux=True)(p, x, y)\n" + _STEP,
        "tree-structure",
        "(value, aux), grads = jax.value_and_grad(loss_p_aux, has_aux=True)(p, x, y)"),
    "grad_aux_first": (
        "aux, grads = jax.grad(loss_p_aux, has_aux=True)(p, x, y)\n" + _STEP, "tree-structure",
        "grads, aux = jax.grad(loss_p_aux, has_aux=True)(p, x, y)"),
    "value_and_grad_gradient_first": (
        "grads, value = jax.value_and_grad(loss_p)(p, x, y)\n" + _STEP, "tree-structure",
        "value, grads = jax.value_and_grad(loss_p)(p, x, y)"),
    "value_and_grad_aux_into_two": (
        "grads, aux = jax.value_and_grad(loss_p_aux, has_aux=True)(p, x, y)\n" + _STEP,
        "tree-structure",
        "(_, aux), grads = jax.value_and_grad(loss_p_aux, has_aux=True)(p, x, y)"),
    "in_a_jitted_step": (
        "@jax.jit\ndef train_step(p, x, y):\n"
        "    (l, grads), aux = jax.value_and_grad(loss_p_aux, has_aux=True)(p, x, y)\n"
        "    return jax.tree.map(lambda a, g: a - 0.1 * g, p, grads)\n"
        "_y = train_step(p, x, y)", "tree-structure",
        "(l, aux), grads = jax.value_and_grad(loss_p_aux, has_aux=True)(p, x, y)"),
    "arithmetic_of_the_aux": (
        "aux, grads = jax.grad(loss_aux, has_aux=True)(params)\n_y = params - 0.1 * grads",
        "grad-order", "grads, aux = jax.grad(loss_aux, has_aux=True)(params)"),
    "arithmetic_of_the_pair": (
        "grads, aux = jax.value_and_grad(loss_aux, has_aux=True)(params)\n"
        "_y = params - 0.1 * grads", "grad-order",
        "(_, aux), grads = jax.value_and_grad(loss_aux, has_aux=True)(params)"),
    # all of has_aux's result bound to one name and given to a library's step (Optax's update
    # maps the gradients first): the generic card, "Parameters and gradients of one model match"
    "whole_result_to_a_library": (
        "grads = jax.value_and_grad(loss_p_aux, has_aux=True)(p, x, y)\n_y = lib.sgd(grads, p)",
        "tree-structure",
        "(loss, aux), grads = jax.value_and_grad(loss_p_aux, has_aux=True)(p, x, y)"),
    # has_aux's whole result bound to one name, of a loss named `loss`: the card unpacked it as
    # `(loss, aux), grads = jax.value_and_grad(loss, ...)`, rebinding the function to a
    # number (the cell failed when run again)
    "pair_of_a_loss_named_loss": (
        "def loss(p, x, y):\n    return loss_p_aux(p, x, y)\n"
        "grads = jax.value_and_grad(loss, has_aux=True)(p, x, y)\n" + _STEP, "tree-structure",
        "(loss_value, aux), grads = jax.value_and_grad(loss, has_aux=True)(p, x, y)"),
}


def order_fixed(cell: str, line: str) -> str:
    """`cell` with the card's `line` in place of the statement it rewrites (the one binding
    grads, its indentation kept)."""
    out = []
    for old in cell.splitlines():
        bound = old.strip().split(" = ")[0] if " = " in old else ""
        if "grads" in bound.replace("(", " ").replace(")", " ").replace(",", " ").split():
            old = old[:len(old) - len(old.lstrip())] + line
        out.append(old)
    return "\n".join(out)


# vmap's and scan's dict of stacked leaves indexed by a number, as a list of dicts: Python's
# KeyError, JAX's too, and no card. (the cell, the card's line)
STACKED_SETUP = ("stats = jax.vmap(lambda r: {'s': r.sum(), 'm': r.max()})(x)\n"
                 "_, hist = jax.lax.scan(lambda c, r: (c, {'r2': r * 2}), 0.0, x)\n")
STACKED = {
    "first_entry": ("_y = stats[0]", "_y = jax.tree.map(lambda v: v[0], stats)"),
    "entry_then_key": ("_y = stats[1]['s']", "_y = stats['s'][1]"),
    "last_step_of_a_scan": ("_y = hist[-1]", "_y = jax.tree.map(lambda v: v[-1], hist)"),
}
# a function called inside the loss with the wrong arguments: Python's error, no card of
# these (the transformed call passed the loss what it takes)
INSIDE = ("def helper(a, b):\n    return a + b\n"
          "def loss_h(p):\n    return jnp.sum(helper(p))\n"
          "_y = jax.grad(loss_h)(params)")


def run(jax) -> dict:
    """JAX's error for each line, and `_y` after the card's lines."""
    found = {}
    for case, (line, _, fix) in {**CASES, "inside": (INSIDE, None, None)}.items():
        names = {"jax": jax, "jnp": jax.numpy}
        exec(SETUP, names)
        found[case] = said(lambda: exec(line, dict(names)))
        if fix is not None:
            exec(fix, names)
            found[f"{case}_fixed"] = np.asarray(names["_y"]).tolist()
    for case, (cell, _, fix) in GRAD_RESULTS.items():
        names = {"jax": jax, "jnp": jax.numpy}
        exec(SETUP, names)
        found[f"result_{case}"] = said(lambda: exec(cell, dict(names)))
        if fix is not None:
            exec(fix, names)
            found[f"result_{case}_fixed"] = np.asarray(names["_y"]).tolist()
    for case, (line, fix) in STACKED.items():
        names = {"jax": jax, "jnp": jax.numpy}
        exec(SETUP + STACKED_SETUP, names)
        found[f"stacked_{case}"] = said(lambda: exec(line, dict(names)))
        exec(fix, names)
        found[f"stacked_{case}_fixed"] = jax.tree.map(lambda v: np.asarray(v).tolist(),
                                                      names["_y"])
    for case, (cell, _, line) in ORDER.items():
        names = {"jax": jax, "jnp": jax.numpy}
        exec(SETUP + ORDER_SETUP, names)
        found[f"order_{case}"] = said(lambda: exec(cell, dict(names)))
        fixed = order_fixed(cell, line)
        exec(fixed + "\n" + fixed, names)       # twice: a cell run again runs
        found[f"order_{case}_fixed"] = [np.asarray(v).tolist()
                                        for v in jax.tree.leaves(names["_y"])]
    for case, (line, fix) in STATIC_OF_LIBRARY.items():
        names = {"jax": jax, "jnp": jax.numpy}
        exec(SETUP + STATIC_SETUP, names)
        found[f"static_{case}"] = said(lambda: exec(line, dict(names)))
        exec(fix if fix.startswith("_y") else f"{fix}\n{line}", names)
        found[f"static_{case}_fixed"] = np.asarray(names["_y"]).tolist()
    return found
