"""Transfer-guard cases run by JAX (reference/make_runtime_state_reference.py records its answers
in runtime_state_reference.json) and by jxkernel (tests/xla/test_runtime_state.py, in a process with
two CPU devices): which transfers each level refuses, and the words it refuses them with.

Each case is a function of (jax, jnp, x, d1): x = jnp.arange(3.0) on the default device, left
uncommitted; d1 is the second device. Programs are compiled before any guard is set."""
import numpy as np

HOST = np.ones(3, np.float32)

CASES = {
    "jit_numpy_argument": lambda jax, jnp, f, x, d1: f(HOST),
    "jit_python_scalar": lambda jax, jnp, f, x, d1: f(1.0),
    "jit_array": lambda jax, jnp, f, x, d1: f(x),
    "add_numpy_operand": lambda jax, jnp, f, x, d1: jnp.add(x, HOST),
    "add_arrays": lambda jax, jnp, f, x, d1: x * x,
    "asarray_numpy": lambda jax, jnp, f, x, d1: jnp.asarray(HOST),
    "array_numpy": lambda jax, jnp, f, x, d1: jnp.array(HOST),
    "device_put_numpy": lambda jax, jnp, f, x, d1: jax.device_put(HOST),
    "device_put_numpy_to_d1": lambda jax, jnp, f, x, d1: jax.device_put(HOST, d1),
    "device_put_array_to_d1": lambda jax, jnp, f, x, d1: jax.device_put(x, d1),
    # split over both devices (what device_put_sharded did before JAX 0.10 removed it)
    "device_put_numpy_split": lambda jax, jnp, f, x, d1: jax.device_put(
        np.ones((2, 2), np.float32), jax.sharding.NamedSharding(
            jax.sharding.Mesh(np.array(jax.devices()), ("x",)), jax.sharding.PartitionSpec("x"))),
    "default_device_d1_moves_array": lambda jax, jnp, f, x, d1: on_device(jax, d1, jnp.sin, x),
    "np_asarray_of_array": lambda jax, jnp, f, x, d1: np.asarray(x),
    "tolist": lambda jax, jnp, f, x, d1: x.tolist(),
    "repr": lambda jax, jnp, f, x, d1: repr(x),
    "device_get": lambda jax, jnp, f, x, d1: jax.device_get(x),
}
LEVELS = ("allow", "disallow", "disallow_explicit")


def on_device(jax, device, fun, *args):
    """fun(*args) run with `device` as the default device; the devices of the result."""
    with jax.default_device(device):
        return sorted(d.id for d in fun(*args).devices())


def outcome(run) -> str:
    """"ok" (or the device ids a case returns), or what the guard said up to the end of its first sentence (after JAX's
    "INVALID_ARGUMENT: " status prefix); other errors by class name."""
    try:
        result = run()
        return result if isinstance(result, list) else "ok"
    except Exception as e:
        text = str(e)
        if "Disallowed" not in text:
            return f"{type(e).__name__}: {text[:200]}"
        return text[text.index("Disallowed"):].split(". ")[0]


def run(jax) -> dict:
    """{level: {case: outcome}} under each level of jax.transfer_guard."""
    jnp = jax.numpy
    d1 = jax.devices()[1]
    x = jnp.arange(3.0)
    f = jax.jit(lambda v: v * 2)
    f(x), f(1.0), f(jnp.asarray(HOST)), x * x, jnp.add(x, x)      # compiled before the guards
    on_device(jax, d1, jnp.sin, x)
    results = {}
    for level in LEVELS:
        with jax.transfer_guard(level):
            results[level] = {name: outcome(lambda: case(jax, jnp, f, x, d1))
                              for name, case in CASES.items()}
    return results
