"""Compare two array-api-tests JSON reports (pytest-json-report): jxkernel's and JAX's.

    python conformance/array_api/summarize.py JSON_DIR OUT_DIR MAX_EXAMPLES [X64]

Reads JSON_DIR/jxkernel.json and JSON_DIR/jax.json; writes OUT_DIR/summary.md (counts per
library, and the failures jxkernel has that JAX does not) and OUT_DIR/outcomes.tsv (one line
per test: node id, jxkernel's outcome, JAX's outcome). Standard library only.
"""
import collections
import json
import pathlib
import sys

LIBS = ("jxkernel", "jax")


def outcomes(report: dict) -> dict:
    """{node id: (outcome, first line of the failure message or '')}."""
    out = {}
    for test in report.get("tests", []):
        message = ""
        for stage in ("setup", "call", "teardown"):
            crash = test.get(stage, {}).get("crash")
            if crash and test["outcome"] in ("failed", "error"):
                message = crash.get("message", "").strip().splitlines()[0][:160] \
                    if crash.get("message", "").strip() else ""
                break
        out[test["nodeid"]] = (test["outcome"], message)
    return out


def load(json_dir: pathlib.Path) -> dict:
    return {lib: outcomes(json.loads((json_dir / f"{lib}.json").read_text()))
            for lib in LIBS if (json_dir / f"{lib}.json").exists()}


def counts_table(results: dict) -> list:
    kinds = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")
    lines = ["| library | tests | " + " | ".join(kinds) + " |",
             "|---|---:|" + "---:|" * len(kinds)]
    for lib, res in results.items():
        c = collections.Counter(o for o, _ in res.values())
        lines.append(f"| {lib} | {len(res)} | " + " | ".join(str(c[k]) for k in kinds) + " |")
    return lines


def failing(res: dict) -> set:
    return {t for t, (o, _) in res.items() if o in ("failed", "error")}


def failure_list(title: str, ids: set, res: dict) -> list:
    lines = [f"## {title} ({len(ids)})", ""]
    lines += [f"- `{t}`: {res[t][1]}" for t in sorted(ids)] or ["(none)"]
    return lines + [""]


def main(json_dir, out_dir, max_examples, x64="1"):
    json_dir, out_dir = pathlib.Path(json_dir), pathlib.Path(out_dir)
    results = load(json_dir)
    ours, theirs = results.get("jxkernel", {}), results.get("jax", {})
    lines = ["# array-api-tests: jxkernel.numpy and jax.numpy", "",
             f"Settings for both: API version 2024.12, x64 {'on' if x64 == '1' else 'off'}, "
             f"--max-examples={max_examples}, "
             "--derandomize, --disable-deadline, skips.txt. Written by summarize.py.", ""]
    lines += counts_table(results) + [""]
    lines += failure_list("Failing for jxkernel, not for JAX", failing(ours) - failing(theirs), ours)
    lines += failure_list("Failing for both", failing(ours) & failing(theirs), ours)
    lines += failure_list("Failing for JAX, not for jxkernel", failing(theirs) - failing(ours),
                          theirs)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "summary.md").write_text("\n".join(lines))
    ids = sorted(set(ours) | set(theirs))
    (out_dir / "outcomes.tsv").write_text("test\tjxkernel\tjax\n" + "".join(
        f"{t}\t{ours.get(t, ('-',))[0]}\t{theirs.get(t, ('-',))[0]}\n" for t in ids))
    print("\n".join(counts_table(results)))


if __name__ == "__main__":
    main(*sys.argv[1:5])
