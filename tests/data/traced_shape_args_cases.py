"""A traced value where a jnp function needs a static shape, size, count or axis (stop 78,
explain14), and a tracer used as a dict key: `run(jax)` gives, per case, JAX's exception class
and whole message (None where the call works). Each program is one line, so the message's
"tracing the function <lambda> at <string>:1" is the same under both. Recorded from JAX
0.10.2 by reference/make_traced_shape_args_reference.py into
tests/data/traced_shape_args_reference.json; tests/numpy/test_traced_shape_args.py
compares."""
import re

# each program jits a lambda whose argument is the traced value (n a size or count, a an
# axis, r repeats): x = arange(1., 5.), m = ones((2, 3))
CASES = {
    # a size: JAX's TypeError "Shapes must be 1D sequences of concrete values ..."
    "eye": "jax.jit(lambda n: jnp.eye(n))(3)",
    "eye_M": "jax.jit(lambda n: jnp.eye(3, n))(3)",
    "identity": "jax.jit(lambda n: jnp.identity(n))(3)",
    "tri": "jax.jit(lambda n: jnp.tri(n))(3)",
    "zeros": "jax.jit(lambda n: jnp.zeros(n))(3)",
    "zeros_tuple": "jax.jit(lambda n: jnp.zeros((n, 2)))(3)",
    "zeros_square": "jax.jit(lambda n: jnp.zeros((n, n)))(3)",
    "ones": "jax.jit(lambda n: jnp.ones(n))(3)",
    "empty": "jax.jit(lambda n: jnp.empty(n))(3)",
    "full": "jax.jit(lambda n: jnp.full(n, 1.0))(3)",
    "zeros_like_shape": "jax.jit(lambda n: jnp.zeros_like(x, shape=(n,)))(2)",
    "reshape": "jax.jit(lambda n: jnp.reshape(x, (n, -1)))(2)",
    "reshape_method": "jax.jit(lambda n: x.reshape(n, -1))(2)",
    "broadcast_to": "jax.jit(lambda n: jnp.broadcast_to(x, (n, 4)))(2)",
    # a count or a length: JAX's ConcretizationTypeError, its second line each function's
    "arange": "jax.jit(lambda n: jnp.arange(n))(3)",
    "arange_stop": "jax.jit(lambda n: jnp.arange(0, n))(3)",
    "linspace_num": "jax.jit(lambda n: jnp.linspace(0.0, 1.0, n))(3)",
    "repeat": "jax.jit(lambda r: jnp.repeat(x, r))(2)",
    "bincount_length": "jax.jit(lambda n: jnp.bincount(jnp.array([0, 1, 1]), length=n))(3)",
    "linspace_axis": "jax.jit(lambda a: jnp.linspace(0.0, 1.0, 3, axis=a))(0)",
    "logspace_num": "jax.jit(lambda n: jnp.logspace(0.0, 1.0, n))(3)",
    "geomspace_num": "jax.jit(lambda n: jnp.geomspace(1.0, 2.0, n))(3)",
    "permutation": "jax.jit(lambda n: jax.random.permutation(jax.random.key(0), n))(3)",
    "split": "jax.jit(lambda n: jnp.split(x, n))(2)",
    "array_split": "jax.jit(lambda n: jnp.array_split(x, n))(2)",
    # the tile primitive's parameter: JAX's TypeError on an unhashable parameter
    "tile": "jax.jit(lambda r: jnp.tile(x, r))(2)",
    "tile_tuple": "jax.jit(lambda r: jnp.tile(x, (r, 1)))(2)",
    "tile_rank_2": "jax.jit(lambda r: jnp.tile(m, r))(2)",
    # an axis
    "roll_axis": "jax.jit(lambda a: jnp.roll(x, 1, axis=a))(0)",
    "expand_dims": "jax.jit(lambda a: jnp.expand_dims(x, a))(0)",
    "squeeze": "jax.jit(lambda a: jnp.squeeze(m[:1], a))(0)",
    "moveaxis": "jax.jit(lambda a: jnp.moveaxis(m, a, 1))(0)",
    "flip_axis": "jax.jit(lambda a: jnp.flip(x, axis=a))(0)",
    "sum_axis": "jax.jit(lambda a: jnp.sum(x, axis=a))(0)",
    "min_method_axis": "jax.jit(lambda a: x.min(a))(0)",
    "mean_axis": "jax.jit(lambda a: jnp.mean(x, axis=a))(0)",
    "repeat_axis": "jax.jit(lambda a: jnp.repeat(x, 2, axis=a))(0)",
    "split_axis": "jax.jit(lambda a: jnp.split(x, 2, axis=a))(0)",
    "array_split_axis": "jax.jit(lambda a: jnp.array_split(x, 2, axis=a))(0)",
    "concatenate_axis": "jax.jit(lambda a: jnp.concatenate([x, x], axis=a))(0)",
    "stack_axis": "jax.jit(lambda a: jnp.stack([x, x], axis=a))(0)",
    "take_axis": "jax.jit(lambda a: jnp.take(x, jnp.array([0]), axis=a))(0)",
    "argmax_axis": "jax.jit(lambda a: jnp.argmax(x, axis=a))(0)",
    "transpose_axes": "jax.jit(lambda a: jnp.transpose(m, (a, 0)))(1)",
    # a traced value as a dict key, a set's element, hashed (jit, grad, vmap)
    "dict_key": "jax.jit(lambda v: {v: 1})(1.0)",
    "dict_lookup": "jax.jit(lambda v: {1.0: 2}[v])(1.0)",
    "set_element": "jax.jit(lambda v: {v})(1.0)",
    "hash": "jax.jit(lambda v: hash(v))(1.0)",
    "dict_key_grad": "jax.grad(lambda v: {v: 1} and v)(1.0)",
    "dict_key_vmap": "jax.vmap(lambda v: {v: 1} and v)(jnp.ones(2))",
}


