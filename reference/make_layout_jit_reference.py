"""Record tests/data/layout_jit_reference.json from real JAX 0.10.2 (run by hand):

    XLA_FLAGS=--xla_force_host_platform_device_count=4 \
        .venv-jax/bin/python reference/make_layout_jit_reference.py

Layouts given to jit in Formats, on one device and over a 2x2 mesh of CPU devices
(tests/data/layout_jit_cases.py), compared by tests/xla/test_layout_jit.py.
"""
import jax
from recording import record_json

assert len(jax.devices()) >= 4, "run with XLA_FLAGS=--xla_force_host_platform_device_count=4"
record_json(jax, "layout_jit_cases", "layout_jit_reference.json")
