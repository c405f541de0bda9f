"""What differs between two signatures of a jitted function, as Changes: each difference (a
path, its kind, old and new) with the fix in a sentence and in code; the nearest earlier
signature; the text a user reads. views/recompile_explainer.py finds the signatures of a
jit's miss and asks this package why (and `jxkernel.compile_log` shows its public names).

Read it top-down; each module imports only those above it:

* `change.py`: a Change, the Signature two of which are compared, and how a Change reads
  (`explanation_text`; `jax_line`, JAX's words for it).
* `fixes.py`: a Change made with its kind's plain fix (`_fixed`), a fix of another template
  (`_refixed`), and the fixes written for the jitted function by name (`for_function`).
* One module per part of a signature, each with the fixes for the causes it tells apart:
  `config_changes.py` (x64, the device, a trace option, a user context, a jit option),
  `statics.py` (static arguments), `structure.py` (the arguments' pytree structure),
  `input_types.py` (a leaf's shape, dtype or weak type; `vmap_rows.py`, the same under
  vmap), `closed_over.py` (closed-over
  constants), and `fresh_functions.py` (a new function object of code jitted before).
* `made_once.py`: where such a jit can be made once, in the learner's own lines (a line moved
  above its loop, a jit made once and the call given what a partial or a default carried).
* `at_the_calls.py`: a weak type's or a dtype's fix written in the learner's call that passed
  the odd one (`f(jnp.asarray(1.0, jnp.float32))`), read back from its line.
* `compare.py`: `explain_changes`, which asks each of those in turn, and the compile log's
  one-line reason (`explain`).
* `nearest.py`: which earlier signature a new one is compared with, as JAX 0.10.2 picks
  "the closest previous key".
* `learner_paths.py`: the learner's own names for the paths of a library's jit that wraps the
  learner's function (Equinox's `filter_jit`: `x` for "dynamic_nodonate['rest'][13]").

A new cause of an existing kind (a new reading of "the shape changed") is a branch and a
`_..._FIX` template in its part's module; a new kind is also a name in `change.KINDS`, which
the extension's protocol lists too (docs/contributing.md, "Adding a recompile-note cause").
"""
