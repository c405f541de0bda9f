"""Every compiled program is in the compile log (what the notebook's status bar counts, the
Compilations panel lists and %jxcompiles prints), with why: jit's cache misses, and pmap,
an eager shard_map, an ahead-of-time `.lower().compile()`, an eager operation."""
import os
import subprocess
import sys

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import compile_log
from jxkernel.xla import Phases


def test_record_compiled_says_what_changed_since_the_last_signature():
    first = compile_log.record_compiled("pmap(g_test)", (("args[0]", "f32[2,3]"),), Phases(),
                                        "cpu")
    again = compile_log.record_compiled("pmap(g_test)", (("args[0]", "f32[2,5]"),), Phases(),
                                        "cpu")
    assert (first.reason, again.reason) == ("first call", "args[0]: f32[2,3] -> f32[2,5]")
    assert compile_log.compile_events("pmap(g_test)")[-1].seq == again.seq


def test_an_ahead_of_time_compile_is_logged_against_its_jit():
    f = jax.jit(lambda x: x * 3.0)
    events = []
    unsubscribe = compile_log.subscribe(events.append)
    try:
        compiled = f.lower(jnp.ones(3)).compile()
        with compile_log.unlogged():                 # a tool's own compile stays out
            f.lower(jnp.ones(4)).compile()
    finally:
        unsubscribe()
    assert [(e.key is f, e.reason, e.signature) for e in events] == \
        [(True, "ahead of time: .lower(...).compile()", (("args[0]", "f32[3]"),))]
    assert compiled(jnp.ones(3)).tolist() == [3.0, 3.0, 3.0]


def test_an_eager_operation_that_compiles_is_logged():
    x = jnp.ones((3, 17, 2))                     # a shape no other test gives cos
    events = []
    unsubscribe = compile_log.subscribe(events.append)
    try:
        jnp.cos(x)
        jnp.cos(x)                               # compiled once per operand types
    finally:
        unsubscribe()
    # "first call", or what changed since the last shape another test gave cos in this worker
    assert [(e.function, e.signature) for e in events] == \
        [("cos (eager)", (("args[0]", "f32[3,17,2]"),))]
    assert events[0].reason == "first call" or events[0].reason.endswith("-> f32[3,17,2]"), \
        events[0].reason


SCRIPT = """
import jxkernel as jax, jxkernel.numpy as jnp
from jxkernel import compile_log
from jxkernel.sharding import AxisType, PartitionSpec as P
double = jax.pmap(lambda row: row * 2)
double(jnp.ones((4, 2))); double(jnp.ones((4, 2))); double(jnp.ones((4, 3)))
mesh = jax.make_mesh((4,), ("data",), axis_types=(AxisType.Auto,))
total = jax.shard_map(lambda b: jax.lax.psum(b.sum(), "data"), mesh=mesh, in_specs=P("data"),
                      out_specs=P())
total(jnp.ones(8))
first = len(compile_log.compile_events())
total(jnp.ones(8))
for e in compile_log.compile_events():
    print(e.function, "|", e.reason, "|", compile_log.signature_text(e.signature))
print(first)
"""


def test_pmap_and_shard_map_compilations_are_logged_once_each_with_the_reason():
    ran = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         timeout=120, env=dict(os.environ, JXKERNEL_CPU_DEVICES="4"))
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert lines[:2] == [
        "pmap(<lambda>) | first call | args[0]: f32[4,2]",
        "pmap(<lambda>) | args[0]: f32[4,2] -> f32[4,3] | args[0]: f32[4,3]",
    ]
    # called outside jit, the shard_map runs eagerly as JAX's: its input split into blocks,
    # each primitive on every device's blocks, the blocks put together (a program each),
    # all on the first call; the second call compiles nothing
    assert lines[2] == "shard_map | first call | args[0]: f32[8] P()"
    assert all(line.startswith("shard_map | ") for line in lines[3:-1])
    assert int(lines[-1]) == len(lines) - 1
