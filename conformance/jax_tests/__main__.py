"""python -m conformance.jax_tests: JAX 0.10.2's own test files under real JAX and under
jxkernel, read from a git mirror or clone of JAX (--fetch, or the variable JAX_MIRROR).

    python -m conformance.jax_tests run --fetch MIRROR        # every file, both sides
    python -m conformance.jax_tests run --fetch MIRROR --side jxkernel --files lax_numpy_operators_test.py
    python -m conformance.jax_tests report                    # the README's table, compare.md
    python -m conformance.jax_tests report --merge ../clone2  # with another clone's runs

Run it niced on a shared machine (`nice -n 15 python -m ...`).
"""
import argparse
import os

from conformance.jax_tests import environment, files, report, run


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m conformance.jax_tests",
                                     description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    go = commands.add_parser("run", help="run test files, one pytest process per file")
    go.add_argument("--fetch", metavar="MIRROR", default=os.environ.get("JAX_MIRROR"),
                    help="a git mirror or clone of JAX holding the tag jax-v0.10.2 "
                         "(default: $JAX_MIRROR)")
    go.add_argument("--side", choices=(*environment.SIDES, "both"), default="both",
                    help="jxkernel (on XLA's CPU), jax, jxkernel-numpy (jxkernel on its NumPy "
                         "backend), or both: jxkernel and jax")
    go.add_argument("--files", nargs="+", metavar="FILE", choices=files.FILES,
                    help="some of the files (default: all of files.FILES)")
    go.add_argument("--timeout", type=int, default=1800, metavar="SECONDS", help="per file")
    go.add_argument("--cases", type=int, default=10,
                    help="sampled cases per parameterized test (JAX_NUM_GENERATED_CASES)")
    go.add_argument("--optimized", action="store_true",
                    help="XLA's default optimizations (the runs set JAX_DISABLE_MOST_OPTIMIZATIONS=1)")
    show = commands.add_parser("report", help="write the README's table and compare.md")
    show.add_argument("--merge", nargs="+", default=(), metavar="CHECKOUT",
                      help="other checkouts whose .jaxtests/results join this one's (per "
                           "file the latest run), kept here afterwards")
    args = parser.parse_args(argv)
    if args.command == "report":
        results = report.load_both(args.merge)
        if args.merge:
            report.save_both(results)
        report.write(results)
        return
    if not args.fetch:
        parser.error("run needs JAX's repository: --fetch MIRROR or JAX_MIRROR "
                     "(git clone --mirror https://github.com/jax-ml/jax)")
    sides = environment.BOTH if args.side == "both" else (args.side,)
    for side in sides:
        run.run_side(side, args.files or files.FILES, args.timeout, args.cases, args.fetch,
                     args.optimized)


if __name__ == "__main__":
    main()
