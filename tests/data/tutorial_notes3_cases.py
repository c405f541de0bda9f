"""Cells of JAX 0.10.2's tutorials (docs/tracing.md, JAX 101's pytrees chapter of jax-v0.4.26,
docs/custom_pytrees.md) where what jxkernel's notebook layer showed was wrong or missing
(stop 89, docs/seeing_inside.md "JAX's tutorials, cell by cell"), and the fix a card offers
pasted in. Each case is the page's cell verbatim but its imports (`jax`, `jnp`, `np`, `jit`
and `functools` are given: jxkernel's in tests/notebook/test_tutorial_notes.py); they run in
order in one namespace. reference/make_tutorial_notes_reference.py records what JAX printed
and raised for each (tutorial_notes3_reference.json)."""

CASES3 = {
    # tracing.md's cell 6: a shape's product made by jnp under jit (JAX's TypeError: "Shapes
    # must be 1D sequences of concrete values of integer type")
    "reshape_by_a_jnp_product": (
        "@jit\n"
        "def f(x):\n"
        "  return x.reshape(jnp.array(x.shape).prod())\n"
        "\n"
        "x = jnp.ones((2, 3))\n"
        "f(x)\n"),
    # the card's rewrite of that line, pasted in its place
    "reshape_by_a_jnp_product_fixed": (
        "@jit\n"
        "def f(x):\n"
        "  return x.reshape(np.array(x.shape).prod())    # NumPy's: a Python value while tracing\n"
        "\n"
        "x = jnp.ones((2, 3))\n"
        "print(f(x))\n"),
    # JAX 101's pytrees chapter (jax-v0.4.26): jax.tree_map, gone from jax since 0.6.0
    "tree_map_removed": (
        "example_trees = [[1, 'a', object()], (1, (2, 3), ()), [1, {'k1': 2, 'k2': (3, 4)}, 5]]\n"
        "list_of_lists = [[1, 2, 3], [1, 2], [1, 2, 3, 4]]\n"
        "jax.tree_map(lambda x: x*2, list_of_lists)\n"),
    # what the message names instead
    "tree_map_replaced": "print(jax.tree.map(lambda x: x*2, list_of_lists))\n",
}
# the names JAX 0.6.0 removed from jax, and what replaces each (asked of both)
REMOVED_TREE_NAMES = {"tree_map": "jax.tree.map", "tree_leaves": "jax.tree.leaves",
                      "tree_structure": "jax.tree.structure",
                      "tree_transpose": "jax.tree.transpose", "tree_flatten": "jax.tree.flatten",
                      "tree_unflatten": "jax.tree.unflatten",
                      "treedef_is_leaf": "jax.tree_util.treedef_is_leaf"}
