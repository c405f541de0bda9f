"""The differential fuzzer (conformance/fuzz.py) replayed: a fixed batch of its small
generator's random programs (conformance/fuzz_small.py) under jxkernel, against real JAX
0.10.2's answers recorded by reference/make_fuzz_reference.py (dtypes and shapes exactly, ints
and bools exactly, floats within 16 float32 ulps or 1e-5, errors by class). The fuzzer itself
runs both sides live, for any seed and count, before each stop (`python -m conformance.fuzz`)."""
import json
import os

from conformance import fuzz, fuzz_small
from fresh_process import as_the_suite_compiles, run_python
import locations  # tests/support: the repository's folders

RECORDED = locations.recorded("fuzz_reference.json")


def test_the_programs_are_the_ones_jax_ran():
    # the generator is pure Python and NumPy: the same seed gives the same program everywhere
    seeds = range(RECORDED["seed"], RECORDED["seed"] + RECORDED["count"])
    assert [fuzz_small.program(s)["source"] for s in seeds] == RECORDED["programs"]


def test_jxkernel_answers_as_jax_did():
    env = dict(os.environ, JXKERNEL_AS_JAX="1", JAX_PLATFORMS="cpu")
    # `python -m conformance.fuzz --side jxkernel`, compiled as the test processes compile
    # (their loop emitters), as the suite's other comparisons with JAX's records are: the
    # programs' eager compiles at half the CPU (the child 10.8 -> 5.0 s)
    args = ["--side", "jxkernel", "--seed", str(RECORDED["seed"]),
            "--count", str(RECORDED["count"])]
    code = as_the_suite_compiles(f"import sys\nfrom conformance import fuzz\n"
                                 f"sys.exit(fuzz.main({args!r}))")
    done = run_python(["-c", code], env, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.splitlines()[-1])
    diverged = [f"{source}\n  {reason}" for source, want, have
                in zip(RECORDED["programs"], RECORDED["results"], got)
                if (reason := fuzz.compare(want, have))]
    assert diverged == [], "\n".join(diverged)


def test_the_comparison_tells_errors_and_values_apart():
    one = {"leaves": [{"dtype": "float32", "shape": [1], "values": [1.0]}]}
    assert fuzz.compare(one, one) is None
    assert "no error" in fuzz.compare({"error": "IndexError", "message": ""}, one)
    assert fuzz.compare({"error": "TypeError"}, {"error": "TypeError", "message": "x"}) is None
    ints = {"leaves": [{"dtype": "int32", "shape": [2], "values": [1, 2]}]}
    assert "exact int32" in fuzz.compare(ints, {"leaves": [dict(ints["leaves"][0],
                                                                values=[1, 3])]})
