"""What JAX says for two mistakes that had no card, and for vmap-sizes cards whose last
template was code no trace had checked: `run(jax)` gives, per case, the exception's class,
its message and where its traceback ends, and the value of each fix a card writes.
tests/notebook/test_einsum_scan_cards.py compares; the reference
(einsum_scan_cards_reference.json) is real JAX 0.10.2's, written by
reference/make_einsum_scan_cards_reference.py.

- jnp.einsum whose subscripts give one letter two sizes (opt_einsum's ValueError), with every
  operand transposed by one swap of two axes, so the card's "this transpose fits" and "no
  transpose fits" are JAX's;
- lax.scan with neither xs nor length (and lax.map of None), and the line with `length=`;
- vmap-sizes where no in_axes traces or the line cannot be rewritten: the code the card gave
  there, run."""
import re
import traceback

from recorded_errors import leaf_values  # tests/data

# (what the cell defines, the subscripts, the operands' names): the mistake is
# `y = jnp.einsum(subscripts, *names)`
EINSUM = {
    # a matrix product of (2, 3) and (4, 5): nothing transposed fits
    "no_transpose_fits": ("a = jnp.ones((2, 3))\nb = jnp.ones((4, 5))\n", "ij,jk->ik",
                          ("a", "b")),
    # a given as (3, 2): a.T alone fits
    "first_transposed": ("a = jnp.arange(6.0).reshape(3, 2)\n"
                         "b = jnp.arange(15.0).reshape(3, 5)\n", "ij,jk->ik", ("a", "b")),
    # a weight matrix given (out, in) for 'ij,j->i': W.T
    "matrix_vector": ("W = jnp.arange(6.0).reshape(3, 2)\nv = jnp.arange(3.0)\n",
                      "ij,j->i", ("W", "v")),
    # a batch of matrices with its last two axes swapped: x.swapaxes(1, 2)
    "batched": ("x = jnp.arange(24.0).reshape(2, 4, 3)\n"
                "w = jnp.arange(40.0).reshape(2, 4, 5)\n", "bij,bjk->bik", ("x", "w")),
    # two (4, 3) matrices: a.T and b.T both fit, with other results ((3, 3), (4, 4))
    "either_transposed": ("a = jnp.arange(12.0).reshape(4, 3)\n"
                          "b = jnp.arange(12.0).reshape(4, 3)\n", "ij,jk->ik", ("a", "b")),
    # the diagonal of a (2, 3) matrix
    "diagonal_of_a_non_square": ("m = jnp.ones((2, 3))\n", "ii->i", ("m",)),
    # batch axes under '...' of 2 and 3
    "under_ellipsis": ("a = jnp.ones((2, 2, 3))\nb = jnp.ones((3, 3, 4))\n",
                       "...ij,...jk->...ik", ("a", "b")),
    # implicit output, spaces in the subscripts
    "implicit_output": ("a = jnp.arange(6.0).reshape(2, 3)\n"
                        "b = jnp.arange(15.0).reshape(5, 3)\n", "ij, jk", ("a", "b")),
}

# mistakes of other spellings (the cell's definitions, the line)
EINSUM_OTHER = {
    # lists of axis numbers (opt_einsum's letters 'ab,bc')
    "interleaved": ("a = jnp.ones((2, 3))\nb = jnp.ones((4, 5))\n",
                    "y = jnp.einsum(a, [0, 1], b, [1, 2])"),
    # an operand of another number of axes than its letters: opt_einsum's other ValueError,
    # the einsum-axes card's (einsum_axes_cards_cases.py), not this card's
    "wrong_rank": ("a = jnp.ones((2, 3))\nb = jnp.ones((3, 5, 1))\n",
                   "y = jnp.einsum('ij,jk->ik', a, b)"),
    # a diagonal of two sizes beside an operand of too few axes for its letters (b is 0-d for
    # 'jbi'): opt_einsum tells the sizes first; no transpose is looked for (the card raised
    # KeyError looking, and gave none)
    "diagonal_beside_wrong_count": ("a = jnp.ones((3, 3, 2, 3))\nb = jnp.ones(())\n",
                                    "y = jnp.einsum('...ii,jbi->j', a, b)"),
    # inside a jitted lambda: its own parameters transposed
    "under_jit": ("a = jnp.arange(6.0).reshape(2, 3)\nb = jnp.arange(15.0).reshape(5, 3)\n",
                  "y = jax.jit(lambda p, q: jnp.einsum('ij,jk->ik', p, q))(a, b)"),
}
# the card's rewrites of those (its code, its comment dropped)
EINSUM_OTHER_FIXED = {
    "under_jit": "y = jax.jit(lambda p, q: jnp.einsum('ij,jk->ik', p, q.T))(a, b)",
}

