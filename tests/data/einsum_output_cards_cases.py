"""What JAX says for jnp.einsum given result subscripts that name a letter no operand has, or
one letter twice, and what each line the einsum-output card prints gives when pasted:
`run(jax)` gives, per case, the exception's class, its message and where its traceback ends,
and each printed line's shape and value. tests/notebook/test_einsum_output_cards.py compares;
the reference (einsum_output_cards_reference.json) is real JAX 0.10.2's, written by
reference/make_einsum_output_cards_reference.py.

opt_einsum words them "Output character 'k' did not appear in the input" and "Output character
'i' appeared more than once in the output.", checked before any shape: a result letter
written twice is told first, then one no operand has, then an operand's letters that miscount
its axes."""
from einsum_scan_cards_cases import _ran, _result, _said, filtered_as_a_notebook  # tests/data

# (what the cell defines, the learner's line, the line the card prints or None)
CARDS = {
    # the one letter summed over is the one meant: kept in place of the unknown one
    "typo_for_the_summed_letter": ("a = jnp.arange(6.0).reshape(2, 3)\n",
                                   "y = jnp.einsum('ij->ik', a)",
                                   "y = jnp.einsum('ij->ij', a)"),
    # two letters summed over: which was meant is the learner's, in words
    "two_summed_letters": ("a = jnp.arange(6.0).reshape(2, 3)\n"
                           "b = jnp.arange(15.0).reshape(3, 5)\n",
                           "y = jnp.einsum('ij,jk->il', a, b)", None),
    # a new axis asked of einsum, every operand letter kept already
    "a_new_axis": ("a = jnp.arange(6.0).reshape(2, 3)\n", "y = jnp.einsum('ij->ijk', a)", None),
    # a batch letter written in the result alone, the batch axis there in x
    "batch_letter_in_the_result_only": ("x = jnp.arange(24.0).reshape(2, 3, 4)\n"
                                        "w = jnp.arange(20.0).reshape(4, 5)\n",
                                        "y = jnp.einsum('ij,jk->bik', x, w)",
                                        "y = jnp.einsum('bij,jk->bik', x, w)"),
    # the same where the extra axis does not lead: words only
    "batch_letter_that_does_not_fit": ("x = jnp.arange(24.0).reshape(3, 4, 2)\n"
                                       "w = jnp.arange(20.0).reshape(4, 5)\n",
                                       "y = jnp.einsum('ij,jk->bik', x, w)", None),
    # a letter written twice in the result
    "letter_twice": ("a = jnp.arange(6.0).reshape(2, 3)\n"
                     "b = jnp.arange(15.0).reshape(3, 5)\n",
                     "y = jnp.einsum('ij,jk->iij', a, b)",
                     "y = jnp.einsum('ij,jk->ij', a, b)"),
    # a vector on a diagonal
    "vector_to_diagonal": ("v = jnp.arange(1.0, 4.0)\n", "y = jnp.einsum('i->ii', v)",
                           "y = jnp.diag(v)"),
    # twice, and no operand's letter either
    "unknown_letter_twice": ("a = jnp.arange(6.0).reshape(2, 3)\n"
                             "b = jnp.arange(15.0).reshape(3, 5)\n",
                             "y = jnp.einsum('ij,jk->ll', a, b)", None),
    # inside a jitted lambda: its own parameters' names
    "under_jit": ("a = jnp.arange(6.0).reshape(2, 3)\n",
                  "y = jax.jit(lambda p: jnp.einsum('ij->ik', p))(a)",
                  "y = jax.jit(lambda p: jnp.einsum('ij->ij', p))(a)"),
    # lists of axis numbers: the letters are opt_einsum's, no line written
    "interleaved": ("a = jnp.arange(6.0).reshape(2, 3)\n"
                    "b = jnp.arange(15.0).reshape(3, 5)\n",
                    "y = jnp.einsum(a, [0, 1], b, [1, 2], [0, 0])", None),
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
        if printed is not None:
            found[f"{case}_fixed"] = _result(jax, _ran(printed, dict(defined)))
    return found
