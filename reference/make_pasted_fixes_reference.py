"""Write tests/data/pasted_fixes_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_pasted_fixes_reference.py

For each case of tests/data/pasted_fixes_cases.py (a static argument's value, a partial batch,
a growing length, a dict key, a list appended to, None then an array, x64, a jit of a lambda
made in a loop): the program and the program with the note's fix pasted where the case says,
each run from a file of its own with `jax_explain_cache_misses` on; recorded are the tracing-
cache misses of the program's functions (their count: a trace each) and the first line of each
miss, and, for the partial batch, the losses of the unpadded batches and of the padded ones
weighed by the mask; and an array grown by jnp.append and read whole (a mean), with its note's
pattern filled in (GROWN): the traces and the means of each; a closed-over value rebound
between calls (CLOSED_OVER) and passed in as its note says: the traces and each call's
result; two jits of one function with other donate_argnums (OPTIONS_DIFFER) and the one jit
its note leaves; jax.jit(f)(x) at every pass of a loop (JIT_OF_A_DEF_IN_A_LOOP: one trace).
An input put on another device between two calls (DEVICE_CHANGED, 8 CPU devices asked for as
the suite's conftest does) and put back as its note says. An input committed to the default device in the
second call only (COMMITTED_CHANGED) and every call's put there as its note says. Each with JAX's compiles too
(jax_log_compiles: its "Compiling" lines).
"""
import json
import logging
import os
import sys
import tempfile

os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           " --xla_force_host_platform_device_count=8").strip()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from pasted_fixes_cases import (  # noqa: E402
    CASES, CLOSED_OVER, COMMITTED_CHANGED, COMMITTED_SNIPPET, DEVICE_CHANGED, DEVICE_SNIPPET,
    GROWN, JIT_OF_A_DEF_IN_A_LOOP, OPTIONS,
    OPTIONS_DIFFER, device_pasted, grown_filled, options_pasted, passed_in, pasted)
from recording import cache_misses  # noqa: E402


class _Compiles(logging.Handler):
    """JAX's "Compiling ..." lines (jax_log_compiles on): a lowering and compile each."""
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.names = []

    def emit(self, record):
        if record.getMessage().startswith("Compiling "):
            self.names.append(record.getMessage().split()[1])


def traces(source, tag, scope=None):
    with tempfile.NamedTemporaryFile("w", suffix=f"_{tag}.py", delete=False) as f:
        f.write(source)
    before = {name: getattr(jax.config, name) for name in OPTIONS}
    compiles = _Compiles()
    logging.getLogger("jax").addHandler(compiles)
    try:
        misses = cache_misses(jax, source, f.name, {"jax": jax, "jnp": jnp, **(scope or {})})
    finally:
        logging.getLogger("jax").removeHandler(compiles)
        os.unlink(f.name)
        for name, value in before.items():     # (the x64 case turns it on, ...)
            jax.config.update(name, value)
    return {"traces": len(misses), "compiled": compiles.names,
            "misses": [m.splitlines()[0].replace(f.name, "<program>") for m in misses]}


def masked_losses():
    """The partial-batch case's losses: unpadded, and padded to 4 rows with each row weighed
    by the note's mask (the learner's loss given the mask, as the note says in words), and
    padded but not weighed (the padding counted, as the note warns)."""
    data = jnp.arange(30.0).reshape(10, 3)
    plain, weighed, unweighed = [], [], []
    for i in range(0, 10, 4):
        batch = data[i:i + 4]
        plain.append(float((batch ** 2).sum(axis=1).mean()))
        n = batch.shape[0]
        batch = jnp.pad(batch, [(0, 4 - n)] + [(0, 0)] * (batch.ndim - 1))
        mask = jnp.arange(4) < n
        weighed.append(float(((batch ** 2).sum(axis=1) * mask).sum() / mask.sum()))
        unweighed.append(float((batch ** 2).sum(axis=1).mean()))
    return {"unpadded": plain, "padded_masked": weighed, "padded_unweighed": unweighed}


def main():
    jax.config.update("jax_explain_cache_misses", True)
    jax.config.update("jax_log_compiles", True)     # (the compiles of each: "compiles")
    out = {"jax": jax.__version__, "cases": {}, "last_partial_batch_losses": masked_losses()}
    for name in CASES:
        out["cases"][name] = {"program": traces(CASES[name][1], name),
                              "pasted": traces(pasted(name), name + "_pasted")}
    for tag, source in (("program", GROWN), ("filled", grown_filled())):
        means = []
        out.setdefault("grown", {})[tag] = {**traces(source, "grown_" + tag, {"means": means}),
                                            "means": means}
    for tag, source in (("program", CLOSED_OVER), ("pasted", passed_in())):
        outs = []
        out.setdefault("closed_over", {})[tag] = {**traces(source, "closed_" + tag,
                                                           {"outs": outs}), "outs": outs}
    out["options_differ"] = {"program": traces(OPTIONS_DIFFER, "options"),
                             "pasted": traces(options_pasted(), "options_pasted")}
    out["jit_of_a_def_in_a_loop"] = traces(JIT_OF_A_DEF_IN_A_LOOP, "jit_of_a_def")
    assert jax.device_count() == 8, jax.devices()
    out["device_changed"] = {"program": traces(DEVICE_CHANGED, "device"),
                             "pasted": traces(device_pasted(), "device_pasted"),
                             "v_alone": traces(device_pasted(DEVICE_SNIPPET.splitlines()[1]),
                                               "device_v_alone")}
    out["committed_changed"] = {
        "program": traces(COMMITTED_CHANGED, "committed"),
        "pasted": traces(device_pasted(COMMITTED_SNIPPET, COMMITTED_CHANGED),
                         "committed_pasted")}
    with open(os.path.join(DATA, "pasted_fixes_reference.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