# scan and map with nothing to count their steps: (what the cell defines, the line)
SCAN = {
    "lambda_reading_no_x": ("", "carry, ys = lax.scan(lambda c, x: (c + 1, c), 0)"),
    "named_body_xs_none": ("def body(c, _):\n    return c * 2.0, c\n",
                           "carry, ys = jax.lax.scan(body, 1.0, None)"),
    "xs_keyword_none": ("def step(c, x):\n    return c + 1, c * c\n",
                        "carry, ys = lax.scan(step, 0, xs=None)"),
    "body_reads_x": ("", "carry, ys = lax.scan(lambda c, x: (c + x, c), 0)"),
    "map_of_none": ("", "ys = lax.map(lambda x: x * 2, None)"),
}
# the scan card's rewrites (its code, its comment dropped), pasted in place of the line
SCAN_FIXED = {
    "lambda_reading_no_x": "carry, ys = lax.scan(lambda c, x: (c + 1, c), 0, length=10)",
    "named_body_xs_none": "carry, ys = jax.lax.scan(body, 1.0, None, length=10)",
    "xs_keyword_none": "carry, ys = lax.scan(step, 0, xs=None, length=10)",
}
# why the card gives no length= code for a body that reads x: x is None there (JAX's error)
SCAN_REFUSED = {
    "body_reads_x_given_length": "carry, ys = lax.scan(lambda c, x: (c + x, c), 0, length=10)",
}

# vmap of mapped axes of two sizes where the card had no checked in_axes for the line
VMAP = {
    # a call over two lines: the card's line cannot be rewritten
    "call_over_two_lines": "_r = jax.vmap(lambda a, b: a * b)(jnp.ones(3),\n"
                           "                                  jnp.arange(2.0))\n",
    # a function that traces with no in_axes: each size's in_axes fails in f
    "no_in_axes_traces": "def f(a, b):\n    return a.reshape(7) * b\n"
                         "_r = jax.vmap(f)(jnp.ones(3), jnp.arange(2.0))\n",
}
# what the card gave as code there before, pasted: the template (vmap of Ellipsis) and the
# line with in_axes no trace had checked; and the other in_axes of no_in_axes_traces
VMAP_OLD_CODE = {
    "call_over_two_lines_template": "f = lambda a, b: a * b\n"
                                    "_r = jax.vmap(f, in_axes=(0, None))(...)\n",
    "no_in_axes_traces_line": "def f(a, b):\n    return a.reshape(7) * b\n"
                              "_r = jax.vmap(f, in_axes=(0, None))(jnp.ones(3), "
                              "jnp.arange(2.0))\n",
    "no_in_axes_traces_other_way": "def f(a, b):\n    return a.reshape(7) * b\n"
                                   "_r = jax.vmap(f, in_axes=(None, 0))(jnp.ones(3), "
                                   "jnp.arange(2.0))\n",
}


def einsum_line(subscripts, names) -> str:
    return f"y = jnp.einsum({subscripts!r}, {', '.join(names)})"


def swapped(name, ndim, i, j) -> str:
    """An operand with axes i and j swapped, as the card writes it."""
    return f"{name}.T" if ndim == 2 else f"{name}.swapaxes({i}, {j})"


