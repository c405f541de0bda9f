"""What conformance/README.md records for the libraries: each one's version (its section
heading) and, per test file of its tables, the counts under JAX 0.10.2 and under jxkernel.

The README stays the one home of those numbers: the harness runs the files its tables name and
compares with the counts they give. A cell reads "310 (48 skipped; ...)" or "8 (1 failed)":
the leading number is the tests passed, and a first parenthesis that is only "N skipped" or
"N failed" (before a ';') gives those; the rest of a cell is history and is not read.

    >>> parse_cell("569 (60 skipped; 2026-11-25, in four `-k` parts)")
    {'passed': 569, 'skipped': 60, 'failed': 0}
    >>> parse_cell("100 (96 and 2 skipped before extended dtypes)")
    {'passed': 100, 'skipped': 0, 'failed': 0}
"""
import os
import re

README = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")


def _text():
    with open(README, encoding="utf-8") as f:
        return f.read()


def _section(text, heading):
    """The README's `## ...` section whose heading names the library, up to the next one."""
    match = re.search(rf"^## [^\n]*\b{heading} (\d+\.\d+\.\d+)[^\n]*$", text, re.M)
    if match is None:
        raise LookupError(f"conformance/README.md has no '## ... {heading} X.Y.Z' section")
    end = text.find("\n## ", match.end())
    return match.group(1), text[match.end():end if end >= 0 else len(text)]


def version(library):
    """The library's version the README's section heading names: 'Optax 0.2.8' -> '0.2.8'."""
    return _section(_text(), library.heading)[0]


def parse_cell(cell):
    """{'passed', 'skipped', 'failed'} from one count cell of a table (see the module's doc)."""
    match = re.match(r"\s*(\d+)", cell)
    if match is None:
        return None
    counts = {"passed": int(match.group(1)), "skipped": 0, "failed": 0}
    first = re.match(r"\s*\d+\s*\(([^;)]*)[;)]", cell)
    if first:
        for number, word in re.findall(r"(\d+) (skipped|failed)", first.group(1)):
            if re.fullmatch(r"\d+ (skipped|failed)(, \d+ (skipped|failed))?", first.group(1).strip()):
                counts[word] = int(number)
    return counts


def _cells(line):
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def recorded(library):
    """{file: {'jax': counts, 'jxkernel': counts, 'why': text}} from the tables of the
    library's section, in the order they list them (a file in two tables: its first row).
    Optax's and Chex's share a section; a row belongs to the library its path starts with,
    or, where paths are relative to a tests/ folder (Equinox, Flax), to the section's."""
    _, section = _section(_text(), library.heading)
    rows = {}
    for line in section.splitlines():
        if not line.startswith("|"):
            continue
        cells = _cells(line)
        name = cells[0].strip("`")
        if not name.endswith(".py") or len(cells) < 3 or name in rows:
            continue
        if "/" in name and name.split("/")[0] in ("optax", "chex") and name.split("/")[0] != library.name:
            continue
        rows[name] = {"jax": parse_cell(cells[1]), "jxkernel": parse_cell(cells[2]),
                      "why": cells[3] if len(cells) > 3 else ""}
    return rows
