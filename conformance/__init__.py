"""Differential conformance harness: JAX-style programs run under real JAX and jxkernel.

Each program in ``programs/`` is plain JAX code (``import jax``). Real JAX's output is
recorded once by ``reference/make_conformance_reference.py`` into ``expected/``; the
harness (``python -m conformance.run``) runs every program with ``jax`` aliased to
jxkernel and compares what it prints and the arrays it leaves in ``RESULTS``.
"""
