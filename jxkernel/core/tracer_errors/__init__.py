"""What tracer errors say of a tracer, in JAX's words: where it came from, and, for one that
leaked, what still holds it.

- `origin.py`: where a staged value came from (the arguments it depends on, or the
  operations that made it a tracer), the sentence a tracer error adds
- `leaks.py`: the leak checker (`jax.checking_leaks`): a tracer still held after its trace
  finished; loaded only once leak checking is on
- `escaped.py`: the error for a tracer used after its trace finished
- `leak_graph.py`: the tracers a leaked one keeps alive, listed as JAX's checker lists them

Nothing is imported here, so that `leaks.py` stays unloaded until it is asked for.
"""
