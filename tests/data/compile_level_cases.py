"""Programs whose trace is the same but which JAX 0.10.2 compiles again (or not): the
lowering/compile level of the recompile corpus (tests/data/recompile_cases.py holds the
tracing level). Each runs with DEVICES simulated CPU devices, under real JAX
(reference/make_compile_level_reference.py, with jax_log_compiles and
jax_explain_cache_misses on: tests/data/compile_level_reference.json) and under jxkernel
(tests/views/test_compile_level_corpus.py, one fresh process of DEVICES devices).

JAX's pjit keys its lowering on the arguments' resolved in_shardings: an uncommitted Array's is
UNSPECIFIED, a committed one's its sharding (device and memory kind), so a committed Array
and an uncommitted one of the same type are one trace and two programs; two committed to one
device, one program; committed to another device, another. Its "Compiling jit(f) with global
shapes and types [...]. Argument mapping: (...)" line says which: the mapping differs.

The format is recompile_cases.py's: name -> (what a learner did, source), run with `jax`,
`jnp` and `np` in its globals and the file name `<compile_level:NAME>`.
"""
import numpy as np

FILE_PREFIX = "<compile_level:"
DEVICES = 8

SCENARIOS = {
    "committed_then_uncommitted": (
        "an array put on device 0 explicitly, then an uncommitted one",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jax.device_put(jnp.ones(3), jax.devices()[0])); f(jnp.ones(3))\n"),
    "uncommitted_then_committed": (
        "an uncommitted array, then one put on device 0 explicitly",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3)); f(jax.device_put(jnp.ones(3), jax.devices()[0]))\n"),
    "committed_twice": (
        "two arrays put on device 0: one program",
        "f = jax.jit(lambda x: x * 2)\n"
        "d = jax.devices()[0]\n"
        "f(jax.device_put(jnp.ones(3), d)); f(jax.device_put(jnp.zeros(3), d))\n"),
    "committed_alternating": (
        "committed, uncommitted, committed, uncommitted: two programs",
        "f = jax.jit(lambda x: x * 2)\n"
        "v = jax.device_put(jnp.ones(3), jax.devices()[0])\n"
        "for x in (v, jnp.ones(3), v, jnp.ones(3)):\n"
        "    f(x)\n"),
    "committed_result_fed_back": (
        "a jitted function's result on a committed array fed back: committed too",
        "f = jax.jit(lambda x: x * 2)\n"
        "v = jax.device_put(jnp.ones(3), jax.devices()[0])\n"
        "f(f(v))\n"),
    "other_device": (
        "an array put on device 1, then one on device 0",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jax.device_put(jnp.ones(3), jax.devices()[1]))\n"
        "f(jax.device_put(jnp.ones(3), jax.devices()[0]))\n"),
    "other_device_then_uncommitted": (
        "an array put on device 1, then an uncommitted one",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jax.device_put(jnp.ones(3), jax.devices()[1])); f(jnp.ones(3))\n"),
    "every_device": (
        "the same function on each of four devices",
        "f = jax.jit(lambda x: x * 2)\n"
        "for d in jax.devices()[:4]:\n"
        "    f(jax.device_put(jnp.ones(3), d))\n"),
    "single_device_sharding": (
        "a SingleDeviceSharding given to device_put, after an uncommitted array",
        "f = jax.jit(lambda x: x * 2)\n"
        "s = jax.sharding.SingleDeviceSharding(jax.devices()[0])\n"
        "f(jnp.ones(3)); f(jax.device_put(jnp.ones(3), s))\n"),
    "named_sharding_replicated": (
        "a NamedSharding over all devices (replicated), after an uncommitted array",
        "f = jax.jit(lambda x: x * 2)\n"
        "mesh = jax.make_mesh((8,), ('i',))\n"
        "s = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec())\n"
        "f(jnp.ones(8)); f(jax.device_put(jnp.ones(8), s))\n"),
    "named_sharding_split": (
        "an array split over 8 devices, then replicated over them",
        "f = jax.jit(lambda x: x * 2)\n"
        "mesh = jax.make_mesh((8,), ('i',))\n"
        "P = jax.sharding.PartitionSpec\n"
        "f(jax.device_put(jnp.ones(8), jax.sharding.NamedSharding(mesh, P('i'))))\n"
        "f(jax.device_put(jnp.ones(8), jax.sharding.NamedSharding(mesh, P())))\n"),
    "one_device_mesh_sharding": (
        "a NamedSharding over a one-device mesh, then a SingleDeviceSharding of that device",
        "f = jax.jit(lambda x: x * 2)\n"
        "mesh = jax.make_mesh((1,), ('i',), devices=jax.devices()[:1])\n"
        "f(jax.device_put(jnp.ones(3), jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec())))\n"
        "f(jax.device_put(jnp.ones(3), jax.sharding.SingleDeviceSharding(jax.devices()[0])))\n"),
    "donation_committed": (
        "a donating jit called on a committed array, then an uncommitted one",
        "f = jax.jit(lambda x: x + 1, donate_argnums=0)\n"
        "f(jax.device_put(jnp.ones(3), jax.devices()[0])); f(jnp.ones(3))\n"),
    "in_shardings_given": (
        "in_shardings given: an uncommitted array, then a committed one, one program",
        "s = jax.sharding.SingleDeviceSharding(jax.devices()[0])\n"
        "f = jax.jit(lambda x: x * 2, in_shardings=s)\n"
        "f(jnp.ones(3)); f(jax.device_put(jnp.ones(3), s))\n"),
    "out_shardings_given": (
        "out_shardings given: an uncommitted array, then a committed one",
        "s = jax.sharding.SingleDeviceSharding(jax.devices()[0])\n"
        "f = jax.jit(lambda x: x * 2, out_shardings=s)\n"
        "f(jnp.ones(3)); f(jax.device_put(jnp.ones(3), s))\n"),
    "device_argument": (
        "jit(device=devices()[1]): an uncommitted array, then a committed one",
        "f = jax.jit(lambda x: x * 2, device=jax.devices()[1])\n"
        "f(jnp.ones(3)); f(jax.device_put(jnp.ones(3), jax.devices()[0]))\n"),
    "backend_argument": (
        "jit(backend='cpu'): an uncommitted array, then a committed one",
        "f = jax.jit(lambda x: x * 2, backend='cpu')\n"
        "f(jnp.ones(3)); f(jax.device_put(jnp.ones(3), jax.devices()[0]))\n"),
    "lower_compile_then_committed_call": (
        "f.lower(x).compile() on an uncommitted array, then f on a committed one",
        "f = jax.jit(lambda x: x * 2)\n"
        "f.lower(jnp.ones(3)).compile()\n"
        "f(jax.device_put(jnp.ones(3), jax.devices()[0]))\n"),
    "lower_compile_committed_then_call": (
        "f.lower(v).compile() on a committed array, then f(v)",
        "f = jax.jit(lambda x: x * 2)\n"
        "v = jax.device_put(jnp.ones(3), jax.devices()[0])\n"
        "f.lower(v).compile(); f(v)\n"),
    "default_device_other": (
        "a call inside jax.default_device(devices()[1]), then outside",
        "f = jax.jit(lambda x: x * 2)\n"
        "with jax.default_device(jax.devices()[1]):\n"
        "    f(jnp.ones(3))\n"
        "f(jnp.ones(3))\n"),
    "set_mesh_around_a_call": (
        "a call inside jax.set_mesh(mesh), then outside",
        "f = jax.jit(lambda x: x * 2)\n"
        "mesh = jax.make_mesh((8,), ('i',))\n"
        "with jax.set_mesh(mesh):\n"
        "    f(jnp.ones(8))\n"
        "f(jnp.ones(8))\n"),
    "x64_committed": (
        "jax_enable_x64 on for a second call of a committed array: a new trace",
        "f = jax.jit(lambda x: x * 2)\n"
        "v = jax.device_put(jnp.ones(3), jax.devices()[0])\n"
        "f(v)\n"
        "jax.config.update('jax_enable_x64', True)\n"
        "try:\n"
        "    f(v)\n"
        "finally:\n"
        "    jax.config.update('jax_enable_x64', False)\n"),
    "two_arguments_one_committed": (
        "two arguments: both uncommitted, then the second committed",
        "f = jax.jit(lambda a, b: a + b)\n"
        "f(jnp.ones(3), jnp.ones(3))\n"
        "f(jnp.ones(3), jax.device_put(jnp.ones(3), jax.devices()[0]))\n"),
    "numpy_then_committed": (
        "a NumPy array, then a committed array",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(np.ones(3, np.float32)); f(jax.device_put(jnp.ones(3), jax.devices()[0]))\n"),
    "committed_fixed": (
        "the fix: every call given the committed array's placement (device_put on device 0)",
        "f = jax.jit(lambda x: x * 2)\n"
        "d = jax.devices()[0]\n"
        "f(jax.device_put(jnp.ones(3), d)); f(jax.device_put(jnp.ones(3), d))\n"),
    # the note's fix pasted (tests/views/test_compile_level_corpus.py pastes each line of its
    # code before the line it names and checks the result is the _pasted scenario's source)
    "committed_named_calls": (
        "v put on device 0 and passed, then an uncommitted x, each by its name",
        "@jax.jit\n"
        "def f(x):\n"
        "    return x * 2\n"
        "v = jax.device_put(jnp.ones(3), jax.devices()[0])\n"
        "y = f(v)\n"
        "x = jnp.ones(3)\n"
        "y = f(x)\n"),
    "committed_named_calls_pasted": (
        "committed_named_calls with its note's code pasted: both committed, one program",
        "@jax.jit\n"
        "def f(x):\n"
        "    return x * 2\n"
        "v = jax.device_put(jnp.ones(3), jax.devices()[0])\n"
        "v = jax.device_put(v, jax.devices()[0])    # before line 5\n"
        "y = f(v)\n"
        "x = jnp.ones(3)\n"
        "x = jax.device_put(x, jax.devices()[0])    # before line 7\n"
        "y = f(x)\n"),
    "uncommitted_named_calls": (
        "an uncommitted x, then v put on device 0, each by its name",
        "@jax.jit\n"
        "def f(x):\n"
        "    return x * 2\n"
        "x = jnp.ones(3)\n"
        "y = f(x)\n"
        "v = jax.device_put(jnp.ones(3), jax.devices()[0])\n"
        "y = f(v)\n"),
    "uncommitted_named_calls_pasted": (
        "uncommitted_named_calls with its note's code pasted: both committed, one program",
        "@jax.jit\n"
        "def f(x):\n"
        "    return x * 2\n"
        "x = jnp.ones(3)\n"
        "x = jax.device_put(x, jax.devices()[0])    # before line 5\n"
        "y = f(x)\n"
        "v = jax.device_put(jnp.ones(3), jax.devices()[0])\n"
        "v = jax.device_put(v, jax.devices()[0])    # before line 7\n"
        "y = f(v)\n"),
}

RAISES = set()


def pasted(source: str, snippet: str) -> str:
    """`source` with each line of a note's `snippet` ("... # before line 5") put before the
    line it names."""
    out = []
    for number, line in enumerate(source.splitlines(), 1):
        out += [code for code in snippet.splitlines() if code.endswith(f"# before line {number}")]
        out.append(line)
    return "\n".join(out) + "\n"


def run(jax, name, tag=""):
    """Execute scenario `name` with `jax` (real JAX or jxkernel): its globals."""
    _, source = SCENARIOS[name]
    filename = f"{FILE_PREFIX}{name}{' ' + tag if tag else ''}>"
    env = {"jax": jax, "jnp": jax.numpy, "np": np, "FILE": filename, "__name__": name}
    exec(compile(source, filename, "exec"), env)
    return env
