"""The differential fuzzer's wide generator (conformance/fuzz_wide.py: ~300 jnp, lax, jax.nn,
jax.scipy, linalg and fft calls) replayed: a fixed batch of its programs, each on three inputs
of the same shapes, under jxkernel, against real JAX 0.10.2's answers recorded by
reference/make_fuzz_wide_reference.py. Dtypes and shapes exactly, ints and bools exactly,
floats within 16 ulps of their own dtype or 1e-5, errors by class; fuzz_wide.DELIBERATE lists
where jxkernel differs on purpose, and why. The fuzzer itself runs both sides live, for any
seed and count (`python -m conformance.fuzz --generator wide`)."""
import json
import os

from conformance import fuzz, fuzz_wide
from fresh_process import as_the_suite_compiles, run_python
import locations  # tests/support: the repository's folders

RECORDED = locations.jax_answers("fuzz_wide_reference.json")


def test_the_programs_are_the_ones_jax_ran():
    # the generator is pure Python: the same seed gives the same program everywhere
    assert [fuzz_wide.program(s)["source"] for s in RECORDED["seeds"]] == RECORDED["programs"]


def test_jxkernel_answers_as_jax_did():
    env = dict(os.environ, JXKERNEL_AS_JAX="1", JAX_PLATFORMS="cpu",
               PYTHONWARNINGS="ignore")       # the programs' own warnings are not results
    # compiled as the test processes compile (see test_fuzz.py); each program compiles once,
    # its other draws only run
    code = as_the_suite_compiles(
        f"import json\nimport jxkernel\njxkernel.install_as_jax()\n"
        f"from conformance import fuzz\n"
        f"print(json.dumps(fuzz.run_side({RECORDED['seeds']!r}, 'wide', {RECORDED['draws']})))")
    done = run_python(["-c", code], env, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.splitlines()[-1])
    assert len(got) == len(RECORDED["results"])
    sources = [source for source in RECORDED["programs"] for _ in range(RECORDED["draws"])]
    diverged, excused = [], set()
    for i, (source, want, have) in enumerate(zip(sources, RECORDED["results"], got)):
        if not (reason := fuzz.compare(want, have, deliberate=[])):
            continue
        why = [why for why, known in fuzz_wide.DELIBERATE if known(source, want, have)]
        excused.update(why)
        if not why:
            diverged.append(f"{source} (draw {i % RECORDED['draws']})\n  {reason}")
    assert diverged == [], "\n".join(diverged)
    # each deliberate difference is met in the batch (its programs are among the seeds), so
    # an entry that no longer excuses anything shows here
    assert excused == {why for why, _ in fuzz_wide.DELIBERATE}


def test_a_float16_result_is_compared_within_a_float16_ulp_of_zero():
    # a float16 zero is JAX's rounding residue of O(1) products (seed 10142: up to 4.6e-4,
    # where jxkernel's is 0.0), within one float16 ulp at 1 (2**-10); the float32 atol (1e-5)
    # stays for float32 results
    def leaf(dtype, value):
        return {"leaves": [{"dtype": dtype, "shape": [1], "values": [value]}]}
    assert fuzz.compare(leaf("float16", 4.6e-4), leaf("float16", 0.0)) is None
    assert fuzz.compare(leaf("float16", 2e-3), leaf("float16", 0.0)) is not None
    assert fuzz.compare(leaf("float32", 4.6e-4), leaf("float32", 0.0)) is not None
