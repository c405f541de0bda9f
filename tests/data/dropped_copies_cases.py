"""Cells that make an updated copy of an array with `.at[...]` and drop it, for the note
under such a cell (jxkernel/notebook/notes/update_notes.py): run by
reference/make_dropped_copies_reference.py (JAX 0.10.2, into dropped_copies_reference.json)
and by tests/notebook/test_update_notes.py.

Per case: the cell (it leaves the array it updates in `x`), the line the note tells (from 1),
the fix the note writes for that line, and the name that holds the copy kept once the line is
replaced by the fix. The reference holds `x` after the cell as written, and that name after
the fixed cell.

    >>> CASES["top_level"][1:]
    (2, 'x = x.at[0].set(10)', 'x')
"""
CASES = {
    "top_level": ("x = jnp.arange(5)\nx.at[0].set(10)\nprint(x)\n", 2, "x = x.at[0].set(10)",
                  "x"),
    "in_a_jitted_function": (
        "def bump(v):\n    v.at[0].add(1)\n    return v\nx = jax.jit(bump)(jnp.arange(5))\n",
        2, "    v = v.at[0].add(1)", "x"),
    # no plain name: x.T (a property) or x[0] (an array's row) cannot be assigned to
    "a_dict_leaf": ("params = {'w': jnp.zeros(3)}\nparams['w'].at[1].set(2.)\n"
                    "x = params['w']\n", 2, "updated = params['w'].at[1].set(2.)", "updated"),
    "a_transpose": ("x = jnp.zeros((2, 2))\nx.T.at[0, 1].set(2.)\nprint(x)\n", 2,
                    "updated = x.T.at[0, 1].set(2.)", "updated"),
    # NumPy's x.sort() sorts x in place; JAX's returns a sorted copy
    "a_sort": ("x = jnp.array([3, 1, 2])\nx.sort()\nprint(x)\n", 2, "x = x.sort()", "x"),
    # each update's copy feeds the next: the chain's last copy is dropped, and x stays
    "a_chain": ("x = jnp.zeros(3)\nx.at[0].set(1.).at[1].set(2.)\nprint(x)\n", 2,
                "x = x.at[0].set(1.).at[1].set(2.)", "x"),
    "in_a_loop": ("x = jnp.ones(3)\nfor i in range(3):\n    x.at[i].multiply(2.)\n", 3,
                  "    x = x.at[i].multiply(2.)", "x"),
}

# A loop's item updated (`for row in m: row.at[0].set(1.)`): `row = <copy>` keeps nothing
# once the turn ends, and m, what NumPy's row[0] = 1 changes, stays as it was. Per case: the
# cell, the line told, the note's fix (the loop's line and the told line replaced by the lines
# it writes) and the name of what the loop goes over.
LOOPS = {
    "rows_of_an_array": ("m = jnp.zeros((2, 3))\nfor row in m:\n    row.at[0].set(1.)\n", 3,
                         "m = jnp.zeros((2, 3))\nfor i, row in enumerate(m):\n"
                         "    row = row.at[0].set(1.)\n    m = m.at[i].set(row)\n", "m"),
    "arrays_of_a_list": ("m = [jnp.zeros(2), jnp.ones(2)]\nfor a in m:  # each\n"
                         "    a.at[0].add(5.)\n", 3,
                         "m = [jnp.zeros(2), jnp.ones(2)]\nfor i, a in enumerate(m):  # each\n"
                         "    a = a.at[0].add(5.)\n    m[i] = a\n", "m"),
}

