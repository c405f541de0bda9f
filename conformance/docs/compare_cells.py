"""Compare a page's cells under jxkernel with JAX's, and write the results table.

Printed text goes through conformance/compare.py's token comparison (numbers within float32
ulps or a unit in the last printed digit, words exactly) after what differs between any two
runs is blanked: object addresses and ids, timings, the page's scratch folder, the buffer
addresses a cell prints with `unsafe_buffer_pointer()` (each distinct one named by its order, so
"the same buffer after an in-place update" is still compared); and the array class's
module is read as JAX's (``jaxlib._jax.ArrayImpl``: jxkernel's is ``jxkernel.xla.array``), and
a module path ``jxkernel.X`` as ``jax.X`` (under the alias ``jax.X`` is ``jxkernel.X``). A cell that raises
agrees when both raise the same exception class (the message is not compared); the page
passes when every cell agrees.

    >>> normalize(["<function f at 0x7f3a2c>", "Epoch 0 in 0.52 sec"], "/tmp/x")
    ['<function f at 0x…>', 'Epoch 0 in <time>']
"""
import re

from conformance import compare

_ADDRESS = re.compile(r"0x[0-9a-fA-F]{4,}")
_JXKERNEL = re.compile(r"\bjxkernel\.")
_ID = re.compile(r"\bid=\d{6,}")
_BIG_INT = re.compile(r"\b\d{8,}\b")     # a pointer printed in decimal
_TIME = re.compile(r"\d+(?:\.\d+)?(?:e-?\d+)?\s*(?:sec|seconds|s|ms|us|µs|ns)\b")


def normalize(lines, workdir):
    out = []
    for line in lines:
        line = line.replace(workdir, "<tmp>")
        line = _ADDRESS.sub("0x…", line).replace("jxkernel.xla.array.ArrayImpl",
                                                  "jaxlib._jax.ArrayImpl")
        line = _JXKERNEL.sub("jax.", line)      # under the alias jax.X is jxkernel.X
        line = _ID.sub("id=…", line)          # jaxpr Vars print their Python id()
        out.append(_TIME.sub("<time>", line))
    return out


def name_addresses(lines):
    """Each distinct large integer in `lines` named by its order of appearance: for cells that
    print buffer addresses, which differ between any two runs but whose sameness is the point.

        >>> name_addresses(["94537639565824 Ref([0.])", "94537639565824 Ref([1.])"])
        ['<address 0> Ref([0.])', '<address 0> Ref([1.])']
    """
    seen = {}
    return [_BIG_INT.sub(lambda m: f"<address {seen.setdefault(m.group(), len(seen))}>", line)
            for line in lines]


def _error_class(error):
    return error.split(":", 1)[0] if error else None


def compare_cell(expected, actual, tolerance):
    """None when the cell agrees, else why not."""
    want, got = _error_class(expected["error"]), _error_class(actual["error"])
    if want != got:
        if got is None:
            return f"JAX raised {expected['error'].splitlines()[0][:200]}; jxkernel did not"
        if want is None:
            return f"jxkernel raised {actual['error'].splitlines()[0][:300]}"
        return f"jxkernel raised {actual['error'].splitlines()[0][:200]} where JAX raised " \
               f"{expected['error'].splitlines()[0][:200]}"
    return compare.compare_text(expected["out"], actual["out"],
                                tolerance.get("ulps", 4), tolerance.get("atol", 0.0))


def _first_line(code):
    lines = [l for l in code.strip().splitlines() if l.strip() and not l.lstrip().startswith("#")]
    return lines[0].strip()[:60] if lines else ""


def _normalized(record, run, code, accepted=()):
    out = normalize(record["out"], run.get("workdir", "<tmp>"))
    out = name_addresses(out) if "unsafe_buffer_pointer(" in code else out
    return dict(record, out=accept(out, accepted)[0])


