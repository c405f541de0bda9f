"""A differential fuzzer: random small programs (jax.numpy calls under jit, grad, vmap, jvp,
jacrev, hessian) run under real JAX 0.10.2 and under jxkernel, compared as the conformance
programs are (dtypes and shapes exactly, ints and bools exactly, floats within 16 ulps or 1e-5,
errors by class).

    python -m conformance.fuzz --count 2000 --seed 7         # both sides; exit 1 on a divergence
    python -m conformance.fuzz --side jxkernel --count 5 --show   # the programs, and one side
    python -m conformance.fuzz --generator wide --count 1000       # conformance/fuzz_wide.py's

The JAX side runs in JAX's own virtualenv (``--jax-python``, default ``.venv-jax/bin/python``,
made by ``sh scripts/jax_venv.sh``); the jxkernel side imports ``jax`` through jxkernel's alias.
This module runs and compares; the programs come from a generator: conformance/fuzz_small.py
(the default: ~100 calls, many transformations) or, with ``--generator wide``,
conformance/fuzz_wide.py (~300 calls, fewer transformations). A program is one Python
expression over the arrays ``A[0]``, ``A[1]``, ... made from its own seed, so both sides see the
same program and the same inputs. Every divergence found gets a regression test beside the code
it concerns; tests/jax_compat/test_fuzz.py and test_fuzz_wide.py replay fixed batches against
JAX's answers recorded by reference/make_fuzz_reference.py and make_fuzz_wide_reference.py.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

from conformance import fuzz_small, fuzz_wide

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# each generator module has program(seed) -> {"seed", "source", "inputs"} and DELIBERATE
GENERATORS = {"small": fuzz_small, "wide": fuzz_wide}


def inputs(spec: dict, draw: int = 0) -> list:
    """The program's arrays, the same on both sides (NumPy's generator, the program's seed).
    Draw k > 0 gives other values of the same shapes and dtypes (seeded by (seed, k)), so a
    replayed batch tries more values without compiling more programs."""
    rng = np.random.default_rng([spec["seed"], draw] if draw else spec["seed"])
    out = []
    for shape, dtype in spec["inputs"]:
        if dtype == "bool":
            out.append(rng.random(shape) < 0.5)
        elif dtype.startswith("float"):
            out.append(rng.normal(size=shape).astype(dtype))
        else:
            out.append(rng.integers(0, 5, size=shape).astype(dtype))
    return out


def _record(value):
    a = np.asarray(value)
    if a.dtype == object or a.dtype.kind == "V":      # float0 tangents and the like
        return {"dtype": str(a.dtype), "shape": list(a.shape), "values": []}
    if a.dtype.kind == "c":     # (real, imaginary) pairs, as conformance.compare reads them
        pairs = np.stack([a.real, a.imag], -1).astype(np.float64)
        return {"dtype": str(a.dtype), "shape": list(a.shape), "values": pairs.ravel().tolist()}
    values = a.astype(np.float64) if a.dtype.kind == "f" and a.dtype.itemsize < 4 else a
    return {"dtype": str(a.dtype), "shape": list(a.shape), "values": values.ravel().tolist()}


def _error(e: Exception) -> dict:
    return {"error": type(e).__name__, "message": str(e).splitlines()[0][:200] if str(e) else ""}


def _outcomes(jax, spec: dict, draws: int) -> list:
    """One program's results (or errors) for each of its draws. Its function is made once (a
    program's source is "(F)(*A)") so that a jit in it compiles once for all of them."""
    try:
        function = eval(spec["source"].removesuffix("(*A)"), {"jax": jax, "jnp": jax.numpy})
    except Exception as e:   # noqa: BLE001 -- an error is a result compared by class
        return [_error(e)] * draws
    out = []
    for draw in range(draws):
        try:
            result = function(*inputs(spec, draw))
            out.append({"leaves": [_record(x) for x in jax.tree_util.tree_leaves(result)]})
        except Exception as e:   # noqa: BLE001
            out.append(_error(e))
    return out


def run_side(seeds, generator_name: str = "small", draws: int = 1) -> list:
    """In this process (jax already the side's own): each program's leaves, or its error, for
    each of its ``draws`` inputs (seed by seed, draw by draw)."""
    import jax
    import jax.numpy  # noqa: F401 -- the programs name it
    make = GENERATORS[generator_name].program
    return [outcome for seed in seeds for outcome in _outcomes(jax, make(seed), draws)]


# compared within the tolerance; the rest exactly (complex: fft's and angle's results)
FLOATS = ("float16", "bfloat16", "float32", "float64", "complex64", "complex128")