# the same errors where no argument can be static (JAX's message alike in each): under vmap
# alone, made from constants, a loop's index, an argument that came as an array
VARIANTS = {
    "arange_vmap": "jax.vmap(lambda n: jnp.arange(n))(jnp.array([3]))",
    "arange_constant": "jax.jit(lambda: jnp.arange(jnp.array(3) + 1))()",
    "arange_fori": "jax.lax.fori_loop(0, 3, lambda i, c: c + jnp.arange(i).sum(), 0)",
    "arange_array_argument": "jax.jit(lambda n: jnp.arange(n))(jnp.array(3))",
    "concatenate_axis_vmap": "jax.vmap(lambda a: jnp.concatenate([x, x], axis=a))(jnp.array([0]))",
    "concatenate_axis_fori": ("jax.lax.fori_loop(0, 1, lambda i, c: c + jnp.concatenate([x, x], "
                              "axis=i).sum(), 0.0)"),
    # vmap's tracer as tile's counts: no jaxpr is staged, the hash fails ("unhashable type")
    "tile_vmap": "jax.vmap(lambda r: jnp.tile(x, (r,)))(jnp.array([1, 2]))",
}

# JAX's error for a traced hash alone: no argument to make static
UNHASHED = ("dict_key", "dict_lookup", "set_element", "hash", "dict_key_grad", "dict_key_vmap")


def static(line: str) -> str:
    """A case's program with its lambda's argument made static, as the concretization card
    rewrites it: `jax.jit(lambda n: f(n), static_argnames=('n',))(3)`."""
    name, body, argument = re.fullmatch(r"jax\.jit\(lambda (\w+): (.*)\)\((.*)\)", line).groups()
    return f"jax.jit(lambda {name}: {body}, static_argnames=('{name}',))({argument})"


def fixed(jax) -> dict:
    """{case: the leaves of what its program made static computes, as lists}."""
    import numpy as np
    jnp = jax.numpy
    names = {"jax": jax, "jnp": jnp, "x": jnp.arange(1.0, 5.0), "m": jnp.ones((2, 3))}
    values = {}
    for case, line in CASES.items():
        if case not in UNHASHED:
            out = eval(static(line), dict(names))
            values[case] = [np.asarray(v).tolist() for v in jax.tree_util.tree_leaves(out)]
    return values


def run(jax) -> dict:
    """{case: {"error": the exception's class name, "message": its whole text} or None}."""
    jnp = jax.numpy
    names = {"jax": jax, "jnp": jnp, "x": jnp.arange(1.0, 5.0), "m": jnp.ones((2, 3))}
    found = {}
    for case, line in {**CASES, **VARIANTS}.items():
        try:
            jax.block_until_ready(eval(line, dict(names)))
        except Exception as e:  # noqa: BLE001  the error is the answer
            found[case] = {"error": type(e).__name__,
                           "message": re.sub(r"object id \d+", "object id N",
                                             re.sub(r" at 0x[0-9a-f]+", "", str(e)))}
        else:
            found[case] = None
    return found
