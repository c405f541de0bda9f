"""How many of JAX 0.10.2's public names jxkernel's corresponding modules have.

    python -m conformance.public_names            # print the per-module counts and what is missing
    python -m conformance.public_names --report   # also rewrite the section in conformance/README.md

JAX's names are recorded by reference/make_public_names_reference.py into
tests/data/jax_public_names.json; `jax.X` is looked up as `jxkernel.X` (lazy names load on
the lookup). tests/jax_compat/test_public_names.py holds the ratio and the missing list.
"""
import importlib
import json
import os
import sys
import types

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
NAMES = os.path.join(ROOT, "tests", "data", "jax_public_names.json")
README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "README.md")
BEGIN, END = "<!-- public-names -->", "<!-- /public-names -->"


def jax_names() -> dict:
    """{"jax.numpy": [name, ...], ...} as recorded from JAX."""
    with open(NAMES) as f:
        return json.load(f)["modules"]


def missing() -> dict:
    """{"jax.numpy": [names jxkernel.numpy lacks], ...}."""
    out = {}
    for module, names in jax_names().items():
        ours = _module("jxkernel" + module[len("jax"):])
        out[module] = [n for n in names if not hasattr(ours, n)]
    return out


def extra() -> dict:
    """{"jax.numpy": [public names jxkernel.numpy has that JAX's lacks], ...}: under `import
    jax` a learner's code that reads one runs here and fails under JAX (`jnp.product` did).
    Submodules are left out (JAX's own `jax.numpy.fft` is no name of its list)."""
    out = {}
    for module, names in jax_names().items():
        ours, known = _module("jxkernel" + module[len("jax"):]), set(names)
        out[module] = sorted(n for n in dir(ours) if not n.startswith("_") and n not in known
                             and not isinstance(getattr(ours, n), types.ModuleType))
    return out


def _module(name: str):
    """jxkernel's module of that name, or None where it has none yet (all its names missing)."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if not name.startswith(e.name or "?"):   # a module it imports is missing: a real error
            raise
        return None


def coverage(missing_names: dict) -> tuple[int, int]:
    """(names present, names JAX has) over all the modules."""
    total = sum(len(v) for v in jax_names().values())
    return total - sum(len(v) for v in missing_names.values()), total


def table(missing_names: dict) -> str:
    """The README's section: a line with the total, then one row per module."""
    have, total = coverage(missing_names)
    rows = [f"{have} of JAX 0.10.2's {total} public names ({100 * have / total:.1f}%).", "",
            "| module | JAX's names | present | missing |", "|---|---:|---:|---|"]
    for module, names in jax_names().items():
        gone = missing_names[module]
        rows.append(f"| `{module}` | {len(names)} | {len(names) - len(gone)} | "
                    f"{', '.join(f'`{n}`' for n in gone)} |")
    return "\n".join(rows)


def readme_section() -> str:
    """The text between the markers in conformance/README.md, as it stands."""
    with open(README) as f:
        text = f.read()
    return text.split(BEGIN)[1].split(END)[0].strip()


def write_report(missing_names: dict) -> None:
    with open(README) as f:
        text = f.read()
    head, rest = text.split(BEGIN)
    with open(README, "w") as f:
        f.write(f"{head}{BEGIN}\n{table(missing_names)}\n{END}{rest.split(END)[1]}")


def main(argv):
    gone = missing()
    print(table(gone))
    if "--report" in argv:
        write_report(gone)


if __name__ == "__main__":
    main(sys.argv[1:])
