"""Programs known to fail under jxkernel today: name -> why (the one list of them).

tests/jax_compat/test_conformance.py fails when a program not listed here fails, and when a listed
one passes (then delete its line here). A reason begins with "missing:" when jxkernel
lacks the API the program uses.
"""
KNOWN_FAILURES: dict = {}

# Programs whose output on the NumPy backend (`python -m conformance.run --backend numpy`, every
# program run with JAX_PLATFORMS=numpy) differs from JAX's for a reason that is XLA's, besides
# KNOWN_FAILURES: name -> why. A reason begins with "XLA:" where the program prints XLA's
# platform or needs several devices (nothing the NumPy backend can give), with "numeric:" where
# XLA's own float32 code (the multiply-adds and dot orders it picks when it fuses) rounds
# otherwise than NumPy's functions and the program's tolerance is tighter than that.
# tests/jax_compat/test_conformance.py keeps this table true as it keeps KNOWN_FAILURES.
NUMPY_BACKEND_DIFFERENCES = {
    "37_control_flow_scan_rnn": "numeric: gradients through a scan of tanh(W @ h + U @ x + b), "
                                "whose products and sums XLA contracts into multiply-adds (the "
                                "program's header: code without FMA misses its 16 ulps); gW "
                                "0.0269123 for 0.0269124, 1.2e-7 over its atol of 1e-7 (it "
                                "passed while the NumPy backend's erf_inv, and so the "
                                "program's random inputs, were an ulp off XLA's)",
    "58_array_api": "XLA: prints the device ('cpu:0'); the NumPy backend's is 'numpy:0'",
    "62_array_attributes": "XLA: prints the platform ('cpu'); the NumPy backend's is 'numpy'",
}
