"""Write tests/data/learner_log_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_learner_log_reference.py [--print]

Runs the small learner programs of tests/data/learner_log_cases.py one after another in one
process, with `jax_explain_cache_misses` and `jax_log_compiles` on, and records per step
what JAX's tracing-cache log (`jax._src.interpreters.partial_eval`) and its compile lines
(`jax._src.dispatch`, `jax._src.interpreters.pxla`) say, at WARNING: {"case": {"steps":
[[step label, [miss message, ...]], ...], "log_compiles": [[step label, [line, ...]], ...],
"same_ids": [...]}}, by reference/make_trace_time_misses_reference.py's `record` (the same
recording, for another corpus): the cases' file written "<cases>", ids " id=<id>", seconds "<s>".
"""
from make_trace_time_misses_reference import record   # the same recording, another corpus

if __name__ == "__main__":
    record("learner_log_cases", "learner_log_reference.json")
