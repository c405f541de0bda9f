"""What JAX says for jnp.einsum given an operand whose subscripts have another number of
letters than it has axes, and what each fix the einsum-axes card prints gives when pasted:
`run(jax)` gives, per case, the exception's class, its message and where its traceback ends,
and each printed line's shape and value (or the class JAX raises for a line the card does not
print). tests/notebook/test_einsum_axes_cards.py compares; the reference
(einsum_axes_cards_reference.json) is real JAX 0.10.2's, written by
reference/make_einsum_axes_cards_reference.py.

opt_einsum words it two ways: "Einstein sum subscript 'ij' does not contain the correct number
of indices for operand 0." (contract_path, the subscripts without '...'), and "Ellipses
lengths do not match." (parse_einsum_input: an operand with fewer axes than the letters written
beside its '...'). The output naming a letter no input has ("Output character 'b' did not appear
in the input": the einsum-output card's) and subscripts for another number of operands are
other errors, given no einsum-axes card: they are recorded here so that the card is known to
stay away from them."""
from einsum_scan_cards_cases import _ran, _result, _said, filtered_as_a_notebook  # tests/data

# (what the cell defines, the learner's line, the lines the card prints: its rewrite first,
# then the spelling with a letter of its own for the batch axis where it gives one)
CARDS = {
    # a batch of matrices where 'ij' names one matrix: '...' for the batch
    "batch_of_matrices": ("a = jnp.arange(24.0).reshape(2, 3, 4)\n"
                          "b = jnp.arange(20.0).reshape(4, 5)\n",
                          "y = jnp.einsum('ij,jk->ik', a, b)",
                          ("y = jnp.einsum('...ij,jk->...ik', a, b)",
                           "y = jnp.einsum('bij,jk->bik', a, b)")),
    # 'bij' for a 2-D x: '...' in place of 'b', which also runs on a batch of x
    "batch_letter_of_a_matrix": ("x = jnp.arange(12.0).reshape(3, 4)\n"
                                 "w = jnp.arange(20.0).reshape(4, 5)\n",
                                 "y = jnp.einsum('bij,jk->bik', x, w)",
                                 ("y = jnp.einsum('...ij,jk->...ik', x, w)",)),
    # the second operand batched
    "batched_second_operand": ("a = jnp.arange(6.0).reshape(2, 3)\n"
                               "b = jnp.arange(90.0).reshape(6, 3, 5)\n",
                               "y = jnp.einsum('ij,jk->ik', a, b)",
                               ("y = jnp.einsum('ij,...jk->...ik', a, b)",
                                "y = jnp.einsum('ij,bjk->bik', a, b)")),
    # two batch axes: '...' alone (no one letter names them)
    "two_batch_axes": ("a = jnp.arange(144.0).reshape(2, 6, 3, 4)\n"
                       "b = jnp.arange(20.0).reshape(4, 5)\n",
                       "y = jnp.einsum('ij,jk->ik', a, b)",
                       ("y = jnp.einsum('...ij,jk->...ik', a, b)",)),
    # both operands batched: JAX's message names operand 0; the card fixes both
    "both_batched": ("a = jnp.arange(24.0).reshape(2, 3, 4)\n"
                     "b = jnp.arange(40.0).reshape(2, 4, 5)\n",
                     "y = jnp.einsum('ij,jk->ik', a, b)",
                     ("y = jnp.einsum('...ij,...jk->...ik', a, b)",
                      "y = jnp.einsum('bij,bjk->bik', a, b)")),
    # a vector where 'ij' names a matrix: '...j' takes it as one row (or a batch of rows)
    "vector_for_a_matrix": ("a = jnp.arange(3.0)\nb = jnp.arange(15.0).reshape(3, 5)\n",
                            "y = jnp.einsum('ij,jk->ik', a, b)",
                            ("y = jnp.einsum('...j,jk->...k', a, b)",)),
    # '...' written for one operand, the other's batch left out
    "ellipsis_on_one_side": ("x = jnp.arange(24.0).reshape(2, 3, 4)\n"
                             "w = jnp.arange(40.0).reshape(2, 4, 5)\n",
                             "y = jnp.einsum('...ij,jk->...ik', x, w)",
                             ("y = jnp.einsum('...ij,...jk->...ik', x, w)",)),
    # the output left implicit (and spaces in the subscripts)
    "implicit_output": ("a = jnp.arange(24.0).reshape(2, 3, 4)\n"
                        "b = jnp.arange(20.0).reshape(4, 5)\n",
                        "y = jnp.einsum('ij, jk', a, b)",
                        ("y = jnp.einsum('...ij,jk', a, b)",)),
    # a diagonal of a batch of square matrices
    "batched_diagonal": ("m = jnp.arange(18.0).reshape(2, 3, 3)\n",
                         "y = jnp.einsum('ii->i', m)",
                         ("y = jnp.einsum('...ii->...i', m)",
                          "y = jnp.einsum('bii->bi', m)")),
    # lists of axis numbers: Ellipsis first in the list
    "interleaved": ("a = jnp.arange(24.0).reshape(2, 3, 4)\n"
                    "b = jnp.arange(20.0).reshape(4, 5)\n",
                    "y = jnp.einsum(a, [0, 1], b, [1, 2])",
                    ("y = jnp.einsum(a, [..., 0, 1], b, [1, 2])",)),
    "interleaved_with_output": ("a = jnp.arange(24.0).reshape(2, 3, 4)\n"
                                "b = jnp.arange(20.0).reshape(4, 5)\n",
                                "y = jnp.einsum(a, [0, 1], b, [1, 2], [0, 2])",
                                ("y = jnp.einsum(a, [..., 0, 1], b, [1, 2], [..., 0, 2])",)),
    # inside a jitted lambda: its own parameters' names
    "under_jit": ("a = jnp.arange(24.0).reshape(2, 3, 4)\n"
                  "b = jnp.arange(20.0).reshape(4, 5)\n",
                  "y = jax.jit(lambda p, q: jnp.einsum('ij,jk->ik', p, q))(a, b)",
                  ("y = jax.jit(lambda p, q: jnp.einsum('...ij,jk->...ik', p, q))(a, b)",
                   "y = jax.jit(lambda p, q: jnp.einsum('bij,jk->bik', p, q))(a, b)")),
    # an operand written in the call: named by its place
    "unnamed_operand": ("", "y = jnp.einsum('ij,jk->ik', jnp.ones((2, 3, 4)), jnp.ones((4, 5)))",
                        ("y = jnp.einsum('...ij,jk->...ik', jnp.ones((2, 3, 4)), "
                         "jnp.ones((4, 5)))",
                         "y = jnp.einsum('bij,jk->bik', jnp.ones((2, 3, 4)), jnp.ones((4, 5)))")),
    # cards with words alone: the extra axis is a's last, so '...' in front pairs the wrong
    # axes (the line the card does not print, in REFUSED)
    "extra_axis_last": ("a = jnp.arange(24.0).reshape(3, 4, 2)\n"
                        "b = jnp.arange(20.0).reshape(4, 5)\n",
                        "y = jnp.einsum('ij,jk->ik', a, b)", ()),
    # the extra axis b's last (einsum_scan_cards_cases.py's wrong_rank): likewise
    "second_extra_axis_last": ("a = jnp.ones((2, 3))\nb = jnp.ones((3, 5, 1))\n",
                               "y = jnp.einsum('ij,jk->ik', a, b)", ()),
    # '...ij' of a vector: '...' stands for no axes, and the letters still want two
    "ellipsis_cannot_absorb": ("a = jnp.arange(3.0)\nb = jnp.arange(15.0).reshape(3, 5)\n",
                               "y = jnp.einsum('...ij,jk->...ik', a, b)", ()),
    # a 0-d operand beside '...i': opt_einsum names 'i', its '...' dropped
    "scalar_for_ellipsis": ("s = jnp.array(2.0)\nb = jnp.arange(15.0).reshape(3, 5)\n",
                            "y = jnp.einsum('...i,ik->...k', s, b)", ()),
    # the interleaved form's Ellipsis that cannot absorb
    "interleaved_ellipsis": ("a = jnp.arange(3.0)\nb = jnp.arange(15.0).reshape(3, 5)\n",
                             "y = jnp.einsum(a, [..., 0, 1], b, [1, 2], [..., 0, 2])", ()),
}

