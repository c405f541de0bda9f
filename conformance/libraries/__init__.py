"""The libraries' own test suites (Optax, Chex, Equinox, Flax) under jxkernel and under JAX.

`python -m conformance.libraries run all` fetches each library's source with its tests at the
version conformance/README.md names, runs the files of the README's tables one pytest process
at a time in a venv per side, and `... compare` sets the counts beside the README's. See
__main__.py for the commands and conformance/README.md for what a run records.
"""