CASES3.update({
    # custom_pytrees.md's cells 5, 7 (its MyDataclassContainer left out) and 8: a NamedTuple
    # with a str field passed to jit (JAX's TypeError: "... at path x.name")
    "named_tuple_with_a_str": (
        "from typing import NamedTuple, Any\n"
        "\n"
        "class MyOtherContainer(NamedTuple):\n"
        "  name: str\n"
        "  a: Any\n"
        "  b: Any\n"
        "  c: Any\n"
        "\n"
        "@jax.jit\n"
        "def f(x: MyOtherContainer):\n"
        "  return x.a + x.b\n"
        "\n"
        "moc = MyOtherContainer('moc', 1, 2, 3)\n"
        "y = f(moc)\n"),
    # the card's class pasted in, then the page's two lines again
    "named_tuple_with_a_str_fixed": (
        "import dataclasses, functools\n"
        "@functools.partial(jax.tree_util.register_dataclass,\n"
        "                   data_fields=['a', 'b', 'c'], meta_fields=['name'])\n"
        "@dataclasses.dataclass\n"
        "class MyOtherContainer:    # in place of the NamedTuple: name static\n"
        "    name: str\n"
        "    a: Any\n"
        "    b: Any\n"
        "    c: Any\n"
        "moc = MyOtherContainer('moc', 1, 2, 3)\n"
        "y = f(moc)\n"
        "print(y)\n"),
})
CASES3.update({
    # JAX 101's 06-parallelism (jax-v0.4.26), cells 1, 2 (on the devices there are: one CPU
    # device here), 5 and 6: a pmap given a pmap's output compiles its program again
    "pmap_defs": (
        "x = np.arange(5)\n"
        "w = np.array([2., 3., 4.])\n"
        "\n"
        "def convolve(x, w):\n"
        "  output = []\n"
        "  for i in range(1, len(x)-1):\n"
        "    output.append(jnp.dot(x[i-1:i+2], w))\n"
        "  return jnp.array(output)\n"
        "\n"
        "n_devices = jax.local_device_count() \n"
        "xs = np.arange(5 * n_devices).reshape(-1, 5)\n"
        "ws = np.stack([w] * n_devices)\n"),
    "pmap_first": "jax.pmap(convolve)(xs, ws)\n",
    "pmap_of_a_pmaps_output": "jax.pmap(convolve)(xs, jax.pmap(convolve)(xs, ws))\n",
    # the fix the note offered (ws put on cpu:0 before each call), with a function of its own:
    # JAX compiles again all the same
    "pmap_put_first": (
        "def convolve_put(x, w):\n"
        "  return convolve(x, w)\n"
        "ws_put = jax.device_put(ws, jax.devices()[0])\n"
        "jax.pmap(convolve_put)(xs, ws_put)\n"),
    "pmap_put_then_a_pmaps_output": (
        "jax.pmap(convolve_put)(xs, jax.pmap(convolve_put)(xs, ws_put))\n"),
    # each kind called again: no compile
    "pmap_both_again": (
        "jax.pmap(convolve)(xs, ws)\n"
        "jax.pmap(convolve)(xs, jax.pmap(convolve)(xs, ws))\n"),
})
CASES3.update({
    # tracing.md's first cell (the NumPy inputs made of ones: what JAX prints is recorded):
    # three print lines show tracers
    "three_prints": (
        "@jit\n"
        "def f(x, y):\n"
        "  print(\"Running f():\")\n"
        "  print(f\"  x = {x}\")\n"
        "  print(f\"  y = {y}\")\n"
        "  result = jnp.dot(x + 1, y + 1)\n"
        "  print(f\"  result = {result}\")\n"
        "  return result\n"
        "\n"
        "x = np.ones((3, 4))\n"
        "y = np.ones(4)\n"
        "f(x, y)\n"),
    # the note's three lines pasted in place of the three prints; two calls
    "three_prints_fixed": (
        "@jit\n"
        "def f(x, y):\n"
        "  print(\"Running f():\")\n"
        "  jax.debug.print('  x = {x}', x=x)\n"
        "  jax.debug.print('  y = {y}', y=y)\n"
        "  result = jnp.dot(x + 1, y + 1)\n"
        "  jax.debug.print('  result = {result}', result=result)\n"
        "  return result\n"
        "\n"
        "f(x, y)\n"
        "f(x, y)\n"
        "jax.effects_barrier()\n"),
})
CASES3.update({
    # JAX 101's 02-jitting (jax-v0.4.26), its `%timeit g_inner_jitted_lambda(10, 20)` made
    # small: a jit made anew inside a function the statement calls, called three times
    "jit_made_inside_a_called_function": (
        "x = jnp.arange(4.0)\n"
        "def g_inner(v):\n"
        "  return jax.jit(lambda u: u + 1)(v)\n"
        "for _ in range(3):\n"
        "  g_inner(x)\n"),
    # %timeit's fix: the jit made once, outside the function, and called there
    "jit_made_once_outside_the_function": (
        "inner_jit = jax.jit(lambda u: u + 1)\n"
        "def g_inner(v):\n"
        "  return inner_jit(v)\n"
        "for _ in range(3):\n"
        "  g_inner(x)\n"),
})
CASES3.update({
    # custom_pytrees.md's cells 0 and 1: tree.map over a list of an unregistered class
    "special_unregistered": (
        "class Special(object):\n"
        "  def __init__(self, x, y):\n"
        "    self.x = x\n"
        "    self.y = y\n"
        "\n"
        "jax.tree.map(lambda x: x + 1,\n"
        "  [\n"
        "    Special(0, 1),\n"
        "    Special(2, 4)\n"
        "  ])\n"),
    # the card's line, then the call again
    "special_registered": (
        "jax.tree_util.register_dataclass(Special, data_fields=['x', 'y'], meta_fields=[])\n"
        "out = jax.tree.map(lambda x: x + 1,\n"
        "  [\n"
        "    Special(0, 1),\n"
        "    Special(2, 4)\n"
        "  ])\n"
        "print([(s.x, s.y) for s in out])\n"),
})
CASES3.update({
    # JAX 101's 02-jitting (jax-v0.4.26), g_inner_jitted_partial called once, its loop made
    # 3 passes: a partial binding nothing, jitted anew in each pass
    "jit_of_a_partial_binding_nothing": (
        "from functools import partial\n"
        "\n"
        "def unjitted_loop_body(prev_i):\n"
        "  return prev_i + 1\n"
        "\n"
        "def g_inner_jitted_partial(x, n):\n"
        "  i = 0\n"
        "  while i < n:\n"
        "    # Don't do this! each time the partial returns\n"
        "    # a function with different hash\n"
        "    i = jax.jit(partial(unjitted_loop_body))(i)\n"
        "  return x + i\n"
        "\n"
        "print(g_inner_jitted_partial(10, 3))\n"),
    # the note's two lines in place of the partial's
    "jit_of_a_partial_binding_nothing_fixed": (
        "def g_inner_jitted_partial(x, n):\n"
        "  i = 0\n"
        "  unjitted_loop_body_jit = jax.jit(unjitted_loop_body)\n"
        "  while i < n:\n"
        "    i = unjitted_loop_body_jit(i)\n"
        "  return x + i\n"
        "\n"
        "print(g_inner_jitted_partial(10, 3))\n"),
})