def transposes(shapes) -> list:
    """(operand, i, j) for every swap of two axes of different sizes of one operand."""
    return [(k, i, j) for k, shape in enumerate(shapes) for i in range(len(shape))
            for j in range(i + 1, len(shape)) if shape[i] != shape[j]]


def _where_it_ends(tb) -> str:
    """The last frame of a traceback: "the program" where it is the case's own, else the
    file's last two path parts and the function (`opt_einsum/contract.py, contract_path`)."""
    last = traceback.extract_tb(tb)[-1]
    if last.filename == "<case>":
        return "the program"
    parts = re.split(r"[\\/]", last.filename)
    return f"{'/'.join(parts[-2:])}, {last.name}"


def _said(run) -> dict | None:
    try:
        run()
    except Exception as e:      # noqa: BLE001  (what JAX raises is the fact recorded)
        return {"class": type(e).__name__, "message": str(e),
                "ends_in": _where_it_ends(e.__traceback__)}
    return None


def _ran(source, names) -> dict:
    exec(compile(source, "<case>", "exec"), names)
    return names


def _result(jax, ran: dict) -> dict:
    """The shape and value of `y`, which a case's pasted line assigned (`ran`: its names)."""
    return {"shape": list(ran["y"].shape), "value": leaf_values(jax, ran["y"])}


def run(jax) -> dict:
    """Each case's facts, with tracebacks filtered as a notebook's are."""
    return filtered_as_a_notebook(jax, _run)


def filtered_as_a_notebook(jax, run):
    """run(jax) with tracebacks filtered as a notebook's are (JAX's default: the test suite
    turns filtering off, and where a traceback ends is recorded)."""
    before = jax.config.jax_traceback_filtering
    jax.config.update("jax_traceback_filtering", "remove_frames")
    try:
        return run(jax)
    finally:
        jax.config.update("jax_traceback_filtering", before)


def _run(jax) -> dict:
    from_ = {"jax": jax, "jnp": jax.numpy, "lax": jax.lax}
    found = {}
    for case, (setup, subscripts, names) in EINSUM.items():
        defined = _ran(setup, dict(from_))
        line = einsum_line(subscripts, names)
        found[f"einsum_{case}"] = _said(lambda: _ran(line, dict(defined)))
        shapes = [tuple(defined[n].shape) for n in names]
        for k, i, j in transposes(shapes):
            operand = swapped(names[k], len(shapes[k]), i, j)
            fixed = einsum_line(subscripts, names[:k] + (operand,) + names[k + 1:])
            ran = dict(defined)
            said = _said(lambda: _ran(fixed, ran))
            found[f"einsum_{case}_{operand}"] = said["class"] if said else _result(jax, ran)
    for case, (setup, line) in EINSUM_OTHER.items():
        defined = _ran(setup, dict(from_))
        found[f"einsum_{case}"] = _said(lambda: _ran(line, dict(defined)))
        if case in EINSUM_OTHER_FIXED:
            found[f"einsum_{case}_fixed"] = leaf_values(
                jax, _ran(EINSUM_OTHER_FIXED[case], dict(defined))["y"])
    for case, (setup, line) in SCAN.items():
        defined = _ran(setup, dict(from_))
        found[f"scan_{case}"] = _said(lambda: _ran(line, dict(defined)))
        if case in SCAN_FIXED:
            ran = _ran(SCAN_FIXED[case], dict(defined))
            found[f"scan_{case}_fixed"] = leaf_values(jax, (ran["carry"], ran["ys"]))
    for case, line in SCAN_REFUSED.items():
        found[f"scan_{case}"] = _said(lambda: _ran(line, dict(from_)))["class"]
    for case, program in VMAP.items():
        found[f"vmap_{case}"] = _said(lambda: _ran(program, dict(from_)))["class"]
    for case, program in VMAP_OLD_CODE.items():
        found[f"vmap_{case}"] = _said(lambda: _ran(program, dict(from_)))["class"]
    return found
