"""jax.config.parse_flags_with_absl: options from `--jax_...` command-line flags, as JAX's test
programs (Flax's, Optax's) set them before their tests run."""
from doc_examples import check_docstring_examples

from jxkernel.config import config


def test_docstring_examples():
    check_docstring_examples("jxkernel.config")


def test_flags_set_options_and_leave_the_rest_alone():
    before = (config.jax_log_compiles, config.jax_platforms)
    try:
        config.parse_flags_with_absl(["prog", "--jax_log_compiles", "--jax_platforms=cpu",
                                      "--jax_option_jxkernel_lacks=3", "-k", "--other=1"])
        assert (config.jax_log_compiles, config.jax_platforms) == (True, "cpu")
        config.parse_flags_with_absl(["prog", "--nojax_log_compiles"])
        assert config.jax_log_compiles is False
    finally:
        config.update("jax_log_compiles", before[0])
        config.update("jax_platforms", before[1])
