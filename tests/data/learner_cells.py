"""What a learner's notebook cells did, as the learner case lists (learner_flax_cases.py,
learner_equinox_cases.py, learner_optax_cases.py) record it under the real JAX
(reference/recording.record_cells) and their tests read it back in a kernel: each case's
error in JAX's words, each fixed cell's value.

    >>> first_line(ValueError("bad <object at 0x7f3a>\\nmore"))
    'bad <object at 0x...>'
"""
import re


def first_line(exc) -> str:
    """The first line of `exc`'s message, its object addresses (`at 0x7f...`, which differ
    from run to run) written 0x...."""
    return re.sub(r"0x[0-9a-f]+", "0x...", str(exc).splitlines()[0])


def said(fn) -> dict | None:
    """{"error": class name, "first_line": the message's first line} of what `fn()` raised,
    or None where it raised nothing."""
    try:
        fn()
    except Exception as e:                      # noqa: BLE001 -- the error is the fact
        return {"error": type(e).__name__, "first_line": str(e).splitlines()[0]}
    return None


def cells_outcome(setup: str, cases: dict, fixed: dict, run_cell, namespace) -> dict:
    """{case: {"error": class name, "first_line": first_line(exc)} or None; fixed case: the
    value its cell leaves in `namespace` under its name}, `setup` run first and each cell by
    `run_cell(source)` (which raises what the cell raised). `fixed` is {case: (source, the
    name of its value)}."""
    run_cell(setup)
    found = {}
    for name, source in cases.items():
        try:
            run_cell(source)
            found[name] = None
        except Exception as e:                  # noqa: BLE001 -- the case's error is the fact
            found[name] = {"error": type(e).__name__, "first_line": first_line(e)}
    for name, (source, result) in fixed.items():
        run_cell(source)
        found[name] = namespace[result]
    return found