# atol: a result that is 0 in exact arithmetic comes out as the rounding residue of terms the
# size of the program's intermediates, which the outputs do not show: jvp(a / b) along (a, b)
# gave -2.3e-6 under JAX (its jnp functions are jitted, so XLA contracts into an FMA and keeps
# the residue of a/b = 4449) and 0.0 under jxkernel (seed 2358); both are exact to f32's
# rounding of 4449 (an ulp is 4.9e-4). A float16 result has float16's residues: the wide
# generator's vmap(jnp.linalg.cross(x, x)) of a float16 x (seed 10142) is 0 exactly under
# jxkernel and under JAX's jit(vmap), and up to 4.6e-4 under JAX's vmap alone (its jitted
# cross, one XLA fusion, subtracts the products before rounding them to float16), where one
# float16 ulp of the O(1) products is 2**-10 = 9.8e-4: atol for float16 is that ulp.
F16_ATOL = 2.0 ** -10


def compare(expected: dict, actual: dict, ulps: int = 16, atol: float = 1e-5,
            deliberate=None, source: str = "") -> str | None:
    """None when one program's results agree (or differ as ``deliberate`` says, by default
    the small generator's DELIBERATE; ``source`` is the program's), else the difference in
    words."""
    from conformance.compare import compare_array
    if any(known(source, expected, actual) for _, known in
           (fuzz_small.DELIBERATE if deliberate is None else deliberate)):
        return None
    if "error" in expected or "error" in actual:
        want, got = expected.get("error"), actual.get("error")
        return None if want == got else f"JAX: {want or 'no error'} " \
            f"({expected.get('message', '')!r}); jxkernel: {got or 'no error'} " \
            f"({actual.get('message', '')!r})"
    if len(expected["leaves"]) != len(actual["leaves"]):
        return f"{len(actual['leaves'])} outputs where JAX gives {len(expected['leaves'])}"
    for i, (want, got) in enumerate(zip(expected["leaves"], actual["leaves"])):
        if want["dtype"] not in FLOATS \
                and want["dtype"] == got["dtype"] and want["shape"] == got["shape"]:
            if want["values"] != got["values"]:
                return f"output {i} differs (exact {want['dtype']})"
            continue
        reason = compare_array(str(i), want, got, ulps=ulps,
                               atol=max(atol, F16_ATOL) if want["dtype"] == "float16" else atol)
        if reason:
            return reason
    return None


def _side_in_subprocess(python, side, seeds_arg):
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=ROOT)
    if side == "jxkernel":
        env["JXKERNEL_AS_JAX"] = "1"
    done = subprocess.run([python, "-m", "conformance.fuzz", "--side", side, *seeds_arg],
                          capture_output=True, text=True, env=env, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"the {side} side failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0, help="the first program's seed")
    parser.add_argument("--generator", choices=("small", "wide"), default="small",
                        help="this file's programs, or conformance/fuzz_wide.py's")
    parser.add_argument("--draws", type=int, default=1,
                        help="run each program on this many inputs (other values, same shapes)")
    parser.add_argument("--side", choices=("jax", "jxkernel"),
                        help="run one side here and print its JSON")
    parser.add_argument("--show", action="store_true", help="print the programs too")
    parser.add_argument("--jax-python", default=os.path.join(ROOT, ".venv-jax", "bin", "python"))
    args = parser.parse_args(argv)
    seeds = range(args.seed, args.seed + args.count)
    chosen = GENERATORS[args.generator]
    if args.show:
        for seed in seeds:
            spec = chosen.program(seed)
            print(seed, spec["source"], spec["inputs"], file=sys.stderr)
    if args.side:
        if args.side == "jxkernel":
            import jxkernel
            jxkernel.install_as_jax()
        print(json.dumps(run_side(seeds, args.generator, args.draws)))
        return 0
    seeds_arg = ["--count", str(args.count), "--seed", str(args.seed),
                 "--generator", args.generator, "--draws", str(args.draws)]
    want = _side_in_subprocess(args.jax_python, "jax", seeds_arg)
    got = _side_in_subprocess(sys.executable, "jxkernel", seeds_arg)
    runs = [(seed, draw) for seed in seeds for draw in range(args.draws)]
    diverged = [(seed, draw, reason) for (seed, draw), w, g in zip(runs, want, got)
                if (reason := compare(w, g, deliberate=chosen.DELIBERATE,
                                      source=chosen.program(seed)["source"]))]
    for seed, draw, reason in diverged:
        spec = chosen.program(seed)
        print(f"seed {seed}{f' draw {draw}' if draw else ''}: {spec['source']} "
              f"{spec['inputs']}\n  {reason}")
    errors = sum("error" in w for w in want)
    runs_are = "programs" if args.draws == 1 else "runs (programs times draws)"
    print(f"{len(runs) - len(diverged)} of {len(runs)} {runs_are} agree "
          f"({errors} raise under JAX); {len(diverged)} diverge")
    return 1 if diverged else 0


if __name__ == "__main__":
    sys.exit(main())
