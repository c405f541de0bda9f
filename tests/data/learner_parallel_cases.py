"""A learner's mistakes in JAX's parallel tutorials ("Introduction to parallel programming",
"Manual parallelism with shard_map"), on 8 CPU devices and a mesh of ('i': 4, 'j': 2):
`run(jax)` gives, per case, the exception's class and first line (None where the program
works) or the value a fix computes. The fixes are those the unbound-axis card advises
(REWRITES: tests/notebook/test_learner_parallel.py checks the card's text is this one), run
as written. The reference (learner_parallel_reference.json) is real JAX 0.10.2's, written by
reference/make_learner_parallel_reference.py."""
import numpy as np

from learner_cells import said  # tests/data


# The learners' programs; each line that fails is the card's `where` (this file is theirs).
def psum_outside(jax, jnp):
    total = jax.lax.psum(jnp.ones(4), 'i')
    return total


def pmean_outside(jax, jnp, x):
    m = jax.lax.pmean(x, 'i')
    return m


def psum_outside_other_axis(jax, jnp):
    s = jax.lax.psum(jnp.ones(4), 'X')
    return s


def axis_index_outside(jax, jnp):
    jax.lax.axis_index('i')


def psum_other_axis(jax, jnp, x, check_vma):
    def g(v):
        return jax.lax.psum(v, 'k')
    return jax.shard_map(g, in_specs=jax.P('i'), out_specs=jax.P('i'), check_vma=check_vma)(x)


# What the card advises for each, as it words it (names as the programs above have them)
REWRITES = {
    "psum_outside": (
        "total = jnp.sum(jnp.ones(4))    # the whole array's sum: no collective outside "
        "shard_map\n"
        "# or each device's block of jnp.ones(4), combined over 'i' (its length a multiple "
        "of the axis size):\n"
        "blocks = jax.shard_map(lambda b: jax.lax.psum(b, 'i'), in_specs=jax.P('i'), "
        "out_specs=jax.P())(jax.device_put(jnp.ones(4), jax.P('i')))"),
    "pmean_outside": (
        "m = jnp.mean(x)    # the whole array's mean: no collective outside shard_map\n"
        "# or each device's block of x, combined over 'i' (its length a multiple of the axis "
        "size):\n"
        "blocks = jax.shard_map(lambda b: jax.lax.pmean(b, 'i'), in_specs=jax.P('i'), "
        "out_specs=jax.P())(jax.device_put(x, jax.P('i')))"),
    "psum_outside_other_axis": (
        "s = jnp.sum(jnp.ones(4))    # the whole array's sum: no collective outside shard_map"),
    "axis_index_outside": (
        "index = jax.shard_map(lambda: jax.lax.axis_index('i').reshape(1), in_specs=(), "
        "out_specs=jax.P('i'))()    # each device's index along 'i'"),
    "psum_other_axis": "return jax.lax.psum(v, 'i')    # or another axis of the mesh: 'j'",
    # (run in a fresh process: reference/make_learner_parallel_reference.py, the test)
    "late_device_count": (
        "import jax\njax.config.update('jax_num_cpu_devices', 16)    # the first cell of a "
        "restarted kernel, before any operation"),
    "two_meshes": (
        "a = jax.device_put(a, jax.P())    # onto set_mesh's mesh, whole on each device\n"
        "b = jax.device_put(b, jax.P())    # onto set_mesh's mesh, whole on each device\n"
        "c = a + b"),
}


# what the late_device_count rewrite, run first in a fresh process, counts
COUNT_AFTER = "\nprint(jax.device_count())"


def _values(scope) -> dict:
    return {k: np.asarray(v).tolist() for k, v in sorted(scope.items())
            if k not in ("jax", "jnp", "x", "a", "b") and hasattr(v, "dtype")}


def _fixed(jax, case, x):
    """The names the card's rewrite for `case` binds, run as written (the line of a function
    body: as that body)."""
    code = REWRITES[case]
    scope = {"jax": jax, "jnp": jax.numpy, "x": x}
    if case == "two_meshes":
        scope["a"], scope["b"] = _two_mesh_arrays(jax, jax.numpy)
    if code.startswith("return "):
        body = "def g(v):\n    " + code + "\nout = jax.shard_map(g, in_specs=jax.P('i'), " \
               "out_specs=jax.P('i'))(x)"
        exec(body, scope)
        return {"out": np.asarray(scope["out"]).tolist()}
    exec(code, scope)
    return _values(scope)


def late_device_count(jax):
    jax.config.update('jax_num_cpu_devices', 16)


def _two_mesh_arrays(jax, jnp):
    """Arrays put on the first four devices' mesh and on the last four's."""
    devices = np.array(jax.devices())
    lo = jax.sharding.Mesh(devices[:4], ('d',))
    hi = jax.sharding.Mesh(devices[4:], ('d',))
    return (jax.device_put(jnp.arange(8.), jax.NamedSharding(lo, jax.P('d'))),
            jax.device_put(jnp.arange(8.), jax.NamedSharding(hi, jax.P('d'))))


def two_meshes(jax, jnp):
    """The two added under set_mesh of all eight devices."""
    a, b = _two_mesh_arrays(jax, jnp)
    c = a + b
    return c


def run(jax) -> dict:
    jnp = jax.numpy
    jax.set_mesh(jax.make_mesh((4, 2), ('i', 'j')))
    x = jax.device_put(jnp.arange(8.), jax.P('i'))
    out = {
        "psum_outside": said(lambda: psum_outside(jax, jnp)),
        "pmean_outside": said(lambda: pmean_outside(jax, jnp, x)),
        "axis_index_outside": said(lambda: axis_index_outside(jax, jnp)),
        "psum_outside_other_axis": said(lambda: psum_outside_other_axis(jax, jnp)),
        # (JAX 0.10.2 with check_vma=True fails an internal assert, a bare AssertionError:
        # jxkernel raises the NameError it raises with check_vma=False, below)
        "psum_other_axis": said(lambda: psum_other_axis(jax, jnp, x, False)),
        "two_meshes": said(lambda: two_meshes(jax, jnp)),
        "late_device_count": said(lambda: late_device_count(jax)),
    }
    for case in set(REWRITES) - {"late_device_count"}:
        out[case + "_fixed"] = _fixed(jax, case, x)
    return out