# A copy dropped where keeping it under its name keeps nothing once a function returns: in a
# method's field (`self.w.at[0].set(1.)`), or a parameter the function does not return (the
# caller's array is unchanged: JAX arrays are values). Per case: the cell, the line told, the
# code the note writes (its last lines), the cell with the note's fix as it says (in the
# caller too, where it says to keep what the function returns), the cell with the note's
# earlier fix (which kept nothing), and the name that holds the array.
BEYOND = {
    "a_field_of_a_plain_object": (
        "class M:\n    def __init__(self):\n        self.w = jnp.zeros(3)\n"
        "    def bump(self):\n        self.w.at[0].set(1.)\nm = M()\nm.bump()\nx = m.w\n", 5,
        "        self.w = self.w.at[0].set(1.)",
        "class M:\n    def __init__(self):\n        self.w = jnp.zeros(3)\n"
        "    def bump(self):\n        self.w = self.w.at[0].set(1.)\nm = M()\nm.bump()\n"
        "x = m.w\n",
        "class M:\n    def __init__(self):\n        self.w = jnp.zeros(3)\n"
        "    def bump(self):\n        updated = self.w.at[0].set(1.)\nm = M()\nm.bump()\n"
        "x = m.w\n", "x"),
    "a_parameter_not_returned": (
        "def reset(v):\n    v.at[0].set(5.)\nx = jnp.zeros(3)\nreset(x)\n", 2,
        "    v = v.at[0].set(5.)\n    return v",
        "def reset(v):\n    v = v.at[0].set(5.)\n    return v\nx = jnp.zeros(3)\nx = reset(x)\n",
        "def reset(v):\n    v = v.at[0].set(5.)\nx = jnp.zeros(3)\nreset(x)\n", "x"),
    "a_field_of_a_frozen_dataclass": (
        "import dataclasses\n@dataclasses.dataclass(frozen=True)\nclass F:\n    w: jax.Array\n"
        "    def bump(self):\n        self.w.at[0].set(1.)\nf = F(jnp.zeros(3))\nf.bump()\n"
        "x = f.w\n", 6,
        "        return dataclasses.replace(self, w=self.w.at[0].set(1.))",
        "import dataclasses\n@dataclasses.dataclass(frozen=True)\nclass F:\n    w: jax.Array\n"
        "    def bump(self):\n        return dataclasses.replace(self, w=self.w.at[0].set(1.))"
        "\nf = F(jnp.zeros(3))\nf = f.bump()\nx = f.w\n",
        "import dataclasses\n@dataclasses.dataclass(frozen=True)\nclass F:\n    w: jax.Array\n"
        "    def bump(self):\n        updated = self.w.at[0].set(1.)\nf = F(jnp.zeros(3))\n"
        "f.bump()\nx = f.w\n", "x"),
}


def rebound(name: str) -> str:
    """The LOOPS case's cell with the told line keeping the copy under the item's name only."""
    source, line, _, _ = LOOPS[name]
    lines = source.splitlines()
    told = lines[line - 1]
    item = told.strip().split(".at[")[0]
    lines[line - 1] = told[:len(told) - len(told.lstrip())] + f"{item} = {told.strip()}"
    return "\n".join(lines) + "\n"


def fixed(name: str) -> str:
    """The case's cell with the told line replaced by the note's fix."""
    source, line, fix, _ = CASES[name]
    lines = source.splitlines()
    lines[line - 1] = fix
    return "\n".join(lines) + "\n"


def _value(jax, source, name):
    names = {"jax": jax, "jnp": jax.numpy}
    exec(source, names)
    return names[name].tolist()


def _listed(jax, source, name):
    """`name`'s value after `source`: an array's, or a list of arrays' values."""
    names = {"jax": jax, "jnp": jax.numpy}
    exec(source, names)
    value = names[name]
    return [a.tolist() for a in value] if isinstance(value, list) else value.tolist()


def run(jax) -> dict:
    out = {name: {"as_written": _value(jax, CASES[name][0], "x"),
                  "kept": _value(jax, fixed(name), CASES[name][3])} for name in CASES}
    for name, (source, _, fix, over) in LOOPS.items():
        out[f"loop:{name}"] = {"as_written": _listed(jax, source, over),
                               "rebound": _listed(jax, rebound(name), over),
                               "kept": _listed(jax, fix, over)}
    for name, (source, _, _, fixed_cell, earlier, holds) in BEYOND.items():
        out[f"beyond:{name}"] = {"as_written": _value(jax, source, holds),
                                 "earlier_fix": _value(jax, earlier, holds),
                                 "kept": _value(jax, fixed_cell, holds)}
    return out
