"""python -m conformance.libraries: the libraries' own test suites under jxkernel and under JAX.

    python -m conformance.libraries setup                      # sources + both venvs (once)
    python -m conformance.libraries run all                    # every table file, both sides
    python -m conformance.libraries run optax --side jxkernel  # one library, one side
    python -m conformance.libraries run equinox --files test_jit.py test_ad.py
    python -m conformance.libraries run flax --every-file      # every test file of the tree
    python -m conformance.libraries compare                    # vs each other and the README
    python -m conformance.libraries pin                        # constraints.txt from venv-jax

Run it niced on a shared machine (`nice -n 15 python -m ...`); see conformance/README.md,
"The libraries' own test suites". `compare` exits 1 when a row differs from the README.
"""
import argparse
import os
import sys

from conformance.libraries import environment, run
from conformance.libraries.compare import report
from conformance.libraries.suites import LIBRARIES


def _names(chosen):
    if chosen in ([], ["all"]):
        return list(LIBRARIES)
    unknown = [name for name in chosen if name not in LIBRARIES]
    if unknown:
        raise SystemExit(f"unknown library {unknown[0]!r}: choose from {', '.join(LIBRARIES)} or all")
    return chosen


def _files(library, args):
    """The files to run of `library`: the ones of --files its source holds, else its tables'
    (or with --every-file all of its test files)."""
    if not args.files:
        return run.test_files(library, args.every_file)
    root = os.path.join(environment.source_dir(library), library.tests_under)
    return [file for file in args.files if os.path.isfile(os.path.join(root, file))]


def _parser():
    parser = argparse.ArgumentParser(prog="python -m conformance.libraries",
                                     description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    setup = commands.add_parser("setup", help="fetch the sources and make the venvs")
    setup.add_argument("--side", choices=(*environment.SIDES, "both"), default="both")
    go = commands.add_parser("run", help="run test files, one pytest per file or -k part")
    go.add_argument("libraries", nargs="*", metavar="LIB", help="optax chex equinox flax, or all")
    go.add_argument("--side", choices=(*environment.SIDES, "both"), default="both")
    go.add_argument("--files", nargs="+", metavar="FILE",
                    help="only these files (as the README's tables name them)")
    go.add_argument("--every-file", action="store_true",
                    help="every test file of the source tree, not only the tables'")
    go.add_argument("--timeout", type=int, default=1800, metavar="SECONDS",
                    help="per file, or per -k part of a file split in parts (default 1800)")
    go.add_argument("--optimized", action="store_true",
                    help="XLA's default optimizations (the runs set JAX_DISABLE_MOST_OPTIMIZATIONS=1)")
    commands.add_parser("pin", help="rewrite constraints.txt from .libs/venv-jax's versions")
    compare = commands.add_parser("compare", help="tables of both sides against the README")
    compare.add_argument("libraries", nargs="*", metavar="LIB")
    compare.add_argument("--out", default=os.path.join(run.RESULTS, "compare.md"))
    return parser


def main(argv=None):
    args = _parser().parse_args(argv)
    sides = environment.SIDES if getattr(args, "side", "both") == "both" else (args.side,)
    if args.command == "setup":
        for library in LIBRARIES.values():
            print(library.name, environment.source_dir(library))
        for side in sides:
            print(side, environment.make_venv(side), "jax", environment.check_side(side))
        return 0
    if args.command == "pin":
        print("written", environment.write_constraints())
        return 0
    names = _names(args.libraries)
    if args.command == "run":
        chosen = {name: _files(LIBRARIES[name], args) for name in names}
        missing = set(args.files or ()) - {f for files in chosen.values() for f in files}
        if missing:
            raise SystemExit(f"no test file {sorted(missing)[0]!r} in {', '.join(names)}'s "
                             f"source (name it as the README's tables do)")
        for name, files in chosen.items():
            library = LIBRARIES[name]
            for side in sides if files else ():
                run.run_library(library, side, files, args.timeout, args.optimized)
        return 0
    text, differing = report(names)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    print(text)
    print(f"{differing} rows differ from conformance/README.md; written to {args.out}")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