# lines the card does not print, with why: what JAX raises for them
REFUSED = {
    "extra_axis_last": "y = jnp.einsum('...ij,jk->...ik', a, b)",
    "second_extra_axis_last": "y = jnp.einsum('ij,...jk->...ik', a, b)",
}

# other errors of einsum's subscripts: no einsum-axes card (what the cell defines, the line)
NO_CARD = {
    # the output names a letter no operand has: a typo
    "output_letter": ("a = jnp.ones((2, 3))\nb = jnp.ones((3, 5))\n",
                      "y = jnp.einsum('ij,jk->il', a, b)"),
    # the batch letter written in the output alone (opt_einsum checks the output first)
    "batch_letter_in_output_only": ("a = jnp.ones((2, 3, 4))\nb = jnp.ones((4, 5))\n",
                                    "y = jnp.einsum('ij,jk->bik', a, b)"),
    # subscripts for two operands, one given
    "one_operand_for_two": ("a = jnp.ones((2, 3))\n", "y = jnp.einsum('ij,jk->ik', a)"),
    # '..' for '...'
    "two_dots": ("a = jnp.ones((2, 3, 4))\nb = jnp.ones((4, 5))\n",
                 "y = jnp.einsum('..ij,jk->..ik', a, b)"),
    # a letter of two sizes: the einsum-labels card's
    "label_sizes": ("a = jnp.ones((2, 3))\nb = jnp.ones((4, 5))\n",
                    "y = jnp.einsum('ij,jk->ik', a, b)"),
}


def run(jax) -> dict:
    """Each case's facts, with tracebacks filtered as a notebook's are."""
    return filtered_as_a_notebook(jax, _run)


def _run(jax) -> dict:
    from_ = {"jax": jax, "jnp": jax.numpy}
    found = {}
    for case, (setup, line, printed) in CARDS.items():
        defined = _ran(setup, dict(from_))
        found[case] = _said(lambda: _ran(line, dict(defined)))
        for i, fixed in enumerate(printed):
            found[f"{case}_fixed_{i}"] = _result(jax, _ran(fixed, dict(defined)))
    for case, line in REFUSED.items():
        defined = _ran(CARDS[case][0], dict(from_))
        found[f"{case}_refused"] = _said(lambda: _ran(line, dict(defined)))
    for case, (setup, line) in NO_CARD.items():
        defined = _ran(setup, dict(from_))
        found[f"no_card_{case}"] = _said(lambda: _ran(line, dict(defined)))
    return found