def accept(lines, accepted):
    """`lines` with each accepted difference's pattern replaced (over the cell's text, so a
    pattern may span lines), and the reasons of those that matched.

        >>> accept(["ctx=<Ctx 1>", "ok"], [("why", r"<Ctx \\d>", "<Ctx>")])
        (['ctx=<Ctx>', 'ok'], ['why'])
    """
    text, matched = "\n".join(lines), []
    for why, pattern, replacement in accepted:
        text, n = re.subn(pattern, replacement, text)
        if n:
            matched.append(why)
    return (text.split("\n") if lines else []), matched


_CANNOT = "is not available on the 'numpy' backend"


def says_xla_only(expected, actual):
    """Whether jxkernel's NumPy backend refused a cell with its own error for what it cannot
    do without XLA (numpy_device.unsupported's words), where JAX ran it, or raised only
    further on, having printed more (notebooks/host-offloading's cell 9 prints XLA's memory
    sizes, which the NumPy backend refuses, and then raises JAX's ValueError)."""
    error = actual["error"] or ""
    refused = error.startswith("NotImplementedError:") and _CANNOT in error.split("\n", 1)[0]
    return refused and (not expected["error"] or len(actual["out"]) < len(expected["out"]))


def compare_page(name, cells, expected, actual, tolerance, accepted=(), xla_only=None):
    """{"status": pass | xla-only | fail, "reason": the first disagreement, "disagreements":
    every disagreeing cell's, "raised_in_both": [cell indices], "accepted": the cells where an
    accepted difference (settings.ACCEPTED: (why, pattern, replacement)) was read past}.
    `xla_only` (why, for a page settings.NUMPY_XLA_ONLY lists): its cells that the NumPy
    backend refuses as it says it must (`says_xla_only`) are listed in "xla_only", and a page
    whose other cells agree is "xla-only", not "pass"."""
    want = {r["index"]: r for r in expected["records"]}
    got = {r["index"]: r for r in actual["records"]}
    both_raised, disagreements, accepted_in, xla_cells = [], [], [], []
    for cell in cells:
        i = cell["index"]
        where = f"cell {i} (`{_first_line(cell['code'])}`)"
        if i not in want:
            disagreements.append({"cell": i, "reason": f"JAX's run ended before {where}: "
                                                        f"{expected['ending'][:300]}"})
            break
        if i not in got:
            disagreements.append({"cell": i, "reason": f"jxkernel's run ended before {where}: "
                                                        f"{actual['ending'][:300]}"})
            break
        reason = compare_cell(_normalized(want[i], expected, cell["code"], accepted),
                              _normalized(got[i], actual, cell["code"], accepted), tolerance)
        whys = {why for record, run in ((want[i], expected), (got[i], actual))
                for why in accept(normalize(record["out"], run.get("workdir", "<tmp>")),
                                  accepted)[1]}
        if whys:
            accepted_in.append({"cell": i, "why": sorted(whys)})
        if reason and xla_only and says_xla_only(want[i], got[i]):
            xla_cells.append(i)
        elif reason:
            disagreements.append({"cell": i, "reason": f"{where}: {reason}",
                                  "jax": want[i], "jxkernel": got[i]})
        elif want[i]["error"]:
            both_raised.append(i if cell["expects_error"] else f"{i} (not marked)")
    if not disagreements:
        return {"status": "xla-only" if xla_cells else "pass",
                "reason": f"XLA-only cells {', '.join(map(str, xla_cells))}: {xla_only}"
                          if xla_cells else "",
                "raised_in_both": both_raised, "accepted": accepted_in, "xla_only": xla_cells}
    more = len(disagreements) - 1
    reason = disagreements[0]["reason"] + (f" (and {more} more cell{'s' * (more > 1)})"
                                           if more else "")
    if xla_cells:
        reason += f"; XLA-only cells {', '.join(map(str, xla_cells))}: {xla_only}"
    return {"status": "fail", "reason": reason, "disagreements": disagreements,
            "raised_in_both": both_raised, "accepted": accepted_in, "xla_only": xla_cells}


def pass_rate(results):
    ran = [r for r in results if r["status"] in ("pass", "fail", "xla-only")]
    passed = sum(r["status"] == "pass" for r in ran)
    skipped = sum(r["status"] == "skip" for r in results)
    percent = 100 * passed / len(ran) if ran else 0
    xla = sum(r["status"] == "xla-only" for r in ran)
    also = f", {xla} more agree but for their XLA-only cells" if xla else ""
    return f"{passed} of {len(ran)} pages run pass ({percent:.0f}%){also}; {skipped} pages skipped"


