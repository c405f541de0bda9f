"""Cases for lax/parallel/'s data-moving collectives (and all_gather, grouped psum), evaluated
by real JAX (reference/make_collectives_more_reference.py writes
collectives_more_reference.npz and collectives_more_jaxprs.json) and by jxkernel
(tests/lax/test_collectives.py). Every case is a per-member function of one array over the
axis 'i' of size 4; it runs under vmap and pmap (those of `pmap_only` under pmap only)."""
import numpy as np

N = 4
CYCLE = [(0, 1), (1, 2), (2, 3), (3, 0)]


def operands():
    rng = np.random.RandomState(0)
    return {
        "x42": np.arange(8.0, dtype=np.float32).reshape(N, 2),
        "x443": rng.randn(N, 4, 3).astype(np.float32),
        "x434": rng.randn(N, 3, 4).astype(np.float32),
        "x483": rng.randn(N, 8, 3).astype(np.float32),
        "x44": np.arange(16.0, dtype=np.float32).reshape(N, 4),
    }


def _grad(jax, jnp, f, shape_out):
    w = np.linspace(-1.0, 2.0, int(np.prod(shape_out)), dtype=np.float32).reshape(shape_out)
    return jax.grad(lambda x: jnp.sum(jnp.sin(f(x)) * w))


def cases(jax, jnp, lax):
    """name -> (per-member function, operand name)."""
    return {
        "ppermute_cycle": (lambda x: lax.ppermute(x, "i", CYCLE), "x42"),
        "ppermute_negative": (lambda x: lax.ppermute(x, "i", [(-1, 0), (0, 1), (1, 2), (2, 3)]),
                              "x42"),
        "ppermute_pytree": (lambda x: lax.ppermute((x, 2 * x), "i", CYCLE)[1], "x42"),
        "pshuffle": (lambda x: lax.pshuffle(x, "i", [1, 2, 3, 0]), "x42"),
        "all_to_all_0_1": (lambda x: lax.all_to_all(x, "i", 0, 1), "x443"),
        "all_to_all_0_0": (lambda x: lax.all_to_all(x, "i", 0, 0), "x443"),
        "all_to_all_1_0": (lambda x: lax.all_to_all(x, "i", 1, 0), "x434"),
        "all_to_all_tiled": (lambda x: lax.all_to_all(x, "i", 0, 1, tiled=True), "x483"),
        "pswapaxes": (lambda x: lax.pswapaxes(x, "i", 0), "x443"),
        "psum_scatter": (lambda x: lax.psum_scatter(x, "i"), "x443"),
        "psum_scatter_dim1": (lambda x: lax.psum_scatter(x, "i", scatter_dimension=1), "x434"),
        "psum_scatter_tiled": (lambda x: lax.psum_scatter(x, "i", tiled=True), "x483"),
        "all_gather_tiled_axis1": (lambda x: lax.all_gather(x, "i", axis=1, tiled=True), "x443"),
        "axis_size": (lambda x: x * lax.axis_size("i"), "x42"),
        "grad_ppermute": (_grad(jax, jnp, lambda x: lax.ppermute(x, "i", CYCLE), (2,)), "x42"),
        "grad_psum_scatter": (_grad(jax, jnp, lambda x: lax.psum_scatter(x, "i"), (3,)), "x443"),
        "grad_psum_scatter_tiled": (_grad(jax, jnp, lambda x: lax.psum_scatter(x, "i", tiled=True),
                                          (2, 3)), "x483"),
        "grad_all_gather": (_grad(jax, jnp, lambda x: lax.all_gather(x, "i"), (N, 2)), "x42"),
        "grad_all_to_all_tiled": (_grad(jax, jnp,
                                        lambda x: lax.all_to_all(x, "i", 0, 1, tiled=True),
                                        (2, 12)), "x483"),
        "grad_pswapaxes": (_grad(jax, jnp, lambda x: lax.pswapaxes(x, "i", 0), (4, 3)), "x443"),
    }


def pmap_only(jax, jnp, lax):
    """Cases JAX runs under pmap only: axis_index_groups, and a ppermute that is not a full
    permutation (JAX's vmap asserts; jxkernel's vmap gives pmap's answer, zeros where nobody
    sends)."""
    g = [[0, 2], [1, 3]]
    return {
        "ppermute_partial": (lambda x: lax.ppermute(x, "i", [(0, 1), (2, 0)]), "x42"),
        "psum_groups": (lambda x: lax.psum(x, "i", axis_index_groups=g), "x42"),
        "pmax_groups": (lambda x: lax.pmax(x, "i", axis_index_groups=g), "x42"),
        "pmean_groups": (lambda x: lax.pmean(x, "i", axis_index_groups=g), "x42"),
        "all_gather_groups": (lambda x: lax.all_gather(x, "i", axis_index_groups=g), "x42"),
        "psum_scatter_groups": (lambda x: lax.psum_scatter(
            x, "i", axis_index_groups=[[0, 2], [3, 1]], tiled=True), "x44"),
        "all_to_all_groups": (lambda x: lax.all_to_all(x, "i", 0, 0,
                                                       axis_index_groups=[[0, 1], [2, 3]]), "x42"),
    }


# The cases whose floats may differ per CPU, with their bound in ulps measured at the result's
# largest |value| (sums of members' values cancel); every other case moves data or scales it
# by an integer and is compared bit for bit. All were bit-identical to the AMD-recorded data on
# Intel AVX-512, AVX2 and SSE4.2 code generation; 4 allows a sum of four members taken in
# another order and XLA's cos (the gradients of sin) on another ISA.
ULPS = {name: 4 for name in [
    "psum_scatter", "psum_scatter_dim1", "psum_scatter_tiled", "grad_ppermute",
    "grad_psum_scatter", "grad_psum_scatter_tiled", "grad_all_gather", "grad_all_to_all_tiled",
    "grad_pswapaxes", "psum_groups", "pmean_groups", "psum_scatter_groups"]}

# cases whose jaxpr (traced per member with axis 'i' of size 4) is compared as text
JAXPRS = ["ppermute_cycle", "pshuffle", "all_to_all_0_1", "all_to_all_tiled", "pswapaxes",
          "psum_scatter", "psum_scatter_tiled", "all_gather_tiled_axis1", "axis_size",
          "grad_ppermute", "grad_psum_scatter", "grad_all_gather", "psum_groups",
          "all_gather_groups", "psum_scatter_groups"]
