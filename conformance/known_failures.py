"""Programs known to fail under jxkernel today: name -> why (the one list of them).

tests/jax_compat/test_conformance.py fails when a program not listed here fails, and when a listed
one passes (then delete its line here). A reason begins with "missing:" when jxkernel
lacks the API the program uses.
"""
KNOWN_FAILURES = {
    "57_typed_keys_are_arrays": "tree_util flattens a typed PRNG key into its key data: "
                                "tree.leaves(random.key(0))[0].shape is (2,), JAX's is ()",
}