def table(results, accepted_in="settings.ACCEPTED"):
    rows = ["| page | cells | status | first disagreement, or why skipped |", "|---|---:|---|---|"]
    for r in results:
        reason = r.get("reason", "")
        if r["status"] == "pass" and r.get("skipped_cells"):
            reason = "skipped cells: " + "; ".join(f"{s['index']} ({s['reason']})"
                                                   for s in r["skipped_cells"])
        if r["status"] in ("pass", "xla-only") and r.get("accepted"):
            reason = "; ".join(filter(None, [reason, f"accepted differences ({accepted_in}) "
                               "in cells " + ", ".join(str(a["cell"]) for a in r["accepted"])]))
        if r["status"] in ("pass", "xla-only") and r.get("widened"):
            bound = ", ".join(f"{k} {v:g}" for k, v in sorted(r["widened"].items()))
            reason = "; ".join(filter(None, [reason, f"numbers within {bound} on this backend "
                                                     "(settings.NUMPY_TOLERANCE)"]))
        reason = reason.replace("|", "\\|").replace("\n", " ")
        rows.append(f"| {r['name']} | {r.get('cells', '')} | {r['status']} | {reason[:300]} |")
    return "\n".join(rows)


def write_report(path, results, backend="cpu"):
    """Rewrite README.md's table: the CPU's is the file's tail (after ``<!-- results -->``),
    the NumPy backend's sits between its own two markers, above it."""
    with open(path) as f:
        text = f.read()
    if backend == "cpu":
        head = text.split("<!-- results -->")[0]
        with open(path, "w") as f:
            f.write(f"{head}<!-- results -->\n{pass_rate(results)}.\n\n{table(results)}\n")
        return
    begin, end = f"<!-- {backend} results -->", f"<!-- end {backend} results -->"
    head, rest = text.split(begin)
    tail = rest.split(end, 1)[1]
    with open(path, "w") as f:
        rows = table(results, "settings.ACCEPTED and the NumPy backend's")
        f.write(f"{head}{begin}\n{pass_rate(results)}.\n\n{rows}\n{end}{tail}")


def jax_ran_clean(result):
    """Whether JAX's own run of the page raised nowhere but where the page expects it."""
    return not result.get("jax_unexpected")


def library_summary(results):
    """One line: how many pages JAX runs without an unexpected error, how many agree.

        >>> library_summary([{"status": "pass"}, {"status": "fail", "jax_unexpected": [3]},
        ...                  {"status": "skip"}])
        '1 of 2 pages run agree under jxkernel (50%); JAX runs 1 of 2 without an unexpected error; 1 skipped'
    """
    ran = [r for r in results if r["status"] in ("pass", "fail")]
    passed = sum(r["status"] == "pass" for r in ran)
    clean = sum(jax_ran_clean(r) for r in ran)
    skipped = sum(r["status"] == "skip" for r in results)
    percent = 100 * passed / len(ran) if ran else 0
    return (f"{passed} of {len(ran)} pages run agree under jxkernel ({percent:.0f}%); JAX runs "
            f"{clean} of {len(ran)} without an unexpected error; {skipped} skipped")


def write_library_report(path, library, results, commit, date):
    """Rewrite `library`'s section of LIBRARIES.md (between its two markers) from `results`."""
    begin, end = f"<!-- {library.name} results -->", f"<!-- end {library.name} results -->"
    with open(path) as f:
        text = f.read()
    if begin not in text:
        text += f"\n{begin}\n{end}\n"
    head, rest = text.split(begin)
    tail = rest.split(end, 1)[1]
    body = (f"\n### {library.name} {library.version} (at `{commit}`, {date})\n\n"
            f"{library_summary(results)}.\n\n{table(results)}\n")
    with open(path, "w") as f:
        f.write(f"{head}{begin}{body}{end}{tail}")
