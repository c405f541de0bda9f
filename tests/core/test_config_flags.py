"""jax.config.parse_flags_with_absl and config_with_absl: options from `--jax_...`
command-line flags, as JAX's test programs (Flax's, Optax's) and absl apps set them."""
import pytest
from doc_examples import check_docstring_examples
from fresh_process import run_code

from jxkernel.config import config


def test_docstring_examples():
    # the module's example turns x64 on: put every option back, or the tests after this one
    # in the same worker run with 64-bit types
    before = config.values()
    try:
        check_docstring_examples("jxkernel.config")
    finally:
        for name, value in before.items():
            if config.read(name) != value:
                config.update(name, value)


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


def test_config_with_absl_defines_flags_that_absl_apps_set():
    # JAX's config_with_absl: an absl flag per option, read once app.run has parsed argv
    # (a fresh process: absl's flags are process-wide and defined once)
    pytest.importorskip("absl")
    out = run_code("""
        from absl import app
        import jxkernel as jax
        jax.config.config_with_absl()
        def main(argv):
            c = jax.config
            print(c.use_absl, c.jax_enable_x64, c.jax_numpy_rank_promotion,
                  c.jax_persistent_cache_min_compile_time_secs, c.jax_log_compiles, argv[1:])
        app.run(main, argv=["prog", "--jax_enable_x64", "--jax_numpy_rank_promotion=warn",
                            "--jax_persistent_cache_min_compile_time_secs=2.5", "rest"])
    """)
    assert out.stdout.splitlines()[-1] == "True True warn 2.5 False ['rest']"


def test_parse_flags_with_absl_leaves_absls_flags_parsed():
    # JAX's parses absl's flags (the --jax ones, known only): absltest's create_tempdir then
    # reads FLAGS.test_tmpdir, which absl refuses before a parse (Flax's checkpoints_test)
    pytest.importorskip("absl")
    out = run_code("""
        import sys
        sys.argv = ["prog", "--jax_log_compiles", "-k", "x"]
        from absl import flags
        from absl.testing import absltest
        import jxkernel as jax
        print(flags.FLAGS.is_parsed(), end=" ")
        jax.config.parse_flags_with_absl()
        print(flags.FLAGS.is_parsed(), bool(flags.FLAGS.test_tmpdir), jax.config.use_absl,
              jax.config.jax_log_compiles)
    """)
    assert out.stdout.splitlines()[-1] == "False True True True True"
